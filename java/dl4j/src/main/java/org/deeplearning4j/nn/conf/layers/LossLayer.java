package org.deeplearning4j.nn.conf.layers;

/**
 * Deeplearning4j's LossLayer, as configuration only: org.ndrt.nn's losses sit in OutputLayer and RnnOutputLayer, which have weights. The network refuses it when initialised
 * (UnsupportedOperationException naming it), so programs that use it compile and say what is missing.
 */
public class LossLayer extends FeedForwardLayer {
  private static final long serialVersionUID = 1L;

  protected LossLayer() {}

  protected LossLayer(Builder b) {
    super(b);
  }

  @Override
  public org.ndrt.nn.conf.layers.Layer ndrtLayer() {
    throw refuse("the layer itself (org.ndrt.nn's losses sit in OutputLayer and RnnOutputLayer, which have weights)");
  }

  public static class Builder extends FeedForwardLayer.Builder<Builder> {
    public Builder() {}

    public Builder(org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction loss) {}

    public Builder lossFunction(org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction loss) {
      return this;
    }

    @Override
    public LossLayer build() {
      return new LossLayer(this);
    }
  }
}
