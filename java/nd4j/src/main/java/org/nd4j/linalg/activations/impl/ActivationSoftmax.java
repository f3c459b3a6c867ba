package org.nd4j.linalg.activations.impl;

import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.activations.BaseActivationFunction;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.ndrt.Ops;

/** Softmax along the last dimension, as ND4J's ActivationSoftmax (runtime ops forward and backward). */
public class ActivationSoftmax extends BaseActivationFunction {
  private static final long serialVersionUID = 1L;

  @Override
  public INDArray getActivation(INDArray in, boolean training) {
    return forwardInPlace(in, (x, y) -> Ops.softmax(x, -1, y));
  }

  @Override
  public Pair<INDArray, INDArray> backprop(INDArray in, INDArray epsilon) {
    return backwardFromOutput(in, epsilon, x -> Ops.softmax(x, -1), (y, e) -> Ops.softmaxBp(y, e, -1));
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
    return "softmax";
  }
}
