package org.nd4j.linalg.api.ops.impl.transforms.same;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.BaseOp;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.nd4j.ArrayCore;

/** sign(x) into z (z = x, in place, when not given), as ND4J's Sign. */
public class Sign extends BaseOp {
  public Sign() {}

  public Sign(INDArray x) {
    super(x, null, x);
  }

  public Sign(INDArray x, INDArray z) {
    super(x, null, z == null ? x : z);
  }

  @Override
  public String opName() {
    return "sign";
  }

  @Override
  public INDArray exec() {
    Tensor xt = ArrayCore.tensorOf(x);
    Tensor zt = ArrayCore.tensorOf(z);
    Ops.sign(xt, zt);
    return z;
  }
}
