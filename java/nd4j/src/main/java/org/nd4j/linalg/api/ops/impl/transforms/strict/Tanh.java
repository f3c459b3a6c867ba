package org.nd4j.linalg.api.ops.impl.transforms.strict;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.BaseOp;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.nd4j.ArrayCore;

/** tanh(x) into z (z = x, in place, when not given), as ND4J's Tanh. */
public class Tanh extends BaseOp {
  public Tanh() {}

  public Tanh(INDArray x) {
    super(x, null, x);
  }

  public Tanh(INDArray x, INDArray z) {
    super(x, null, z == null ? x : z);
  }

  @Override
  public String opName() {
    return "tanh";
  }

  @Override
  public INDArray exec() {
    Tensor xt = ArrayCore.tensorOf(x);
    Tensor zt = ArrayCore.tensorOf(z);
    Ops.tanh(xt, zt);
    return z;
  }
}
