package org.nd4j.linalg.api.ops.impl.transforms.same;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.BaseOp;

/** x (1 - x) into z (z = x, in place, when not given), as ND4J's TimesOneMinus. */
public class TimesOneMinus extends BaseOp {
  public TimesOneMinus() {}

  public TimesOneMinus(INDArray x) {
    super(x, null, x);
  }

  public TimesOneMinus(INDArray x, INDArray z) {
    super(x, null, z == null ? x : z);
  }

  @Override
  public String opName() {
    return "timesoneminus";
  }

  @Override
  public INDArray exec() {
    z.assign(x.mul(x.rsub(1)));
    return z;
  }
}
