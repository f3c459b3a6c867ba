package org.ndrt.nn.conf.layers;

/**
 * Gated recurrent unit (torch.nn.GRU's equations: reset gate applied to the recurrent part after its
 * product, n = tanh(W_in x + b_in + r * (W_hn h + b_hn))): sequences [N, nIn, T] to [N, nOut, T].
 * Deeplearning4j has no GRU layer; the parameters follow its LSTM's naming: input weights "W" [nIn,
 * 3 nOut], recurrent weights "RW" [nOut, 3 nOut], input bias "b" [3 nOut] and recurrent bias "RB"
 * [3 nOut] (the GRU needs both), column blocks in the order reset, update, new (torch's r, z, n).
 * Weights are drawn with fanIn = nOut and fanOut = nIn + nOut, biases start at 0. Runs as one
 * {@code gru} / {@code gru_bp} call per minibatch.
 */
public final class GRU extends BaseRecurrentLayer {
  private GRU(Builder b) {
    super(b);
  }

  /** {@code new GRU.Builder().nIn(28).nOut(128).build()}. */
  public static final class Builder extends Layer.Builder<Builder> {
    @Override
    public GRU build() {
      return new GRU(this);
    }
  }
}
