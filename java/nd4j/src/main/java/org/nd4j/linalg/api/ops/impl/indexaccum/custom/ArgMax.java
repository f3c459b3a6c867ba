package org.nd4j.linalg.api.ops.impl.indexaccum.custom;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.ndrt.nd4j.BaseCustomOp;

/**
 * ND4J's ArgMax custom op: the index of the largest element along the dimensions (all of them when
 * none are given), int64, the reduced dimensions dropped or kept as size 1. The work is
 * {@code INDArray.argMax} (the runtime's argmax); {@code Nd4j.getExecutioner().exec(op)} returns
 * {indices}, written into the output array when one was given.
 */
public class ArgMax extends BaseCustomOp {
  private final boolean keepDims;
  private final int[] dimensions;

  public ArgMax(INDArray x, int... dimensions) {
    this(x, false, dimensions);
  }

  public ArgMax(INDArray x, boolean keepDims, int... dimensions) {
    this(new INDArray[] {x}, keepDims, dimensions);
  }

  public ArgMax(INDArray x, INDArray z, boolean keepDims, int... dimensions) {
    super(new INDArray[] {x}, z == null ? new INDArray[0] : new INDArray[] {z});
    this.keepDims = keepDims;
    this.dimensions = dimensions == null ? new int[0] : dimensions.clone();
  }

  /** ND4J's form: inputs {x}, keepDims, dimensions. */
  public ArgMax(INDArray[] inputs, boolean keepDims, int[] dimensions) {
    this(inputs[0], null, keepDims, dimensions);
    if (inputs.length != 1) {
      throw new IllegalArgumentException("ArgMax takes one input array, got " + inputs.length);
    }
  }

  @Override
  public String opName() {
    return "argmax";
  }

  @Override
  public INDArray[] run() {
    INDArray x = inputs.get(0);
    INDArray r = x.argMax(dimensions);
    if (keepDims) {
      long[] shape = x.shape().clone();
      if (dimensions.length == 0) {
        java.util.Arrays.fill(shape, 1);
      } else {
        for (int d : dimensions) {
          shape[d < 0 ? d + shape.length : d] = 1;
        }
      }
      r = r.reshape(shape);
    }
    if (!outputs.isEmpty()) {
      outputs.get(0).assign(r);
      return new INDArray[] {outputs.get(0)};
    }
    outputs.add(r);
    return new INDArray[] {r};
  }
}
