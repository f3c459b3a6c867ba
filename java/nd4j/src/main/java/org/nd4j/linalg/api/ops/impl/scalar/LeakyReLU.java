package org.nd4j.linalg.api.ops.impl.scalar;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.BaseOp;
import org.ndrt.Ops;
import org.ndrt.nd4j.ArrayCore;

/** x for x > 0, alpha x otherwise, into z (z = x when not given), as ND4J's LeakyReLU (alpha 0.01). */
public class LeakyReLU extends BaseOp {
  public static final double DEFAULT_ALPHA = 0.01;
  private double alpha = DEFAULT_ALPHA;

  public LeakyReLU() {}

  public LeakyReLU(INDArray x) {
    this(x, x, DEFAULT_ALPHA);
  }

  public LeakyReLU(INDArray x, double alpha) {
    this(x, x, alpha);
  }

  public LeakyReLU(INDArray x, INDArray z) {
    this(x, z, DEFAULT_ALPHA);
  }

  public LeakyReLU(INDArray x, INDArray z, double alpha) {
    super(x, null, z == null ? x : z);
    this.alpha = alpha;
  }

  @Override
  public String opName() {
    return "leakyrelu";
  }

  @Override
  public INDArray exec() {
    Ops.leakyRelu(ArrayCore.tensorOf(x), alpha, ArrayCore.tensorOf(z));
    return z;
  }
}
