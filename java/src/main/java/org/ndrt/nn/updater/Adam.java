package org.ndrt.nn.updater;

import java.util.Map;
import org.ndrt.Ops;
import org.ndrt.Tensor;

/**
 * Adam with bias correction. With the network's weightDecay (decoupled) it runs as AdamW; its l2
 * (coupled) is added to the gradient as for every updater.
 */
public final class Adam extends Updater {
  private final double beta1;
  private final double beta2;
  private final double epsilon;

  public Adam(double learningRate, double beta1, double beta2, double epsilon) {
    super(learningRate);
    this.beta1 = checkRange("Adam: beta1", beta1, 0, 1);
    this.beta2 = checkRange("Adam: beta2", beta2, 0, 1);
    this.epsilon = checkRange("Adam: epsilon", epsilon, 0, 1);
  }

  /** Deeplearning4j's defaults: beta1 0.9, beta2 0.999, epsilon 1e-8. */
  public Adam(double learningRate) {
    this(learningRate, 0.9, 0.999, 1e-8);
  }

  @Override
  public int stateSlots() {
    return 2;
  }

  @Override
  public void apply(Tensor param, Tensor grad, Tensor[] state, double l2, long step) {
    Ops.adam(param, grad, state[0], state[1], learningRate, beta1, beta2, epsilon, l2, step, param, state[0], state[1]);
  }

  /** AdamW: the same moments, with decoupled weight decay {@code wd} (param -= lr * wd * param). */
  public void applyDecoupled(Tensor param, Tensor grad, Tensor[] state, double wd, long step) {
    Ops.adamw(param, grad, state[0], state[1], learningRate, beta1, beta2, epsilon, wd, step, param, state[0], state[1]);
  }

  @Override
  public Map<String, Object> toJson() {
    Map<String, Object> m = super.toJson();
    m.put("beta1", beta1);
    m.put("beta2", beta2);
    m.put("epsilon", epsilon);
    return m;
  }
}
