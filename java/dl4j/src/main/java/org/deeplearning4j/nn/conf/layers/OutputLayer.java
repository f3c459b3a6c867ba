package org.deeplearning4j.nn.conf.layers;

import org.nd4j.linalg.lossfunctions.ILossFunction;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/** A dense output layer with a loss, as Deeplearning4j's OutputLayer (org.ndrt.nn.conf.layers.OutputLayer). */
public class OutputLayer extends BaseOutputLayer {
  private static final long serialVersionUID = 1L;

  protected OutputLayer() {}

  protected OutputLayer(Builder b) {
    super(b);
  }

  @Override
  public org.ndrt.nn.conf.layers.Layer ndrtLayer() {
    return sized(new org.ndrt.nn.conf.layers.OutputLayer.Builder(ndrtLoss()), true).build();
  }

  public static class Builder extends BaseOutputLayer.Builder<Builder> {
    public Builder() {}

    public Builder(LossFunctions.LossFunction lossFunction) {
      super(lossFunction);
    }

    public Builder(ILossFunction lossFunction) {
      super(lossFunction);
    }

    @Override
    public OutputLayer build() {
      return new OutputLayer(this);
    }
  }
}
