package org.deeplearning4j.nn.conf.layers;

/**
 * Deeplearning4j's ActivationLayer: an activation on its own (e.g. the ReLU after a residual sum),
 * org.ndrt.nn's ActivationLayer; its activation is its own or the network's.
 */
public class ActivationLayer extends FeedForwardLayer {
  private static final long serialVersionUID = 1L;

  protected ActivationLayer() {}

  protected ActivationLayer(Builder b) {
    super(b);
  }

  @Override
  public org.ndrt.nn.conf.layers.Layer ndrtLayer() {
    return base(new org.ndrt.nn.conf.layers.ActivationLayer.Builder(), true).build();
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
