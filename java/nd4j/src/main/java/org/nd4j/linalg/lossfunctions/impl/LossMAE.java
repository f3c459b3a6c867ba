package org.nd4j.linalg.lossfunctions.impl;

import org.nd4j.linalg.api.ndarray.INDArray;

/** Mean absolute error: LossL1 divided by the number of outputs, as ND4J's LossMAE. */
public class LossMAE extends LossL1 {
  private static final long serialVersionUID = 1L;

  public LossMAE() {
    this(null);
  }

  public LossMAE(INDArray weights) {
    super(weights);
  }

  @Override
  protected double divisor(INDArray labels) {
    return labels.size(1);
  }

  /**
   * ND4J divides L1's per-example scores by the score array's width, which is 1: they come out as
   * L1's, not divided by the number of outputs (unlike computeScore and computeGradient). Kept so.
   */
  @Override
  public INDArray computeScoreArray(INDArray labels, INDArray preOutput,
      org.nd4j.linalg.activations.IActivation activationFn, INDArray mask) {
    return scoreArray(labels, preOutput, activationFn, mask).sum(true, 1);
  }

  @Override
  public String toString() {
    return describe("LossMAE");
  }
}
