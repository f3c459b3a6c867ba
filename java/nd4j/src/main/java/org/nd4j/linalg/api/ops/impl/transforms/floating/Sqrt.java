package org.nd4j.linalg.api.ops.impl.transforms.floating;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.BaseOp;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.nd4j.ArrayCore;

/** sqrt(x) into z (z = x, in place, when not given), as ND4J's Sqrt. */
public class Sqrt extends BaseOp {
  public Sqrt() {}

  public Sqrt(INDArray x) {
    super(x, null, x);
  }

  public Sqrt(INDArray x, INDArray z) {
    super(x, null, z == null ? x : z);
  }

  @Override
  public String opName() {
    return "sqrt";
  }

  @Override
  public INDArray exec() {
    Tensor xt = ArrayCore.tensorOf(x);
    Tensor zt = ArrayCore.tensorOf(z);
    Ops.sqrt(xt, zt);
    return z;
  }
}
