package org.deeplearning4j.nn.conf.layers;

import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.activations.IActivation;
import org.ndrt.dl4j.Mapping;

/** An LSTM layer (no peepholes), as Deeplearning4j's LSTM (org.ndrt.nn.conf.layers.LSTM). */
public class LSTM extends BaseRecurrentLayer {
  private static final long serialVersionUID = 1L;

  protected double forgetGateBiasInit = 1.0;
  protected Activation gateActivation = Activation.SIGMOID;
  protected IActivation gateActivationFn;

  protected LSTM() {}

  protected LSTM(Builder b) {
    super(b);
    forgetGateBiasInit = b.forgetGateBiasInit;
    gateActivation = b.gateActivation;
    gateActivationFn = b.gateActivationFn;
  }

  public double getForgetGateBiasInit() {
    return forgetGateBiasInit;
  }

  @Override
  public org.ndrt.nn.conf.layers.Layer ndrtLayer() {
    checkFormat();
    org.ndrt.nn.conf.Activation act =
        hasActivation() ? Mapping.activation(activation, activationFn) : org.ndrt.nn.conf.Activation.SIGMOID;
    if (act != org.ndrt.nn.conf.Activation.TANH) {
      // Deeplearning4j 1.0.0-M2.1 gives an LSTM without .activation(...) the network's activation (SIGMOID unless
      // set): refused rather than silently computed as tanh, which would be another model.
      throw new UnsupportedOperationException("LSTM" + (layerName != null ? " \"" + layerName + "\"" : "")
          + ": activation " + act + " (Deeplearning4j's LSTM takes the network-wide activation, SIGMOID by default, when"
          + " .activation(...) is not set on it); org.ndrt.nn's LSTM computes a TANH cell activation only: add"
          + " .activation(Activation.TANH) to the LSTM's builder");
    }
    return sized(new org.ndrt.nn.conf.layers.LSTM.Builder(), true).forgetGateBiasInit(forgetGateBiasInit)
        .gateActivationFunction(Mapping.activation(gateActivation, gateActivationFn)).build();
  }

  public static class Builder extends BaseRecurrentLayer.Builder<Builder> {
    protected double forgetGateBiasInit = 1.0;
    protected Activation gateActivation = Activation.SIGMOID;
    protected IActivation gateActivationFn;

    public Builder forgetGateBiasInit(double biasInit) {
      this.forgetGateBiasInit = biasInit;
      return this;
    }

    public Builder gateActivationFunction(Activation a) {
      this.gateActivation = a;
      this.gateActivationFn = null;
      return this;
    }

    public Builder gateActivationFunction(IActivation a) {
      this.gateActivationFn = a;
      return this;
    }

    public Builder gateActivationFunction(String name) {
      return gateActivationFunction(Activation.fromString(name));
    }

    @Override
    public LSTM build() {
      return new LSTM(this);
    }
  }
}
