package org.deeplearning4j.nn.conf.layers;

/**
 * Inverted dropout as a layer, as Deeplearning4j's DropoutLayer: {@code dropOut} is the probability to
 * KEEP a value (Deeplearning4j's meaning); org.ndrt.nn.conf.layers.DropoutLayer takes the probability
 * to drop one, 1 - dropOut.
 */
public class DropoutLayer extends FeedForwardLayer {
  private static final long serialVersionUID = 1L;

  protected DropoutLayer() {}

  protected DropoutLayer(Builder b) {
    super(b);
  }

  @Override
  public org.ndrt.nn.conf.layers.Layer ndrtLayer() {
    double keep = Double.isNaN(dropOut) ? 1 : dropOut;
    org.ndrt.nn.conf.layers.DropoutLayer.Builder b = new org.ndrt.nn.conf.layers.DropoutLayer.Builder(1 - keep);
    if (layerName != null) {
      b.name(layerName);
    }
    return b.build();
  }

  public static class Builder extends FeedForwardLayer.Builder<Builder> {
    public Builder() {}

    public Builder(double dropOut) {
      dropOut(dropOut);
    }

    @Override
    public DropoutLayer build() {
      return new DropoutLayer(this);
    }
  }
}
