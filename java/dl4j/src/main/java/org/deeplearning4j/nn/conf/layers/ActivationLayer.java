package org.deeplearning4j.nn.conf.layers;

/**
 * Deeplearning4j's ActivationLayer, as configuration only: org.ndrt.nn applies activations inside the layers; set the activation of the layer before. The network refuses it when initialised
 * (UnsupportedOperationException naming it), so programs that use it compile and say what is missing.
 */
public class ActivationLayer extends FeedForwardLayer {
  private static final long serialVersionUID = 1L;

  protected ActivationLayer() {}

  protected ActivationLayer(Builder b) {
    super(b);
  }

  @Override
  public org.ndrt.nn.conf.layers.Layer ndrtLayer() {
    throw refuse("the layer itself (org.ndrt.nn applies activations inside the layers; set the activation of the layer before)");
  }

  public static class Builder extends FeedForwardLayer.Builder<Builder> {
    public Builder() {}

    public Builder(org.nd4j.linalg.activations.Activation a) {
      activation(a);
    }

    @Override
    public ActivationLayer build() {
      return new ActivationLayer(this);
    }
  }
}
