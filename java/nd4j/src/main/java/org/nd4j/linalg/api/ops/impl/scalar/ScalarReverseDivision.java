package org.nd4j.linalg.api.ops.impl.scalar;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.BaseOp;

/** scalar / x into z (z = x, in place, when not given), as ND4J's ScalarReverseDivision. */
public class ScalarReverseDivision extends BaseOp {
  private Number scalar;

  public ScalarReverseDivision() {}

  public ScalarReverseDivision(INDArray x) {
    this(x, 0);
  }

  public ScalarReverseDivision(INDArray x, Number num) {
    super(x, null, x);
    this.scalar = num;
  }

  public ScalarReverseDivision(INDArray x, INDArray y, INDArray z, Number num) {
    super(x, y, z == null ? x : z);
    this.scalar = num;
  }

  public Number getScalar() {
    return scalar;
  }

  @Override
  public String opName() {
    return "rdiv_scalar";
  }

  @Override
  public INDArray exec() {
    Number s = scalar;
    return x.rdiv(s, z);
  }
}
