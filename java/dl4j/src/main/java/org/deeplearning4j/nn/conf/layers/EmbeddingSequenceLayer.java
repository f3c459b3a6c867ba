package org.deeplearning4j.nn.conf.layers;

/**
 * Embedding of index sequences [N, T] or [N, 1, T] to [N, nOut, T], as Deeplearning4j's
 * EmbeddingSequenceLayer (org.ndrt.nn.conf.layers.EmbeddingSequenceLayer; first layer only).
 */
public class EmbeddingSequenceLayer extends FeedForwardLayer {
  private static final long serialVersionUID = 1L;

  protected boolean hasBias;
  protected int inputLength = -1;
  protected boolean inferInputLength = true;

  protected EmbeddingSequenceLayer() {}

  protected EmbeddingSequenceLayer(Builder b) {
    super(b);
    hasBias = b.hasBias;
    inputLength = b.inputLength;
    inferInputLength = b.inferInputLength;
  }

  @Override
  public org.ndrt.nn.conf.layers.Layer ndrtLayer() {
    org.ndrt.nn.conf.layers.EmbeddingSequenceLayer.Builder b =
        sized(new org.ndrt.nn.conf.layers.EmbeddingSequenceLayer.Builder(), true).hasBias(hasBias)
            .inferInputLength(inferInputLength);
    if (inputLength > 0) {
      b.inputLength(inputLength);
    }
    return b.build();
  }

  public static class Builder extends FeedForwardLayer.Builder<Builder> {
    /** Identity unless set: the network-wide activation does not reach an embedding (as in Deeplearning4j). */
    public Builder() {
      activation(org.nd4j.linalg.activations.Activation.IDENTITY);
    }

    protected boolean hasBias;
    protected int inputLength = -1;
    protected boolean inferInputLength = true;

    public Builder hasBias(boolean hasBias) {
      this.hasBias = hasBias;
      return this;
    }

    public Builder inputLength(int inputLength) {
      this.inputLength = inputLength;
      return this;
    }

    public Builder inferInputLength(boolean infer) {
      this.inferInputLength = infer;
      return this;
    }

    @Override
    public EmbeddingSequenceLayer build() {
      return new EmbeddingSequenceLayer(this);
    }
  }
}
