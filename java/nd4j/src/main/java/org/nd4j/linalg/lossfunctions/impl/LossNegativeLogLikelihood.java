package org.nd4j.linalg.lossfunctions.impl;

import org.nd4j.linalg.api.ndarray.INDArray;

/** Negative log likelihood: the multi-class cross-entropy under ND4J's other name (LossNegativeLogLikelihood). */
public class LossNegativeLogLikelihood extends LossMCXENT {
  private static final long serialVersionUID = 1L;

  public LossNegativeLogLikelihood() {
    this(null);
  }

  public LossNegativeLogLikelihood(INDArray weights) {
    super(weights);
  }

  @Override
  public String toString() {
    return weights == null ? "LossNegativeLogLikelihood()" : "LossNegativeLogLikelihood(weights=" + weights + ")";
  }
}
