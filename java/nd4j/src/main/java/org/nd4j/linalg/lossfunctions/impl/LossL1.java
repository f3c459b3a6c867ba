package org.nd4j.linalg.lossfunctions.impl;

import org.nd4j.linalg.activations.IActivation;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.ops.transforms.Transforms;
import org.ndrt.nd4j.BaseLoss;

/** Sum over the outputs of the absolute error, as ND4J's LossL1. */
public class LossL1 extends BaseLoss {
  private static final long serialVersionUID = 1L;

  public LossL1() {
    this(null);
  }

  public LossL1(INDArray weights) {
    super(weights);
  }

  @Override
  protected INDArray elementScores(INDArray labels, INDArray output, IActivation activationFn, INDArray preOutput) {
    return Transforms.abs(output.subi(labels), false);
  }

  @Override
  protected INDArray dLda(INDArray labels, INDArray output) {
    return Transforms.sign(output.subi(labels), false);
  }

  @Override
  public String toString() {
    return describe("LossL1");
  }
}
