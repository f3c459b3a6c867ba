package org.nd4j.linalg.api.ops.impl.transforms.strict;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.BaseOp;
import org.ndrt.Ops;
import org.ndrt.nd4j.ArrayCore;

/** sin(x) into z (z = x, in place, when not given), as ND4J's Sin. */
public class Sin extends BaseOp {
  public Sin() {}

  public Sin(INDArray x) {
    super(x, null, x);
  }

  public Sin(INDArray x, INDArray z) {
    super(x, null, z);
  }

  @Override
  public String opName() {
    return "sin";
  }

  @Override
  public INDArray exec() {
    Ops.sin(ArrayCore.tensorOf(x), ArrayCore.tensorOf(z));
    return z;
  }
}
