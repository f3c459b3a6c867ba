package org.deeplearning4j.nn.conf.layers;

import org.nd4j.linalg.lossfunctions.ILossFunction;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/** Deeplearning4j's CenterLossOutputLayer: org.ndrt.nn's CenterLossOutputLayer (params W, b, cL). */
public class CenterLossOutputLayer extends BaseOutputLayer {
  private static final long serialVersionUID = 1L;

  protected double alpha = 0.05;
  protected double lambda = 2e-4;
  protected boolean gradientCheck;

  protected CenterLossOutputLayer() {}

  protected CenterLossOutputLayer(Builder b) {
    super(b);
    alpha = b.alpha;
    lambda = b.lambda;
    gradientCheck = b.gradientCheck;
  }

  @Override
  public org.ndrt.nn.conf.layers.Layer ndrtLayer() {
    return sized(new org.ndrt.nn.conf.layers.CenterLossOutputLayer.Builder(ndrtLoss()), true).alpha(alpha)
        .lambda(lambda).gradientCheck(gradientCheck).build();
  }

  public double getAlpha() {
    return alpha;
  }

  public double getLambda() {
    return lambda;
  }

  public boolean getGradientCheck() {
    return gradientCheck;
  }

  public static class Builder extends BaseOutputLayer.Builder<Builder> {
    protected double alpha = 0.05;
    protected double lambda = 2e-4;
    protected boolean gradientCheck;

    public Builder() {}

    public Builder(LossFunctions.LossFunction lossFunction) {
      super(lossFunction);
    }

    public Builder(ILossFunction lossFunction) {
      super(lossFunction);
    }

    public Builder alpha(double alpha) {
      this.alpha = alpha;
      return this;
    }

    public Builder lambda(double lambda) {
      this.lambda = lambda;
      return this;
    }

    public Builder gradientCheck(boolean gradientCheck) {
      this.gradientCheck = gradientCheck;
      return this;
    }

    @Override
    public CenterLossOutputLayer build() {
      return new CenterLossOutputLayer(this);
    }
  }
}
