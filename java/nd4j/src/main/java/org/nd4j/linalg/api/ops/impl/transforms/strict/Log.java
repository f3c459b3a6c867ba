package org.nd4j.linalg.api.ops.impl.transforms.strict;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.BaseOp;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.nd4j.ArrayCore;

/** ln(x) into z (z = x, in place, when not given), as ND4J's Log. */
public class Log extends BaseOp {
  public Log() {}

  public Log(INDArray x) {
    super(x, null, x);
  }

  public Log(INDArray x, INDArray z) {
    super(x, null, z == null ? x : z);
  }

  @Override
  public String opName() {
    return "log";
  }

  @Override
  public INDArray exec() {
    Tensor xt = ArrayCore.tensorOf(x);
    Tensor zt = ArrayCore.tensorOf(z);
    Ops.log(xt, zt);
    return z;
  }
}
