package org.nd4j.linalg.api.ops.impl.transforms.same;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.BaseOp;

/** 1 - x into z (z = x, in place, when not given), as ND4J's OneMinus. */
public class OneMinus extends BaseOp {
  public OneMinus() {}

  public OneMinus(INDArray x) {
    super(x, null, x);
  }

  public OneMinus(INDArray x, INDArray z) {
    super(x, null, z == null ? x : z);
  }

  @Override
  public String opName() {
    return "oneminus";
  }

  @Override
  public INDArray exec() {
    z.assign(x.rsub(1));
    return z;
  }
}
