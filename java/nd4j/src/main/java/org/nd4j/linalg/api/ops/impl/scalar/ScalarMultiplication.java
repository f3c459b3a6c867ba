package org.nd4j.linalg.api.ops.impl.scalar;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.BaseOp;

/** x * scalar into z (z = x, in place, when not given), as ND4J's ScalarMultiplication. */
public class ScalarMultiplication extends BaseOp {
  private Number scalar;

  public ScalarMultiplication() {}

  public ScalarMultiplication(INDArray x) {
    this(x, 0);
  }

  public ScalarMultiplication(INDArray x, Number num) {
    super(x, null, x);
    this.scalar = num;
  }

  public ScalarMultiplication(INDArray x, INDArray y, INDArray z, Number num) {
    super(x, y, z == null ? x : z);
    this.scalar = num;
  }

  public Number getScalar() {
    return scalar;
  }

  @Override
  public String opName() {
    return "mul_scalar";
  }

  @Override
  public INDArray exec() {
    Number s = scalar;
    return x.mul(s, z);
  }
}
