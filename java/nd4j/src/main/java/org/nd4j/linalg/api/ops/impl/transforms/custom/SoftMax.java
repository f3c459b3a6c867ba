package org.nd4j.linalg.api.ops.impl.transforms.custom;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.ndrt.Ops;
import org.ndrt.nd4j.ArrayCore;
import org.ndrt.nd4j.BaseCustomOp;

/**
 * Softmax along a dimension (the last by default) into z (a new array when not given: ND4J's custom
 * op allocates its output), as ND4J's SoftMax. {@code Nd4j.exec(op)} returns {z}.
 */
public class SoftMax extends BaseCustomOp {
  private final int dimension;

  public SoftMax(INDArray x) {
    this(x, null, -1);
  }

  public SoftMax(INDArray x, int dimension) {
    this(x, null, dimension);
  }

  public SoftMax(INDArray x, INDArray z) {
    this(x, z, -1);
  }

  public SoftMax(INDArray x, INDArray z, int dimension) {
    super(new INDArray[] {x}, new INDArray[] {z == null ? x.ulike() : z});
    this.dimension = dimension;
  }

  @Override
  public String opName() {
    return "softmax";
  }

  @Override
  public INDArray[] run() {
    INDArray z = outputs.get(0);
    Ops.softmax(ArrayCore.tensorOf(inputs.get(0)), dimension, ArrayCore.tensorOf(z));
    return new INDArray[] {z};
  }
}
