package org.nd4j.linalg.api.ops.impl.scalar;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.BaseOp;

/** x + scalar into z (z = x, in place, when not given), as ND4J's ScalarAdd. */
public class ScalarAdd extends BaseOp {
  private Number scalar;

  public ScalarAdd() {}

  public ScalarAdd(INDArray x) {
    this(x, 0);
  }

  public ScalarAdd(INDArray x, Number num) {
    super(x, null, x);
    this.scalar = num;
  }

  public ScalarAdd(INDArray x, INDArray y, INDArray z, Number num) {
    super(x, y, z == null ? x : z);
    this.scalar = num;
  }

  public Number getScalar() {
    return scalar;
  }

  @Override
  public String opName() {
    return "add_scalar";
  }

  @Override
  public INDArray exec() {
    Number s = scalar;
    return x.add(s, z);
  }
}
