package org.ndrt.nn.updater;

import java.util.Map;
import org.ndrt.Ops;
import org.ndrt.Tensor;

/** AdaGrad: accum += g^2; param -= lr g / (sqrt(accum) + eps). */
public final class AdaGrad extends Updater {
  private final double epsilon;

  public AdaGrad(double learningRate, double epsilon) {
    super(learningRate);
    this.epsilon = checkRange("AdaGrad: epsilon", epsilon, 0, 1);
  }

  /** Deeplearning4j's default epsilon, 1e-6. */
  public AdaGrad(double learningRate) {
    this(learningRate, 1e-6);
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
    Ops.adagrad(param, grad, state[0], learningRate, epsilon, l2, param, state[0]);
  }

  @Override
  public Map<String, Object> toJson() {
    Map<String, Object> m = super.toJson();
    m.put("epsilon", epsilon);
    return m;
  }
}
