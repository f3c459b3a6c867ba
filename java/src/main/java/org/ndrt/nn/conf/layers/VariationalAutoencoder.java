package org.ndrt.nn.conf.layers;

import java.util.Map;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.Json;

/**
 * A variational autoencoder (Kingma and Welling, 2013), as Deeplearning4j's: encoder dense layers
 * (the layer's activation), q(z|x) = N(mean, exp(logVar)) from two heads (pzxActivation on both),
 * z = mean + exp(logVar / 2) * eps, decoder dense layers (the layer's activation) and p(x|z) from the
 * {@link Reconstruction} distribution. nIn is x's size, nOut z's size. Pretraining
 * (MultiLayerNetwork.pretrain) maximises the ELBO; as a layer of a network its output is the mean of
 * q(z|x). Parameters, as Deeplearning4j counts them: per encoder layer W and b, pZXMean W and b,
 * pZXLogStd2 W and b, per decoder layer W and b, pXZ W and b (pXZ's width: the distribution's).
 */
public final class VariationalAutoencoder extends Layer {
  private final int[] encoderSizes;
  private final int[] decoderSizes;
  private final Activation pzxActivation;
  private final Reconstruction reconstruction;
  private final int numSamples;

  private VariationalAutoencoder(Builder b) {
    super(b);
    this.encoderSizes = b.encoderSizes.clone();
    this.decoderSizes = b.decoderSizes.clone();
    this.pzxActivation = b.pzxActivation;
    this.reconstruction = b.reconstruction;
    this.numSamples = b.numSamples;
  }

  /** p(x|z): which distribution and the activation of its parameters. */
  public static final class Reconstruction {
    /** The distributions org.ndrt.nn has. */
    public enum Kind {
      /** Binary (or [0, 1]) data: p = sigmoid(pre), one parameter per input. */
      BERNOULLI,
      /** Real data: mean and log-variance per input (act(pre), split in two halves). */
      GAUSSIAN
    }

    public final Kind kind;
    public final Activation activation;

    private Reconstruction(Kind kind, Activation activation) {
      this.kind = kind;
      this.activation = activation;
    }

    /** Bernoulli with a sigmoid (Deeplearning4j's BernoulliReconstructionDistribution; only sigmoid here). */
    public static Reconstruction bernoulli(Activation a) {
      if (a != Activation.SIGMOID) {
        throw new UnsupportedOperationException("VariationalAutoencoder: a Bernoulli reconstruction distribution with "
            + a + " is not in org.ndrt.nn (it takes SIGMOID, the probability of each input being 1)");
      }
      return new Reconstruction(Kind.BERNOULLI, a);
    }

    /** Gaussian; {@code a} applies to the mean and the log-variance (Deeplearning4j's default: IDENTITY). */
    public static Reconstruction gaussian(Activation a) {
      if (a == Activation.SOFTMAX) {
        throw new IllegalArgumentException("VariationalAutoencoder: SOFTMAX is not an activation for a Gaussian's mean"
            + " and log-variance");
      }
      return new Reconstruction(Kind.GAUSSIAN, a);
    }

    /** Distribution parameters per input element (pXZ's width / nIn). */
    public int paramsPerInput() {
      return kind == Kind.GAUSSIAN ? 2 : 1;
    }

    @Override
    public String toString() {
      return kind + "(" + activation + ")";
    }
  }

  public int[] encoderLayerSizes() {
    return encoderSizes.clone();
  }

  public int[] decoderLayerSizes() {
    return decoderSizes.clone();
  }

  /** The activation of q(z|x)'s mean and log-variance heads. */
  public Activation pzxActivation() {
    return pzxActivation;
  }

  public Reconstruction reconstruction() {
    return reconstruction;
  }

  /** Samples of z per example in each pretraining step (the ELBO's Monte Carlo estimate). */
  public int numSamples() {
    return numSamples;
  }

  @Override
  protected Activation defaultActivation(Activation networkDefault) {
    return networkDefault == null ? Activation.SIGMOID : networkDefault;
  }

  @Override
  public boolean hasParams() {
    return true;
  }

  @Override
  public InputType inferOutput(InputType in) {
    if (in.isRecurrent()) {
      throw error("takes one row per example, got sequences " + in);
    }
    resolveNIn(in.flatSize());
    if (nOut <= 0) {
      throw error("nOut (the size of z) is not set");
    }
    if (activation == Activation.SOFTMAX) {
      throw error("SOFTMAX is not an activation for the encoder and decoder layers");
    }
    return InputType.feedForward(nOut);
  }

  /** Deeplearning4j's numParams for this configuration (nIn resolved). */
  public long numParams() {
    long n = 0;
    long in = nIn;
    for (int s : encoderSizes) {
      n += in * s + s;
      in = s;
    }
    n += 2 * (in * nOut + nOut);
    in = nOut;
    for (int s : decoderSizes) {
      n += in * s + s;
      in = s;
    }
    long px = nIn * reconstruction.paramsPerInput();
    return n + in * px + px;
  }

  @Override
  public Map<String, Object> toJson() {
    Map<String, Object> m = super.toJson();
    m.put("encoderLayerSizes", Json.list(encoderSizes));
    m.put("decoderLayerSizes", Json.list(decoderSizes));
    m.put("pzxActivation", pzxActivation.name());
    m.put("reconstruction", reconstruction.kind.name());
    m.put("reconstructionActivation", reconstruction.activation.name());
    m.put("numSamples", numSamples);
    return m;
  }

  static Builder builderFromJson(Map<String, Object> m) {
    Activation ra = Activation.valueOf(Json.str(m, "reconstructionActivation"));
    Builder b = new Builder().encoderLayerSizes(Json.ints(m, "encoderLayerSizes"))
        .decoderLayerSizes(Json.ints(m, "decoderLayerSizes"))
        .pzxActivation(Activation.valueOf(Json.str(m, "pzxActivation")))
        .numSamples((int) Json.integer(m, "numSamples", 1));
    String kind = Json.str(m, "reconstruction");
    return b.reconstruction(kind.equals("GAUSSIAN") ? Reconstruction.gaussian(ra) : Reconstruction.bernoulli(ra));
  }

  /**
   * {@code new VariationalAutoencoder.Builder().nIn(784).nOut(32).encoderLayerSizes(256, 256)
   * .decoderLayerSizes(256, 256).activation(LEAKYRELU).build()} (defaults as Deeplearning4j's: one
   * layer of 100 each side, IDENTITY heads, Bernoulli with sigmoid, one sample).
   */
  public static final class Builder extends Layer.Builder<Builder> {
    private int[] encoderSizes = {100};
    private int[] decoderSizes = {100};
    private Activation pzxActivation = Activation.IDENTITY;
    private Reconstruction reconstruction = Reconstruction.bernoulli(Activation.SIGMOID);
    private int numSamples = 1;

    public Builder encoderLayerSizes(int... sizes) {
      this.encoderSizes = checked("encoderLayerSizes", sizes);
      return this;
    }

    public Builder decoderLayerSizes(int... sizes) {
      this.decoderSizes = checked("decoderLayerSizes", sizes);
      return this;
    }

    public Builder pzxActivation(Activation a) {
      this.pzxActivation = a;
      return this;
    }

    public Builder reconstruction(Reconstruction r) {
      this.reconstruction = r;
      return this;
    }

    public Builder numSamples(int n) {
      if (n <= 0) {
        throw new IllegalArgumentException("VariationalAutoencoder: numSamples must be positive, got " + n);
      }
      this.numSamples = n;
      return this;
    }

    private static int[] checked(String what, int[] sizes) {
      if (sizes == null || sizes.length == 0) {
        throw new IllegalArgumentException("VariationalAutoencoder: " + what + " needs at least one layer");
      }
      positive("VariationalAutoencoder " + what, sizes);
      return sizes.clone();
    }

    @Override
    public VariationalAutoencoder build() {
      if (pzxActivation == null || pzxActivation == Activation.SOFTMAX) {
        throw new IllegalArgumentException("VariationalAutoencoder: pzxActivation must be set and not SOFTMAX, got "
            + pzxActivation);
      }
      return new VariationalAutoencoder(this);
    }
  }
}
