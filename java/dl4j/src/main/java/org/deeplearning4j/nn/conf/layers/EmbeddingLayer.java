package org.deeplearning4j.nn.conf.layers;

import org.nd4j.linalg.activations.Activation;

/**
 * Deeplearning4j's EmbeddingLayer (index rows [N, 1] to [N, nOut]; identity activation and no bias
 * unless set, as its builder). org.ndrt.nn embeds index sequences only: the network takes it where
 * Deeplearning4j's RNNEmbedding pattern makes it one, inputPreProcessor(0, RnnToFeedForwardPreProcessor)
 * and (1, FeedForwardToRnnPreProcessor), as an EmbeddingSequenceLayer on [N, 1, T] (the same
 * arithmetic); alone it is refused when the network is initialised (UnsupportedOperationException).
 */
public class EmbeddingLayer extends FeedForwardLayer {
  private static final long serialVersionUID = 1L;

  protected boolean hasBias;

  protected EmbeddingLayer() {}

  protected EmbeddingLayer(Builder b) {
    super(b);
    hasBias = b.hasBias;
  }

  public boolean hasBias() {
    return hasBias;
  }

  @Override
  public org.ndrt.nn.conf.layers.Layer ndrtLayer() {
    throw refuse("the layer itself (org.ndrt.nn embeds index sequences only: EmbeddingSequenceLayer, or this layer"
        + " between inputPreProcessor(0, RnnToFeedForwardPreProcessor) and (1, FeedForwardToRnnPreProcessor))");
  }

  /** ndrt: the org.ndrt.nn EmbeddingSequenceLayer this layer amounts to between the RNN preprocessors. */
  public org.ndrt.nn.conf.layers.Layer ndrtSequenceLayer() {
    return sized(new org.ndrt.nn.conf.layers.EmbeddingSequenceLayer.Builder(), true).hasBias(hasBias).build();
  }

  public static class Builder extends FeedForwardLayer.Builder<Builder> {
    protected boolean hasBias;

    public Builder() {
      activation(Activation.IDENTITY);  // Deeplearning4j's default here, not the network's
    }

    public Builder hasBias(boolean hasBias) {
      this.hasBias = hasBias;
      return this;
    }

    @Override
    public EmbeddingLayer build() {
      return new EmbeddingLayer(this);
    }
  }
}
