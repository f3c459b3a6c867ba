package org.nd4j.linalg.activations.impl;

import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.activations.BaseActivationFunction;
import org.nd4j.linalg.api.ndarray.INDArray;

/** f(x) = x, as ND4J's ActivationIdentity: dL/dz is epsilon itself. */
public class ActivationIdentity extends BaseActivationFunction {
  private static final long serialVersionUID = 1L;

  @Override
  public INDArray getActivation(INDArray in, boolean training) {
    return in;
  }

  @Override
  public Pair<INDArray, INDArray> backprop(INDArray in, INDArray epsilon) {
    assertShape(in, epsilon);
    return new Pair<>(epsilon, null);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ActivationIdentity;
  }

  @Override
  public int hashCode() {
    return ActivationIdentity.class.hashCode();
  }

  @Override
  public String toString() {
    return "identity";
  }
}
