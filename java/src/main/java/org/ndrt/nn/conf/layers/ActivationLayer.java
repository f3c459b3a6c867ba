package org.ndrt.nn.conf.layers;

import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.InputType;

/**
 * An activation function on its own, no parameters (Deeplearning4j's ActivationLayer): e.g. the ReLU
 * after a residual block's sum. The activation must be set on the layer or the network; SOFTMAX is
 * refused on images and sequences (it would run over the last axis, not the channels).
 */
public final class ActivationLayer extends Layer {
  private ActivationLayer(Builder b) {
    super(b);
  }

  @Override
  public boolean hasParams() {
    return false;
  }

  @Override
  public InputType inferOutput(InputType in) {
    if (activation == null) {
      throw error("no activation: set it on the layer (activation(...)) or the network");
    }
    if (activation == Activation.SOFTMAX && (in.isConvolutional() || in.isRecurrent())) {
      throw error("SOFTMAX on " + in + " is not supported (it would run over the last axis)");
    }
    nIn = in.flatSize();
    nOut = nIn;
    return in.kind == InputType.Kind.CONVOLUTIONAL_FLAT ? InputType.convolutional(in.height, in.width, in.channels) : in;
  }

  /** {@code new ActivationLayer.Builder().activation(Activation.RELU).build()}. */
  public static final class Builder extends Layer.Builder<Builder> {
    public Builder() {}

    public Builder(Activation activation) {
      activation(activation);
    }

    @Override
    public ActivationLayer build() {
      return new ActivationLayer(this);
    }
  }
}
