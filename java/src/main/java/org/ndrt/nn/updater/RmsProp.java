package org.ndrt.nn.updater;

import java.util.Map;
import org.ndrt.Ops;
import org.ndrt.Tensor;

/** RMSProp: s = decay s + (1 - decay) g^2; param -= lr g / (sqrt(s) + eps). */
public final class RmsProp extends Updater {
  private final double rmsDecay;
  private final double epsilon;

  public RmsProp(double learningRate, double rmsDecay, double epsilon) {
    super(learningRate);
    this.rmsDecay = checkRange("RmsProp: rmsDecay", rmsDecay, 0, 1);
    this.epsilon = checkRange("RmsProp: epsilon", epsilon, 0, 1);
  }

  /** Deeplearning4j's defaults: decay 0.95, epsilon 1e-8. */
  public RmsProp(double learningRate) {
    this(learningRate, 0.95, 1e-8);
  }

  /** ND4J starts the sum of squared gradients at epsilon, so the first steps are not sign steps. */
  @Override
  public double initialState() {
    return epsilon;
  }

  @Override
  public int stateSlots() {
    return 1;
  }

  @Override
  public void apply(Tensor param, Tensor grad, Tensor[] state, double l2, long step) {
    Ops.rmsprop(param, grad, state[0], learningRate, rmsDecay, epsilon, l2, param, state[0]);
  }

  @Override
  public Map<String, Object> toJson() {
    Map<String, Object> m = super.toJson();
    m.put("rmsDecay", rmsDecay);
    m.put("epsilon", epsilon);
    return m;
  }
}
