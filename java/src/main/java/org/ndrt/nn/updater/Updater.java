package org.ndrt.nn.updater;

import java.util.LinkedHashMap;
import java.util.Map;
import org.ndrt.Tensor;
import org.ndrt.nn.conf.Json;

/**
 * A gradient updater (Deeplearning4j's IUpdater): its hyper-parameters, how many state tensors it
 * keeps per parameter, and one fused in-place runtime op per step. The network applies it to whole
 * flat segments of its parameter vector, not parameter by parameter.
 */
public abstract class Updater {
  protected final double learningRate;

  protected Updater(double learningRate) {
    if (!(learningRate > 0) || !Double.isFinite(learningRate)) {
      throw new IllegalArgumentException(getClass().getSimpleName() + ": learning rate must be positive and finite, got "
          + learningRate);
    }
    this.learningRate = learningRate;
  }

  public double learningRate() {
    return learningRate;
  }

  /** State tensors per parameter (0 for SGD, 1 for momentum/AdaGrad/RMSProp, 2 for Adam). */
  public abstract int stateSlots();

  /** The value every state element starts at (ND4J's: 0, epsilon for AdaGrad's and RMSProp's squared sums). */
  public double initialState() {
    return 0;
  }

  /**
   * One step, in place: {@code param} and each {@code state[i]} are overwritten. {@code l2} is added to
   * the gradient as l2 * param (coupled L2, Deeplearning4j's l2()); {@code step} counts from 1.
   */
  public abstract void apply(Tensor param, Tensor grad, Tensor[] state, double l2, long step);

  /** The hyper-parameters as JSON (with "type"). */
  public Map<String, Object> toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("type", getClass().getSimpleName());
    m.put("learningRate", learningRate);
    return m;
  }

  /** Reads what {@link #toJson()} wrote. */
  public static Updater fromJson(Map<String, Object> m) {
    String type = Json.str(m, "type");
    double lr = Json.num(m, "learningRate");
    switch (type) {
      case "Sgd": return new Sgd(lr);
      case "Nesterovs": return new Nesterovs(lr, Json.num(m, "momentum"));
      case "AdaGrad": return new AdaGrad(lr, Json.num(m, "epsilon"));
      case "RmsProp": return new RmsProp(lr, Json.num(m, "rmsDecay"), Json.num(m, "epsilon"));
      case "Adam": return new Adam(lr, Json.num(m, "beta1"), Json.num(m, "beta2"), Json.num(m, "epsilon"));
      default: throw new IllegalArgumentException("configuration JSON: unknown updater type \"" + type + "\"");
    }
  }

  @Override
  public boolean equals(Object o) {
    return o != null && o.getClass() == getClass() && ((Updater) o).toJson().equals(toJson());
  }

  @Override
  public int hashCode() {
    return toJson().hashCode();
  }

  @Override
  public String toString() {
    return toJson().toString();
  }

  static double checkRange(String what, double v, double lo, double hi) {
    if (!(v >= lo && v <= hi)) {
      throw new IllegalArgumentException(what + " must be in [" + lo + ", " + hi + "], got " + v);
    }
    return v;
  }
}
