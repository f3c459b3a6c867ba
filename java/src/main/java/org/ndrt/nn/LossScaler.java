package org.ndrt.nn;

import org.ndrt.DType;
import org.ndrt.Ops;
import org.ndrt.Tensor;

/**
 * Dynamic loss scaling for mixed precision (internal to the network): the loss's backward starts
 * from dL = the scale; the f32 gradients are unscaled and checked, a step with an overflow is
 * skipped and the scale halved (not below 1), and the scale doubles after 1,000 clean steps. In f32
 * the scale stays 1.
 */
final class LossScaler implements AutoCloseable {
  private static final int GROWTH_INTERVAL = 1000;

  private final Tensor[] t = new Tensor[3];
  private final Tensor scaleT;     // rank 0: dL fed to the loss's backward
  private final Tensor invScaleT;  // rank 0: 1 / scale
  private final Tensor checkT;     // rank 0: sum of the gradients (finite?)
  private double scale;
  int cleanSteps;  // since the scale last changed
  long skippedSteps;

  LossScaler(double scale) {
    try {
      for (int i = 0; i < t.length; ++i) {
        t[i] = Tensor.scalar(0, DType.F32);
      }
    } catch (RuntimeException e) {
      close();
      throw e;
    }
    scaleT = t[0];
    invScaleT = t[1];
    checkT = t[2];
    set(scale);
  }

  /** The current scale. */
  double scale() {
    return scale;
  }

  /** dL for the loss's backward: a rank-0 f32 tensor holding the scale. */
  Tensor scaleTensor() {
    return scaleT;
  }

  /** Sets the scale (and restarts the clean-step count). */
  void set(double s) {
    scale = s;
    cleanSteps = 0;
    scaleT.fill(s);
    invScaleT.fill(1 / s);
  }

  /** Unscales the f32 gradients in place; false (step to skip, scale halved) when one is not finite. */
  boolean unscaleAndCheck(Tensor grads) {
    Ops.mul(grads, invScaleT, grads);
    Ops.sum(grads, new long[0], false, checkT);
    if (Double.isFinite(checkT.item())) {
      if (++cleanSteps >= GROWTH_INTERVAL) {
        set(scale * 2);
      }
      return true;
    }
    ++skippedSteps;
    set(Math.max(1, scale / 2));
    return false;
  }

  @Override
  public void close() {
    for (Tensor x : t) {
      if (x != null) {
        x.close();
      }
    }
  }
}
