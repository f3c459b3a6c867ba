package org.ndrt.nn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.ndrt.Tensor;
import org.ndrt.data.DataSet;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.LossFunction;
import org.ndrt.nn.conf.MultiLayerConfiguration;
import org.ndrt.nn.conf.NeuralNetConfiguration;
import org.ndrt.nn.conf.layers.ActivationLayer;
import org.ndrt.nn.conf.layers.ConvolutionLayer;
import org.ndrt.nn.conf.layers.DenseLayer;
import org.ndrt.nn.conf.layers.OutputLayer;

/**
 * ActivationLayer between a dense layer without activation and a softmax output: output, score and
 * gradients against a float64 reference (forward computed here, gradients by central differences of
 * it) on random data; the configuration's checks and JSON round trip.
 */
class ActivationLayerTest {
  private static final int N = 5;
  private static final int IN = 4;
  private static final int HID = 6;
  private static final int OUT = 3;

  private static MultiLayerConfiguration conf(Activation a) {
    return new NeuralNetConfiguration.Builder().seed(7).list()
        .layer(new DenseLayer.Builder().nOut(HID).activation(Activation.IDENTITY).build())
        .layer(new ActivationLayer.Builder(a).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(OUT).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.feedForward(IN)).build();
  }

  private static double act(Activation a, double z) {
    switch (a) {
      case RELU: return Math.max(0, z);
      case TANH: return Math.tanh(z);
      case SIGMOID: return 1 / (1 + Math.exp(-z));
      default: throw new IllegalArgumentException(a.name());
    }
  }

  /**
   * Softmax probabilities [N, OUT] in f64; the flat layout is the network's: W0 [IN, HID], W1 [HID, OUT]
   * (all weights first), then b0, b1.
   */
  private static double[] forward(Activation a, double[] p, double[] x) {
    int w1 = IN * HID;
    int b0 = w1 + HID * OUT;
    int b1 = b0 + HID;
    double[] y = new double[N * OUT];
    for (int n = 0; n < N; ++n) {
      double[] h = new double[HID];
      for (int j = 0; j < HID; ++j) {
        double s = p[b0 + j];
        for (int i = 0; i < IN; ++i) {
          s += x[n * IN + i] * p[i * HID + j];
        }
        h[j] = act(a, s);
      }
      double[] z = new double[OUT];
      double m = Double.NEGATIVE_INFINITY;
      for (int o = 0; o < OUT; ++o) {
        z[o] = p[b1 + o];
        for (int j = 0; j < HID; ++j) {
          z[o] += h[j] * p[w1 + j * OUT + o];
        }
        m = Math.max(m, z[o]);
      }
      double sum = 0;
      for (int o = 0; o < OUT; ++o) {
        sum += Math.exp(z[o] - m);
      }
      for (int o = 0; o < OUT; ++o) {
        y[n * OUT + o] = Math.exp(z[o] - m) / sum;
      }
    }
    return y;
  }

  /** Cross-entropy, mean over the minibatch. */
  private static double score(Activation a, double[] p, double[] x, double[] labels) {
    double[] y = forward(a, p, x);
    double s = 0;
    for (int i = 0; i < y.length; ++i) {
      s -= labels[i] * Math.log(y[i]);
    }
    return s / N;
  }

  private static double[] doubles(float[] f) {
    double[] d = new double[f.length];
    for (int i = 0; i < f.length; ++i) {
      d[i] = f[i];
    }
    return d;
  }

  @Test
  void outputScoreAndGradientsMatchFloat64Reference() {
    for (Activation a : new Activation[] {Activation.RELU, Activation.TANH, Activation.SIGMOID}) {
      try (MultiLayerNetwork net = new MultiLayerNetwork(conf(a));
           DataSet ds = MultiLayerNetworkTest.randomData(N, IN, OUT, 11)) {
        net.init();
        Random r = new Random(23);
        float[] pf = new float[(int) net.numParams()];
        assertEquals(IN * HID + HID * OUT + HID + OUT, pf.length, "the ActivationLayer has no parameters");
        for (int i = 0; i < pf.length; ++i) {
          pf[i] = (r.nextFloat() * 2 - 1) * 0.8f;
        }
        try (Tensor t = Tensor.from(pf, pf.length)) {
          net.setParams(t);
        }
        double[] p = doubles(pf);
        double[] x = doubles(ds.features().toFloatArray());
        double[] labels = doubles(ds.labels().toFloatArray());
        double[] want = forward(a, p, x);
        try (Tensor out = net.output(ds.features())) {
          float[] got = out.toFloatArray();
          for (int i = 0; i < want.length; ++i) {
            assertEquals(want[i], got[i], 1e-5, a + ": output " + i);
          }
        }
        double sc = net.computeGradientAndScore(ds);
        assertEquals(score(a, p, x, labels), sc, 1e-5, a + ": score");
        float[] g = TrainerSupport.gradients(net).toFloatArray();
        int nonzero = 0;
        for (int i = 0; i < p.length; ++i) {
          double[] q = p.clone();
          double eps = 1e-6;
          q[i] = p[i] + eps;
          double up = score(a, q, x, labels);
          q[i] = p[i] - eps;
          double fd = (up - score(a, q, x, labels)) / (2 * eps);
          assertEquals(fd, g[i], 1e-5 + 1e-4 * Math.abs(fd), a + ": gradient of parameter " + i);
          nonzero += g[i] != 0 ? 1 : 0;
        }
        assertTrue(nonzero > p.length / 2, a + ": most gradients are nonzero: " + nonzero);
      }
    }
  }

  @Test
  void refusesSoftmaxOnImagesAndRoundTripsJson() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new NeuralNetConfiguration.Builder()
        .list()
        .layer(new ConvolutionLayer.Builder(3, 3).nOut(2).build())
        .layer(new ActivationLayer.Builder(Activation.SOFTMAX).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(2).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.convolutional(5, 5, 1)).build());
    assertTrue(e.getMessage().contains("ActivationLayer") && e.getMessage().contains("SOFTMAX"), e.getMessage());
    MultiLayerConfiguration c = conf(Activation.TANH);
    MultiLayerConfiguration back = MultiLayerConfiguration.fromJson(c.toJson());
    assertEquals(c.toJson(), back.toJson());
    assertEquals(Activation.TANH, back.layers().get(1).activation());
  }
}
