package org.ndrt.nn.conf.layers;

import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.LossFunction;

/**
 * The output layer of sequence models, as Deeplearning4j's {@code RnnOutputLayer}: the same dense
 * transform, activation and loss as {@link OutputLayer}, applied at every time step. Takes [N, nIn,
 * T], gives [N, nOut, T]; labels are [N, nOut, T].
 *
 * <p>Loss: a step's loss is what OutputLayer computes for one row (cross-entropy summed over the
 * classes; MSE, L1 and XENT averaged over the outputs); the score is the sum over the valid steps
 * divided by N, as in Deeplearning4j (so with T = 1 it equals OutputLayer's). Steps where the label
 * mask (or, without one, the features mask) is 0 add nothing to the loss or the gradients, and their
 * outputs are 0.
 */
public final class RnnOutputLayer extends OutputLayer {
  private RnnOutputLayer(Builder b) {
    super(b, b.loss);
  }

  @Override
  public InputType impliedInput() {
    return impliedRecurrentInput();
  }

  @Override
  public InputType inferOutput(InputType in) {
    resolveRecurrentNIn(in, " (an OutputLayer takes one row per example)");
    if (nOut <= 0) {
      throw error("nOut is not set");
    }
    return InputType.recurrent(nOut, in.timeSeriesLength);
  }

  /** {@code new RnnOutputLayer.Builder(LossFunction.MCXENT).nOut(10).activation(Activation.SOFTMAX).build()}. */
  public static final class Builder extends Layer.Builder<Builder> {
    private LossFunction loss;

    public Builder(LossFunction loss) {
      if (loss == null) {
        throw new IllegalArgumentException("RnnOutputLayer: the loss function must not be null");
      }
      this.loss = loss;
    }

    /** Deeplearning4j's default: MCXENT. */
    public Builder() {
      this(LossFunction.MCXENT);
    }

    public Builder lossFunction(LossFunction loss) {
      this.loss = loss;
      return this;
    }

    @Override
    public RnnOutputLayer build() {
      return new RnnOutputLayer(this);
    }
  }
}
