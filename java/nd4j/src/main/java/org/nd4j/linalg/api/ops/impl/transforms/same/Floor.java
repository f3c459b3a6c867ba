package org.nd4j.linalg.api.ops.impl.transforms.same;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.BaseOp;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.nd4j.ArrayCore;

/** floor(x) into z (z = x, in place, when not given), as ND4J's Floor. */
public class Floor extends BaseOp {
  public Floor() {}

  public Floor(INDArray x) {
    super(x, null, x);
  }

  public Floor(INDArray x, INDArray z) {
    super(x, null, z == null ? x : z);
  }

  @Override
  public String opName() {
    return "floor";
  }

  @Override
  public INDArray exec() {
    Tensor xt = ArrayCore.tensorOf(x);
    Tensor zt = ArrayCore.tensorOf(z);
    Ops.floor(xt, zt);
    return z;
  }
}
