package org.nd4j.linalg.api.ops.impl.reduce.same;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.BaseOp;

/**
 * Maximum over all of x or along {@code dimensions}, as ND4J's Max: exec returns the result (a new
 * array, or copied into z when given).
 */
public class Max extends BaseOp {
  private int[] dimensions = new int[0];
  private boolean keepDims;

  public Max() {}

  public Max(INDArray x, int... dimensions) {
    this(x, null, false, dimensions);
  }

  public Max(INDArray x, boolean keepDims, int... dimensions) {
    this(x, null, keepDims, dimensions);
  }

  public Max(INDArray x, INDArray z, int... dimensions) {
    this(x, z, false, dimensions);
  }

  public Max(INDArray x, INDArray z, boolean keepDims, int... dimensions) {
    super(x, null, z);
    this.keepDims = keepDims;
    this.dimensions = dimensions == null ? new int[0] : dimensions;
  }

  public int[] dimensions() {
    return dimensions.clone();
  }

  @Override
  public String opName() {
    return "reduce_max";
  }

  @Override
  public INDArray exec() {
    INDArray r = x.max(keepDims, dimensions);
    if (z == null) {
      z = r;
    } else {
      z.assign(r);
    }
    return z;
  }
}
