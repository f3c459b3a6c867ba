package org.ndrt.nn;

import org.ndrt.Ops;
import org.ndrt.Tensor;

/**
 * Per-layer magnitudes of a network's trained parameters, their gradients and their last update,
 * for the training dashboard (org.ndrt.ui.StatsListener). Each number is one or two reduction ops
 * per parameter tensor over views of the flat vectors (no copies, no Java loops over elements).
 */
public final class ParameterSummaries {
  private ParameterSummaries() {}

  /**
   * One layer's summary (index into configuration().layers()); norms are L2 over all its trained
   * parameters, mean magnitudes the mean of |x|; update: parameters now minus {@code before}
   * (NaN when no copy was given); ratio: updateNorm / paramNorm.
   */
  public record Layer(int index, long trainedParams, double paramNorm, double paramMeanAbs, double gradNorm,
      double gradMeanAbs, double updateNorm, double updateParamRatio) {}

  /** A copy of the flat parameter vector (f32 [numParams]), to pass to {@link #of} after the next update. */
  public static Tensor snapshot(Model model) {
    model.ensureInit();
    return Ops.copy(model.flat.params);
  }

  /**
   * The summaries of every layer of {@code model} (those without trained parameters get zeros).
   * {@code before}: a {@link #snapshot} taken before the last update, or null.
   */
  public static Layer[] of(Model model, Tensor before) {
    model.ensureInit();
    FlatParameters flat = model.flat;
    if (before != null && before.numel() != flat.params.numel()) {
      throw new IllegalArgumentException("ParameterSummaries.of: the snapshot has " + before.numel()
          + " elements, the network " + flat.params.numel());
    }
    Layer[] out = new Layer[flat.gradRanges.length];
    for (int i = 0; i < out.length; ++i) {
      long[] r = flat.gradRanges[i];
      long n = 0;
      double p2 = 0, p1 = 0, g2 = 0, g1 = 0, u2 = 0;
      for (int k = 0; k < r.length; k += 2) {
        long off = r[k];
        long len = r[k + 1];
        n += len;
        try (Tensor p = flat.params.slice(0, off, off + len); Tensor g = flat.grads.slice(0, off, off + len)) {
          p2 += sq(Ops.norm2(p));
          p1 += scalar(Ops.norm1(p));
          g2 += sq(Ops.norm2(g));
          g1 += scalar(Ops.norm1(g));
          if (before != null) {
            try (Tensor b = before.slice(0, off, off + len); Tensor d = Ops.sub(p, b)) {
              u2 += sq(Ops.norm2(d));
            }
          }
        }
      }
      double pn = Math.sqrt(p2);
      double un = before == null ? Double.NaN : Math.sqrt(u2);
      out[i] = new Layer(i, n, pn, n == 0 ? 0 : p1 / n, Math.sqrt(g2), n == 0 ? 0 : g1 / n, un,
          n == 0 || before == null || pn == 0 ? Double.NaN : un / pn);
    }
    return out;
  }

  /** Mean |x| and root mean square of a tensor (an activation), as two reductions. */
  public static double[] meanAbsAndRms(Tensor x) {
    long n = x.numel();
    if (n == 0) {
      return new double[] {0, 0};
    }
    double l1 = scalar(Ops.norm1(x));
    double l2 = scalar(Ops.norm2(x));
    return new double[] {l1 / n, l2 / Math.sqrt(n)};
  }

  private static double scalar(Tensor t) {
    try (t) {
      return t.item();
    }
  }

  private static double sq(Tensor t) {
    double v = scalar(t);
    return v * v;
  }
}
