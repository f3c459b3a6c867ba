package org.ndrt.nn.conf.layers;

import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.InputType;

/**
 * A recurrent layer (Deeplearning4j's BaseRecurrentLayer): takes sequences [N, nIn, T] and gives
 * sequences [N, nOut, T], one hidden state per time step. The runtime's ops compute the cell with
 * tanh as the activation and sigmoid gates (Deeplearning4j's defaults); other activations are refused
 * when the configuration is built. The network-wide default activation does not apply here.
 */
public abstract class BaseRecurrentLayer extends Layer {
  protected BaseRecurrentLayer(Layer.Builder<?> b) {
    super(b);
  }

  @Override
  protected Activation defaultActivation(Activation networkDefault) {
    return Activation.TANH;
  }

  @Override
  public void applyDefaults(String defaultName, Activation act, org.ndrt.nn.conf.WeightInit init) {
    super.applyDefaults(defaultName, act, init);
    if (activation != Activation.TANH) {
      throw error("the recurrent ops compute a TANH activation, got " + activation);
    }
  }

  @Override
  public boolean hasParams() {
    return true;
  }

  @Override
  public InputType impliedInput() {
    return impliedRecurrentInput();
  }

  @Override
  public InputType inferOutput(InputType in) {
    resolveRecurrentNIn(in, "");
    if (nOut <= 0) {
      throw error("nOut is not set");
    }
    return InputType.recurrent(nOut, in.timeSeriesLength);
  }
}
