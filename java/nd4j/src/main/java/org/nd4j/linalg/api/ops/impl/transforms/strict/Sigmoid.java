package org.nd4j.linalg.api.ops.impl.transforms.strict;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.BaseOp;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.nd4j.ArrayCore;

/** 1 / (1 + exp(-x)) into z (z = x, in place, when not given), as ND4J's Sigmoid. */
public class Sigmoid extends BaseOp {
  public Sigmoid() {}

  public Sigmoid(INDArray x) {
    super(x, null, x);
  }

  public Sigmoid(INDArray x, INDArray z) {
    super(x, null, z == null ? x : z);
  }

  @Override
  public String opName() {
    return "sigmoid";
  }

  @Override
  public INDArray exec() {
    Tensor xt = ArrayCore.tensorOf(x);
    Tensor zt = ArrayCore.tensorOf(z);
    Ops.sigmoid(xt, zt);
    return z;
  }
}
