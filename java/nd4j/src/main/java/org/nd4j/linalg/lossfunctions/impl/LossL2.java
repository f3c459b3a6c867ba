package org.nd4j.linalg.lossfunctions.impl;

import org.nd4j.linalg.activations.IActivation;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.ndrt.nd4j.BaseLoss;

/** Sum over the outputs of the squared error, as ND4J's LossL2. */
public class LossL2 extends BaseLoss {
  private static final long serialVersionUID = 1L;

  public LossL2() {
    this(null);
  }

  public LossL2(INDArray weights) {
    super(weights);
  }

  @Override
  protected INDArray elementScores(INDArray labels, INDArray output, IActivation activationFn, INDArray preOutput) {
    INDArray d = output.subi(labels);
    return d.muli(d);
  }

  @Override
  protected INDArray dLda(INDArray labels, INDArray output) {
    return output.subi(labels).muli(2);
  }

  @Override
  public String toString() {
    return describe("LossL2");
  }
}
