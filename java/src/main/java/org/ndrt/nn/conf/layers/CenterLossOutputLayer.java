package org.ndrt.nn.conf.layers;

import java.util.Map;
import org.ndrt.nn.conf.Json;
import org.ndrt.nn.conf.LossFunction;

/**
 * Deeplearning4j's CenterLossOutputLayer: an {@link OutputLayer} whose loss adds lambda / 2 times the
 * squared distance of each example's input features f to its class's center c_y (averaged over the
 * minibatch as the loss is). The centers (parameter cL, [nOut, nIn], starting at 0) are not trained
 * by the updater: each step moves c_j by alpha * sum_{y_i = j}(f_i - c_j) / (1 + n_j), divided by the
 * minibatch size unless miniBatch(false), as Deeplearning4j's. {@code gradientCheck(true)} moves them
 * by the gradient of the center term times alpha instead (Deeplearning4j's form for gradient checks).
 */
public final class CenterLossOutputLayer extends OutputLayer {
  private final double alpha;
  private final double lambda;
  private final boolean gradientCheck;

  private CenterLossOutputLayer(Builder b) {
    super(b, b.loss);
    this.alpha = b.alpha;
    this.lambda = b.lambda;
    this.gradientCheck = b.gradientCheck;
  }

  public double alpha() {
    return alpha;
  }

  public double lambda() {
    return lambda;
  }

  public boolean gradientCheck() {
    return gradientCheck;
  }

  @Override
  public Map<String, Object> toJson() {
    Map<String, Object> m = super.toJson();
    m.put("alpha", alpha);
    m.put("lambda", lambda);
    m.put("gradientCheck", gradientCheck);
    return m;
  }

  static Builder builderFromJson(Map<String, Object> m) {
    Builder b = new Builder(LossFunction.valueOf(Json.str(m, "lossFunction")));
    b.alpha(Json.num(m, "alpha")).lambda(Json.num(m, "lambda"));
    return b.gradientCheck(Boolean.TRUE.equals(m.get("gradientCheck")));
  }

  /** {@code new CenterLossOutputLayer.Builder(LossFunction.MCXENT).nOut(10).alpha(0.1).lambda(2e-4).build()}. */
  public static final class Builder extends Layer.Builder<Builder> {
    private final LossFunction loss;
    private double alpha = 0.05;
    private double lambda = 2e-4;
    private boolean gradientCheck;

    public Builder(LossFunction loss) {
      this.loss = loss;
    }

    /** How far the centers move toward their examples each step (Deeplearning4j's default 0.05). */
    public Builder alpha(double alpha) {
      if (!(alpha >= 0) || Double.isInfinite(alpha)) {
        throw new IllegalArgumentException("CenterLossOutputLayer: alpha must be a finite number >= 0, got " + alpha);
      }
      this.alpha = alpha;
      return this;
    }

    /** The weight of the center term in the loss (Deeplearning4j's default 2e-4). */
    public Builder lambda(double lambda) {
      if (!(lambda >= 0) || Double.isInfinite(lambda)) {
        throw new IllegalArgumentException("CenterLossOutputLayer: lambda must be a finite number >= 0, got " + lambda);
      }
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
