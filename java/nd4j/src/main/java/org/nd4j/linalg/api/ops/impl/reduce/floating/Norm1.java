package org.nd4j.linalg.api.ops.impl.reduce.floating;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.BaseOp;

/**
 * Sum of absolute values over all of x or along {@code dimensions}, as ND4J's Norm1: exec returns the result (a new
 * array, or copied into z when given).
 */
public class Norm1 extends BaseOp {
  private int[] dimensions = new int[0];
  private boolean keepDims;

  public Norm1() {}

  public Norm1(INDArray x, int... dimensions) {
    this(x, null, false, dimensions);
  }

  public Norm1(INDArray x, boolean keepDims, int... dimensions) {
    this(x, null, keepDims, dimensions);
  }

  public Norm1(INDArray x, INDArray z, int... dimensions) {
    this(x, z, false, dimensions);
  }

  public Norm1(INDArray x, INDArray z, boolean keepDims, int... dimensions) {
    super(x, null, z);
    this.keepDims = keepDims;
    this.dimensions = dimensions == null ? new int[0] : dimensions;
  }

  public int[] dimensions() {
    return dimensions.clone();
  }

  @Override
  public String opName() {
    return "norm1";
  }

  @Override
  public INDArray exec() {
    INDArray r = x.norm1(keepDims, dimensions);
    if (z == null) {
      z = r;
    } else {
      z.assign(r);
    }
    return z;
  }
}
