package org.ndrt.nn.conf.layers;

import java.util.Map;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.LossFunction;

/**
 * The last layer: dense + activation + loss. NEGATIVELOGLIKELIHOOD / MCXENT need a softmax activation
 * (run fused as softmax + cross-entropy), XENT a sigmoid (fused as bce_with_logits); MSE and L1 take
 * any activation. Default activation: softmax.
 */
public class OutputLayer extends DenseLayer {
  private final LossFunction loss;

  private OutputLayer(Builder b) {
    this(b, b.loss);
  }

  /** For output layers of other shapes (RnnOutputLayer). */
  protected OutputLayer(Layer.Builder<?> b, LossFunction loss) {
    super(b);
    if (loss == null) {
      throw new IllegalArgumentException(getClass().getSimpleName() + ": the loss function must not be null");
    }
    this.loss = loss;
  }

  public LossFunction lossFunction() {
    return loss;
  }

  @Override
  protected Activation defaultActivation(Activation networkDefault) {
    return Activation.SOFTMAX;
  }

  @Override
  public void applyDefaults(String defaultName, Activation act, org.ndrt.nn.conf.WeightInit init) {
    super.applyDefaults(defaultName, act, init);
    boolean ce = loss == LossFunction.NEGATIVELOGLIKELIHOOD || loss == LossFunction.MCXENT;
    if (ce && activation != Activation.SOFTMAX) {
      throw error(loss + " needs a SOFTMAX activation, got " + activation);
    }
    if (loss == LossFunction.XENT && activation != Activation.SIGMOID) {
      throw error("XENT needs a SIGMOID activation, got " + activation);
    }
    if (!ce && activation == Activation.SOFTMAX) {
      throw error("a SOFTMAX output goes with NEGATIVELOGLIKELIHOOD or MCXENT, not " + loss);
    }
  }

  @Override
  public Map<String, Object> toJson() {
    Map<String, Object> m = super.toJson();
    m.put("lossFunction", loss.name());
    return m;
  }

  /** {@code new OutputLayer.Builder(LossFunction.NEGATIVELOGLIKELIHOOD).nOut(10).activation(SOFTMAX).build()}. */
  public static final class Builder extends Layer.Builder<Builder> {
    private LossFunction loss;

    public Builder(LossFunction loss) {
      if (loss == null) {
        throw new IllegalArgumentException("OutputLayer: the loss function must not be null");
      }
      this.loss = loss;
    }

    /** Deeplearning4j's form: {@code new OutputLayer.Builder(LossFunctions.LossFunction.NEGATIVELOGLIKELIHOOD)}. */
    public Builder(org.ndrt.nn.conf.LossFunctions.LossFunction loss) {
      this(loss == null ? null : loss.toNdrt());
    }

    public Builder lossFunction(LossFunction loss) {
      this.loss = loss;
      return this;
    }

    /** Deeplearning4j's form of {@link #lossFunction(LossFunction)}. */
    public Builder lossFunction(org.ndrt.nn.conf.LossFunctions.LossFunction loss) {
      return lossFunction(loss == null ? null : loss.toNdrt());
    }

    @Override
    public OutputLayer build() {
      return new OutputLayer(this);
    }
  }
}
