package org.nd4j.linalg.api.ops.impl.transforms.same;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.BaseOp;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.nd4j.ArrayCore;

/** |x| into z (z = x, in place, when not given), as ND4J's Abs. */
public class Abs extends BaseOp {
  public Abs() {}

  public Abs(INDArray x) {
    super(x, null, x);
  }

  public Abs(INDArray x, INDArray z) {
    super(x, null, z == null ? x : z);
  }

  @Override
  public String opName() {
    return "abs";
  }

  @Override
  public INDArray exec() {
    Tensor xt = ArrayCore.tensorOf(x);
    Tensor zt = ArrayCore.tensorOf(z);
    Ops.abs(xt, zt);
    return z;
  }
}
