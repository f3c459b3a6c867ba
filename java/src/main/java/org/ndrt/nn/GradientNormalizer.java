package org.ndrt.nn;

import java.util.function.UnaryOperator;
import org.ndrt.DType;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.nn.conf.GradientNormalization;
import org.ndrt.nn.conf.NetworkConfiguration;
import org.ndrt.nn.conf.layers.Layer;

/**
 * Each layer's {@link GradientNormalization} on the f32 gradients, after the backward pass and before
 * regularisation and the updater, as Deeplearning4j's updater does (norms over the layer's trained
 * parameters; batch-norm running statistics are not gradients).
 */
final class GradientNormalizer {
  private final GradientNormalization[] kind;
  private final double[] threshold;
  private final Tensor[][] views;  // per layer: a view of each parameter's gradient
  private final Tensor factor;     // rank 0, f32

  /** Null when no layer normalises. */
  static GradientNormalizer of(NetworkConfiguration conf, long[][] ranges, Tensor grads, UnaryOperator<Tensor> own) {
    for (Layer l : conf.layers()) {
      if (ParamInit.source(l).gradientNormalization() != GradientNormalization.None) {
        return new GradientNormalizer(conf, ranges, grads, own);
      }
    }
    return null;
  }

  private GradientNormalizer(NetworkConfiguration conf, long[][] ranges, Tensor grads, UnaryOperator<Tensor> own) {
    int n = ranges.length;
    kind = new GradientNormalization[n];
    threshold = new double[n];
    views = new Tensor[n][];
    for (int i = 0; i < n; ++i) {
      Layer l = ParamInit.source(conf.layers().get(i));
      kind[i] = l.gradientNormalization();
      threshold[i] = l.gradientNormalizationThreshold();
      views[i] = new Tensor[kind[i] == GradientNormalization.None ? 0 : ranges[i].length / 2];
      for (int k = 0; k < views[i].length; ++k) {
        views[i][k] = own.apply(grads.slice(0, ranges[i][2 * k], ranges[i][2 * k] + ranges[i][2 * k + 1]));
      }
    }
    factor = own.apply(Tensor.scalar(1, DType.F32));
  }

  void apply() {
    for (int i = 0; i < kind.length; ++i) {
      Tensor[] v = views[i];
      double t = threshold[i];
      switch (kind[i]) {
        case None:
          break;
        case ClipElementWiseAbsoluteValue:
          for (Tensor g : v) {
            Ops.clip(g, -t, t, g);
          }
          break;
        case RenormalizeL2PerLayer:
          scale(v, 0, v.length, 1 / nonZero(norm(v, 0, v.length)));
          break;
        case RenormalizeL2PerParamType:
          for (int k = 0; k < v.length; ++k) {
            scale(v, k, k + 1, 1 / nonZero(norm(v, k, k + 1)));
          }
          break;
        case ClipL2PerLayer:
          clip(v, 0, v.length, t);
          break;
        case ClipL2PerParamType:
          for (int k = 0; k < v.length; ++k) {
            clip(v, k, k + 1, t);
          }
          break;
        default:
          throw new IllegalStateException("gradient normalization " + kind[i]);
      }
    }
  }

  private void clip(Tensor[] v, int from, int to, double t) {
    double norm = norm(v, from, to);
    if (norm > t) {
      scale(v, from, to, t / norm);
    }
  }

  /** Deeplearning4j divides by 1e-5 instead of a zero norm. */
  private static double nonZero(double norm) {
    return norm == 0 ? 1e-5 : norm;
  }

  private static double norm(Tensor[] v, int from, int to) {
    double sq = 0;
    for (int k = from; k < to; ++k) {
      try (Tensor n = Ops.norm2(v[k])) {
        double x = n.item();
        sq += x * x;
      }
    }
    return Math.sqrt(sq);
  }

  private void scale(Tensor[] v, int from, int to, double f) {
    factor.fill(f);
    for (int k = from; k < to; ++k) {
      Ops.mul(v[k], factor, v[k]);
    }
  }
}
