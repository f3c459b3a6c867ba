package org.nd4j.linalg.api.ops.impl.scalar;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.BaseOp;

/** scalar - x into z (z = x, in place, when not given), as ND4J's ScalarReverseSubtraction. */
public class ScalarReverseSubtraction extends BaseOp {
  private Number scalar;

  public ScalarReverseSubtraction() {}

  public ScalarReverseSubtraction(INDArray x) {
    this(x, 0);
  }

  public ScalarReverseSubtraction(INDArray x, Number num) {
    super(x, null, x);
    this.scalar = num;
  }

  public ScalarReverseSubtraction(INDArray x, INDArray y, INDArray z, Number num) {
    super(x, y, z == null ? x : z);
    this.scalar = num;
  }

  public Number getScalar() {
    return scalar;
  }

  @Override
  public String opName() {
    return "rsub_scalar";
  }

  @Override
  public INDArray exec() {
    Number s = scalar;
    return x.rsub(s, z);
  }
}
