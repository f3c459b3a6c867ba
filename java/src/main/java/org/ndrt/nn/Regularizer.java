package org.ndrt.nn;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.ndrt.DType;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.nn.conf.NetworkConfiguration;
import org.ndrt.nn.conf.layers.BatchNormalization;
import org.ndrt.nn.conf.layers.Layer;

/**
 * L1, L2 and weight decay per layer and separately for weights and biases, with Deeplearning4j's
 * semantics: l1 * sign(w) + l2 * w added to the gradient before the updater, weight decay
 * w -= lr * wd * w after it, and l1 * |w|_1 + (l2 + wd) / 2 * |w|^2 added to the score. When every
 * layer has the network's l2 / weightDecay on its weights and nothing else, the network keeps its
 * fused path (the updater op adds l2; AdamW decays) and this class only scores.
 */
final class Regularizer {
  private final List<Tensor> params = new ArrayList<>();
  private final List<Tensor> grads = new ArrayList<>();
  private final List<Tensor> scratch = new ArrayList<>();
  private final List<double[]> coeff = new ArrayList<>();  // {l1, l2, wd} per range
  private final List<Tensor[]> scalars = new ArrayList<>();  // {l1, l2, 1 - lr * wd} (rank 0), null when 0 / 1
  private final boolean fused;

  /**
   * {@code ranges}: per trained parameter {layer, 1 for a weight / 0 for a bias, offset, length} in
   * the flat vectors; {@code weights}: the flat weights (all weights, first in the layout).
   */
  Regularizer(NetworkConfiguration conf, List<long[]> ranges, Tensor flatParams, Tensor flatGrads, Tensor weights,
      UnaryOperator<Tensor> own) {
    double lr = conf.updater().learningRate();
    boolean uniform = true;
    long longest = 0;
    List<long[]> kept = new ArrayList<>();
    for (long[] r : ranges) {
      double[] c = coefficients(conf, (int) r[0], r[1] == 1);
      if (c == null) {
        continue;
      }
      uniform &= r[1] == 1 && c[0] == 0 && c[1] == conf.l2() && c[2] == conf.weightDecay();
      kept.add(r);
      coeff.add(c);
      longest = Math.max(longest, r[3]);
    }
    // Fused: every weight has the network's l2 or wd (the fused ops take one) and nothing else is regularised.
    fused = uniform && !(conf.l2() > 0 && conf.weightDecay() > 0) && (kept.isEmpty() ? conf.l2() == 0 && conf.weightDecay() == 0 : kept.size() == countWeights(ranges));
    if (fused) {
      coeff.clear();
      if ((conf.l2() > 0 || conf.weightDecay() > 0) && weights.numel() > 0) {
        params.add(weights);
        coeff.add(new double[] {0, conf.l2(), conf.weightDecay()});
      }
      return;
    }
    Tensor tmp = longest > 0 ? own.apply(Tensor.zeros(DType.F32, longest)) : null;
    for (int k = 0; k < kept.size(); ++k) {
      long[] r = kept.get(k);
      double[] c = coeff.get(k);
      params.add(own.apply(flatParams.slice(0, r[2], r[2] + r[3])));
      grads.add(own.apply(flatGrads.slice(0, r[2], r[2] + r[3])));
      scratch.add(own.apply(tmp.slice(0, 0, r[3])));
      scalars.add(new Tensor[] {c[0] > 0 ? own.apply(Tensor.scalar(c[0], DType.F32)) : null,
          c[1] > 0 ? own.apply(Tensor.scalar(c[1], DType.F32)) : null,
          c[2] > 0 ? own.apply(Tensor.scalar(1 - lr * c[2], DType.F32)) : null});
    }
  }

  /** {l1, l2, wd} of one layer's weights or biases, null when all are 0 (batch-norm parameters: never). */
  private static double[] coefficients(NetworkConfiguration conf, int layer, boolean weight) {
    Layer l = conf.layers().get(layer);
    if (!weight && l instanceof BatchNormalization) {
      return null;  // as Deeplearning4j: gamma and beta are not regularised
    }
    double[] r = l.regularization();
    int o = weight ? 0 : 3;
    double l1 = Double.isNaN(r[o]) ? 0 : r[o];
    double l2 = Double.isNaN(r[o + 1]) ? (weight ? conf.l2() : 0) : r[o + 1];
    double wd = Double.isNaN(r[o + 2]) ? (weight ? conf.weightDecay() : 0) : r[o + 2];
    return l1 == 0 && l2 == 0 && wd == 0 ? null : new double[] {l1, l2, wd};
  }

  private static int countWeights(List<long[]> ranges) {
    int n = 0;
    for (long[] r : ranges) {
      n += r[1] == 1 ? 1 : 0;
    }
    return n;
  }

  /** True when the network's fused updater path applies the (uniform) l2 / weight decay itself. */
  boolean fused() {
    return fused;
  }

  /**
   * Not fused: adds l1 * sign(w) + l2 * w to the gradients and decays w by (1 - lr * wd), before the
   * updater runs without l2 (the gradient terms use w before the decay, as Deeplearning4j's).
   */
  void beforeUpdate() {
    for (int k = 0; k < params.size(); ++k) {
      Tensor[] s = scalars.get(k);
      Tensor p = params.get(k);
      Tensor g = grads.get(k);
      Tensor t = scratch.get(k);
      if (s[0] != null) {
        Ops.mul(Ops.sign(p, t), s[0], t);
        Ops.add(g, t, g);
      }
      if (s[1] != null) {
        Ops.mul(p, s[1], t);
        Ops.add(g, t, g);
      }
    }
    for (int k = 0; k < params.size(); ++k) {
      Tensor d = scalars.get(k)[2];
      if (d != null) {
        Ops.mul(params.get(k), d, params.get(k));
      }
    }
  }

  /** The score's regularisation term at the current parameters: l1 |w|_1 + (l2 + wd) / 2 |w|^2 summed. */
  double score() {
    double s = 0;
    for (int k = 0; k < params.size(); ++k) {
      double[] c = coeff.get(k);
      if (c[0] > 0) {
        try (Tensor n = Ops.norm1(params.get(k))) {
          s += c[0] * n.item();
        }
      }
      if (c[1] + c[2] > 0) {
        try (Tensor n = Ops.norm2(params.get(k))) {
          double v = n.item();
          s += 0.5 * (c[1] + c[2]) * v * v;
        }
      }
    }
    return s;
  }
}
