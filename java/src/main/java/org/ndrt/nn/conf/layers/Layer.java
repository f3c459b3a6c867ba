package org.ndrt.nn.conf.layers;

import java.util.LinkedHashMap;
import java.util.Map;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.Distribution;
import org.ndrt.nn.conf.GradientNormalization;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.Json;
import org.ndrt.nn.conf.WeightInit;

/**
 * A layer's configuration (what Deeplearning4j calls the layer conf): hyper-parameters only, no
 * arrays. {@link #inferOutput} checks it against what flows in and fills in what can be inferred
 * (nIn), so a wrong configuration fails at build time, before any training.
 */
public abstract class Layer {
  protected String name;
  protected long nIn;
  protected long nOut;
  protected Activation activation;
  protected WeightInit weightInit;
  /** The distribution of {@link WeightInit#DISTRIBUTION}, else null. */
  protected Distribution distribution;
  /** The biases' starting value; NaN: the layer's own (0). LSTM, GRU, VAE ignore it, as Deeplearning4j's. */
  protected double biasInit;
  /** Null: None. */
  protected GradientNormalization gradientNormalization;
  protected double gradientNormalizationThreshold;
  /** l1, l2, weightDecay, l1Bias, l2Bias, weightDecayBias; NaN: the network's (0 for l1 and the bias terms). */
  protected final double[] regularization;

  protected Layer(Builder<?> b) {
    this.name = b.name;
    this.nIn = b.nIn;
    this.nOut = b.nOut;
    this.activation = b.activation;
    this.weightInit = b.weightInit;
    this.distribution = b.distribution;
    this.biasInit = b.biasInit;
    this.gradientNormalization = b.gradientNormalization;
    this.gradientNormalizationThreshold = b.gradientNormalizationThreshold;
    this.regularization = b.regularization.clone();
  }

  /** The layer's name (set by the list builder to "layer" + its index when not given). */
  public String name() {
    return name;
  }

  public long nIn() {
    return nIn;
  }

  public long nOut() {
    return nOut;
  }

  /** The activation, or null before the global default is applied. */
  public Activation activation() {
    return activation;
  }

  /** The weight initialisation, or null before the global default is applied. */
  public WeightInit weightInit() {
    return weightInit;
  }

  /** The distribution the weights are drawn from ({@link WeightInit#DISTRIBUTION}), else null. */
  public Distribution distribution() {
    return distribution;
  }

  /** The biases' starting value, NaN when not set (the layer's own, 0). */
  public double biasInit() {
    return biasInit;
  }

  /** The gradient normalisation of this layer's gradients (None when not set). */
  public GradientNormalization gradientNormalization() {
    return gradientNormalization == null ? GradientNormalization.None : gradientNormalization;
  }

  /** The threshold of the clipping normalisations (Deeplearning4j's default 1.0). */
  public double gradientNormalizationThreshold() {
    return gradientNormalizationThreshold;
  }

  /**
   * The layer's own regularisation coefficients in the order of {@link #REGULARIZATION}: l1, l2,
   * weightDecay of the weights, then of the biases; NaN where the layer leaves it to the network.
   */
  public double[] regularization() {
    return regularization.clone();
  }

  /** The JSON keys (and builder methods) of {@link #regularization()}. */
  public static final String[] REGULARIZATION = {"l1", "l2", "weightDecay", "l1Bias", "l2Bias", "weightDecayBias"};

  /** Fills in what the layer left to the network-wide configuration. */
  public void applyDefaults(String defaultName, Activation act, WeightInit init) {
    if (name == null) {
      name = defaultName;
    }
    if (activation == null) {
      activation = defaultActivation(act);
    }
    if (weightInit == null) {
      weightInit = init;
    }
  }

  /** The activation used when neither the layer nor the network sets one. */
  protected Activation defaultActivation(Activation networkDefault) {
    return networkDefault;
  }

  /** True when the layer has trainable parameters. */
  public abstract boolean hasParams();

  /**
   * Checks the layer against its input and returns its output type; sets nIn when it was not
   * given. Errors are IllegalArgumentExceptions naming the layer.
   */
  public abstract InputType inferOutput(InputType in);

  /** The first layer of a network without an input type: what its nIn implies. */
  public InputType impliedInput() {
    if (nIn <= 0) {
      throw error("no input type is set and nIn is not given: call setInputType(...) on the list builder, or nIn(...)");
    }
    return InputType.feedForward(nIn);
  }

  /** {@link #impliedInput()} of the layers that take sequences. */
  protected InputType impliedRecurrentInput() {
    if (nIn <= 0) {
      throw error("no input type is set and nIn is not given: call setInputType(InputType.recurrent(...)) on the list"
          + " builder, or nIn(...)");
    }
    return InputType.recurrent(nIn);
  }

  /** For the layers that take sequences: refuses any other input (`hint` appended), then resolves nIn. */
  protected void resolveRecurrentNIn(InputType in, String hint) {
    if (!in.isRecurrent()) {
      throw error("takes sequences [N, features, time] (InputType.recurrent), got " + in + hint);
    }
    resolveNIn(in.size);
  }

  /** Checks a given nIn against the inferred one, or sets it. */
  protected void resolveNIn(long inferred) {
    if (nIn > 0 && nIn != inferred) {
      throw error("nIn is " + nIn + " but the layer before gives " + inferred);
    }
    nIn = inferred;
  }

  protected IllegalArgumentException error(String what) {
    return new IllegalArgumentException(getClass().getSimpleName() + " \"" + name + "\": " + what);
  }

  protected static void positive(String what, int... v) {
    for (int x : v) {
      if (x <= 0) {
        throw new IllegalArgumentException(what + " must be positive, got " + x);
      }
    }
  }

  /** The configuration as JSON (with "type"). */
  public Map<String, Object> toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("type", getClass().getSimpleName());
    m.put("name", name);
    m.put("nIn", nIn);
    m.put("nOut", nOut);
    m.put("activation", activation == null ? null : activation.name());
    m.put("weightInit", weightInit == null ? null : weightInit.name());
    if (distribution != null) {  // these written only when set
      m.put("distribution", distribution.toJson());
    }
    if (!Double.isNaN(biasInit)) {
      m.put("biasInit", biasInit);
    }
    if (gradientNormalization != null) {
      m.put("gradientNormalization", gradientNormalization.name());
      m.put("gradientNormalizationThreshold", gradientNormalizationThreshold);
    }
    for (int k = 0; k < REGULARIZATION.length; ++k) {
      if (!Double.isNaN(regularization[k])) {
        m.put(REGULARIZATION[k], regularization[k]);  // written only when the layer sets it
      }
    }
    return m;
  }

  /** Reads what {@link #toJson()} wrote. */
  public static Layer fromJson(Map<String, Object> m) {
    String type = Json.str(m, "type");
    Builder<?> b;
    switch (type) {
      case "ConvolutionLayer": b = ConvolutionLayer.Builder.fromJson(m); break;
      case "SubsamplingLayer": b = SubsamplingLayer.Builder.fromJson(m); break;
      case "DenseLayer": b = new DenseLayer.Builder(); break;
      case "CenterLossOutputLayer": b = CenterLossOutputLayer.builderFromJson(m); break;
      case "OutputLayer": b = new OutputLayer.Builder(org.ndrt.nn.conf.LossFunction.valueOf(Json.str(m, "lossFunction"))); break;
      case "BatchNormalization": b = BatchNormalization.Builder.fromJson(m); break;
      case "DropoutLayer": b = new DropoutLayer.Builder(Json.num(m, "dropProbability")); break;
      case "ActivationLayer": b = new ActivationLayer.Builder(); break;
      case "LSTM": b = LSTM.Builder.fromJson(m); break;
      case "GRU": b = new GRU.Builder(); break;
      case "EmbeddingSequenceLayer": b = EmbeddingSequenceLayer.Builder.fromJson(m); break;
      case "RnnOutputLayer": b = new RnnOutputLayer.Builder(org.ndrt.nn.conf.LossFunction.valueOf(Json.str(m, "lossFunction"))); break;
      case "Convolution1DLayer": b = Convolution1DLayer.Builder.fromJson(m); break;
      case "GlobalPoolingLayer": b = GlobalPoolingLayer.Builder.fromJson(m); break;
      case "VariationalAutoencoder": b = VariationalAutoencoder.builderFromJson(m); break;
      case "LastTimeStep": return LastTimeStep.wrapperFromJson(m);
      case "Bidirectional": return Bidirectional.wrapperFromJson(m);
      default: throw new IllegalArgumentException("configuration JSON: unknown layer type \"" + type + "\"");
    }
    b.name = Json.str(m, "name", null);
    b.nIn = Json.integer(m, "nIn", 0);
    b.nOut = Json.integer(m, "nOut", 0);
    String a = Json.str(m, "activation", null);
    b.activation = a == null ? null : Activation.valueOf(a);
    String w = Json.str(m, "weightInit", null);
    b.weightInit = w == null ? null : WeightInit.valueOf(w);
    b.distribution = m.get("distribution") == null ? null : Distribution.fromJson(Json.obj(m.get("distribution"), "distribution"));
    b.biasInit = Json.num(m, "biasInit", Double.NaN);
    String gn = Json.str(m, "gradientNormalization", null);
    b.gradientNormalization = gn == null ? null : GradientNormalization.valueOf(gn);
    b.gradientNormalizationThreshold = Json.num(m, "gradientNormalizationThreshold", 1.0);
    for (int k = 0; k < REGULARIZATION.length; ++k) {
      b.regularization[k] = Json.num(m, REGULARIZATION[k], Double.NaN);
    }
    return b.build();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Layer && ((Layer) o).toJson().equals(toJson());
  }

  @Override
  public int hashCode() {
    return toJson().hashCode();
  }

  @Override
  public String toString() {
    return toJson().toString();
  }

  /** Builders in Deeplearning4j's style: {@code new DenseLayer.Builder().nOut(500).activation(RELU).build()}. */
  public abstract static class Builder<B extends Builder<B>> {
    String name;
    long nIn;
    long nOut;
    Activation activation;
    WeightInit weightInit;
    Distribution distribution;
    double biasInit = Double.NaN;
    GradientNormalization gradientNormalization;
    double gradientNormalizationThreshold = 1.0;
    final double[] regularization = {Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN};

    @SuppressWarnings("unchecked")
    protected B self() {
      return (B) this;
    }

    public B name(String name) {
      this.name = name;
      return self();
    }

    public B nIn(long nIn) {
      if (nIn <= 0) {
        throw new IllegalArgumentException("nIn must be positive, got " + nIn);
      }
      this.nIn = nIn;
      return self();
    }

    public B nOut(long nOut) {
      if (nOut <= 0) {
        throw new IllegalArgumentException("nOut must be positive, got " + nOut);
      }
      this.nOut = nOut;
      return self();
    }

    public B activation(Activation activation) {
      this.activation = activation;
      return self();
    }

    /**
     * The activation by Deeplearning4j's name ("relu", "identity", "softmax", ...).
     *
     * @deprecated as in Deeplearning4j: {@code activation(Activation.RELU)}
     */
    @Deprecated
    public B activation(String name) {
      Activation a = Activation.fromString(name);
      org.ndrt.LegacyApi.warn("activation(\"" + name + "\")", "activation(Activation." + a.name() + ")");
      return activation(a);
    }

    public B weightInit(WeightInit weightInit) {
      if (weightInit == WeightInit.DISTRIBUTION) {
        throw new IllegalArgumentException("weightInit(WeightInit.DISTRIBUTION): give the distribution, "
            + "weightInit(Distribution)");
      }
      this.weightInit = weightInit;
      this.distribution = null;
      return self();
    }

    /** Weights drawn from a distribution ({@link WeightInit#DISTRIBUTION}). */
    public B weightInit(Distribution distribution) {
      if (distribution == null) {
        throw new IllegalArgumentException("weightInit: the distribution must not be null");
      }
      this.weightInit = WeightInit.DISTRIBUTION;
      this.distribution = distribution;
      return self();
    }

    /** The starting value of the layer's biases (default 0; LSTM, GRU and VAE ignore it, as Deeplearning4j's). */
    public B biasInit(double biasInit) {
      if (!Double.isFinite(biasInit)) {
        throw new IllegalArgumentException("biasInit must be finite, got " + biasInit);
      }
      this.biasInit = biasInit;
      return self();
    }

    /** Normalisation of this layer's gradients before the updater (Deeplearning4j's). */
    public B gradientNormalization(GradientNormalization gn) {
      this.gradientNormalization = gn;
      return self();
    }

    /** The threshold of the clipping normalisations (default 1.0). */
    public B gradientNormalizationThreshold(double threshold) {
      if (!(threshold > 0) || Double.isInfinite(threshold)) {
        throw new IllegalArgumentException("gradientNormalizationThreshold must be finite and > 0, got " + threshold);
      }
      this.gradientNormalizationThreshold = threshold;
      return self();
    }

    /** L1 regularisation of this layer's weights: l1 * sign(w) added to the gradient. */
    public B l1(double l1) {
      return reg(0, l1, "l1");
    }

    /** L2 regularisation of this layer's weights (instead of the network's): l2 * w added to the gradient. */
    public B l2(double l2) {
      return reg(1, l2, "l2");
    }

    /** Decoupled weight decay of this layer's weights (instead of the network's): w -= lr * wd * w each step. */
    public B weightDecay(double wd) {
      return reg(2, wd, "weightDecay");
    }

    /** L1 regularisation of this layer's biases (none by default). */
    public B l1Bias(double l1) {
      return reg(3, l1, "l1Bias");
    }

    /** L2 regularisation of this layer's biases (none by default). */
    public B l2Bias(double l2) {
      return reg(4, l2, "l2Bias");
    }

    /** Decoupled weight decay of this layer's biases (none by default). */
    public B weightDecayBias(double wd) {
      return reg(5, wd, "weightDecayBias");
    }

    private B reg(int k, double v, String what) {
      if (!(v >= 0) || Double.isInfinite(v)) {
        throw new IllegalArgumentException(what + " must be a finite number >= 0, got " + v);
      }
      regularization[k] = v;
      return self();
    }

    public abstract Layer build();
  }
}
