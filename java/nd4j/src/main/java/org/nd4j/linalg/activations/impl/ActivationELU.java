package org.nd4j.linalg.activations.impl;

import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.activations.BaseActivationFunction;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.ndrt.Ops;

/** x for x > 0, alpha (exp(x) - 1) otherwise, as ND4J's ActivationELU (runtime ops forward and backward). */
public class ActivationELU extends BaseActivationFunction {
  private static final long serialVersionUID = 1L;
  public static final double DEFAULT_ALPHA = 1.0;
  private final double alpha;

  public ActivationELU() {
    this(DEFAULT_ALPHA);
  }

  public ActivationELU(double alpha) {
    this.alpha = alpha;
  }

  public double getAlpha() {
    return alpha;
  }

  @Override
  public INDArray getActivation(INDArray in, boolean training) {
    return forwardInPlace(in, (x, y) -> Ops.elu(x, alpha, y));
  }

  @Override
  public Pair<INDArray, INDArray> backprop(INDArray in, INDArray epsilon) {
    return backwardInPlace(in, epsilon, (x, e) -> Ops.eluBp(x, e, alpha));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ActivationELU && (((ActivationELU) o).alpha == alpha);
  }

  @Override
  public int hashCode() {
    return Double.hashCode(alpha);
  }

  @Override
  public String toString() {
    return "elu(alpha=" + alpha + ")";
  }
}
