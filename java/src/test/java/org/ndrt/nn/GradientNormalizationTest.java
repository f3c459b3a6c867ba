package org.ndrt.nn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.ndrt.Tensor;
import org.ndrt.data.DataSet;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.GradientNormalization;
import org.ndrt.nn.conf.LossFunction;
import org.ndrt.nn.conf.MultiLayerConfiguration;
import org.ndrt.nn.conf.NeuralNetConfiguration;
import org.ndrt.nn.conf.WeightInit;
import org.ndrt.nn.conf.layers.DenseLayer;
import org.ndrt.nn.conf.layers.OutputLayer;
import org.ndrt.nn.updater.Sgd;

/**
 * Each GradientNormalization against a float64 reference: one SGD step on random parameters and data
 * moves the parameters by lr times the normalised gradient, computed here from the raw gradient of
 * the same network without normalisation.
 */
class GradientNormalizationTest {
  static final double LR = 0.3;

  static MultiLayerConfiguration conf(GradientNormalization g0, double t0, GradientNormalization g1, double t1) {
    return new NeuralNetConfiguration.Builder().seed(5).updater(new Sgd(LR)).weightInit(WeightInit.XAVIER).list()
        .layer(new DenseLayer.Builder().nIn(4).nOut(5).activation(Activation.TANH).gradientNormalization(g0)
            .gradientNormalizationThreshold(t0).build())
        .layer(new OutputLayer.Builder(LossFunction.MSE).nOut(3).activation(Activation.IDENTITY).gradientNormalization(g1)
            .gradientNormalizationThreshold(t1).build())
        .build();
  }

  static DataSet data() {
    java.util.Random r = new java.util.Random(23);
    float[] x = new float[6 * 4];
    float[] y = new float[6 * 3];
    for (int i = 0; i < x.length; ++i) {
      x[i] = (float) r.nextGaussian();
    }
    for (int i = 0; i < y.length; ++i) {
      y[i] = (float) (3 * r.nextGaussian());
    }
    return new DataSet(Tensor.from(x, 6, 4), Tensor.from(y, 6, 3));
  }

  static float[] randomParams(long n) {
    java.util.Random r = new java.util.Random(8);
    float[] p = new float[(int) n];
    for (int i = 0; i < p.length; ++i) {
      p[i] = (float) (0.7 * r.nextGaussian());
    }
    return p;
  }

  static double norm(float[] g, long[] r, int from, int to) {
    double s = 0;
    for (int k = from; k < to; ++k) {
      for (long i = r[2 * k]; i < r[2 * k] + r[2 * k + 1]; ++i) {
        s += (double) g[(int) i] * g[(int) i];
      }
    }
    return Math.sqrt(s);
  }

  /** The float64 normalisation of gradient g (in place) over layer ranges r. */
  static void normalise(double[] out, float[] g, long[] r, GradientNormalization kind, double t) {
    int np = r.length / 2;
    for (int k = 0; k < np; ++k) {
      boolean perLayer = kind == GradientNormalization.RenormalizeL2PerLayer || kind == GradientNormalization.ClipL2PerLayer;
      double n = perLayer ? norm(g, r, 0, np) : norm(g, r, k, k + 1);
      for (long i = r[2 * k]; i < r[2 * k] + r[2 * k + 1]; ++i) {
        double x = g[(int) i];
        switch (kind) {
          case None: break;
          case RenormalizeL2PerLayer:
          case RenormalizeL2PerParamType: x /= n == 0 ? 1e-5 : n; break;
          case ClipL2PerLayer:
          case ClipL2PerParamType: x *= n > t ? t / n : 1; break;
          case ClipElementWiseAbsoluteValue: x = Math.max(-t, Math.min(t, x)); break;
          default: throw new AssertionError(kind);
        }
        out[(int) i] = x;
      }
    }
  }

  @Test
  void oneSgdStepMovesByTheNormalisedGradient() {
    float[] p0;
    float[] g;
    long[][] ranges;
    try (MultiLayerNetwork plain = new MultiLayerNetwork(conf(GradientNormalization.None, 1, GradientNormalization.None, 1));
         DataSet ds = data()) {
      plain.init();
      p0 = randomParams(plain.numParams());
      try (Tensor t = Tensor.from(p0, p0.length)) {
        plain.setParams(t);
      }
      plain.computeGradientAndScore(ds);
      g = TrainerSupport.gradients(plain).toFloatArray();
      ranges = TrainerSupport.gradientRanges(plain);
    }
    // Thresholds: layer 0 clipped (half its norm / its largest element), layer 1 not (twice its norm).
    double n0 = norm(g, ranges[0], 0, ranges[0].length / 2);
    double n1 = norm(g, ranges[1], 0, ranges[1].length / 2);
    double b0 = norm(g, ranges[0], 1, 2);  // layer 0's bias alone
    assertTrue(n0 > 1e-3 && n1 > 1e-3, "gradients are not negligible");
    for (GradientNormalization kind : GradientNormalization.values()) {
      boolean elementwise = kind == GradientNormalization.ClipElementWiseAbsoluteValue;
      double t0 = elementwise ? 0.5 * maxAbs(g, ranges[0]) : kind == GradientNormalization.ClipL2PerParamType ? 0.5 * b0
          : 0.5 * n0;
      double t1 = elementwise ? 0.3 * maxAbs(g, ranges[1]) : 2 * n1;
      double[] expect = new double[g.length];
      normalise(expect, g, ranges[0], kind, t0);
      normalise(expect, g, ranges[1], kind, t1);
      double moved = 0;
      for (int i = 0; i < g.length; ++i) {
        moved = Math.max(moved, Math.abs(expect[i] - g[i]));
      }
      assertTrue(kind == GradientNormalization.None || moved > 1e-2, kind + " changes the gradient (by " + moved + ")");
      try (MultiLayerNetwork net = new MultiLayerNetwork(conf(kind, t0, kind, t1)); DataSet ds = data()) {
        net.init();
        try (Tensor t = Tensor.from(p0, p0.length)) {
          net.setParams(t);
        }
        net.fit(ds);
        float[] p1 = net.params().toFloatArray();
        for (int i = 0; i < p1.length; ++i) {
          double step = (p0[i] - (double) p1[i]) / LR;
          assertEquals(expect[i], step, 2e-4 * (1 + Math.abs(expect[i])), kind + " parameter " + i);
        }
      }
    }
  }

  static double maxAbs(float[] g, long[] r) {
    double m = 0;
    for (int k = 0; k < r.length / 2; ++k) {
      for (long i = r[2 * k]; i < r[2 * k] + r[2 * k + 1]; ++i) {
        m = Math.max(m, Math.abs(g[(int) i]));
      }
    }
    return m;
  }
}
