package org.ndrt.nn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.ndrt.DType;
import org.ndrt.Tensor;
import org.ndrt.data.DataSet;
import org.ndrt.data.ListDataSetIterator;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.LossFunction;
import org.ndrt.nn.conf.MultiLayerConfiguration;
import org.ndrt.nn.conf.NeuralNetConfiguration;
import org.ndrt.nn.conf.WeightInit;
import org.ndrt.nn.conf.layers.DenseLayer;
import org.ndrt.nn.conf.layers.OutputLayer;
import org.ndrt.nn.conf.layers.VariationalAutoencoder;
import org.ndrt.nn.conf.layers.VariationalAutoencoder.Reconstruction;
import org.ndrt.nn.layers.Layers;
import org.ndrt.nn.layers.ParamSpec;
import org.ndrt.nn.layers.VaeImpl;
import org.ndrt.nn.updater.Adam;
import org.ndrt.nn.updater.Sgd;

/**
 * The variational autoencoder layer: its negative ELBO against a plain-Java float64 reference, every
 * parameter's gradient against central differences in f64 (eps fixed), the supervised path (mean of
 * q(z|x)), layer-wise pretraining in a network, and Deeplearning4j's parameter count.
 */
class VariationalAutoencoderTest {
  private static final int N = 4;

  private static MultiLayerConfiguration conf(long nIn, int nZ, Activation act, Activation pzx, Reconstruction r,
      int samples, int[] enc, int[] dec) {
    return new NeuralNetConfiguration.Builder().seed(7).updater(new Adam(1e-3)).list()
        .layer(new VariationalAutoencoder.Builder().nIn(nIn).nOut(nZ).activation(act).pzxActivation(pzx)
            .reconstruction(r).numSamples(samples).encoderLayerSizes(enc).decoderLayerSizes(dec).build())
        .build();
  }

  /** One f64 layer with random parameters of its own. */
  private static final class F64Vae implements AutoCloseable {
    final VaeImpl vae;
    final List<ParamSpec> specs;
    final Tensor[] p;
    final Tensor[] g;

    F64Vae(MultiLayerConfiguration c, long seed) {
      vae = (VaeImpl) Layers.create(c, 0, DType.F64);
      specs = vae.params();
      p = new Tensor[specs.size()];
      g = new Tensor[specs.size()];
      Random r = new Random(seed);
      for (int j = 0; j < p.length; ++j) {
        double[] v = new double[(int) specs.get(j).numel()];
        for (int k = 0; k < v.length; ++k) {
          v[k] = (r.nextDouble() * 2 - 1) * 0.7;
        }
        p[j] = Tensor.from(v, specs.get(j).shape);
        g[j] = Tensor.full(99, DType.F64, specs.get(j).shape);  // stale values: every step must overwrite them
      }
      vae.bind(p, g);
    }

    @Override
    public void close() {
      vae.close();
      for (Tensor t : p) {
        t.close();
      }
      for (Tensor t : g) {
        t.close();
      }
    }
  }

  // ------------------------------------------------------------------------ float64 reference

  private static double act(Activation a, double z) {
    switch (a) {
      case IDENTITY: return z;
      case TANH: return Math.tanh(z);
      case SIGMOID: return 1 / (1 + Math.exp(-z));
      case LEAKYRELU: return z >= 0 ? z : 0.01 * z;
      case ELU: return z >= 0 ? z : Math.expm1(z);
      default: throw new IllegalArgumentException(a.toString());
    }
  }

  /** act(x W + b) with W [in, out] row-major. */
  private static double[][] dense(double[][] x, double[] w, double[] b, Activation a) {
    int out = b.length;
    int in = w.length / out;
    double[][] y = new double[x.length][out];
    for (int n = 0; n < x.length; ++n) {
      for (int j = 0; j < out; ++j) {
        double s = b[j];
        for (int i = 0; i < in; ++i) {
          s += x[n][i] * w[i * out + j];
        }
        y[n][j] = act(a, s);
      }
    }
    return y;
  }

  /** The mean negative ELBO from the parameters as the layer lists them (e*, pZXMean, pZXLogStd2, d*, pXZ). */
  private static double referenceLoss(double[][] x, double[][] ps, int nEnc, int nDec, Activation act, Activation pzx,
      Reconstruction r, double[][][] eps) {
    double[][] h = x;
    int k = 0;
    for (int i = 0; i < nEnc; ++i, k += 2) {
      h = dense(h, ps[k], ps[k + 1], act);
    }
    double[][] mu = dense(h, ps[k], ps[k + 1], pzx);
    double[][] lv = dense(h, ps[k + 2], ps[k + 3], pzx);
    k += 4;
    double total = 0;
    for (int n = 0; n < x.length; ++n) {
      for (int j = 0; j < mu[n].length; ++j) {
        total += 0.5 * (mu[n][j] * mu[n][j] + Math.exp(lv[n][j]) - lv[n][j] - 1);
      }
    }
    for (double[][] e : eps) {
      double[][] z = new double[x.length][mu[0].length];
      for (int n = 0; n < x.length; ++n) {
        for (int j = 0; j < z[n].length; ++j) {
          z[n][j] = mu[n][j] + Math.exp(lv[n][j] / 2) * e[n][j];
        }
      }
      double[][] d = z;
      for (int i = 0; i < nDec; ++i) {
        d = dense(d, ps[k + 2 * i], ps[k + 2 * i + 1], act);
      }
      double[][] pre = dense(d, ps[k + 2 * nDec], ps[k + 2 * nDec + 1], Activation.IDENTITY);
      int nIn = x[0].length;
      for (int n = 0; n < x.length; ++n) {
        for (int i = 0; i < nIn; ++i) {
          if (r.kind == Reconstruction.Kind.BERNOULLI) {
            double p = act(Activation.SIGMOID, pre[n][i]);
            total -= (x[n][i] * Math.log(p) + (1 - x[n][i]) * Math.log(1 - p)) / eps.length;
          } else {
            double m = act(r.activation, pre[n][i]);
            double l = act(r.activation, pre[n][nIn + i]);
            double diff = x[n][i] - m;
            total += (0.5 * Math.log(2 * Math.PI) + 0.5 * l + diff * diff / (2 * Math.exp(l))) / eps.length;
          }
        }
      }
    }
    return total / x.length;
  }

  /** The ELBO against the reference, then every parameter's gradient against central differences (h = 1e-6). */
  private static void checkElbo(long nIn, int nZ, Activation act, Activation pzx, Reconstruction r, int samples,
      int[] enc, int[] dec, long seed) {
    Random rnd = new Random(seed);
    double[][] x = new double[N][(int) nIn];
    double[] xf = new double[(int) (N * nIn)];
    for (int n = 0; n < N; ++n) {
      for (int i = 0; i < nIn; ++i) {
        x[n][i] = r.kind == Reconstruction.Kind.BERNOULLI ? rnd.nextDouble() : rnd.nextGaussian();
        xf[(int) (n * nIn + i)] = x[n][i];
      }
    }
    double[][][] eps = new double[samples][N][nZ];
    double[] ef = new double[samples * N * nZ];
    for (int s = 0, q = 0; s < samples; ++s) {
      for (int n = 0; n < N; ++n) {
        for (int j = 0; j < nZ; ++j, ++q) {
          eps[s][n][j] = rnd.nextGaussian();
          ef[q] = eps[s][n][j];
        }
      }
    }
    MultiLayerConfiguration c = conf(nIn, nZ, act, pzx, r, samples, enc, dec);
    try (F64Vae v = new F64Vae(c, seed + 1); Tensor xt = Tensor.from(xf, N, nIn);
         Tensor et = Tensor.from(ef, samples, N, nZ)) {
      v.vae.setFixedNoise(et);
      double[][] ps = new double[v.p.length][];
      for (int j = 0; j < ps.length; ++j) {
        ps[j] = v.p[j].toDoubleArray();
      }
      double l0 = v.vae.pretrainStep(xt);
      double ref = referenceLoss(x, ps, enc.length, dec.length, act, pzx, r, eps);
      assertEquals(ref, l0, 1e-10 * Math.abs(ref), "negative ELBO against the float64 reference");
      double[][] grads = new double[v.g.length][];
      for (int j = 0; j < grads.length; ++j) {
        grads[j] = v.g[j].toDoubleArray();
      }
      double h = 1e-6;
      int nonzero = 0;
      int checked = 0;
      for (int j = 0; j < ps.length; ++j) {
        double[] pv = ps[j].clone();
        for (int k = 0; k < pv.length; ++k) {
          double keep = pv[k];
          pv[k] = keep + h;
          v.p[j].copyFrom(pv);
          double lp = v.vae.pretrainStep(xt);
          pv[k] = keep - h;
          v.p[j].copyFrom(pv);
          double lm = v.vae.pretrainStep(xt);
          pv[k] = keep;
          v.p[j].copyFrom(pv);
          double fd = (lp - lm) / (2 * h);
          assertEquals(fd, grads[j][k], 1e-7 + 1e-5 * Math.abs(fd), "parameter " + v.specs.get(j).name + "[" + k + "]");
          nonzero += grads[j][k] != 0 ? 1 : 0;
          ++checked;
        }
      }
      assertTrue(nonzero > checked * 9 / 10, "most gradients are nonzero: " + nonzero + " of " + checked);
    }
  }

  @Test
  void bernoulliElboAndGradientsInF64() {
    checkElbo(6, 2, Activation.TANH, Activation.IDENTITY, Reconstruction.bernoulli(Activation.SIGMOID), 1,
        new int[] {5, 4}, new int[] {3}, 11);
  }

  @Test
  void gaussianElboAndGradientsInF64WithTwoSamples() {
    checkElbo(5, 3, Activation.ELU, Activation.TANH, Reconstruction.gaussian(Activation.TANH), 2,
        new int[] {4}, new int[] {4, 3}, 12);
  }

  @Test
  void gaussianIdentityAndLeakyReluInF64() {
    checkElbo(4, 2, Activation.LEAKYRELU, Activation.IDENTITY, Reconstruction.gaussian(Activation.IDENTITY), 3,
        new int[] {5}, new int[] {5}, 13);
  }

  /** The supervised path: forward is q(z|x)'s mean; backward reaches the encoder and the mean head only. */
  @Test
  void supervisedForwardIsTheMeanAndBackwardMatchesFiniteDifferences() {
    MultiLayerConfiguration c = conf(5, 3, Activation.TANH, Activation.SIGMOID,
        Reconstruction.bernoulli(Activation.SIGMOID), 1, new int[] {4}, new int[] {4});
    Random rnd = new Random(21);
    double[] xf = new double[N * 5];
    double[] rf = new double[N * 3];
    for (int i = 0; i < xf.length; ++i) {
      xf[i] = rnd.nextDouble();
    }
    for (int i = 0; i < rf.length; ++i) {
      rf[i] = rnd.nextGaussian();
    }
    try (F64Vae v = new F64Vae(c, 22); Tensor x = Tensor.from(xf, N, 5); Tensor r = Tensor.from(rf, N, 3)) {
      double[][] ps = new double[v.p.length][];
      for (int j = 0; j < ps.length; ++j) {
        ps[j] = v.p[j].toDoubleArray();
      }
      double[][] xs = new double[N][5];
      for (int n = 0; n < N; ++n) {
        System.arraycopy(xf, n * 5, xs[n], 0, 5);
      }
      double[][] mu = dense(dense(xs, ps[0], ps[1], Activation.TANH), ps[2], ps[3], Activation.SIGMOID);
      double[] y = v.vae.forward(x, true).toDoubleArray();
      for (int n = 0; n < N; ++n) {
        for (int j = 0; j < 3; ++j) {
          assertEquals(mu[n][j], y[n * 3 + j], 1e-12, "mean of q(z|x)");
        }
      }
      v.vae.backward(r, true);
      for (int j = 0; j < v.p.length; ++j) {
        double[] gj = v.g[j].toDoubleArray();
        double[] pv = ps[j].clone();
        for (int k = 0; k < pv.length; ++k) {
          double fd = 0;
          if (j < 4) {
            double keep = pv[k];
            double[] l = new double[2];
            for (int side = 0; side < 2; ++side) {
              pv[k] = keep + (side == 0 ? 1e-6 : -1e-6);
              v.p[j].copyFrom(pv);
              double[] o = v.vae.forward(x, true).toDoubleArray();
              for (int q = 0; q < o.length; ++q) {
                l[side] += o[q] * rf[q];
              }
            }
            pv[k] = keep;
            v.p[j].copyFrom(pv);
            fd = (l[0] - l[1]) / 2e-6;
          }
          assertEquals(fd, gj[k], 1e-7 + 1e-5 * Math.abs(fd), v.specs.get(j).name + "[" + k + "]");
        }
      }
    }
  }

  /** Binary patterns of two kinds (each pixel flipped with probability 0.05), labelled by kind, in batches of 16. */
  private static ListDataSetIterator patterns(int n, int nIn, long seed) {
    Random r = new Random(seed);
    float[] f = new float[n * nIn];
    int[] l = new int[n];
    for (int e = 0; e < n; ++e) {
      l[e] = r.nextInt(2);
      for (int i = 0; i < nIn; ++i) {
        boolean on = l[e] == 0 ? i < nIn / 2 : i % 2 == 0;
        f[e * nIn + i] = on != (r.nextDouble() < 0.05) ? 1 : 0;
      }
    }
    return new ListDataSetIterator(f, new long[] {nIn}, l, 2, 16);
  }

  /**
   * Dense, VAE, output: pretraining moves the VAE's parameters only and lowers its score; output is
   * the network's usual forward; fit still trains the whole stack.
   */
  @Test
  void layerwisePretrainingInANetwork() {
    int nIn = 12;
    MultiLayerConfiguration c = new NeuralNetConfiguration.Builder().seed(3).updater(new Adam(0.01)).l2(1e-4)
        .weightInit(WeightInit.XAVIER).list()
        .layer(new DenseLayer.Builder().nIn(nIn).nOut(10).activation(Activation.SIGMOID).build())
        .layer(new VariationalAutoencoder.Builder().nOut(2).activation(Activation.LEAKYRELU).encoderLayerSizes(8)
            .decoderLayerSizes(8).reconstruction(Reconstruction.gaussian(Activation.IDENTITY)).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(2).activation(Activation.SOFTMAX).build())
        .build();
    assertEquals(c, MultiLayerConfiguration.fromJson(c.toJson()), "JSON round trip");
    ListDataSetIterator data = patterns(30 * 16, nIn, 5);
    try (MultiLayerNetwork net = new MultiLayerNetwork(c)) {
      net.init();
      assertNull(Pretraining.variationalAutoencoder(net, 0));
      VaeImpl vae = Pretraining.variationalAutoencoder(net, 1);
      assertNotNull(vae);
      long before = net.getIterationCount();
      float[] p0 = net.params().toFloatArray();
      List<Double> scores = new ArrayList<>();
      net.setListeners(new org.ndrt.nn.listeners.TrainingListener() {
        @Override
        public void iterationDone(org.ndrt.nn.Model m, long iteration, int epoch, double score, int n) {
          scores.add(score);
        }
      });
      Pretraining.pretrain(net, data, 20);
      assertEquals(600, scores.size(), "one iterationDone per minibatch, layer 1 only");
      assertEquals(600, vae.pretrainSteps());
      assertEquals(before, net.getIterationCount(), "pretraining leaves fit's count alone");
      double first = scores.subList(0, 30).stream().mapToDouble(Double::doubleValue).average().orElseThrow();
      double last = scores.subList(570, 600).stream().mapToDouble(Double::doubleValue).average().orElseThrow();
      assertTrue(last < first - 5, "negative ELBO per example, first epoch " + first + ", last " + last);
      // Layer 0 (Dense) is untouched: the first 12 * 10 weights and 10 biases of the flat vector (weights first).
      float[] p1 = net.params().toFloatArray();
      for (int i = 0; i < nIn * 10; ++i) {
        assertEquals(p0[i], p1[i], 0f, "dense weight " + i);
      }
      data.reset();
      try (DataSet first16 = data.next(); Tensor out = net.output(first16.features())) {
        assertEquals(2, out.shape()[1]);
        double s0 = net.score(first16);
        net.fit(data, 5);
        assertTrue(net.score(first16) < s0, "supervised fit after pretraining");
      }
    }
  }

  /** A network that ends in the VAE: output is q(z|x)'s mean; fit, score and evaluate have no labels to use. */
  @Test
  void networkEndingInTheVae() throws java.io.IOException {
    MultiLayerConfiguration c = new NeuralNetConfiguration.Builder().seed(4).updater(new Sgd(0.1)).list()
        .layer(new VariationalAutoencoder.Builder().nIn(12).nOut(3).activation(Activation.TANH).build())
        .build();
    try (MultiLayerNetwork net = new MultiLayerNetwork(c); DataSet ds = patterns(16, 12, 6).next()) {
      net.init();
      VaeImpl vae = Pretraining.variationalAutoencoder(net, 0);
      Tensor f = ds.features();
      try (Tensor out = net.output(f); Tensor mean = vae.encodeMean(f, false);
           Tensor lp = vae.reconstructionLogProbability(f, 4); Tensor gen = vae.generateAtMean(mean)) {
        float[] a = out.toFloatArray();
        float[] b = mean.toFloatArray();
        for (int i = 0; i < a.length; ++i) {
          assertEquals(b[i], a[i], 0f);
        }
        assertEquals(16, lp.shape()[0]);
        assertEquals(1, lp.shape()[1]);
        for (double v : lp.toDoubleArray()) {
          assertTrue(v < 0 && Double.isFinite(v), "log probability " + v);
        }
        assertEquals(12, gen.shape()[1]);
        for (float v : gen.toFloatArray()) {
          assertTrue(v > 0 && v < 1, "Bernoulli means " + v);
        }
      }
      assertThrows(IllegalStateException.class, () -> net.fit(ds));
      java.io.File zip = java.io.File.createTempFile("vae", ".zip");
      try {
        net.save(zip);
        try (MultiLayerNetwork back = MultiLayerNetwork.load(zip); Tensor a = net.output(f); Tensor b = back.output(f)) {
          assertEquals(java.util.Arrays.toString(a.toFloatArray()), java.util.Arrays.toString(b.toFloatArray()),
              "saved and loaded");
          assertEquals(c, back.getConfiguration());
        }
      } finally {
        zip.delete();
      }
      assertTrue(Double.isFinite(Pretraining.pretrainStep(net, 0, f)));
      assertThrows(IllegalArgumentException.class, () -> Pretraining.variationalAutoencoder(net, 1));
    }
  }

  /**
   * Deeplearning4j's count for VaeMNISTAnomaly's layer (784 in, encoder and decoder 256, 256, z of 32,
   * Bernoulli): e0 784*256+256, e1 256*256+256, two heads 2*(256*32+32), d0 32*256+256, d1
   * 256*256+256, pXZ 256*784+784 = 558,928 (VariationalAutoencoderParamInitializer's formula); real
   * Deeplearning4j 1.0.0-M2.1 (run from ~/.m2) gives 558,928 for it and 244 for the Gaussian one below.
   */
  @Test
  void numParamsAsDeeplearning4j() {
    MultiLayerConfiguration c = conf(784, 32, Activation.LEAKYRELU, Activation.IDENTITY,
        Reconstruction.bernoulli(Activation.SIGMOID), 1, new int[] {256, 256}, new int[] {256, 256});
    try (MultiLayerNetwork net = new MultiLayerNetwork(c)) {
      net.init();
      assertEquals(558_928, net.numParams());
      assertEquals(558_928, ((VariationalAutoencoder) c.layers().get(0)).numParams());
    }
    MultiLayerConfiguration g = conf(10, 2, Activation.TANH, Activation.IDENTITY,
        Reconstruction.gaussian(Activation.IDENTITY), 1, new int[] {7}, new int[] {5});
    // e0 10*7+7, heads 2*(7*2+2), d0 2*5+5, pXZ 5*20+20 (a Gaussian has a mean and a log-variance per input)
    assertEquals(77 + 32 + 15 + 120, ((VariationalAutoencoder) g.layers().get(0)).numParams());
    assertThrows(UnsupportedOperationException.class, () -> Reconstruction.bernoulli(Activation.TANH));
  }
}
