package org.ndrt.nn.conf.layers;

import java.util.Map;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.Json;

/**
 * Long short-term memory without peepholes, as Deeplearning4j's {@code LSTM}: sequences [N, nIn, T]
 * to [N, nOut, T]. Parameters as Deeplearning4j names and shapes them: input weights "W" [nIn,
 * 4 nOut], recurrent weights "RW" [nOut, 4 nOut], bias "b" [4 nOut], each in Deeplearning4j's column
 * blocks (block input, forget gate, output gate, input gate); the forget gate's bias starts at
 * {@link Builder#forgetGateBiasInit} (default 1.0). Weights are drawn with fanIn = nOut and fanOut =
 * nIn + nOut (Deeplearning4j's LSTMParamInitializer). Activation tanh, gates sigmoid (the only
 * ones the runtime's {@code lstm} op computes). Runs as one {@code lstm} / {@code lstm_bp} call per
 * minibatch.
 */
public final class LSTM extends BaseRecurrentLayer {
  private final double forgetGateBiasInit;

  private LSTM(Builder b) {
    super(b);
    this.forgetGateBiasInit = b.forgetGateBiasInit;
  }

  /** The forget gate's initial bias. */
  public double forgetGateBiasInit() {
    return forgetGateBiasInit;
  }

  @Override
  public Map<String, Object> toJson() {
    Map<String, Object> m = super.toJson();
    m.put("forgetGateBiasInit", forgetGateBiasInit);
    return m;
  }

  /** {@code new LSTM.Builder().nIn(28).nOut(128).build()}. */
  public static final class Builder extends Layer.Builder<Builder> {
    private double forgetGateBiasInit = 1.0;

    /** The forget gate's initial bias (default 1.0, as Deeplearning4j). */
    public Builder forgetGateBiasInit(double v) {
      if (!Double.isFinite(v)) {
        throw new IllegalArgumentException("LSTM forgetGateBiasInit must be finite, got " + v);
      }
      this.forgetGateBiasInit = v;
      return this;
    }

    /** The gates' activation: SIGMOID only (what the {@code lstm} op computes). */
    public Builder gateActivationFunction(Activation a) {
      if (a != Activation.SIGMOID) {
        throw new IllegalArgumentException("LSTM: the lstm op computes SIGMOID gates, got " + a);
      }
      return this;
    }

    @Override
    public LSTM build() {
      return new LSTM(this);
    }

    static Builder fromJson(Map<String, Object> m) {
      return new Builder().forgetGateBiasInit(Json.num(m, "forgetGateBiasInit", 1.0));
    }
  }
}
