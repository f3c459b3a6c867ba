package org.deeplearning4j.nn.conf;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.deeplearning4j.nn.api.OptimizationAlgorithm;
import org.deeplearning4j.nn.conf.distribution.Distribution;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.BaseLayer;
import org.deeplearning4j.nn.conf.layers.Convolution1DLayer;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.deeplearning4j.nn.conf.layers.SubsamplingLayer;
import org.deeplearning4j.nn.weights.WeightInit;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.activations.IActivation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.learning.config.Sgd;

/**
 * Deeplearning4j's network-wide configuration and its builder. An instance is one layer's view of it
 * ({@link MultiLayerConfiguration#getConf(int)}: {@link #getLayer()}). Defaults are Deeplearning4j's:
 * Sgd(1e-3), XAVIER, SIGMOID, Truncate convolutions. What the network trains is org.ndrt.nn's
 * configuration made from this one when it is initialised (org.ndrt.dl4j.Translator).
 */
public class NeuralNetConfiguration implements Serializable, Cloneable {
  private static final long serialVersionUID = 1L;

  protected Layer layer;
  protected long seed;
  protected OptimizationAlgorithm optimizationAlgo = OptimizationAlgorithm.STOCHASTIC_GRADIENT_DESCENT;
  protected boolean miniBatch = true;

  protected NeuralNetConfiguration() {}

  NeuralNetConfiguration(Layer layer, long seed, OptimizationAlgorithm algo, boolean miniBatch) {
    this.layer = layer;
    this.seed = seed;
    this.optimizationAlgo = algo;
    this.miniBatch = miniBatch;
  }

  public Layer getLayer() {
    return layer;
  }

  public long getSeed() {
    return seed;
  }

  public OptimizationAlgorithm getOptimizationAlgo() {
    return optimizationAlgo;
  }

  public boolean isMiniBatch() {
    return miniBatch;
  }

  /** This layer's configuration as Deeplearning4j's JSON (one element of MultiLayerConfiguration's "confs"). */
  public String toJson() {
    return org.ndrt.dl4j.Dl4jJson.write(this);
  }

  /** Reads {@link #toJson()}'s form (Deeplearning4j's). */
  public static NeuralNetConfiguration fromJson(String json) {
    return org.ndrt.dl4j.Dl4jJson.readConf(json);
  }

  /** Deeplearning4j's YAML form is not written by ndrt: use {@link #toJson()}. */
  public String toYaml() {
    throw new UnsupportedOperationException("NeuralNetConfiguration.toYaml: ndrt's Deeplearning4j drop-in writes JSON "
        + "only (toJson)");
  }

  /** Deeplearning4j's network-wide settings; {@link #list()} goes on to the layers. */
  public static class Builder implements Cloneable {
    protected long seed = System.currentTimeMillis();
    protected IUpdater iUpdater = new Sgd();
    protected boolean explicitUpdater;               // an IUpdater object was given (1.0 style)
    protected double learningRate = Double.NaN;      // Deeplearning4j 0.x's learningRate()
    protected Boolean regularization;                // 0.x's regularization(flag); null: never called
    protected IUpdater biasUpdater;
    protected WeightInit weightInit = WeightInit.XAVIER;
    protected Distribution dist;
    protected Activation activation = Activation.SIGMOID;
    protected IActivation activationFn;
    protected double biasInit;
    protected double l1;
    protected double l2;
    protected double l1Bias;
    protected double l2Bias;
    protected double weightDecay;
    protected double dropOut = Double.NaN;
    protected GradientNormalization gradientNormalization = GradientNormalization.None;
    protected double gradientNormalizationThreshold = 1.0;
    protected OptimizationAlgorithm optimizationAlgo = OptimizationAlgorithm.STOCHASTIC_GRADIENT_DESCENT;
    protected boolean miniBatch = true;
    protected ConvolutionMode convolutionMode = ConvolutionMode.Truncate;
    protected DataType dataType = DataType.FLOAT;

    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    public Builder updater(IUpdater updater) {
      this.iUpdater = updater;
      this.explicitUpdater = true;
      return this;
    }

    /**
     * Deeplearning4j's older enum form: the updater with ND4J's defaults, its learning rate the one
     * {@link #learningRate} gives (before or after).
     */
    public Builder updater(Updater updater) {
      this.iUpdater = withLearningRate(updater.getIUpdaterWithDefaultConfig());
      this.explicitUpdater = false;
      return this;
    }

    /**
     * Deeplearning4j 0.x: the learning rate of the updater chosen by the enum form {@link
     * #updater(Updater)} (or of the default SGD); an IUpdater object given to {@link #updater(IUpdater)}
     * keeps its own rate.
     */
    public Builder learningRate(double learningRate) {
      if (!(learningRate > 0) || Double.isInfinite(learningRate)) {
        throw new IllegalArgumentException("learningRate(" + learningRate + "): need a finite rate > 0");
      }
      org.ndrt.LegacyApi.warn("learningRate(" + learningRate + ")", "an updater object with its rate, e.g. "
          + "updater(new AdaGrad(" + learningRate + "))");
      this.learningRate = learningRate;
      if (!explicitUpdater) {
        iUpdater = withLearningRate(iUpdater);
      }
      return this;
    }

    private IUpdater withLearningRate(IUpdater u) {
      if (Double.isNaN(learningRate) || !u.hasLearningRate()) {
        return u;
      }
      IUpdater c = u.clone();
      c.setLrAndSchedule(learningRate, null);
      return c;
    }

    /**
     * Deeplearning4j 0.x: whether the l1/l2 settings apply. {@code regularization(false)} turns the
     * network-wide l1, l2, l1Bias and l2Bias off; programs written for 1.0 never call it and get them.
     */
    public Builder regularization(boolean useRegularization) {
      org.ndrt.LegacyApi.warn("regularization(" + useRegularization + ")", useRegularization
          ? "l1/l2 alone (they always apply)" : "no l1/l2");
      this.regularization = useRegularization;
      return this;
    }

    /** A network-wide l1/l2 value as it applies ({@link #regularization}). */
    double regularized(double v) {
      return Boolean.FALSE.equals(regularization) ? 0 : v;
    }

    public Builder biasUpdater(IUpdater updater) {
      this.biasUpdater = updater;
      return this;
    }

    public Builder weightInit(WeightInit weightInit) {
      if (weightInit == WeightInit.DISTRIBUTION) {
        throw new UnsupportedOperationException("weightInit(WeightInit.DISTRIBUTION): give the distribution, "
            + "weightInit(Distribution)");
      }
      this.weightInit = weightInit;
      this.dist = null;
      return this;
    }

    public Builder weightInit(Distribution distribution) {
      this.dist = distribution;
      this.weightInit = WeightInit.DISTRIBUTION;
      return this;
    }

    public Builder dist(Distribution distribution) {
      return weightInit(distribution);
    }

    public Builder activation(Activation activation) {
      this.activation = activation;
      this.activationFn = null;
      return this;
    }

    public Builder activation(IActivation activation) {
      this.activationFn = activation;
      this.activation = null;
      return this;
    }

    public Builder biasInit(double biasInit) {
      this.biasInit = biasInit;
      return this;
    }

    public Builder l1(double l1) {
      this.l1 = l1;
      return this;
    }

    /** As Deeplearning4j's: l2 > 0 drops weightDecay (the two do not combine). */
    public Builder l2(double l2) {
      this.l2 = l2;
      this.weightDecay = l2 > 0 ? 0 : weightDecay;
      return this;
    }

    public Builder l1Bias(double l1Bias) {
      this.l1Bias = l1Bias;
      return this;
    }

    public Builder l2Bias(double l2Bias) {
      this.l2Bias = l2Bias;
      return this;
    }

    public Builder weightDecay(double coefficient) {
      this.weightDecay = coefficient;
      this.l2 = coefficient > 0 ? 0 : l2;  // as Deeplearning4j's: drops l2
      return this;
    }

    public Builder weightDecay(double coefficient, boolean applyLR) {
      if (!applyLR) {
        throw new UnsupportedOperationException("weightDecay(" + coefficient + ", false): org.ndrt.nn's weight decay is "
            + "multiplied by the learning rate (applyLR true)");
      }
      return weightDecay(coefficient);
    }

    /** The probability to KEEP each input value of every layer in training (Deeplearning4j's meaning). */
    public Builder dropOut(double inputRetainProbability) {
      this.dropOut = inputRetainProbability;
      return this;
    }

    public Builder gradientNormalization(GradientNormalization gn) {
      this.gradientNormalization = gn;
      return this;
    }

    public Builder gradientNormalizationThreshold(double threshold) {
      this.gradientNormalizationThreshold = threshold;
      return this;
    }

    public Builder optimizationAlgo(OptimizationAlgorithm algo) {
      this.optimizationAlgo = algo;
      return this;
    }

    public Builder miniBatch(boolean miniBatch) {
      this.miniBatch = miniBatch;
      return this;
    }

    public Builder convolutionMode(ConvolutionMode mode) {
      this.convolutionMode = mode;
      return this;
    }

    /** FLOAT (default) trains in f32, HALF / BFLOAT16 in mixed precision; other types are refused at initialisation. */
    public Builder dataType(DataType dataType) {
      this.dataType = dataType;
      return this;
    }

    /** Accepted and ignored: ndrt has no workspaces. */
    public Builder trainingWorkspaceMode(WorkspaceMode mode) {
      return this;
    }

    /** Accepted and ignored: ndrt has no workspaces. */
    public Builder inferenceWorkspaceMode(WorkspaceMode mode) {
      return this;
    }

    /** Accepted and ignored: ndrt caches nothing between passes. */
    public Builder cacheMode(CacheMode mode) {
      return this;
    }

    /** Accepted and ignored: ndrt chooses its own convolution kernels. */
    public Builder cudnnAlgoMode(ConvolutionLayer.AlgoMode mode) {
      return this;
    }

    /** Deeplearning4j 0.x: only 1 (each minibatch fitted once) exists in ndrt. */
    public Builder iterations(int iterations) {
      if (iterations != 1) {
        throw new UnsupportedOperationException("iterations(" + iterations + "): ndrt fits each minibatch once");
      }
      return this;
    }

    public ListBuilder list() {
      return new ListBuilder(this);
    }

    /** Goes on to a graph of layers and vertices (ComputationGraphConfiguration). */
    public ComputationGraphConfiguration.GraphBuilder graphBuilder() {
      return new ComputationGraphConfiguration.GraphBuilder(this);
    }

    public ListBuilder list(Layer... layers) {
      ListBuilder b = list();
      for (Layer l : layers) {
        b.layer(l);
      }
      return b;
    }

    /** The layer with the network-wide settings filled in (what Deeplearning4j stores per layer). */
    Layer resolve(Layer in) {
      Layer l = in.clone();
      if (l instanceof BaseLayer) {
        ((BaseLayer) l).inheritFrom(activation, activationFn, weightInit, dist, biasInit, regularized(l1), regularized(l2),
            regularized(l1Bias), regularized(l2Bias),
            weightDecay, iUpdater, biasUpdater, gradientNormalization, gradientNormalizationThreshold);
      }
      if (Double.isNaN(l.getDropOut()) && !(l instanceof org.deeplearning4j.nn.conf.layers.DropoutLayer)) {
        l.setDropOut(dropOut);
      }
      if (l instanceof ConvolutionLayer) {
        ((ConvolutionLayer) l).inheritConvolutionMode(convolutionMode);
      } else if (l instanceof SubsamplingLayer) {
        ((SubsamplingLayer) l).inheritConvolutionMode(convolutionMode);
      } else if (l instanceof Convolution1DLayer) {
        ((Convolution1DLayer) l).inheritConvolutionMode(convolutionMode);
      }
      return l;
    }

    @Override
    public Builder clone() {
      try {
        return (Builder) super.clone();
      } catch (CloneNotSupportedException e) {
        throw new AssertionError(e);
      }
    }
  }

  /** The layers in order, the input type and backpropagation settings. */
  public static class ListBuilder extends MultiLayerConfiguration.Builder {
    protected final Builder global;
    protected final List<Layer> layers = new ArrayList<>();
    protected final List<InputPreProcessor> preProcessors = new ArrayList<>();
    protected InputType inputType;
    protected BackpropType backpropType = BackpropType.Standard;
    protected int tbpttFwdLength = 20;
    protected int tbpttBackLength = 20;

    public ListBuilder(Builder global) {
      this.global = global;
    }

    public ListBuilder layer(Layer layer) {
      layers.add(layer);
      return this;
    }

    /** Layer {@code index}: the next one, or one already added (replaced), as in Deeplearning4j. */
    public ListBuilder layer(int index, Layer layer) {
      if (index == layers.size()) {
        layers.add(layer);
      } else if (index >= 0 && index < layers.size()) {
        layers.set(index, layer);
      } else {
        throw new IllegalArgumentException("layer(" + index + ", ..): the layers so far are 0.." + (layers.size() - 1)
            + "; add them in order");
      }
      return this;
    }

    public ListBuilder setInputType(InputType inputType) {
      this.inputType = inputType;
      return this;
    }

    public ListBuilder inputPreProcessor(Integer layer, InputPreProcessor processor) {
      while (preProcessors.size() <= layer) {
        preProcessors.add(null);
      }
      preProcessors.set(layer, processor);
      return this;
    }

    public ListBuilder backpropType(BackpropType type) {
      this.backpropType = type;
      return this;
    }

    public ListBuilder tBPTTLength(int length) {
      return tBPTTForwardLength(length).tBPTTBackwardLength(length);
    }

    public ListBuilder tBPTTForwardLength(int length) {
      this.tbpttFwdLength = length;
      return this;
    }

    public ListBuilder tBPTTBackwardLength(int length) {
      this.tbpttBackLength = length;
      return this;
    }

    /** Accepted: org.ndrt.nn checks the output layer's loss and activation itself. */
    public ListBuilder validateOutputLayerConfig(boolean validate) {
      return this;
    }

    /** Deeplearning4j 0.x: backprop(true) is what ndrt does; false is refused. */
    public ListBuilder backprop(boolean backprop) {
      if (!backprop) {
        throw new UnsupportedOperationException("backprop(false): ndrt trains by backpropagation");
      }
      return this;
    }

    /** Deeplearning4j 0.x: pretrain(false) is what ndrt does; true is refused. */
    public ListBuilder pretrain(boolean pretrain) {
      if (pretrain) {
        throw new UnsupportedOperationException("pretrain(true): ndrt has no layerwise pretraining");
      }
      return this;
    }

    /**
     * The configuration, each layer with the network-wide settings filled in. Settings org.ndrt.nn
     * lacks are refused when the network is initialised, not here, as Deeplearning4j validates there too.
     */
    public MultiLayerConfiguration build() {
      if (layers.isEmpty()) {
        throw new IllegalStateException("the network has no layers");
      }
      List<NeuralNetConfiguration> confs = new ArrayList<>();
      for (Layer l : layers) {
        confs.add(new NeuralNetConfiguration(global.resolve(l), global.seed, global.optimizationAlgo, global.miniBatch));
      }
      MultiLayerConfiguration c = new MultiLayerConfiguration();
      c.confs = confs;
      c.inputType = inputType;
      c.inputPreProcessors = new ArrayList<>(preProcessors);
      c.backpropType = backpropType;
      c.tbpttFwdLength = tbpttFwdLength;
      c.tbpttBackLength = tbpttBackLength;
      c.iUpdater = global.iUpdater;
      c.l2 = global.regularized(global.l2);
      c.weightDecay = global.weightDecay;
      c.dataType = global.dataType;
      org.ndrt.dl4j.Dl4jJson.fillNIn(c); // each layer's nIn from the input type, as Deeplearning4j's build() sets it
      return c;
    }

    @Override
    public String toString() {
      return "ListBuilder" + Arrays.toString(layers.toArray());
    }
  }
}
