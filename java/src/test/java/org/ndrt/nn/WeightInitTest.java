package org.ndrt.nn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.Distribution;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.LossFunction;
import org.ndrt.nn.conf.MultiLayerConfiguration;
import org.ndrt.nn.conf.NeuralNetConfiguration;
import org.ndrt.nn.conf.WeightInit;
import org.ndrt.nn.conf.layers.ConvolutionLayer;
import org.ndrt.nn.conf.layers.DenseLayer;
import org.ndrt.nn.conf.layers.LSTM;
import org.ndrt.nn.conf.layers.Layer;
import org.ndrt.nn.conf.layers.OutputLayer;
import org.ndrt.nn.conf.layers.RnnOutputLayer;

/**
 * Every weight initialisation against its formula (Deeplearning4j's): mean, variance, bounds and the
 * share within one standard deviation of large samples, for dense (fanIn 200, fanOut 300), strided
 * convolution (fanIn = nIn kH kW, fanOut = nOut kH kW / (sH sW)) and LSTM (fanIn nOut, fanOut nIn +
 * nOut) weights; distributions; biasInit exactly; the same seed the same weights.
 */
class WeightInitTest {
  /** the variance of Z given |Z| at most 2 for a standard normal Z: 1 - 4 phi(2) / (Phi(2) - Phi(-2)). */
  static final double TRUNC_VAR = 1 - 4 * 0.05399096651318806 / 0.9544997361036416;

  enum Law { NORMAL, UNIFORM, TRUNCATED }

  /** Layer {@code layer}'s parameter {@code param} after init, as doubles. */
  static double[] param(MultiLayerConfiguration c, int layer, int param) {
    try (MultiLayerNetwork net = new MultiLayerNetwork(c)) {
      net.init();
      long[] r = TrainerSupport.gradientRanges(net)[layer];
      double[] p = net.params().toDoubleArray();
      return Arrays.copyOfRange(p, (int) r[2 * param], (int) (r[2 * param] + r[2 * param + 1]));
    }
  }

  static MultiLayerConfiguration dense(Layer.Builder<?> first, long seed) {
    return new NeuralNetConfiguration.Builder().seed(seed).list()
        .layer(first.nIn(200).nOut(300).activation(Activation.TANH).build())
        .layer(new OutputLayer.Builder(LossFunction.MSE).nOut(2).activation(Activation.IDENTITY).build()).build();
  }

  static double[] dense(WeightInit w) {
    return param(dense(new DenseLayer.Builder().weightInit(w), 7), 0, 0);
  }

  static double mean(double[] v) {
    double s = 0;
    for (double x : v) {
      s += x;
    }
    return s / v.length;
  }

  static double var(double[] v) {
    double m = mean(v);
    double s = 0;
    for (double x : v) {
      s += (x - m) * (x - m);
    }
    return s / (v.length - 1);
  }

  static double maxAbs(double[] v, double centre) {
    double m = 0;
    for (double x : v) {
      m = Math.max(m, Math.abs(x - centre));
    }
    return m;
  }

  /**
   * A sample of mean `mu` and scale `s` (std for NORMAL / TRUNCATED before truncation, half-width for
   * UNIFORM): mean within 6 standard errors, variance within 6 standard errors of its estimate
   * (kurtosis-aware), bounds, and the share within one standard deviation (0.683 normal, 0.577 uniform).
   */
  static void check(String what, double[] v, Law law, double mu, double s) {
    int n = v.length;
    double variance = law == Law.NORMAL ? s * s : law == Law.UNIFORM ? s * s / 3 : s * s * TRUNC_VAR;
    double kurt = law == Law.NORMAL ? 3 : law == Law.UNIFORM ? 1.8 : 2.6;  // the truncated normal's is about 2.6
    double sd = Math.sqrt(variance);
    assertEquals(mu, mean(v), 6 * sd / Math.sqrt(n), what + ": mean");
    assertEquals(variance, var(v), 6 * variance * Math.sqrt((kurt - 1) / n), what + ": variance");
    double max = maxAbs(v, mu);
    if (law == Law.UNIFORM) {
      assertTrue(max <= s * (1 + 1e-6) && max > 0.99 * s, what + ": max |w - mean| " + max + " vs half-width " + s);
    } else if (law == Law.TRUNCATED) {
      assertTrue(max <= 2 * s * (1 + 1e-6) && max > 1.9 * s, what + ": max |w - mean| " + max + " vs 2 std " + 2 * s);
    } else {
      assertTrue(max > 3.5 * s, what + ": a normal sample this large reaches past 3.5 std, max " + max);
    }
    int inside = 0;
    for (double x : v) {
      inside += Math.abs(x - mu) <= sd ? 1 : 0;
    }
    double share = law == Law.NORMAL ? 0.6826894921 : law == Law.UNIFORM ? 1 / Math.sqrt(3) : 0.0;
    if (law != Law.TRUNCATED) {
      assertEquals(share, (double) inside / n, 6 * Math.sqrt(share * (1 - share) / n), what + ": share within 1 std");
    }
  }

  @Test
  void denseSchemesFollowTheirFormulas() {
    double in = 200;
    double out = 300;
    Object[][] cases = {
      {WeightInit.SIGMOID_UNIFORM, Law.UNIFORM, 4 * Math.sqrt(6 / (in + out))},
      {WeightInit.NORMAL, Law.NORMAL, 1 / Math.sqrt(in)},
      {WeightInit.LECUN_NORMAL, Law.NORMAL, 1 / Math.sqrt(in)},
      {WeightInit.XAVIER_FAN_IN, Law.NORMAL, 1 / Math.sqrt(in)},
      {WeightInit.LECUN_UNIFORM, Law.UNIFORM, 3 / Math.sqrt(in)},
      {WeightInit.UNIFORM, Law.UNIFORM, 1 / Math.sqrt(in)},
      {WeightInit.XAVIER, Law.NORMAL, Math.sqrt(2 / (in + out))},
      {WeightInit.XAVIER_UNIFORM, Law.UNIFORM, Math.sqrt(6 / (in + out))},
      {WeightInit.XAVIER_LEGACY, Law.NORMAL, 1 / Math.sqrt(200 + 300)},
      {WeightInit.RELU, Law.NORMAL, Math.sqrt(2 / in)},
      {WeightInit.RELU_UNIFORM, Law.UNIFORM, Math.sqrt(6 / in)},
      {WeightInit.VAR_SCALING_NORMAL_FAN_IN, Law.TRUNCATED, Math.sqrt(1 / in)},
      {WeightInit.VAR_SCALING_NORMAL_FAN_OUT, Law.TRUNCATED, Math.sqrt(1 / out)},
      {WeightInit.VAR_SCALING_NORMAL_FAN_AVG, Law.TRUNCATED, Math.sqrt(2 / (in + out))},
      {WeightInit.VAR_SCALING_UNIFORM_FAN_IN, Law.UNIFORM, 3 / Math.sqrt(in)},
      {WeightInit.VAR_SCALING_UNIFORM_FAN_OUT, Law.UNIFORM, 3 / Math.sqrt(out)},
      {WeightInit.VAR_SCALING_UNIFORM_FAN_AVG, Law.UNIFORM, 3 / Math.sqrt((in + out) / 2)},
    };
    for (Object[] c : cases) {
      check(c[0].toString(), dense((WeightInit) c[0]), (Law) c[1], 0, (double) c[2]);
    }
    for (double x : dense(WeightInit.ZERO)) {
      assertEquals(0, x);
    }
    for (double x : dense(WeightInit.ONES)) {
      assertEquals(1, x);
    }
  }

  @Test
  void identityIsTheIdentityForSquareAndConvolutionWeights() {
    MultiLayerConfiguration sq = new NeuralNetConfiguration.Builder().seed(1).list()
        .layer(new DenseLayer.Builder().nIn(6).nOut(6).weightInit(WeightInit.IDENTITY).build())
        .layer(new OutputLayer.Builder(LossFunction.MSE).nOut(2).activation(Activation.IDENTITY).build()).build();
    double[] w = param(sq, 0, 0);
    for (int i = 0; i < 6; ++i) {
      for (int j = 0; j < 6; ++j) {
        assertEquals(i == j ? 1 : 0, w[i * 6 + j]);
      }
    }
    MultiLayerConfiguration conv = new NeuralNetConfiguration.Builder().seed(1).list()
        .layer(new ConvolutionLayer.Builder(3, 5).nOut(4).weightInit(WeightInit.IDENTITY).build())
        .layer(new OutputLayer.Builder(LossFunction.MSE).nOut(2).activation(Activation.IDENTITY).build())
        .setInputType(InputType.convolutional(8, 8, 4)).build();
    double[] k = param(conv, 0, 0);  // [out 4, in 4, 3, 5]
    for (int o = 0; o < 4; ++o) {
      for (int i = 0; i < 4; ++i) {
        for (int y = 0; y < 3; ++y) {
          for (int x = 0; x < 5; ++x) {
            assertEquals(o == i && y == 1 && x == 2 ? 1 : 0, k[((o * 4 + i) * 3 + y) * 5 + x]);
          }
        }
      }
    }
    MultiLayerConfiguration bad = new NeuralNetConfiguration.Builder().list()
        .layer(new DenseLayer.Builder().nIn(6).nOut(5).weightInit(WeightInit.IDENTITY).build())
        .layer(new OutputLayer.Builder(LossFunction.MSE).nOut(2).activation(Activation.IDENTITY).build()).build();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> param(bad, 0, 0));
    assertTrue(e.getMessage().contains("IDENTITY"), e.getMessage());
  }

  @Test
  void convolutionAndLstmUseDeeplearning4jsFans() {
    // nIn 8, nOut 256, kernel 5x5, stride 2: fanIn 200, fanOut 256 * 25 / 4 = 1600.
    for (Object[] c : new Object[][] {{WeightInit.XAVIER_UNIFORM, Law.UNIFORM, Math.sqrt(6.0 / 1800)},
        {WeightInit.RELU, Law.NORMAL, Math.sqrt(2.0 / 200)},
        {WeightInit.VAR_SCALING_UNIFORM_FAN_OUT, Law.UNIFORM, 3 / Math.sqrt(1600)}}) {
      MultiLayerConfiguration conv = new NeuralNetConfiguration.Builder().seed(3).list()
          .layer(new ConvolutionLayer.Builder(5, 5).stride(2, 2).nOut(256).weightInit((WeightInit) c[0]).build())
          .layer(new OutputLayer.Builder(LossFunction.MSE).nOut(2).activation(Activation.IDENTITY).build())
          .setInputType(InputType.convolutional(9, 9, 8)).build();
      check("conv " + c[0], param(conv, 0, 0), (Law) c[1], 0, (double) c[2]);
    }
    // LSTM nIn 50, nOut 100: fanIn 100, fanOut 150, for the input and the recurrent weights.
    MultiLayerConfiguration lstm = new NeuralNetConfiguration.Builder().seed(3).list()
        .layer(new LSTM.Builder().nOut(100).weightInit(WeightInit.XAVIER_UNIFORM).build())
        .layer(new RnnOutputLayer.Builder(LossFunction.MSE).nOut(2).activation(Activation.IDENTITY).build())
        .setInputType(InputType.recurrent(50)).build();
    check("LSTM W", param(lstm, 0, 0), Law.UNIFORM, 0, Math.sqrt(6.0 / 250));
    check("LSTM RW", param(lstm, 0, 1), Law.UNIFORM, 0, Math.sqrt(6.0 / 250));
  }

  static double[] dist(Distribution d) {
    return param(dense(new DenseLayer.Builder().weightInit(d), 11), 0, 0);
  }

  @Test
  void distributions() {
    check("uniform", dist(Distribution.uniform(-0.3, 0.7)), Law.UNIFORM, 0.2, 0.5);
    check("normal", dist(Distribution.normal(0.5, 2)), Law.NORMAL, 0.5, 2);
    check("truncated normal", dist(Distribution.truncatedNormal(0.1, 0.5)), Law.TRUNCATED, 0.1, 0.5);
    double[] ln = dist(Distribution.logNormal(0, 0.5));
    double[] logs = new double[ln.length];
    for (int i = 0; i < ln.length; ++i) {
      assertTrue(ln[i] > 0);
      logs[i] = Math.log(ln[i]);
    }
    check("log of log-normal", logs, Law.NORMAL, 0, 0.5);
    double[] bin = dist(Distribution.binomial(5, 0.3));
    for (double x : bin) {
      assertTrue(x == Math.rint(x) && x >= 0 && x <= 5, "binomial value " + x);
    }
    assertEquals(1.5, mean(bin), 6 * Math.sqrt(1.05 / bin.length), "binomial mean");
    assertEquals(1.05, var(bin), 0.05, "binomial variance");
    for (double x : dist(Distribution.constant(0.7))) {
      assertEquals(0.7f, x);
    }
    // Orthogonal, gain 2, W [200, 300] (more columns): W W^T = 4 I.
    double[] w = dist(Distribution.orthogonal(2));
    for (int i = 0; i < 200; i += 7) {
      for (int j = 0; j < 200; j += 5) {
        double dot = 0;
        for (int k = 0; k < 300; ++k) {
          dot += w[i * 300 + k] * w[j * 300 + k];
        }
        assertEquals(i == j ? 4 : 0, dot, 1e-4, "row " + i + " . row " + j);
      }
    }
  }

  @Test
  void biasInitAndForgetGateExactly() {
    MultiLayerConfiguration c = new NeuralNetConfiguration.Builder().seed(2).list()
        .layer(new DenseLayer.Builder().nIn(3).nOut(4).biasInit(0.25).build())
        .layer(new OutputLayer.Builder(LossFunction.MSE).nOut(2).activation(Activation.IDENTITY).build()).build();
    assertArrayEquals(new double[] {0.25, 0.25, 0.25, 0.25}, param(c, 0, 1));
    assertArrayEquals(new double[] {0, 0}, param(c, 1, 1));
    MultiLayerConfiguration lstm = new NeuralNetConfiguration.Builder().seed(2).list()
        .layer(new LSTM.Builder().nOut(2).biasInit(-0.5).forgetGateBiasInit(1.5).build())
        .layer(new RnnOutputLayer.Builder(LossFunction.MSE).nOut(2).activation(Activation.IDENTITY).biasInit(0.125).build())
        .setInputType(InputType.recurrent(3)).build();
    // As Deeplearning4j's, an LSTM's biases ignore biasInit: 0, the forget gate's forgetGateBiasInit.
    assertArrayEquals(new double[] {0, 0, 1.5, 1.5, 0, 0, 0, 0}, param(lstm, 0, 2));
    assertArrayEquals(new double[] {0.125, 0.125}, param(lstm, 1, 1));
    // Saved and read back, the settings stay.
    MultiLayerConfiguration back = MultiLayerConfiguration.fromJson(lstm.toJson());
    assertEquals(lstm, back);
    assertArrayEquals(param(lstm, 0, 2), param(back, 0, 2));
    MultiLayerConfiguration d = dense(new DenseLayer.Builder().weightInit(Distribution.binomial(3, 0.4)), 4);
    assertEquals(d, MultiLayerConfiguration.fromJson(d.toJson()));
  }

  @Test
  void sameSeedSameWeightsOtherSeedOthers() {
    for (Distribution d : new Distribution[] {Distribution.normal(0, 1), Distribution.binomial(4, 0.5),
        Distribution.orthogonal(1)}) {
      MultiLayerConfiguration a = dense(new DenseLayer.Builder().weightInit(d), 9);
      assertArrayEquals(param(a, 0, 0), param(a, 0, 0), d.toString());
      assertFalse(Arrays.equals(param(a, 0, 0), param(dense(new DenseLayer.Builder().weightInit(d), 10), 0, 0)));
    }
    MultiLayerConfiguration x = dense(new DenseLayer.Builder().weightInit(WeightInit.VAR_SCALING_NORMAL_FAN_AVG), 9);
    assertArrayEquals(param(x, 0, 0), param(x, 0, 0));
  }
}
