package org.nd4j.linalg.activations.impl;

import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.activations.BaseActivationFunction;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.ndrt.Ops;

/** log(1 + exp(x)), as ND4J's ActivationSoftPlus (runtime ops forward and backward). */
public class ActivationSoftPlus extends BaseActivationFunction {
  private static final long serialVersionUID = 1L;

  @Override
  public INDArray getActivation(INDArray in, boolean training) {
    return forwardInPlace(in, (x, y) -> Ops.softplus(x, 1.0, y));
  }

  @Override
  public Pair<INDArray, INDArray> backprop(INDArray in, INDArray epsilon) {
    return backwardInPlace(in, epsilon, (x, e) -> Ops.softplusBp(x, e, 1.0));
  }

  @Override
  public boolean equals(Object o) {
    return o != null && o.getClass() == getClass();
  }

  @Override
  public int hashCode() {
    return getClass().hashCode();
  }

  @Override
  public String toString() {
    return "softplus";
  }
}
