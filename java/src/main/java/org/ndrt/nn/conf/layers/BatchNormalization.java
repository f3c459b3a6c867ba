package org.ndrt.nn.conf.layers;

import java.util.Map;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.Json;

/**
 * Batch normalisation over the channel axis (images) or the feature axis (rows): parameters gamma,
 * beta, and the running mean/variance (state, averaged by ParallelWrapper, not trained). decay as in
 * Deeplearning4j: running = decay * running + (1 - decay) * batch statistic.
 */
public final class BatchNormalization extends Layer {
  private final double decay;
  private final double eps;

  private BatchNormalization(Builder b) {
    super(b);
    this.decay = b.decay;
    this.eps = b.eps;
  }

  public double decay() {
    return decay;
  }

  public double eps() {
    return eps;
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
  public InputType inferOutput(InputType in) {
    if (in.isRecurrent()) {
      throw error("does not take sequences yet, got " + in);
    }
    if (in.isConvolutional() && activation() == Activation.SOFTMAX) {
      throw error("softmax over images is not supported (it would run over the width)");
    }
    long c = in.isConvolutional() ? in.channels : in.size;
    resolveNIn(c);
    nOut = c;
    return in.kind == InputType.Kind.CONVOLUTIONAL_FLAT ? InputType.convolutional(in.height, in.width, in.channels) : in;
  }

  @Override
  public Map<String, Object> toJson() {
    Map<String, Object> m = super.toJson();
    m.put("decay", decay);
    m.put("eps", eps);
    return m;
  }

  /** {@code new BatchNormalization.Builder().build()}. */
  public static final class Builder extends Layer.Builder<Builder> {
    private double decay = 0.9;
    private double eps = 1e-5;

    public Builder decay(double decay) {
      if (!(decay >= 0 && decay < 1)) {
        throw new IllegalArgumentException("BatchNormalization decay must be in [0, 1), got " + decay);
      }
      this.decay = decay;
      return this;
    }

    public Builder eps(double eps) {
      if (!(eps > 0)) {
        throw new IllegalArgumentException("BatchNormalization eps must be positive, got " + eps);
      }
      this.eps = eps;
      return this;
    }

    @Override
    public BatchNormalization build() {
      return new BatchNormalization(this);
    }

    static Builder fromJson(Map<String, Object> m) {
      return new Builder().decay(Json.num(m, "decay")).eps(Json.num(m, "eps"));
    }
  }
}
