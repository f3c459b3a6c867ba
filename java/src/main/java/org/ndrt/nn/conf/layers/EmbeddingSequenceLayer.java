package org.ndrt.nn.conf.layers;

import java.util.Map;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.Json;

/**
 * Deeplearning4j's {@code EmbeddingSequenceLayer}: a sequence of integer indices in [0, nIn) (a
 * vocabulary of nIn entries) to a sequence of their vectors. Input [N, 1, T] or [N, T] (the features
 * array holds the indices as float values, as in Deeplearning4j; i32/i64 arrays are taken too),
 * output [N, nOut, T] (the recurrent layers' layout), y[b, :, t] = act(W[x[b, t], :] + b) with the
 * table "W" [nIn, nOut] and, with {@link Builder#hasBias(boolean) hasBias(true)}, a bias "b" [nOut]
 * (none by default, as in Deeplearning4j). The activation defaults to IDENTITY whatever the network's
 * default is (as Deeplearning4j's builder). Weights are drawn with fanIn = nIn and fanOut = nOut.
 *
 * <p>Only the first layer of a network may be one (it takes indices, which have no gradient); the
 * network's input type is {@code InputType.recurrent(1)} or {@code recurrent(1, T)}, implied when none
 * is set. The input type {@code recurrent(k)} with k > 1 is read as Deeplearning4j 1.0.0-M2.1 reads it:
 * nIn = k (the vocabulary, replacing a given nIn), and the network still takes indices [N, 1, T] or
 * [N, T] ({@link org.ndrt.nn.conf.MultiLayerConfiguration#inputType()} then says recurrent(1)). Every index at a valid step must be an integer in [0, nIn), else the forward pass throws
 * an IllegalArgumentException naming the first bad one; steps a features mask marks as padding are
 * not read and their outputs are 0, as Deeplearning4j's layer multiplies its output by the mask.
 * Forward is one runtime {@code gather} of the table's rows, backward one {@code gather_bp} (a
 * scatter-add into zeros: an index that occurs several times gets the sum of its steps' gradients).
 */
public final class EmbeddingSequenceLayer extends Layer {
  private final boolean hasBias;
  private final int inputLength;
  private final boolean inferInputLength;

  private EmbeddingSequenceLayer(Builder b) {
    super(b);
    this.hasBias = b.hasBias;
    this.inputLength = b.inputLength;
    this.inferInputLength = b.inferInputLength;
  }

  /** Whether the layer adds a bias "b" [nOut] (default false, as Deeplearning4j). */
  public boolean hasBias() {
    return hasBias;
  }

  /** The sequence length set with {@link Builder#inputLength(int)}, or 0. */
  public int inputLength() {
    return inputLength;
  }

  /** True (the default): the data decides the sequence length; false: it must be {@link #inputLength()}. */
  public boolean inferInputLength() {
    return inferInputLength;
  }

  @Override
  protected Activation defaultActivation(Activation networkDefault) {
    return Activation.IDENTITY;
  }

  @Override
  public boolean hasParams() {
    return true;
  }

  @Override
  public InputType impliedInput() {
    if (nIn <= 0) {
      throw error("nIn (the number of distinct indices, e.g. the vocabulary size) is not set");
    }
    return InputType.recurrent(1, fixedLength());
  }

  /** The length the layer insists on (0: any). */
  private long fixedLength() {
    return inferInputLength ? 0 : inputLength;
  }

  @Override
  public InputType inferOutput(InputType in) {
    if (!in.isRecurrent()) {
      throw error("takes sequences of indices, one per step: InputType.recurrent(1) or recurrent(1, T) ([N, 1, T] or"
          + " [N, T]), or recurrent(vocabulary), got " + in);
    }
    if (in.size != 1) {
      // Deeplearning4j reads recurrent(k) as the vocabulary: nIn = k, replacing a given nIn, and still takes indices.
      nIn = in.size;
    }
    if (nIn <= 0) {
      throw error("nIn (the number of distinct indices, e.g. the vocabulary size) is not set; it is not inferred from the"
          + " input");
    }
    if (nOut <= 0) {
      throw error("nOut (the embedding size) is not set");
    }
    long t = in.timeSeriesLength;
    if (fixedLength() > 0) {
      if (t > 0 && t != fixedLength()) {
        throw error("inputLength is " + inputLength + " (inferInputLength(false)) but the input type has " + t + " steps");
      }
      t = fixedLength();
    }
    return InputType.recurrent(nOut, t);
  }

  @Override
  public Map<String, Object> toJson() {
    Map<String, Object> m = super.toJson();
    m.put("hasBias", hasBias);
    if (inputLength > 0 || !inferInputLength) {
      m.put("inputLength", inputLength);
      m.put("inferInputLength", inferInputLength);
    }
    return m;
  }

  /** {@code new EmbeddingSequenceLayer.Builder().nIn(vocabulary).nOut(64).build()}. */
  public static final class Builder extends Layer.Builder<Builder> {
    private boolean hasBias;
    private int inputLength;
    private boolean inferInputLength = true;

    /** True: add a bias "b" [nOut] to every vector; false (default): none. */
    public Builder hasBias(boolean hasBias) {
      this.hasBias = hasBias;
      return this;
    }

    /**
     * Deeplearning4j's fixed sequence length: with {@code inferInputLength(false)} every input must
     * have exactly this many steps (and the output type gets it); with the default
     * {@code inferInputLength(true)} the data decides and this is not checked.
     */
    public Builder inputLength(int inputLength) {
      if (inputLength <= 0) {
        throw new IllegalArgumentException("EmbeddingSequenceLayer inputLength must be positive, got " + inputLength);
      }
      this.inputLength = inputLength;
      return this;
    }

    /** True (default): the length of each input is taken as it comes; false: it must equal inputLength. */
    public Builder inferInputLength(boolean infer) {
      this.inferInputLength = infer;
      return this;
    }

    @Override
    public EmbeddingSequenceLayer build() {
      if (!inferInputLength && inputLength <= 0) {
        throw new IllegalArgumentException("EmbeddingSequenceLayer: inferInputLength(false) needs inputLength(n)");
      }
      return new EmbeddingSequenceLayer(this);
    }

    static Builder fromJson(Map<String, Object> m) {
      Builder b = new Builder().hasBias(Json.bool(m, "hasBias", false));
      long len = Json.integer(m, "inputLength", 0);
      if (len > 0) {
        b.inputLength(Math.toIntExact(len));
      }
      return b.inferInputLength(Json.bool(m, "inferInputLength", true));
    }
  }
}
