package org.ndrt.spark;

import java.io.Serializable;
import org.ndrt.nn.Model;
import org.ndrt.nn.TrainerSupport;

/**
 * What the workers of one parameter-averaging round give back, summed over them by Spark's tree
 * aggregation: the sum of their parameter vectors (and updater states), how many workers fitted and
 * how many minibatches, the sum of their minibatch scores, and the element-wise largest training state
 * (counters and random stream offsets only grow, so the driver takes the furthest).
 */
final class RoundResult implements Serializable {
  private static final long serialVersionUID = 1L;
  float[] paramSum;
  float[] updaterSum;
  long[] trainingMax;
  int workers;
  int minibatches;
  int maxMinibatches;
  long examples;
  double scoreSum;

  /** One worker's result. */
  static RoundResult of(Model m, boolean withUpdater, int minibatches, long examples, double scoreSum) {
    RoundResult r = new RoundResult();
    r.paramSum = m.params().toFloatArray();
    r.updaterSum = withUpdater ? m.updaterState().toFloatArray() : null;
    r.trainingMax = TrainerSupport.trainingState(m);
    r.workers = 1;
    r.minibatches = minibatches;
    r.maxMinibatches = minibatches;
    r.examples = examples;
    r.scoreSum = scoreSum;
    return r;
  }

  /** Adds {@code b} into {@code a} (either may be the empty result) and returns a. */
  static RoundResult add(RoundResult a, RoundResult b) {
    if (b.workers == 0) {
      return a;
    }
    if (a.workers == 0) {
      return b;
    }
    addInto(a.paramSum, b.paramSum);
    if (a.updaterSum != null) {
      addInto(a.updaterSum, b.updaterSum);
    }
    for (int i = 0; i < a.trainingMax.length; ++i) {
      a.trainingMax[i] = Math.max(a.trainingMax[i], b.trainingMax[i]);
    }
    a.workers += b.workers;
    a.minibatches += b.minibatches;
    a.maxMinibatches = Math.max(a.maxMinibatches, b.maxMinibatches);
    a.examples += b.examples;
    a.scoreSum += b.scoreSum;
    return a;
  }

  private static void addInto(float[] a, float[] b) {
    for (int i = 0; i < a.length; ++i) {
      a[i] += b[i];
    }
  }

  /** The average over the workers, as the state the driver's network takes. */
  ModelState average() {
    float inv = 1f / workers;
    float[] p = paramSum.clone();
    for (int i = 0; i < p.length; ++i) {
      p[i] *= inv;
    }
    float[] u = null;
    if (updaterSum != null) {
      u = updaterSum.clone();
      for (int i = 0; i < u.length; ++i) {
        u[i] *= inv;
      }
    }
    return new ModelState(p, u, trainingMax);
  }
}
