package org.ndrt.nn.updater;

import java.util.Map;
import org.ndrt.Ops;
import org.ndrt.Tensor;

/** Nesterov momentum as Deeplearning4j's Nesterovs: v' = mu v - lr g; param += -mu v + (1 + mu) v'. */
public final class Nesterovs extends Updater {
  private final double momentum;

  public Nesterovs(double learningRate, double momentum) {
    super(learningRate);
    this.momentum = checkRange("Nesterovs: momentum", momentum, 0, 1);
  }

  /** Deeplearning4j's default momentum, 0.9. */
  public Nesterovs(double learningRate) {
    this(learningRate, 0.9);
  }

  public double momentum() {
    return momentum;
  }

  @Override
  public int stateSlots() {
    return 1;
  }

  @Override
  public void apply(Tensor param, Tensor grad, Tensor[] state, double l2, long step) {
    Ops.nesterovs(param, grad, state[0], learningRate, momentum, l2, param, state[0]);
  }

  @Override
  public Map<String, Object> toJson() {
    Map<String, Object> m = super.toJson();
    m.put("momentum", momentum);
    return m;
  }
}
