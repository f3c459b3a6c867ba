package org.ndrt.nn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.ndrt.Tensor;
import org.ndrt.data.DataSet;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.LossFunction;
import org.ndrt.nn.conf.MultiLayerConfiguration;
import org.ndrt.nn.conf.NeuralNetConfiguration;
import org.ndrt.nn.conf.layers.ConvolutionLayer;
import org.ndrt.nn.conf.layers.DenseLayer;
import org.ndrt.nn.conf.layers.LSTM;
import org.ndrt.nn.conf.layers.OutputLayer;
import org.ndrt.nn.conf.layers.RnnOutputLayer;
import org.ndrt.nn.conf.layers.SubsamplingLayer;
import org.ndrt.nn.updater.Sgd;

/**
 * feedForward (Deeplearning4j's per-layer activations) against a float64 reference computed here
 * from the parameters, and computeGradientAndScore against fit's step and finite differences.
 */
class FeedForwardTest {
  /** Random parameters in [-0.6, 0.6) set on the network; returned as doubles (the f32 values). */
  private static double[] randomParams(MultiLayerNetwork net, long seed) {
    Random r = new Random(seed);
    float[] p = new float[(int) net.numParams()];
    for (int i = 0; i < p.length; ++i) {
      p[i] = (r.nextFloat() * 2 - 1) * 0.6f;
    }
    try (Tensor t = Tensor.from(p, p.length)) {
      net.setParams(t);
    }
    double[] d = new double[p.length];
    for (int i = 0; i < p.length; ++i) {
      d[i] = p[i];
    }
    return d;
  }

  /** y[n, o] = act(sum_i x[n, i] W[off + i nOut + o] + b[boff + o]) in f64. */
  private static double[] dense(double[] x, int n, int nIn, int nOut, double[] p, int wOff, int bOff, Activation a) {
    double[] y = new double[n * nOut];
    for (int b = 0; b < n; ++b) {
      for (int o = 0; o < nOut; ++o) {
        double s = p[bOff + o];
        for (int i = 0; i < nIn; ++i) {
          s += x[b * nIn + i] * p[wOff + i * nOut + o];
        }
        y[b * nOut + o] = a == Activation.RELU ? Math.max(0, s) : a == Activation.TANH ? Math.tanh(s) : s;
      }
    }
    return y;
  }

  private static double[] softmaxRows(double[] z, int n, int c) {
    double[] y = new double[z.length];
    for (int b = 0; b < n; ++b) {
      double m = Double.NEGATIVE_INFINITY;
      for (int j = 0; j < c; ++j) {
        m = Math.max(m, z[b * c + j]);
      }
      double s = 0;
      for (int j = 0; j < c; ++j) {
        s += Math.exp(z[b * c + j] - m);
      }
      for (int j = 0; j < c; ++j) {
        y[b * c + j] = Math.exp(z[b * c + j] - m) / s;
      }
    }
    return y;
  }

  private static void assertClose(double[] want, Tensor got, double tol, String what) {
    float[] g = got.toFloatArray();
    assertEquals(want.length, g.length, what + ": size");
    for (int i = 0; i < want.length; ++i) {
      assertEquals(want[i], g[i], tol * (1 + Math.abs(want[i])), what + " element " + i);
    }
  }

  private static double[] doubles(Tensor t) {
    float[] f = t.toFloatArray();
    double[] d = new double[f.length];
    for (int i = 0; i < f.length; ++i) {
      d[i] = f[i];
    }
    return d;
  }

  private static void closeAll(List<Tensor> ts) {
    ts.forEach(Tensor::close);
  }

  @Test
  void denseActivationsMatchFloat64Reference() {
    MultiLayerConfiguration conf = new NeuralNetConfiguration.Builder().seed(3).list()
        .layer(new DenseLayer.Builder().nIn(5).nOut(7).activation(Activation.RELU).build())
        .layer(new DenseLayer.Builder().nOut(4).activation(Activation.TANH).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(3).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.feedForward(5)).build();
    try (MultiLayerNetwork net = new MultiLayerNetwork(conf); DataSet ds = MultiLayerNetworkTest.randomData(6, 5, 3, 9)) {
      net.init();
      double[] p = randomParams(net, 17);
      // Layout: the weights of every layer, then the biases.
      int w0 = 0;
      int w1 = w0 + 5 * 7;
      int w2 = w1 + 7 * 4;
      int b0 = w2 + 4 * 3;
      double[] x = doubles(ds.features());
      double[] a0 = dense(x, 6, 5, 7, p, w0, b0, Activation.RELU);
      double[] a1 = dense(a0, 6, 7, 4, p, w1, b0 + 7, Activation.TANH);
      double[] a2 = softmaxRows(dense(a1, 6, 4, 3, p, w2, b0 + 11, Activation.IDENTITY), 6, 3);
      List<Tensor> acts = net.feedForward(ds.features(), false, 2);
      try (Tensor out = net.output(ds.features())) {
        assertEquals(3, acts.size());
        assertArrayEquals(new long[] {6, 7}, acts.get(0).shape());
        assertClose(a0, acts.get(0), 1e-5, "layer 0");
        assertClose(a1, acts.get(1), 1e-5, "layer 1");
        assertClose(a2, acts.get(2), 1e-5, "layer 2");
        assertArrayEquals(out.toFloatArray(), acts.get(2).toFloatArray(), "the last activations are output()'s");
      } finally {
        closeAll(acts);
      }
      List<Tensor> two = net.feedForward(ds.features(), false, 1);
      try {
        assertEquals(2, two.size(), "feedForward to layer 1 stops there");
        assertClose(a1, two.get(1), 1e-5, "layer 1 again");
      } finally {
        closeAll(two);
      }
      assertThrows(IllegalArgumentException.class, () -> net.feedForward(ds.features(), false, 3));
    }
  }

  private static MultiLayerConfiguration cnn() {
    return new NeuralNetConfiguration.Builder().seed(4).list()
        .layer(new ConvolutionLayer.Builder(5, 5).nOut(3).activation(Activation.IDENTITY).build())
        .layer(new SubsamplingLayer.Builder(SubsamplingLayer.PoolingType.MAX).kernelSize(2, 2).stride(2, 2).build())
        .layer(new DenseLayer.Builder().nOut(4).activation(Activation.TANH).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(2).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.convolutionalFlat(12, 12, 1)).build();
  }

  /**
   * Convolution (12x12 -> 8x8: fused with the pooling where ndrt's direct kernel runs, channels-last
   * with org.ndrt.channelsLast=true), pooling, dense, output: NCHW activations as the reference's.
   */
  @Test
  void imageActivationsMatchFloat64ReferenceFusedOrChannelsLast() {
    for (String channelsLast : new String[] {"auto", "true", "false"}) {
      System.setProperty("org.ndrt.channelsLast", channelsLast);
      try (MultiLayerNetwork net = new MultiLayerNetwork(cnn());
           DataSet ds = MultiLayerNetworkTest.randomData(3, 144, 2, 5)) {
        net.init();
        double[] p = randomParams(net, 23);
        int wc = 0;
        int wd = wc + 3 * 25;
        int wo = wd + 48 * 4;
        int bc = wo + 4 * 2;
        double[] x = doubles(ds.features());
        double[] conv = new double[3 * 3 * 64];
        double[] pool = new double[3 * 3 * 16];
        for (int n = 0; n < 3; ++n) {
          for (int c = 0; c < 3; ++c) {
            for (int h = 0; h < 8; ++h) {
              for (int w = 0; w < 8; ++w) {
                double s = p[bc + c];
                for (int i = 0; i < 5; ++i) {
                  for (int j = 0; j < 5; ++j) {
                    s += x[n * 144 + (h + i) * 12 + w + j] * p[wc + c * 25 + i * 5 + j];
                  }
                }
                conv[((n * 3 + c) * 8 + h) * 8 + w] = s;
              }
            }
            for (int h = 0; h < 4; ++h) {
              for (int w = 0; w < 4; ++w) {
                double m = Double.NEGATIVE_INFINITY;
                for (int k = 0; k < 4; ++k) {
                  m = Math.max(m, conv[((n * 3 + c) * 8 + 2 * h + k / 2) * 8 + 2 * w + k % 2]);
                }
                pool[((n * 3 + c) * 4 + h) * 4 + w] = m;
              }
            }
          }
        }
        double[] d = dense(pool, 3, 48, 4, p, wd, bc + 3, Activation.TANH);
        double[] o = softmaxRows(dense(d, 3, 4, 2, p, wo, bc + 7, Activation.IDENTITY), 3, 2);
        List<Tensor> acts = net.feedForward(ds.features(), false, 3);
        try {
          assertArrayEquals(new long[] {3, 3, 8, 8}, acts.get(0).shape(), channelsLast);
          assertArrayEquals(new long[] {3, 3, 4, 4}, acts.get(1).shape(), channelsLast);
          assertClose(conv, acts.get(0), 1e-5, channelsLast + ": convolution");
          assertClose(pool, acts.get(1), 1e-5, channelsLast + ": pooling");
          assertClose(d, acts.get(2), 1e-5, channelsLast + ": dense");
          assertClose(o, acts.get(3), 1e-5, channelsLast + ": output");
        } finally {
          closeAll(acts);
        }
      } finally {
        System.clearProperty("org.ndrt.channelsLast");
      }
    }
  }

  /** Sequence activations are [N, size, T]: the RnnOutputLayer's output computed from them in f64 is output()'s. */
  @Test
  void sequenceActivationsAreNSizeT() {
    MultiLayerConfiguration conf = new NeuralNetConfiguration.Builder().seed(6).list()
        .layer(new LSTM.Builder().nOut(5).build())
        .layer(new RnnOutputLayer.Builder(LossFunction.MSE).nOut(2).activation(Activation.IDENTITY).build())
        .setInputType(InputType.recurrent(3)).build();
    int n = 2;
    int t = 4;
    Random r = new Random(8);
    float[] xs = new float[n * 3 * t];
    for (int i = 0; i < xs.length; ++i) {
      xs[i] = r.nextFloat() * 2 - 1;
    }
    try (MultiLayerNetwork net = new MultiLayerNetwork(conf); Tensor x = Tensor.from(xs, n, 3, t)) {
      net.init();
      double[] p = randomParams(net, 29);
      List<Tensor> acts = net.feedForward(x, false, 1);
      try (Tensor out = net.output(x)) {
        assertArrayEquals(new long[] {n, 5, t}, acts.get(0).shape());
        assertArrayEquals(out.toFloatArray(), acts.get(1).toFloatArray(), "the last activations are output()'s");
        int wOut = p.length - (4 * 5 + 2) - 5 * 2;  // the output W [5, 2] is the last weight; then LSTM b [20], output b [2]
        double[] h = doubles(acts.get(0));
        float[] o = out.toFloatArray();
        for (int b = 0; b < n; ++b) {
          for (int s = 0; s < t; ++s) {
            for (int k = 0; k < 2; ++k) {
              double z = p[p.length - 2 + k];
              for (int j = 0; j < 5; ++j) {
                z += h[(b * 5 + j) * t + s] * p[wOut + j * 2 + k];
              }
              assertEquals(z, o[(b * 2 + k) * t + s], 1e-5, "output at " + b + "," + k + "," + s);
            }
          }
        }
      } finally {
        closeAll(acts);
      }
    }
  }

  @Test
  void computeGradientAndScoreIsFitsGradientAndFiniteDifferences() {
    MultiLayerConfiguration conf = new NeuralNetConfiguration.Builder().seed(3).updater(new Sgd(0.5)).list()
        .layer(new DenseLayer.Builder().nIn(4).nOut(6).activation(Activation.TANH).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(3).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.feedForward(4)).build();
    try (MultiLayerNetwork net = new MultiLayerNetwork(conf); DataSet ds = MultiLayerNetworkTest.randomData(5, 4, 3, 2)) {
      net.init();
      randomParams(net, 31);
      float[] p0 = net.params().toFloatArray();
      double sc = net.computeGradientAndScore(ds);
      assertEquals(net.score(ds), sc, 1e-6, "the score is score(DataSet)'s (no dropout)");
      assertEquals(sc, net.score(), 0, "and becomes score()");
      assertArrayEquals(p0, net.params().toFloatArray(), "no update");
      float[] g = TrainerSupport.gradients(net).toFloatArray();
      try (MultiLayerNetwork twin = net.clone()) {
        twin.fit(ds);
        float[] p1 = twin.params().toFloatArray();
        for (int i = 0; i < g.length; ++i) {
          assertEquals((p0[i] - p1[i]) / 0.5, g[i], 1e-5, "fit's step is -lr * this gradient: " + i);
        }
      }
      int nonzero = 0;
      for (int i = 0; i < g.length; ++i) {
        float[] q = p0.clone();
        double eps = 1e-2;
        q[i] = (float) (p0[i] + eps);
        double up = scoreAt(net, q, ds);
        q[i] = (float) (p0[i] - eps);
        double down = scoreAt(net, q, ds);
        double fd = (up - down) / ((double) (float) (p0[i] + eps) - (float) (p0[i] - eps));
        assertEquals(fd, g[i], 2e-3 + 2e-2 * Math.abs(fd), "finite difference of parameter " + i);
        nonzero += g[i] != 0 ? 1 : 0;
      }
      assertTrue(nonzero > g.length / 2, "most gradients are nonzero: " + nonzero);
    }
  }

  /** miniBatch(false) (Deeplearning4j's ModelXOR): score and gradients are the minibatch's sums, N times the means. */
  @Test
  void miniBatchFalseSumsScoreAndGradients() {
    MultiLayerConfiguration[] confs = new MultiLayerConfiguration[2];
    for (int k = 0; k < 2; ++k) {
      confs[k] = new NeuralNetConfiguration.Builder().seed(7).updater(new Sgd(0.1)).miniBatch(k == 0).list()
          .layer(new DenseLayer.Builder().nIn(4).nOut(5).activation(Activation.TANH).build())
          .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(3).activation(Activation.SOFTMAX).build())
          .setInputType(InputType.feedForward(4)).build();
    }
    assertTrue(confs[0].miniBatch());
    assertTrue(!confs[1].miniBatch() && !MultiLayerConfiguration.fromJson(confs[1].toJson()).miniBatch(), "JSON keeps it");
    assertTrue(!confs[0].toJson().contains("miniBatch"), "the default writes what it always wrote");
    int n = 6;
    try (MultiLayerNetwork mean = new MultiLayerNetwork(confs[0]); MultiLayerNetwork sum = new MultiLayerNetwork(confs[1]);
         DataSet ds = MultiLayerNetworkTest.randomData(n, 4, 3, 12)) {
      mean.init();
      sum.init();
      randomParams(mean, 41);
      randomParams(sum, 41);
      float[] p0 = sum.params().toFloatArray();
      double sm = mean.computeGradientAndScore(ds);
      double ss = sum.computeGradientAndScore(ds);
      assertEquals(n * sm, ss, 1e-5 * ss);
      assertEquals(n * mean.score(ds), sum.score(ds), 1e-5 * ss);
      float[] gm = TrainerSupport.gradients(mean).toFloatArray();
      float[] gs = TrainerSupport.gradients(sum).toFloatArray();
      for (int i = 0; i < gm.length; ++i) {
        assertEquals(n * gm[i], gs[i], 1e-6 + 1e-5 * Math.abs(gs[i]), "gradient " + i);
      }
      sum.fit(ds);
      assertEquals(ss, sum.score(), 1e-6 * ss, "fit's score is the sum too");
      float[] p1 = sum.params().toFloatArray();
      for (int i = 0; i < gs.length; ++i) {
        assertEquals(p0[i] - 0.1 * gs[i], p1[i], 1e-6, "SGD steps by the summed gradient: " + i);
      }
    }
  }

  private static double scoreAt(MultiLayerNetwork net, float[] params, DataSet ds) {
    try (Tensor t = Tensor.from(params, params.length)) {
      net.setParams(t);
    }
    return net.score(ds);
  }
}
