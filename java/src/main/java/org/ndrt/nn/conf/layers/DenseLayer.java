package org.ndrt.nn.conf.layers;

import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.InputType;

/**
 * Fully connected: y = act(x W + b), W [nIn, nOut], b [nOut]. Image input is flattened (C, H, W
 * order). Default activation: sigmoid, as in Deeplearning4j, unless the network sets one.
 */
public class DenseLayer extends Layer {
  DenseLayer(Layer.Builder<?> b) {
    super(b);
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
      throw error("takes one row per example, got sequences " + in + ": put LastTimeStep around the recurrent layer"
          + " before it, or use an RnnOutputLayer for one output per time step");
    }
    resolveNIn(in.flatSize());
    if (nOut <= 0) {
      throw error("nOut is not set");
    }
    return InputType.feedForward(nOut);
  }

  /** {@code new DenseLayer.Builder().nOut(500).activation(Activation.RELU).build()}. */
  public static final class Builder extends Layer.Builder<Builder> {
    @Override
    public DenseLayer build() {
      return new DenseLayer(this);
    }
  }
}
