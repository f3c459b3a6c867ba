package org.nd4j.linalg.activations.impl;

import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.activations.BaseActivationFunction;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.ndrt.Ops;

/** tanh(x), as ND4J's ActivationTanH (runtime ops forward and backward). */
public class ActivationTanH extends BaseActivationFunction {
  private static final long serialVersionUID = 1L;

  @Override
  public INDArray getActivation(INDArray in, boolean training) {
    return forwardInPlace(in, Ops::tanh);
  }

  @Override
  public Pair<INDArray, INDArray> backprop(INDArray in, INDArray epsilon) {
    return backwardFromOutput(in, epsilon, Ops::tanh, Ops::tanhBp);
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
    return "tanh";
  }
}
