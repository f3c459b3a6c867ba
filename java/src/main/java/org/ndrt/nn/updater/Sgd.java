package org.ndrt.nn.updater;

import org.ndrt.Ops;
import org.ndrt.Tensor;

/** Plain SGD: param -= lr * (grad + l2 * param). */
public final class Sgd extends Updater {
  public Sgd(double learningRate) {
    super(learningRate);
  }

  @Override
  public int stateSlots() {
    return 0;
  }

  @Override
  public void apply(Tensor param, Tensor grad, Tensor[] state, double l2, long step) {
    Ops.sgd(param, grad, learningRate, l2, param);
  }
}
