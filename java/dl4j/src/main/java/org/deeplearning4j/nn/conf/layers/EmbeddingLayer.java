package org.deeplearning4j.nn.conf.layers;

/**
 * Deeplearning4j's EmbeddingLayer, as configuration only: org.ndrt.nn embeds index sequences only, with EmbeddingSequenceLayer. The network refuses it when initialised
 * (UnsupportedOperationException naming it), so programs that use it compile and say what is missing.
 */
public class EmbeddingLayer extends FeedForwardLayer {
  private static final long serialVersionUID = 1L;

  protected EmbeddingLayer() {}

  protected EmbeddingLayer(Builder b) {
    super(b);
  }

  @Override
  public org.ndrt.nn.conf.layers.Layer ndrtLayer() {
    throw refuse("the layer itself (org.ndrt.nn embeds index sequences only, with EmbeddingSequenceLayer)");
  }

  public static class Builder extends FeedForwardLayer.Builder<Builder> {
    public Builder hasBias(boolean hasBias) {
      return this;
    }

    @Override
    public EmbeddingLayer build() {
      return new EmbeddingLayer(this);
    }
  }
}
