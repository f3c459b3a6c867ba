package org.deeplearning4j.nn.conf.layers;

/**
 * Batch normalisation, as Deeplearning4j's BatchNormalization (org.ndrt.nn.conf.layers.BatchNormalization):
 * all of Deeplearning4j's constructors; learned gamma and beta starting at 1 and 0. Fixed gamma/beta
 * (lockGammaBeta) and minibatch(false) are refused at initialisation.
 */
public class BatchNormalization extends FeedForwardLayer {
  private static final long serialVersionUID = 1L;

  protected double decay = 0.9;
  protected double eps = 1e-5;
  protected boolean isMinibatch = true;
  protected boolean lockGammaBeta;
  protected double gamma = 1.0;
  protected double beta = 0.0;

  /** A layer with the defaults (as new Builder().build()). */
  public BatchNormalization() {}

  protected BatchNormalization(Builder b) {
    super(b);
    decay = b.decay;
    eps = b.eps;
    isMinibatch = b.isMinibatch;
    lockGammaBeta = b.lockGammaBeta;
    gamma = b.gamma;
    beta = b.beta;
  }

  public double getDecay() {
    return decay;
  }

  public double getEps() {
    return eps;
  }

  @Override
  public org.ndrt.nn.conf.layers.Layer ndrtLayer() {
    if (lockGammaBeta) {
      throw refuse("lockGammaBeta(true)");
    }
    if (!isMinibatch) {
      throw refuse("minibatch(false)");
    }
    // The network-wide activation does not reach batch normalisation in org.ndrt.nn (identity), as in
    // Deeplearning4j's usual use; one set on this layer applies after the normalisation.
    org.ndrt.nn.conf.layers.BatchNormalization.Builder b =
        sized(new org.ndrt.nn.conf.layers.BatchNormalization.Builder(), false).decay(decay).eps(eps);
    if (explicitActivation && (activationFn != null || activation != null)) {
      b.activation(org.ndrt.dl4j.Mapping.activation(activation, activationFn));
    }
    return b.build();
  }

  protected boolean explicitActivation;

  public static class Builder extends FeedForwardLayer.Builder<Builder> {
    protected double decay = 0.9;
    protected double eps = 1e-5;
    protected boolean isMinibatch = true;
    protected boolean lockGammaBeta;
    protected double gamma = 1.0;
    protected double beta = 0.0;

    public Builder() {}

    public Builder(double decay, boolean isMinibatch) {
      this.decay = decay;
      this.isMinibatch = isMinibatch;
    }

    public Builder(double gamma, double beta) {
      this.gamma = gamma;
      this.beta = beta;
    }

    public Builder(double gamma, double beta, boolean lockGammaBeta) {
      this(gamma, beta);
      this.lockGammaBeta = lockGammaBeta;
    }

    public Builder(boolean lockGammaBeta) {
      this.lockGammaBeta = lockGammaBeta;
    }

    public Builder minibatch(boolean minibatch) {
      this.isMinibatch = minibatch;
      return this;
    }

    public Builder gamma(double gamma) {
      this.gamma = gamma;
      return this;
    }

    public Builder beta(double beta) {
      this.beta = beta;
      return this;
    }

    public Builder eps(double eps) {
      this.eps = eps;
      return this;
    }

    public Builder decay(double decay) {
      this.decay = decay;
      return this;
    }

    public Builder lockGammaBeta(boolean lockGammaBeta) {
      this.lockGammaBeta = lockGammaBeta;
      return this;
    }

    @Override
    public BatchNormalization build() {
      BatchNormalization b = new BatchNormalization(this);
      b.explicitActivation = activation != null || activationFn != null;
      return b;
    }
  }
}
