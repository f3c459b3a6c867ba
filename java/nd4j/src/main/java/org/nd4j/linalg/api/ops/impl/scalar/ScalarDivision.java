package org.nd4j.linalg.api.ops.impl.scalar;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.BaseOp;

/** x / scalar into z (z = x, in place, when not given), as ND4J's ScalarDivision. */
public class ScalarDivision extends BaseOp {
  private Number scalar;

  public ScalarDivision() {}

  public ScalarDivision(INDArray x) {
    this(x, 0);
  }

  public ScalarDivision(INDArray x, Number num) {
    super(x, null, x);
    this.scalar = num;
  }

  public ScalarDivision(INDArray x, INDArray y, INDArray z, Number num) {
    super(x, y, z == null ? x : z);
    this.scalar = num;
  }

  public Number getScalar() {
    return scalar;
  }

  @Override
  public String opName() {
    return "div_scalar";
  }

  @Override
  public INDArray exec() {
    Number s = scalar;
    return x.div(s, z);
  }
}
