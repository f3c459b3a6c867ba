package org.nd4j.linalg.activations.impl;

import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.activations.BaseActivationFunction;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.ndrt.Ops;

/** max(0, x), as ND4J's ActivationReLU (runtime ops forward and backward). */
public class ActivationReLU extends BaseActivationFunction {
  private static final long serialVersionUID = 1L;

  @Override
  public INDArray getActivation(INDArray in, boolean training) {
    return forwardInPlace(in, Ops::relu);
  }

  @Override
  public Pair<INDArray, INDArray> backprop(INDArray in, INDArray epsilon) {
    return backwardInPlace(in, epsilon, Ops::reluBp);
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
    return "relu";
  }
}
