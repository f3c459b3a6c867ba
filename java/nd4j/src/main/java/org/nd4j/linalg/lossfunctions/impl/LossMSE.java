package org.nd4j.linalg.lossfunctions.impl;

import org.nd4j.linalg.api.ndarray.INDArray;

/** Mean squared error: LossL2 divided by the number of outputs, as ND4J's LossMSE. */
public class LossMSE extends LossL2 {
  private static final long serialVersionUID = 1L;

  public LossMSE() {
    this(null);
  }

  public LossMSE(INDArray weights) {
    super(weights);
  }

  @Override
  protected double divisor(INDArray labels) {
    return labels.size(1);
  }

  @Override
  public String toString() {
    return describe("LossMSE");
  }
}
