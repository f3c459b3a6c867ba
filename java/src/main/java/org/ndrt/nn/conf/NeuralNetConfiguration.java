package org.ndrt.nn.conf;

import java.util.ArrayList;
import java.util.List;
import org.ndrt.DType;
import org.ndrt.LegacyApi;
import org.ndrt.nn.api.OptimizationAlgorithm;
import org.ndrt.nn.conf.layers.Layer;
import org.ndrt.nn.updater.Sgd;
import org.ndrt.nn.updater.Updater;

/**
 * The entry point of a network configuration, in Deeplearning4j's shape:
 *
 * <pre>{@code
 * MultiLayerConfiguration conf = new NeuralNetConfiguration.Builder()
 *     .seed(123).l2(0.0005).weightInit(WeightInit.XAVIER).updater(new Nesterovs(0.01, 0.9))
 *     .list()
 *     .layer(new ConvolutionLayer.Builder(5, 5).nOut(20).build())
 *     ...
 *     .setInputType(InputType.convolutionalFlat(28, 28, 1))
 *     .build();
 * }</pre>
 *
 * <p>Deeplearning4j's older forms are accepted too, so that its programs move with their imports
 * only; each deprecated one says once, on one line, which modern form to write: {@code
 * .updater(Updater.NESTEROVS).learningRate(0.01).momentum(0.9)} (the enum {@link
 * org.ndrt.nn.conf.Updater}; modern: {@code .updater(new Nesterovs(0.01, 0.9))}), {@code
 * .regularization(true).l2(x)} (without {@code regularization(true)} after a {@code
 * regularization(false)}, l2 is off, as in Deeplearning4j 0.x), {@code .iterations(1)}, {@code
 * .activation("relu")}, {@code .list(n)}, and on the list builder {@code .backprop(true)
 * .pretrain(false)}. {@code .optimizationAlgo(STOCHASTIC_GRADIENT_DESCENT)} is what ndrt does (other
 * values are refused); {@code .miniBatch(false)} sums the loss over the minibatch instead of averaging.
 */
public final class NeuralNetConfiguration {
  private NeuralNetConfiguration() {}

  /** Network-wide settings; {@link #list()} goes on to the layers. */
  /** The network-wide settings into a configuration's JSON (the keys both network kinds write). */
  static void settingsToJson(java.util.Map<String, Object> m, long seed, WeightInit weightInit, Activation activation,
      Updater updater, double l2, double weightDecay, DType dataType, double lossScale) {
    m.put("seed", seed);
    m.put("weightInit", weightInit.name());
    m.put("activation", activation == null ? null : activation.name());
    m.put("updater", updater.toJson());
    m.put("l2", l2);
    m.put("weightDecay", weightDecay);
    m.put("dataType", dataType.name());
    m.put("lossScale", lossScale);
  }

  /** A builder with the settings {@link #settingsToJson} wrote (and "miniBatch" when present). */
  static Builder settingsFromJson(java.util.Map<String, Object> m) {
    Builder b = new Builder()
        .seed(Json.integer(m, "seed"))
        .weightInit(WeightInit.valueOf(Json.str(m, "weightInit")))
        .updater(Updater.fromJson(Json.obj(m.get("updater"), "updater")))
        .l2(Json.num(m, "l2", 0))
        .weightDecay(Json.num(m, "weightDecay", 0))
        .dataType(DType.valueOf(Json.str(m, "dataType", "F32")))
        .lossScale(Json.num(m, "lossScale", 1024))
        .miniBatch(!Boolean.FALSE.equals(m.get("miniBatch")));
    String act = Json.str(m, "activation", null);
    if (act != null) {
      b.activation(Activation.valueOf(act));
    }
    return b;
  }

  public static final class Builder {
    long seed = 12345;
    WeightInit weightInit = WeightInit.XAVIER;
    Activation activation;
    Updater updater = new Sgd(0.1);
    double l2;
    double weightDecay;
    DType dataType = DType.F32;
    double lossScale = 1024;
    boolean miniBatch = true;
    // Deeplearning4j's deprecated forms: the enum updater with its settings, and regularization(..).
    org.ndrt.nn.conf.Updater legacyUpdater;
    double legacyLearningRate = Double.NaN;
    double legacyMomentum = Double.NaN;
    boolean updaterObject; // updater(Updater object) was called
    Boolean regularization; // null: regularization(..) was not called
    double l2Requested;

    /** Seed of the weight initialisation and dropout streams. */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /** Default weight initialisation of the layers (default XAVIER). */
    public Builder weightInit(WeightInit w) {
      this.weightInit = require(w, "weightInit");
      return this;
    }

    /** Default activation of hidden layers that set none (otherwise each layer type's default). */
    public Builder activation(Activation a) {
      this.activation = require(a, "activation");
      return this;
    }

    /** The gradient updater (default Sgd(0.1)). */
    public Builder updater(Updater u) {
      require(u, "updater");
      if (legacyUpdater != null || !Double.isNaN(legacyLearningRate) || !Double.isNaN(legacyMomentum)) {
        throw new IllegalArgumentException("updater(" + org.ndrt.nn.conf.Updater.source(u) + "): the rate is already set the "
            + "deprecated way (updater(Updater.X), learningRate(..), momentum(..)); use one form, the updater object");
      }
      this.updater = u;
      this.updaterObject = true;
      return this;
    }

    /** L2 regularisation of the weights (not biases), added to the gradient as l2 * w. */
    public Builder l2(double l2) {
      this.l2Requested = nonNegative(l2, "l2");
      this.l2 = Boolean.FALSE.equals(regularization) ? 0 : l2Requested;
      return this;
    }

    /**
     * Decoupled weight decay of the weights: w -= lr * weightDecay * w each step (AdamW with Adam).
     */
    public Builder weightDecay(double wd) {
      this.weightDecay = nonNegative(wd, "weightDecay");
      return this;
    }

    /**
     * The compute dtype: F32 (default), or F16 / BF16 for mixed precision — the layers compute in
     * that dtype from f32 master weights, the loss is computed in f32 and scaled (dynamic loss
     * scaling, starting at {@link #lossScale}).
     */
    public Builder dataType(DType dtype) {
      if (dtype != DType.F32 && dtype != DType.F16 && dtype != DType.BF16) {
        throw new IllegalArgumentException("dataType must be F32, F16 or BF16, got " + dtype);
      }
      this.dataType = dtype;
      return this;
    }

    /** The initial loss scale of mixed precision (default 1024; halved on overflow, grown when stable). */
    public Builder lossScale(double scale) {
      if (!(scale >= 1) || !Double.isFinite(scale)) {
        throw new IllegalArgumentException("lossScale must be finite and >= 1, got " + scale);
      }
      this.lossScale = scale;
      return this;
    }

    /** Goes on to the layers. */
    public ListBuilder list() {
      warnLegacyUpdater();
      return new ListBuilder(this);
    }

    /**
     * A builder of a graph of layers and vertices (Deeplearning4j's {@code graphBuilder()}): several
     * inputs and outputs, merges, skip connections; these settings apply to every layer.
     */
    public ComputationGraphConfiguration.GraphBuilder graphBuilder() {
      warnLegacyUpdater();
      return new ComputationGraphConfiguration.GraphBuilder(this);
    }

    private void warnLegacyUpdater() {
      if (legacyUpdater != null || !Double.isNaN(legacyLearningRate) || !Double.isNaN(legacyMomentum)) {
        StringBuilder used = new StringBuilder();
        if (legacyUpdater != null) {
          used.append("updater(Updater.").append(legacyUpdater.name()).append(')');
        }
        if (!Double.isNaN(legacyLearningRate)) {
          used.append(used.length() > 0 ? "." : "").append("learningRate(").append(legacyLearningRate).append(')');
        }
        if (!Double.isNaN(legacyMomentum)) {
          used.append(used.length() > 0 ? "." : "").append("momentum(").append(legacyMomentum).append(')');
        }
        LegacyApi.warn(used.toString(), "updater(" + org.ndrt.nn.conf.Updater.source(updater) + ")");
      }
    }

    // ------------------------------------------------------------ Deeplearning4j's older forms

    /**
     * Deeplearning4j's optimisation algorithm: ndrt trains by minibatch stochastic gradient descent
     * with the updater, {@code STOCHASTIC_GRADIENT_DESCENT} (the default); the others are refused.
     */
    public Builder optimizationAlgo(OptimizationAlgorithm algorithm) {
      if (require(algorithm, "optimizationAlgo") != OptimizationAlgorithm.STOCHASTIC_GRADIENT_DESCENT) {
        throw new IllegalArgumentException("optimizationAlgo(" + algorithm + ") is not in ndrt: it trains by "
            + "STOCHASTIC_GRADIENT_DESCENT with the configured updater");
      }
      return this;
    }

    /**
     * Deeplearning4j's {@code miniBatch}: true (the default), the score and gradients are the mean
     * over the minibatch; false, their sum over it (Deeplearning4j's ModelXOR, MemorizeSequence).
     */
    public Builder miniBatch(boolean miniBatch) {
      this.miniBatch = miniBatch;
      return this;
    }

    /**
     * Deeplearning4j's updater enum with {@link #learningRate} and {@link #momentum} (or the
     * updater's default rate, {@link org.ndrt.nn.conf.Updater#defaultLearningRate()}).
     *
     * @deprecated as in Deeplearning4j: give the updater object, e.g. {@code updater(new
     *     Nesterovs(0.1, 0.9))}
     */
    @Deprecated
    public Builder updater(org.ndrt.nn.conf.Updater kind) {
      require(kind, "updater");
      if (updaterObject) {
        throw new IllegalArgumentException("updater(Updater." + kind + ") after updater(" + org.ndrt.nn.conf.Updater.source(updater)
            + "): use one form, the updater object");
      }
      legacyUpdater = kind;
      return applyLegacyUpdater();
    }

    /**
     * The learning rate of the updater set by {@link #updater(org.ndrt.nn.conf.Updater)} (SGD when
     * none is).
     *
     * @deprecated as in Deeplearning4j: give the rate to the updater object, e.g. {@code updater(new
     *     Nesterovs(0.01, 0.9))}
     */
    @Deprecated
    public Builder learningRate(double learningRate) {
      if (!(learningRate > 0) || !Double.isFinite(learningRate)) {
        throw new IllegalArgumentException("learningRate must be positive and finite, got " + learningRate);
      }
      checkNoUpdaterObject("learningRate(" + learningRate + ")");
      legacyLearningRate = learningRate;
      return applyLegacyUpdater();
    }

    /**
     * The momentum of {@code updater(Updater.NESTEROVS)} (default 0.9; other updaters ignore it).
     *
     * @deprecated as in Deeplearning4j: {@code updater(new Nesterovs(learningRate, momentum))}
     */
    @Deprecated
    public Builder momentum(double momentum) {
      checkNoUpdaterObject("momentum(" + momentum + ")");
      legacyMomentum = momentum;
      return applyLegacyUpdater();
    }

    private void checkNoUpdaterObject(String what) {
      if (updaterObject) {
        throw new IllegalArgumentException(what + " goes with the deprecated updater(Updater.X); with an updater object "
            + "give it there: updater(" + org.ndrt.nn.conf.Updater.source(updater) + ") with your value");
      }
    }

    private Builder applyLegacyUpdater() {
      org.ndrt.nn.conf.Updater kind = legacyUpdater != null ? legacyUpdater : org.ndrt.nn.conf.Updater.SGD;
      double lr = legacyLearningRate;
      if (legacyUpdater == null && Double.isNaN(lr)) {
        lr = 0.1; // momentum(..) alone: Deeplearning4j 0.x's default SGD rate
      }
      updater = kind.create(lr, legacyMomentum);
      return this;
    }

    /**
     * Deeplearning4j 0.x's switch for l1/l2: {@code regularization(false)} turns {@link #l2} off (as
     * there), {@code true} lets it apply (as it does by itself here).
     *
     * @deprecated as in Deeplearning4j 1.0: {@code l2(x)} applies by itself
     */
    @Deprecated
    public Builder regularization(boolean regularization) {
      this.regularization = regularization;
      this.l2 = regularization ? l2Requested : 0;
      LegacyApi.warn("regularization(" + regularization + ")", regularization ? "l2(x) alone (it applies by itself)"
          : "no l2(x) (regularization(false) turns l2 off, as in Deeplearning4j 0.x)");
      return this;
    }

    /**
     * Deeplearning4j 0.x's optimiser iterations per minibatch: only 1 (each minibatch is fitted once,
     * what ndrt does) is accepted.
     *
     * @deprecated as in Deeplearning4j 1.0: leave it out (train more epochs to see the data more often)
     */
    @Deprecated
    public Builder iterations(int iterations) {
      if (iterations != 1) {
        throw new IllegalArgumentException("iterations(" + iterations + ") (fitting each minibatch " + iterations
            + " times) is not in ndrt: each minibatch is fitted once; train " + iterations + " times as many epochs instead");
      }
      LegacyApi.warnNoOp("iterations(1)", "each minibatch is fitted once");
      return this;
    }

    /**
     * The default activation by Deeplearning4j's name ("relu", "tanh", "softmax", "identity", ...).
     *
     * @deprecated as in Deeplearning4j: {@code activation(Activation.RELU)}
     */
    @Deprecated
    public Builder activation(String name) {
      Activation a = Activation.fromString(name);
      LegacyApi.warn("activation(\"" + name + "\")", "activation(Activation." + a.name() + ")");
      return activation(a);
    }

    /**
     * Deeplearning4j 0.4's list with its layer count (which {@code layer(i, ...)} checks anyway).
     *
     * @deprecated as in Deeplearning4j: {@code list()}
     */
    @Deprecated
    public ListBuilder list(int layers) {
      LegacyApi.warn("list(" + layers + ")", "list()");
      return list();
    }

    private static <T> T require(T v, String what) {
      if (v == null) {
        throw new IllegalArgumentException(what + " must not be null");
      }
      return v;
    }

    private static double nonNegative(double v, String what) {
      if (!(v >= 0) || !Double.isFinite(v)) {
        throw new IllegalArgumentException(what + " must be finite and >= 0, got " + v);
      }
      return v;
    }
  }

  /** The layers, in order, and the input type ({@link MultiLayerConfiguration.Builder} in Deeplearning4j's terms). */
  public static final class ListBuilder extends MultiLayerConfiguration.Builder {
    final Builder global;
    final List<Layer> layers = new ArrayList<>();
    InputType inputType;
    BackpropType backpropType = BackpropType.Standard;
    int tbpttFwdLength = 20;
    int tbpttBackLength = 20;

    ListBuilder(Builder global) {
      this.global = global;
    }

    /** Appends a layer. */
    public ListBuilder layer(Layer layer) {
      if (layer == null) {
        throw new IllegalArgumentException("layer must not be null");
      }
      layers.add(layer);
      return this;
    }

    /** Sets layer {@code index}, which must be the next one (Deeplearning4j's indexed form). */
    public ListBuilder layer(int index, Layer layer) {
      if (index != layers.size()) {
        throw new IllegalArgumentException("layer(" + index + ", ...): the next layer index is " + layers.size());
      }
      return layer(layer);
    }

    /** What the network takes in; lets every layer's nIn and spatial size be inferred. */
    @Override
    public ListBuilder setInputType(InputType type) {
      this.inputType = type;
      return this;
    }

    /**
     * Deeplearning4j's {@code backprop(true)}: networks always train by backpropagation ({@code
     * false} is refused).
     *
     * @deprecated as in Deeplearning4j 1.0: leave it out
     */
    @Deprecated
    @Override
    public ListBuilder backprop(boolean backprop) {
      if (!backprop) {
        throw new IllegalArgumentException("backprop(false) is not in ndrt: networks train by backpropagation");
      }
      LegacyApi.warnNoOp("backprop(true)", "networks always train by backpropagation");
      return this;
    }

    /**
     * Deeplearning4j's {@code pretrain(false)}: fit does no layerwise pretraining ({@code true} is
     * refused; pretraining is its own call, {@code Pretraining.pretrain(net, iterator, epochs)}).
     *
     * @deprecated as in Deeplearning4j 1.0: leave it out
     */
    @Deprecated
    @Override
    public ListBuilder pretrain(boolean pretrain) {
      if (pretrain) {
        throw new IllegalArgumentException("pretrain(true) is not in ndrt: fit does no layerwise pretraining; call"
            + " org.ndrt.nn.Pretraining.pretrain(net, iterator, epochs) (Deeplearning4j 1.0's net.pretrain) before fit");
      }
      LegacyApi.warnNoOp("pretrain(false)", "fit does no layerwise pretraining");
      return this;
    }

    /**
     * Standard (default) or TruncatedBPTT: the latter fits sequences in segments of
     * {@link #tBPTTForwardLength} steps (Deeplearning4j's default length: 20).
     */
    public ListBuilder backpropType(BackpropType type) {
      if (type == null) {
        throw new IllegalArgumentException("backpropType must not be null");
      }
      this.backpropType = type;
      return this;
    }

    /** Truncated BPTT: the steps of each segment of the forward pass. */
    public ListBuilder tBPTTForwardLength(int length) {
      this.tbpttFwdLength = positiveLength(length, "tBPTTForwardLength");
      return this;
    }

    /**
     * Truncated BPTT: the steps the gradient flows back through in each segment; must equal the
     * forward length (shorter backward lengths are not supported).
     */
    public ListBuilder tBPTTBackwardLength(int length) {
      this.tbpttBackLength = positiveLength(length, "tBPTTBackwardLength");
      return this;
    }

    /** Both truncated-BPTT lengths at once. */
    public ListBuilder tBPTTLength(int length) {
      return tBPTTForwardLength(length).tBPTTBackwardLength(length);
    }

    private static int positiveLength(int length, String what) {
      if (length <= 0) {
        throw new IllegalArgumentException(what + " must be positive, got " + length);
      }
      return length;
    }

    /** Checks every layer against its input (errors here, before any training) and freezes the configuration. */
    @Override
    public MultiLayerConfiguration build() {
      MultiLayerConfiguration c = new MultiLayerConfiguration(global.seed, global.weightInit, global.activation,
          global.updater, global.l2, global.weightDecay, global.dataType, global.lossScale, inputType, layers);
      c.setBackprop(backpropType, tbpttFwdLength, tbpttBackLength);
      c.setMiniBatch(global.miniBatch);
      return c;
    }
  }
}
