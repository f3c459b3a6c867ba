package org.deeplearning4j.nn.conf.layers;

import org.deeplearning4j.nn.conf.GradientNormalization;
import org.deeplearning4j.nn.conf.Updater;
import org.deeplearning4j.nn.conf.distribution.Distribution;
import org.deeplearning4j.nn.weights.WeightInit;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.activations.IActivation;
import org.nd4j.linalg.learning.config.IUpdater;
import org.ndrt.dl4j.Mapping;

/**
 * A layer with parameters, as Deeplearning4j's BaseLayer. Settings left unset (null / NaN) take the
 * network-wide value when the list is built ({@code NeuralNetConfiguration.ListBuilder.build()}), as in
 * Deeplearning4j. org.ndrt.nn has one updater, l2 and weight decay per network: per-layer values must
 * agree across the layers with parameters, or initialisation refuses them.
 */
public abstract class BaseLayer extends Layer {
  private static final long serialVersionUID = 1L;

  protected Activation activation;
  protected IActivation activationFn;
  protected WeightInit weightInit;
  protected Distribution dist;
  protected double biasInit = Double.NaN;
  protected double l1 = Double.NaN;
  protected double l2 = Double.NaN;
  protected double l1Bias = Double.NaN;
  protected double l2Bias = Double.NaN;
  protected double weightDecay = Double.NaN;
  protected double weightDecayBias = Double.NaN;
  protected IUpdater iUpdater;
  protected IUpdater biasUpdater;
  protected GradientNormalization gradientNormalization;
  protected double gradientNormalizationThreshold = Double.NaN;

  protected BaseLayer() {}

  protected BaseLayer(Builder<?> b) {
    super(b);
    activation = b.activation;
    activationFn = b.activationFn;
    weightInit = b.weightInit;
    dist = b.dist;
    biasInit = b.biasInit;
    l1 = b.l1;
    l2 = b.l2;
    l1Bias = b.l1Bias;
    l2Bias = b.l2Bias;
    weightDecay = b.weightDecay;
    weightDecayBias = b.weightDecayBias;
    iUpdater = b.iUpdater;
    biasUpdater = b.biasUpdater;
    gradientNormalization = b.gradientNormalization;
    gradientNormalizationThreshold = b.gradientNormalizationThreshold;
  }

  /** The activation function (null when neither the layer nor the network sets one). */
  public IActivation getActivationFn() {
    return activationFn != null ? activationFn : activation == null ? null : activation.getActivationFunction();
  }

  /** True when the layer or the network set an activation. */
  public boolean hasActivation() {
    return activation != null || activationFn != null;
  }

  public WeightInit getWeightInit() {
    return weightInit;
  }

  public IUpdater getIUpdater() {
    return iUpdater;
  }

  public IUpdater getBiasUpdater() {
    return biasUpdater;
  }

  public double getL1() {
    return l1;
  }

  public double getL2() {
    return l2;
  }

  public double getWeightDecay() {
    return weightDecay;
  }

  public double getBiasInit() {
    return biasInit;
  }

  public GradientNormalization getGradientNormalization() {
    return gradientNormalization;
  }

  public double getGradientNormalizationThreshold() {
    return gradientNormalizationThreshold;
  }

  /**
   * ndrt: fills what the layer left unset from the network-wide settings (Deeplearning4j does this when
   * the list is built).
   */
  public void inheritFrom(Activation act, IActivation actFn, WeightInit wi, Distribution d, double bias, double gl1,
      double gl2, double gl1Bias, double gl2Bias, double wd, IUpdater upd, IUpdater biasUpd, GradientNormalization gn,
      double gnThreshold) {
    if (!hasActivation()) {
      activation = act;
      activationFn = actFn;
    }
    if (weightInit == null && dist == null) {
      weightInit = wi;
      dist = d;
    }
    biasInit = Double.isNaN(biasInit) ? bias : biasInit;
    l1 = Double.isNaN(l1) ? gl1 : l1;
    l2 = Double.isNaN(l2) ? gl2 : l2;
    l1Bias = Double.isNaN(l1Bias) ? gl1Bias : l1Bias;
    l2Bias = Double.isNaN(l2Bias) ? gl2Bias : l2Bias;
    weightDecay = Double.isNaN(weightDecay) ? wd : weightDecay;
    iUpdater = iUpdater == null ? upd : iUpdater;
    biasUpdater = biasUpdater == null ? biasUpd : biasUpdater;
    gradientNormalization = gradientNormalization == null ? gn : gradientNormalization;
    gradientNormalizationThreshold = Double.isNaN(gradientNormalizationThreshold) ? gnThreshold
        : gradientNormalizationThreshold;
  }

  /**
   * Sets the settings every org.ndrt.nn layer has (name, activation, weight init or distribution, bias
   * init, gradient normalisation, l1 / l2 / weight decay of weights and biases) and refuses those it
   * lacks (a separate bias updater).
   */
  protected <B extends org.ndrt.nn.conf.layers.Layer.Builder<B>> B base(B b, boolean withActivation) {
    if (layerName != null) {
      b.name(layerName);
    }
    if (withActivation) {
      b.activation(hasActivation() ? Mapping.activation(activation, activationFn) : org.ndrt.nn.conf.Activation.SIGMOID);
    }
    if (dist != null) {
      b.weightInit(Mapping.distribution(dist, this));
    } else if (weightInit == WeightInit.DISTRIBUTION) {
      throw new IllegalArgumentException(getClass().getSimpleName() + ": weightInit DISTRIBUTION without a distribution");
    } else if (weightInit != null) {
      b.weightInit(Mapping.weightInit(weightInit, this));
    }
    double[] reg = {l1, l2, weightDecay, l1Bias, l2Bias, weightDecayBias};
    for (int k = 0; k < reg.length; ++k) {
      // l2 / weightDecay as set or inherited (0 overrides the network's); l1 and the bias terms when on (0 is their default).
      if (k == 1 || k == 2 ? !Double.isNaN(reg[k]) : reg[k] > 0) {
        setRegularization(b, k, reg[k]);
      }
    }
    if (!Double.isNaN(biasInit)) {
      b.biasInit(biasInit);
    }
    if (gradientNormalization != null && gradientNormalization != GradientNormalization.None) {
      b.gradientNormalization(org.ndrt.nn.conf.GradientNormalization.valueOf(gradientNormalization.name()))
          .gradientNormalizationThreshold(Double.isNaN(gradientNormalizationThreshold) ? 1.0
              : gradientNormalizationThreshold);
    }
    if (biasUpdater != null && !biasUpdater.equals(iUpdater)) {
      throw refuse("biasUpdater(" + biasUpdater + ") (one updater for all parameters)");
    }
    return b;
  }

  private static void setRegularization(org.ndrt.nn.conf.layers.Layer.Builder<?> b, int k, double v) {
    switch (k) {
      case 0: b.l1(v); break;
      case 1: b.l2(v); break;
      case 2: b.weightDecay(v); break;
      case 3: b.l1Bias(v); break;
      case 4: b.l2Bias(v); break;
      default: b.weightDecayBias(v); break;
    }
  }

  /** Deeplearning4j's BaseLayer builder. */
  public abstract static class Builder<T extends Builder<T>> extends Layer.Builder<T> {
    protected Activation activation;
    protected IActivation activationFn;
    protected WeightInit weightInit;
    protected Distribution dist;
    protected double biasInit = Double.NaN;
    protected double l1 = Double.NaN;
    protected double l2 = Double.NaN;
    protected double l1Bias = Double.NaN;
    protected double l2Bias = Double.NaN;
    protected double weightDecay = Double.NaN;
    protected double weightDecayBias = Double.NaN;
    protected IUpdater iUpdater;
    protected IUpdater biasUpdater;
    protected GradientNormalization gradientNormalization;
    protected double gradientNormalizationThreshold = Double.NaN;

    public T activation(Activation activation) {
      this.activation = activation;
      this.activationFn = null;
      return self();
    }

    public T activation(IActivation activationFunction) {
      this.activationFn = activationFunction;
      this.activation = null;
      return self();
    }

    /** Deeplearning4j 0.x's activation by name ("relu", "softmax", ...). */
    public T activation(String activationName) {
      return activation(Activation.fromString(activationName));
    }

    public T weightInit(WeightInit weightInit) {
      if (weightInit == WeightInit.DISTRIBUTION) {
        throw new UnsupportedOperationException("weightInit(WeightInit.DISTRIBUTION): give the distribution, "
            + "weightInit(Distribution)");
      }
      this.weightInit = weightInit;
      this.dist = null;
      return self();
    }

    public T weightInit(Distribution distribution) {
      this.dist = distribution;
      this.weightInit = WeightInit.DISTRIBUTION;
      return self();
    }

    /** Deeplearning4j's older form of {@link #weightInit(Distribution)}. */
    public T dist(Distribution distribution) {
      return weightInit(distribution);
    }

    public T biasInit(double biasInit) {
      this.biasInit = biasInit;
      return self();
    }

    public T l1(double l1) {
      this.l1 = l1;
      return self();
    }

    /** As Deeplearning4j's: l2 > 0 drops this builder's weightDecay (the two do not combine). */
    public T l2(double l2) {
      this.l2 = l2;
      this.weightDecay = l2 > 0 ? Double.NaN : weightDecay;
      return self();
    }

    public T l1Bias(double l1Bias) {
      this.l1Bias = l1Bias;
      return self();
    }

    /** As Deeplearning4j's: l2Bias > 0 drops this builder's weightDecayBias. */
    public T l2Bias(double l2Bias) {
      this.l2Bias = l2Bias;
      this.weightDecayBias = l2Bias > 0 ? Double.NaN : weightDecayBias;
      return self();
    }

    /** Decoupled weight decay: w -= lr * coefficient * w each step (with the learning rate, Deeplearning4j's default). */
    public T weightDecay(double coefficient) {
      this.weightDecay = coefficient;
      this.l2 = coefficient > 0 ? Double.NaN : l2;  // as Deeplearning4j's: drops this builder's l2
      return self();
    }

    /** As {@link #weightDecay(double)}; applyLR false (decay without the learning rate) is refused at initialisation. */
    public T weightDecay(double coefficient, boolean applyLR) {
      if (!applyLR) {
        throw new UnsupportedOperationException("weightDecay(" + coefficient + ", false): org.ndrt.nn's weight decay is "
            + "multiplied by the learning rate (applyLR true)");
      }
      return weightDecay(coefficient);
    }

    /** Decoupled weight decay of the biases: b -= lr * coefficient * b each step (none by default). */
    public T weightDecayBias(double coefficient) {
      this.weightDecayBias = coefficient;
      this.l2Bias = coefficient > 0 ? Double.NaN : l2Bias;  // as Deeplearning4j's: drops this builder's l2Bias
      return self();
    }

    /** As {@link #weightDecayBias(double)}; applyLR false is refused, as for {@link #weightDecay(double, boolean)}. */
    public T weightDecayBias(double coefficient, boolean applyLR) {
      if (!applyLR) {
        throw new UnsupportedOperationException("weightDecayBias(" + coefficient + ", false): org.ndrt.nn's weight decay "
            + "is multiplied by the learning rate (applyLR true)");
      }
      return weightDecayBias(coefficient);
    }

    public T updater(IUpdater updater) {
      this.iUpdater = updater;
      return self();
    }

    /** Deeplearning4j's older enum form: the updater with ND4J's defaults. */
    public T updater(Updater updater) {
      return updater(updater.getIUpdaterWithDefaultConfig());
    }

    public T biasUpdater(IUpdater updater) {
      this.biasUpdater = updater;
      return self();
    }

    public T gradientNormalization(GradientNormalization gradientNormalization) {
      this.gradientNormalization = gradientNormalization;
      return self();
    }

    public T gradientNormalizationThreshold(double threshold) {
      this.gradientNormalizationThreshold = threshold;
      return self();
    }
  }
}
