package org.ndrt.nn.conf.layers;

import java.util.Map;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.InputType;

/**
 * Inverted dropout while training (identity at inference). The argument is the probability to DROP
 * an element, as in PyTorch (Deeplearning4j's dropOut(x) takes the probability to keep).
 */
public final class DropoutLayer extends Layer {
  private final double p;

  private DropoutLayer(Builder b) {
    super(b);
    this.p = b.p;
  }

  public double dropProbability() {
    return p;
  }

  @Override
  protected Activation defaultActivation(Activation networkDefault) {
    return Activation.IDENTITY;
  }

  @Override
  public boolean hasParams() {
    return false;
  }

  @Override
  public InputType inferOutput(InputType in) {
    nIn = in.flatSize();
    nOut = nIn;
    return in.kind == InputType.Kind.CONVOLUTIONAL_FLAT ? InputType.convolutional(in.height, in.width, in.channels) : in;
  }

  @Override
  public Map<String, Object> toJson() {
    Map<String, Object> m = super.toJson();
    m.put("dropProbability", p);
    return m;
  }

  /** {@code new DropoutLayer.Builder(0.5).build()}: drops half the elements while training. */
  public static final class Builder extends Layer.Builder<Builder> {
    private final double p;

    public Builder(double dropProbability) {
      if (!(dropProbability >= 0 && dropProbability < 1)) {
        throw new IllegalArgumentException("DropoutLayer: the drop probability must be in [0, 1), got " + dropProbability);
      }
      this.p = dropProbability;
    }

    @Override
    public DropoutLayer build() {
      return new DropoutLayer(this);
    }
  }
}
