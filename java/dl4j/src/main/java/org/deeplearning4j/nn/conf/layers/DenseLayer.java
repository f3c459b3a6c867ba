package org.deeplearning4j.nn.conf.layers;

/** A fully connected layer, as Deeplearning4j's DenseLayer (org.ndrt.nn.conf.layers.DenseLayer). */
public class DenseLayer extends FeedForwardLayer {
  private static final long serialVersionUID = 1L;

  protected boolean hasBias = true;
  protected boolean hasLayerNorm;

  protected DenseLayer() {}

  protected DenseLayer(Builder b) {
    super(b);
    hasBias = b.hasBias;
    hasLayerNorm = b.hasLayerNorm;
  }

  public boolean hasBias() {
    return hasBias;
  }

  @Override
  public org.ndrt.nn.conf.layers.Layer ndrtLayer() {
    if (!hasBias) {
      throw refuse("hasBias(false)");
    }
    if (hasLayerNorm) {
      throw refuse("hasLayerNorm(true)");
    }
    return sized(new org.ndrt.nn.conf.layers.DenseLayer.Builder(), true).build();
  }

  public static class Builder extends FeedForwardLayer.Builder<Builder> {
    protected boolean hasBias = true;
    protected boolean hasLayerNorm;

    public Builder hasBias(boolean hasBias) {
      this.hasBias = hasBias;
      return this;
    }

    public Builder hasLayerNorm(boolean hasLayerNorm) {
      this.hasLayerNorm = hasLayerNorm;
      return this;
    }

    @Override
    public DenseLayer build() {
      return new DenseLayer(this);
    }
  }
}
