package org.ndrt.nn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ndrt.DType;
import org.ndrt.Memory;
import org.ndrt.Tensor;
import org.ndrt.data.DataSet;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.BackpropType;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.LossFunction;
import org.ndrt.nn.conf.MultiLayerConfiguration;
import org.ndrt.nn.conf.NeuralNetConfiguration;
import org.ndrt.nn.conf.WeightInit;
import org.ndrt.nn.conf.layers.Bidirectional;
import org.ndrt.nn.conf.layers.DenseLayer;
import org.ndrt.nn.conf.layers.DropoutLayer;
import org.ndrt.nn.conf.layers.GRU;
import org.ndrt.nn.conf.layers.LSTM;
import org.ndrt.nn.conf.layers.LastTimeStep;
import org.ndrt.nn.conf.layers.Layer;
import org.ndrt.nn.conf.layers.OutputLayer;
import org.ndrt.nn.conf.layers.RnnOutputLayer;
import org.ndrt.nn.layers.LayerImpl;
import org.ndrt.nn.layers.Layers;
import org.ndrt.nn.layers.ParamSpec;
import org.ndrt.nn.updater.Adam;
import org.ndrt.nn.updater.Sgd;

/**
 * Sequence models: LSTM, GRU, Bidirectional, LastTimeStep and RnnOutputLayer. Gradients against
 * finite differences in f64 (the layers computing in f64, outside a network); at the network level
 * in f32: masks (padded steps change nothing), the parameter layout against a reference written
 * here, truncated BPTT, rnnTimeStep, save/load and JSON.
 */
class RecurrentNetworkTest {
  // ------------------------------------------------------------------------------------ helpers

  static NeuralNetConfiguration.ListBuilder base(long seed) {
    return new NeuralNetConfiguration.Builder().seed(seed).updater(new Sgd(0.1)).weightInit(WeightInit.XAVIER).list();
  }

  /** Uniform(-1, 1) values [n, f, t] (Deeplearning4j's sequence layout). */
  static float[] randomSeq(Random r, int n, int f, int t) {
    float[] x = new float[n * f * t];
    for (int i = 0; i < x.length; ++i) {
      x[i] = r.nextFloat() * 2 - 1;
    }
    return x;
  }

  /** One-hot labels [n, c, t] (class at random per step). */
  static float[] oneHotSeq(Random r, int n, int c, int t) {
    float[] y = new float[n * c * t];
    for (int b = 0; b < n; ++b) {
      for (int s = 0; s < t; ++s) {
        y[(b * c + r.nextInt(c)) * t + s] = 1;
      }
    }
    return y;
  }

  /** Prefix masks [n, t] for the given lengths. */
  static float[] prefixMask(int t, long... lengths) {
    float[] m = new float[lengths.length * t];
    for (int b = 0; b < lengths.length; ++b) {
      for (int s = 0; s < lengths[b]; ++s) {
        m[b * t + s] = 1;
      }
    }
    return m;
  }

  /** Example b of [n, f, t] values, steps [0, len): [1, f, len]. */
  static float[] trim(float[] x, int n, int f, int t, int b, int len) {
    float[] o = new float[f * len];
    for (int j = 0; j < f; ++j) {
      System.arraycopy(x, (b * f + j) * t, o, j * len, len);
    }
    return o;
  }

  static float[] copyOfParams(MultiLayerNetwork net) {
    return net.params().toFloatArray();
  }

  static void setParams(MultiLayerNetwork net, float[] p) {
    try (Tensor t = Tensor.from(p, p.length)) {
      net.setParams(t);
    }
  }

  static void assertClose(float[] expected, float[] actual, double tol, String what) {
    assertEquals(expected.length, actual.length, what + ": lengths");
    for (int i = 0; i < expected.length; ++i) {
      assertEquals(expected[i], actual[i], tol * (1 + Math.abs(expected[i])), what + " element " + i);
    }
  }

  // ------------------------------------------------------------ gradients in f64 (layers alone)

  /** The layers of a configuration computing in f64, with f64 parameters of their own (no network). */
  static final class F64Stack implements AutoCloseable {
    final LayerImpl[] layers;
    final List<Tensor[]> params = new ArrayList<>();
    final List<Tensor[]> grads = new ArrayList<>();
    final List<ParamSpec[]> specs = new ArrayList<>();
    Tensor xT;
    Tensor dx;

    F64Stack(MultiLayerConfiguration conf, long seed) {
      Random r = new Random(seed);
      layers = new LayerImpl[conf.layers().size()];
      for (int i = 0; i < layers.length; ++i) {
        layers[i] = Layers.create(conf, i, DType.F64);
        List<ParamSpec> ss = layers[i].params();
        Tensor[] p = new Tensor[ss.size()];
        Tensor[] g = new Tensor[ss.size()];
        for (int j = 0; j < p.length; ++j) {
          double[] v = new double[(int) ss.get(j).numel()];
          for (int k = 0; k < v.length; ++k) {
            v[k] = (r.nextDouble() * 2 - 1) * 0.8;
          }
          p[j] = Tensor.from(v, ss.get(j).shape);
          g[j] = Tensor.zeros(DType.F64, ss.get(j).shape);
        }
        layers[i].bind(p, g);
        params.add(p);
        grads.add(g);
        specs.add(ss.toArray(new ParamSpec[0]));
      }
    }

    /** The loss for x [N, F, T] (f64), labels (f64), optional lengths (i64 [N]) and labels mask. */
    double loss(Tensor x, Tensor labels, Tensor lengths, Tensor labelsMask) {
      if (xT != null) {
        xT.close();
      }
      xT = x.permute(0, 2, 1);
      Tensor a = xT;
      for (LayerImpl l : layers) {
        l.setSequenceLengths(lengths);
        a = l.forward(a, true);
      }
      LayerImpl out = layers[layers.length - 1];
      Layers.setOutputMask(out, Layers.isSequenceOutput(out) ? labelsMask : null);
      return Layers.loss(out, labels).item();
    }

    /** Backward after {@link #loss}: the parameter gradients in {@link #grads}; returns dL/dx as [N, T, F]. */
    Tensor backward(Tensor labels) {
      try (Tensor one = Tensor.scalar(1, DType.F64)) {
        Tensor dy = Layers.backwardFromLoss(layers[layers.length - 1], labels, one, true);
        for (int i = layers.length - 2; i >= 0; --i) {
          dy = layers[i].backward(dy, true);
        }
        return dy;
      }
    }

    @Override
    public void close() {
      for (LayerImpl l : layers) {
        l.close();
      }
      for (Tensor[] ts : params) {
        for (Tensor t : ts) {
          t.close();
        }
      }
      for (Tensor[] ts : grads) {
        for (Tensor t : ts) {
          t.close();
        }
      }
      if (xT != null) {
        xT.close();
      }
    }
  }

  /**
   * Every parameter's and every input element's gradient against central differences (h = 1e-6) in
   * f64, with sequences of lengths {lengths} padded to t steps.
   */
  static void checkGradients(MultiLayerConfiguration conf, int n, int f, int t, int c, boolean seqLabels,
      long[] lengths, long seed) {
    Random r = new Random(seed);
    double[] xv = new double[n * f * t];
    for (int i = 0; i < xv.length; ++i) {
      xv[i] = r.nextDouble() * 2 - 1;
    }
    double[] yv = new double[seqLabels ? n * c * t : n * c];
    for (int b = 0; b < n; ++b) {
      for (int s = 0; s < (seqLabels ? t : 1); ++s) {
        // soft targets that suit every loss
        int k = r.nextInt(c);
        for (int j = 0; j < c; ++j) {
          yv[seqLabels ? (b * c + j) * t + s : b * c + j] = j == k ? 0.8 : 0.2 / (c - 1);
        }
      }
    }
    try (F64Stack st = new F64Stack(conf, seed + 1);
         Tensor x = Tensor.from(xv, n, f, t);
         Tensor y = seqLabels ? Tensor.from(yv, n, c, t) : Tensor.from(yv, n, c);
         Tensor len = lengths == null ? null : Tensor.from(lengths, n);
         Tensor mask = lengths == null ? null : Tensor.from(toDoubles(prefixMask(t, lengths)), n, t)) {
      double l0 = st.loss(x, y, len, mask);
      assertTrue(Double.isFinite(l0) && l0 > 0, "loss " + l0);
      Tensor dxT = st.backward(y);
      double[] dx = dxT.toDoubleArray(); // [n, t, f]
      double h = 1e-6;
      double worst = 0;
      int nonzero = 0;
      int checked = 0;
      for (int i = 0; i < st.layers.length; ++i) {
        Tensor[] ps = st.params.get(i);
        for (int j = 0; j < ps.length; ++j) {
          double[] p = ps[j].toDoubleArray();
          double[] g = st.grads.get(i)[j].toDoubleArray();
          for (int k = 0; k < p.length; ++k) {
            double keep = p[k];
            p[k] = keep + h;
            ps[j].copyFrom(p);
            double lp = st.loss(x, y, len, mask);
            p[k] = keep - h;
            ps[j].copyFrom(p);
            double lm = st.loss(x, y, len, mask);
            p[k] = keep;
            ps[j].copyFrom(p);
            double fd = (lp - lm) / (2 * h);
            double err = Math.abs(fd - g[k]) / Math.max(1e-3, Math.abs(fd) + Math.abs(g[k]));
            worst = Math.max(worst, err);
            assertEquals(fd, g[k], 1e-6 + 1e-5 * Math.abs(fd),
                "layer " + i + " (" + conf.layers().get(i).getClass().getSimpleName() + ") parameter "
                    + st.specs.get(i)[j].name + "[" + k + "]");
            nonzero += g[k] != 0 ? 1 : 0;
            ++checked;
          }
        }
      }
      // The input's gradient (dx is [n, t, f], x is [n, f, t]).
      for (int b = 0; b < n; ++b) {
        for (int j = 0; j < f; ++j) {
          for (int s = 0; s < t; ++s) {
            int k = (b * f + j) * t + s;
            double keep = xv[k];
            xv[k] = keep + h;
            x.copyFrom(xv);
            double lp = st.loss(x, y, len, mask);
            xv[k] = keep - h;
            x.copyFrom(xv);
            double lm = st.loss(x, y, len, mask);
            xv[k] = keep;
            x.copyFrom(xv);
            double fd = (lp - lm) / (2 * h);
            double an = dx[(b * t + s) * f + j];
            assertEquals(fd, an, 1e-6 + 1e-5 * Math.abs(fd), "dL/dx[" + b + ", " + j + ", " + s + "]");
            if (lengths != null && s >= lengths[b]) {
              assertEquals(0.0, an, 0.0, "padded step " + s + " of example " + b + " has no gradient");
            }
          }
        }
      }
      assertTrue(nonzero > checked / 2, "most gradients are nonzero: " + nonzero + " of " + checked);
    }
  }

  static double[] toDoubles(float[] f) {
    double[] d = new double[f.length];
    for (int i = 0; i < f.length; ++i) {
      d[i] = f[i];
    }
    return d;
  }

  @Test
  void lstmGradientsMatchFiniteDifferencesInF64() {
    MultiLayerConfiguration conf = base(1)
        .layer(new LSTM.Builder().nOut(4).build())
        .layer(new LSTM.Builder().nOut(3).build())
        .layer(new RnnOutputLayer.Builder(LossFunction.MCXENT).nOut(3).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.recurrent(3))
        .build();
    checkGradients(conf, 3, 3, 5, 3, true, null, 11);
    checkGradients(conf, 3, 3, 5, 3, true, new long[] {5, 3, 1}, 12);
  }

  @Test
  void gruGradientsMatchFiniteDifferencesInF64() {
    MultiLayerConfiguration conf = base(2)
        .layer(new GRU.Builder().nOut(4).build())
        .layer(new RnnOutputLayer.Builder(LossFunction.MSE).nOut(2).activation(Activation.TANH).build())
        .setInputType(InputType.recurrent(3))
        .build();
    checkGradients(conf, 2, 3, 6, 2, true, null, 21);
    checkGradients(conf, 3, 3, 6, 2, true, new long[] {2, 6, 0}, 22);
  }

  @Test
  void bidirectionalAndLastTimeStepGradientsMatchFiniteDifferencesInF64() {
    for (Bidirectional.Mode mode : Bidirectional.Mode.values()) {
      MultiLayerConfiguration conf = base(3)
          .layer(new Bidirectional(mode, new LSTM.Builder().nOut(3).build()))
          .layer(new RnnOutputLayer.Builder(LossFunction.XENT).nOut(2).activation(Activation.SIGMOID).build())
          .setInputType(InputType.recurrent(2))
          .build();
      checkGradients(conf, 2, 2, 4, 2, true, new long[] {4, 2}, 31 + mode.ordinal());
    }
    MultiLayerConfiguration conf = base(4)
        .layer(new GRU.Builder().nOut(3).build())
        .layer(new LastTimeStep(new Bidirectional(new GRU.Builder().nOut(3).build())))
        .layer(new DenseLayer.Builder().nOut(4).activation(Activation.TANH).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(3).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.recurrent(2))
        .build();
    checkGradients(conf, 3, 2, 5, 3, false, null, 41);
    checkGradients(conf, 3, 2, 5, 3, false, new long[] {3, 5, 1}, 42);
    MultiLayerConfiguration last = base(5)
        .layer(new LastTimeStep(new LSTM.Builder().nOut(4).build()))
        .layer(new OutputLayer.Builder(LossFunction.MSE).nOut(2).activation(Activation.IDENTITY).build())
        .setInputType(InputType.recurrent(3))
        .build();
    checkGradients(last, 3, 3, 4, 2, false, new long[] {4, 1, 2}, 51);
  }

  // --------------------------------------------------------------- parameter layout (reference)

  /** The LSTM and GRU parameters mean what the docs say: a forward pass written out here agrees. */
  @Test
  void parameterLayoutMatchesAReferenceImplementation() {
    int f = 3;
    int h = 4;
    int c = 2;
    int n = 2;
    int t = 5;
    for (boolean lstm : new boolean[] {true, false}) {
      Layer rec = lstm ? new LSTM.Builder().nOut(h).forgetGateBiasInit(0.5).build() : new GRU.Builder().nOut(h).build();
      MultiLayerConfiguration conf = base(6)
          .layer(rec)
          .layer(new RnnOutputLayer.Builder(LossFunction.MCXENT).nOut(c).activation(Activation.SOFTMAX).build())
          .setInputType(InputType.recurrent(f))
          .build();
      Random r = new Random(7);
      float[] xv = randomSeq(r, n, f, t);
      try (MultiLayerNetwork net = new MultiLayerNetwork(conf); Tensor x = Tensor.from(xv, n, f, t)) {
        net.init();
        // Random biases too (they start at constants), so every block is exercised.
        float[] p = copyOfParams(net);
        for (int i = 0; i < p.length; ++i) {
          p[i] += (float) (r.nextGaussian() * 0.3);
        }
        setParams(net, p);
        long[][] ranges = net.gradientRanges();
        assertEquals(lstm ? 3 : 4, ranges[0].length / 2, "parameter arrays of the recurrent layer");
        float[] w = slice(p, ranges[0], 0);
        float[] rw = slice(p, ranges[0], 1);
        float[] b = slice(p, ranges[0], 2);
        float[] rb = lstm ? null : slice(p, ranges[0], 3);
        float[] wo = slice(p, ranges[1], 0);
        float[] bo = slice(p, ranges[1], 1);
        assertEquals(f * (lstm ? 4 : 3) * h, w.length);
        assertEquals(h * (lstm ? 4 : 3) * h, rw.length);
        float[] out;
        try (Tensor o = net.output(x)) {
          out = o.toFloatArray();
        }
        int g = lstm ? 4 : 3;
        for (int bb = 0; bb < n; ++bb) {
          double[] hs = new double[h];
          double[] cs = new double[h];
          for (int s = 0; s < t; ++s) {
            double[] zi = new double[g * h];
            double[] zh = new double[g * h];
            for (int k = 0; k < g * h; ++k) {
              for (int j = 0; j < f; ++j) {
                zi[k] += xv[(bb * f + j) * t + s] * w[j * g * h + k];
              }
              for (int j = 0; j < h; ++j) {
                zh[k] += hs[j] * rw[j * g * h + k];
              }
            }
            double[] nh = new double[h];
            for (int k = 0; k < h; ++k) {
              if (lstm) {
                // Deeplearning4j's blocks: block input, forget, output, input gate.
                double a = Math.tanh(zi[k] + zh[k] + b[k]);
                double fg = sig(zi[h + k] + zh[h + k] + b[h + k]);
                double og = sig(zi[2 * h + k] + zh[2 * h + k] + b[2 * h + k]);
                double ig = sig(zi[3 * h + k] + zh[3 * h + k] + b[3 * h + k]);
                cs[k] = fg * cs[k] + ig * a;
                nh[k] = og * Math.tanh(cs[k]);
              } else {
                // torch.nn.GRU: r, z, n.
                double rg = sig(zi[k] + b[k] + zh[k] + rb[k]);
                double zg = sig(zi[h + k] + b[h + k] + zh[h + k] + rb[h + k]);
                double ng = Math.tanh(zi[2 * h + k] + b[2 * h + k] + rg * (zh[2 * h + k] + rb[2 * h + k]));
                nh[k] = (1 - zg) * ng + zg * hs[k];
              }
            }
            hs = nh;
            double[] logits = new double[c];
            double max = Double.NEGATIVE_INFINITY;
            for (int k = 0; k < c; ++k) {
              logits[k] = bo[k];
              for (int j = 0; j < h; ++j) {
                logits[k] += hs[j] * wo[j * c + k];
              }
              max = Math.max(max, logits[k]);
            }
            double sum = 0;
            for (int k = 0; k < c; ++k) {
              sum += Math.exp(logits[k] - max);
            }
            for (int k = 0; k < c; ++k) {
              double want = Math.exp(logits[k] - max) / sum;
              assertEquals(want, out[(bb * c + k) * t + s], 2e-5, (lstm ? "LSTM" : "GRU") + " output [" + bb + ", " + k
                  + ", " + s + "]");
            }
          }
        }
      }
    }
    // The forget gate's bias starts at forgetGateBiasInit (block 1 of 4), the rest of the bias at 0.
    MultiLayerConfiguration conf = base(8).layer(new LSTM.Builder().nOut(2).forgetGateBiasInit(1.5).build())
        .layer(new RnnOutputLayer.Builder().nOut(2).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.recurrent(3)).build();
    try (MultiLayerNetwork net = new MultiLayerNetwork(conf)) {
      net.init();
      float[] bias = slice(copyOfParams(net), net.gradientRanges()[0], 2);
      assertArrayEquals(new float[] {0, 0, 1.5f, 1.5f, 0, 0, 0, 0}, bias);
      assertEquals(3 * 8 + 2 * 8 + 8 + 2 * 2 + 2, net.numParams(), "W, RW, b of the LSTM, W, b of the output");
    }
  }

  static double sig(double v) {
    return 1 / (1 + Math.exp(-v));
  }

  static float[] slice(float[] p, long[] ranges, int k) {
    int off = (int) ranges[2 * k];
    return java.util.Arrays.copyOfRange(p, off, off + (int) ranges[2 * k + 1]);
  }

  // ---------------------------------------------------------------------------------------- masks

  /** Sequences padded at the end (garbage in the padding) give the outputs, score and gradients of the trimmed ones. */
  @Test
  void paddedStepsChangeNothing() {
    int n = 3;
    int f = 4;
    int c = 3;
    int t = 7;
    long[] lengths = {6, 4, 2};
    List<MultiLayerConfiguration> confs = List.of(
        base(9).layer(new LSTM.Builder().nOut(5).build()).layer(new GRU.Builder().nOut(4).build())
            .layer(new RnnOutputLayer.Builder(LossFunction.MCXENT).nOut(c).activation(Activation.SOFTMAX).build())
            .setInputType(InputType.recurrent(f)).build(),
        base(10).layer(new LastTimeStep(new LSTM.Builder().nOut(5).build()))
            .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(c).activation(Activation.SOFTMAX).build())
            .setInputType(InputType.recurrent(f)).build(),
        base(11).layer(new Bidirectional(new GRU.Builder().nOut(4).build()))
            .layer(new LastTimeStep(new Bidirectional(Bidirectional.Mode.MUL, new LSTM.Builder().nOut(3).build())))
            .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(c).activation(Activation.SOFTMAX).build())
            .setInputType(InputType.recurrent(f)).build());
    for (MultiLayerConfiguration conf : confs) {
      boolean seq = conf.outputLayer() instanceof RnnOutputLayer;
      Random r = new Random(13);
      float[] x = randomSeq(r, n, f, t);
      float[] y = seq ? oneHotSeq(r, n, c, t) : oneHotSeq(r, n, c, 1);
      float[] x2 = x.clone();  // other garbage in the padding
      for (int b = 0; b < n; ++b) {
        for (int j = 0; j < f; ++j) {
          for (int s = (int) lengths[b]; s < t; ++s) {
            x2[(b * f + j) * t + s] = 100 * r.nextFloat();
          }
        }
      }
      float[] mask = prefixMask(t, lengths);
      try (MultiLayerNetwork net = new MultiLayerNetwork(conf)) {
        net.init();
        float[] p0 = copyOfParams(net);
        float[] outPadded;
        float[] gPadded;
        double sPadded;
        try (DataSet ds = new DataSet(Tensor.from(x, n, f, t), seq ? Tensor.from(y, n, c, t) : Tensor.from(y, n, c),
            Tensor.from(mask, n, t), null)) {
          try (Tensor o = net.output(ds.features(), ds.featuresMask())) {
            outPadded = o.toFloatArray();
          }
          sPadded = net.score(ds);
          net.fit(ds);
          gPadded = net.gradients().toFloatArray();
          setParams(net, p0);
        }
        try (DataSet ds = new DataSet(Tensor.from(x2, n, f, t), seq ? Tensor.from(y, n, c, t) : Tensor.from(y, n, c),
            Tensor.from(mask, n, t), null)) {
          net.fit(ds);
          assertArrayEquals(gPadded, net.gradients().toFloatArray(), "other values in the padding: the same gradients");
          setParams(net, p0);
        }
        float[] gMean = new float[gPadded.length];
        double sMean = 0;
        for (int b = 0; b < n; ++b) {
          int len = (int) lengths[b];
          float[] yb = seq ? trim(y, n, c, t, b, len) : java.util.Arrays.copyOfRange(y, b * c, b * c + c);
          try (DataSet one = new DataSet(Tensor.from(trim(x, n, f, t, b, len), 1, f, len),
              seq ? Tensor.from(yb, 1, c, len) : Tensor.from(yb, 1, c))) {
            try (Tensor o = net.output(one.features())) {
              float[] ob = o.toFloatArray();
              for (int k = 0; k < c; ++k) {
                if (seq) {
                  for (int s = 0; s < t; ++s) {
                    float padded = outPadded[(b * c + k) * t + s];
                    if (s < len) {
                      assertEquals(ob[k * len + s], padded, 1e-6, "output [" + b + ", " + k + ", " + s + "]");
                    } else {
                      assertEquals(0f, padded, 0f, "padded step output [" + b + ", " + k + ", " + s + "]");
                    }
                  }
                } else {
                  assertEquals(ob[k], outPadded[b * c + k], 1e-6, "last-step output [" + b + ", " + k + "]");
                }
              }
            }
            sMean += net.score(one) / n;
            net.fit(one);
            float[] gb = net.gradients().toFloatArray();
            for (int i = 0; i < gMean.length; ++i) {
              gMean[i] += gb[i] / n;
            }
            setParams(net, p0);
          }
        }
        assertEquals(sMean, sPadded, 1e-5 * Math.abs(sMean), "score: the mean of the trimmed sequences' scores");
        assertClose(gMean, gPadded, 2e-5, "gradients: the mean of the trimmed sequences' gradients");
      }
    }
  }

  @Test
  void labelsMaskDecidesWhichStepsCount() {
    int n = 2;
    int f = 3;
    int c = 2;
    int t = 5;
    MultiLayerConfiguration conf = base(14).layer(new GRU.Builder().nOut(4).build())
        .layer(new RnnOutputLayer.Builder(LossFunction.MCXENT).nOut(c).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.recurrent(f)).build();
    Random r = new Random(15);
    float[] x = randomSeq(r, n, f, t);
    float[] y = oneHotSeq(r, n, c, t);
    float[] y2 = y.clone();
    float[] lm = {0, 1, 0, 0, 1, 1, 1, 0, 1, 0};  // any steps, not only prefixes
    for (int b = 0; b < n; ++b) {
      for (int s = 0; s < t; ++s) {
        if (lm[b * t + s] == 0) {
          y2[(b * c) * t + s] = 1 - y2[(b * c) * t + s];  // flip the label where the mask is 0
          y2[(b * c + 1) * t + s] = 1 - y2[(b * c + 1) * t + s];
        }
      }
    }
    try (MultiLayerNetwork net = new MultiLayerNetwork(conf);
         DataSet a = new DataSet(Tensor.from(x, n, f, t), Tensor.from(y, n, c, t), null, Tensor.from(lm, n, t));
         DataSet b = new DataSet(Tensor.from(x, n, f, t), Tensor.from(y2, n, c, t), null, Tensor.from(lm, n, t));
         DataSet all = new DataSet(Tensor.from(x, n, f, t), Tensor.from(y, n, c, t))) {
      net.init();
      assertEquals(net.score(a), net.score(b), 0.0, "labels at steps the mask leaves out do not count");
      assertNotEquals(net.score(a), net.score(all), "without the mask every step counts");
      // The score is the sum over the valid steps / N: 5 valid steps of 10 give about half the unmasked score.
      assertTrue(net.score(a) < 0.8 * net.score(all) && net.score(a) > 0.2 * net.score(all), net.score(a) + " vs "
          + net.score(all));
    }
  }

  @Test
  void masksThatAreNotPrefixesAreRefused() {
    MultiLayerConfiguration conf = base(16).layer(new LSTM.Builder().nOut(3).build())
        .layer(new RnnOutputLayer.Builder().nOut(2).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.recurrent(2)).build();
    long before = Memory.liveHandles();
    try (MultiLayerNetwork net = new MultiLayerNetwork(conf)) {
      net.init();
      Random r = new Random(1);
      for (float[] bad : new float[][] {{1, 0, 1, 1, 1, 1}, {1, 1, 1, 0.5f, 0, 0}, {0, 1, 1, 1, 1, 1}}) {
        try (DataSet ds = new DataSet(Tensor.from(randomSeq(r, 2, 2, 3), 2, 2, 3), Tensor.from(oneHotSeq(r, 2, 2, 3), 2, 2, 3),
            Tensor.from(bad, 2, 3), null)) {
          IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> net.fit(ds));
          assertTrue(e.getMessage().contains("not a prefix"), e.getMessage());
        }
      }
      try (DataSet ds = new DataSet(Tensor.from(randomSeq(r, 2, 2, 3), 2, 2, 3), Tensor.from(oneHotSeq(r, 2, 2, 3), 2, 2, 3),
          Tensor.from(new float[8], 2, 4), null)) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> net.fit(ds));
        assertTrue(e.getMessage().contains("features mask has shape [2, 4]"), e.getMessage());
      }
      try (DataSet ds = new DataSet(Tensor.from(randomSeq(r, 2, 2, 3), 2, 2, 3), Tensor.from(oneHotSeq(r, 2, 2, 4), 2, 2, 4))) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> net.fit(ds));
        assertTrue(e.getMessage().contains("labels have shape [2, 2, 4]"), e.getMessage());
      }
      try (DataSet ok = new DataSet(Tensor.from(randomSeq(r, 2, 2, 3), 2, 2, 3), Tensor.from(oneHotSeq(r, 2, 2, 3), 2, 2, 3),
          Tensor.from(new float[] {1, 1, 0, 1, 0, 0}, 2, 3), null)) {
        net.fit(ok);
        assertTrue(Double.isFinite(net.score()));
      }
    }
    assertEquals(before, Memory.liveHandles(), "the network released every tensor");
  }

  // --------------------------------------------------------------------------- truncated BPTT

  /** Sequences of symbols (one-hot, 4 of them); the label at step s is the symbol at step s - 1 (0 at s = 0). */
  static DataSet delayTask(Random r, int n, int t) {
    int k = 4;
    float[] x = new float[n * k * t];
    float[] y = new float[n * k * t];
    for (int b = 0; b < n; ++b) {
      int prev = 0;
      for (int s = 0; s < t; ++s) {
        int v = r.nextInt(k);
        x[(b * k + v) * t + s] = 1;
        y[(b * k + prev) * t + s] = 1;
        prev = v;
      }
    }
    return new DataSet(Tensor.from(x, n, k, t), Tensor.from(y, n, k, t));
  }

  static MultiLayerConfiguration delayNet(BackpropType bp, int len, org.ndrt.nn.updater.Updater u, DType dt) {
    return new NeuralNetConfiguration.Builder().seed(17).updater(u).dataType(dt).list()
        .layer(new LSTM.Builder().nOut(16).build())
        .layer(new RnnOutputLayer.Builder(LossFunction.MCXENT).nOut(4).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.recurrent(4))
        .backpropType(bp).tBPTTForwardLength(len).tBPTTBackwardLength(len)
        .build();
  }

  @Test
  void truncatedBpttCarriesTheStateAcrossSegments() {
    Random r = new Random(18);
    try (DataSet ds = delayTask(r, 4, 12)) {
      // With a learning rate too small to move f32 weights, the segments' summed score is the whole
      // sequence's score only if each segment starts from the state the previous one ended in.
      try (MultiLayerNetwork tb = new MultiLayerNetwork(delayNet(BackpropType.TruncatedBPTT, 4, new Sgd(1e-30), DType.F32))) {
        tb.init();
        double whole = tb.score(ds);
        tb.fit(ds);
        assertEquals(whole, tb.score(), 1e-6 * whole, "sum of the 3 segments' scores");
        assertEquals(1, tb.getIterationCount(), "one iteration per minibatch");
        assertEquals(3, tb.getUpdaterStepCount(), "one update per segment");
      }
      // The same with sequences of other lengths (a features mask): some end inside a segment, one
      // before the last segment starts.
      float[] mask = prefixMask(12, 12, 7, 3, 8);
      try (MultiLayerNetwork tb = new MultiLayerNetwork(delayNet(BackpropType.TruncatedBPTT, 4, new Sgd(1e-30), DType.F32));
           DataSet masked = new DataSet(ds.features().share(), ds.labels().share(), Tensor.from(mask, 4, 12), null)) {
        tb.init();
        double whole = tb.score(masked);
        tb.fit(masked);
        assertEquals(whole, tb.score(), 1e-6 * whole, "sum of the 3 segments' scores, masked");
        assertTrue(whole < 0.8 * tb.score(ds), "the mask left steps out: " + whole + " vs " + tb.score(ds));
      }
      // One segment as long as the sequence is plain backprop, bit for bit.
      try (MultiLayerNetwork tb = new MultiLayerNetwork(delayNet(BackpropType.TruncatedBPTT, 12, new Adam(0.01), DType.F32));
           MultiLayerNetwork st = new MultiLayerNetwork(delayNet(BackpropType.Standard, 12, new Adam(0.01), DType.F32))) {
        tb.init();
        st.init();
        for (int i = 0; i < 3; ++i) {
          tb.fit(ds);
          st.fit(ds);
        }
        MultiLayerNetworkTest.assertBits(st.params().toFloatArray(), tb.params().toFloatArray());
      }
    }
  }

  /** An iterator of one minibatch (shares ds's tensors: the consumer closes what it gets). */
  static org.ndrt.data.DataSetIterator single(DataSet ds) {
    return new org.ndrt.data.DataSetIterator() {
      private boolean done;

      @Override
      public boolean hasNext() {
        return !done;
      }

      @Override
      public DataSet next() {
        done = true;
        return new DataSet(ds.features().share(), ds.labels().share(),
            ds.featuresMask() == null ? null : ds.featuresMask().share(),
            ds.labelsMask() == null ? null : ds.labelsMask().share());
      }

      @Override
      public void reset() {
        done = false;
      }

      @Override
      public int batchSize() {
        return ds.numExamples();
      }

      @Override
      public long numExamples() {
        return ds.numExamples();
      }

      @Override
      public int totalOutcomes() {
        return (int) ds.labels().shape()[1];
      }
    };
  }

  /** Truncated BPTT in segments of 5 steps learns the delay task (f32 and bf16 mixed precision). */
  @Test
  void truncatedBpttLearns() {
    for (DType dt : new DType[] {DType.F32, DType.BF16}) {
      Random r = new Random(19);
      try (MultiLayerNetwork net = new MultiLayerNetwork(delayNet(BackpropType.TruncatedBPTT, 5, new Adam(0.03), dt));
           DataSet test = delayTask(new Random(99), 32, 30)) {
        net.init();
        double first = net.score(test);
        for (int i = 0; i < 120; ++i) {
          try (DataSet ds = delayTask(r, 16, 30)) {
            net.fit(ds);
          }
        }
        double last = net.score(test);
        // Chance is ln 4 = 1.39 per step (41.6 per sequence of 30); remembering the last symbol gives ~0.
        assertTrue(last < 0.15 * first, dt + ": loss " + first + " -> " + last);
        // Nearly every step right (evaluated over the whole sequence).
        org.ndrt.eval.Evaluation e = net.evaluate(single(test));
        assertTrue(e.accuracy() > 0.97, dt + ": accuracy " + e.accuracy());
      }
    }
  }

  // ------------------------------------------------------------------------------ rnnTimeStep

  @Test
  void rnnTimeStepEqualsTheFullSequence() {
    int n = 3;
    int f = 4;
    int c = 3;
    int t = 9;
    MultiLayerConfiguration conf = base(20).layer(new LSTM.Builder().nOut(6).build())
        .layer(new GRU.Builder().nOut(5).build())
        .layer(new RnnOutputLayer.Builder(LossFunction.MCXENT).nOut(c).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.recurrent(f)).build();
    Random r = new Random(21);
    float[] xv = randomSeq(r, n, f, t);
    try (MultiLayerNetwork net = new MultiLayerNetwork(conf); Tensor x = Tensor.from(xv, n, f, t)) {
      net.init();
      float[] full;
      try (Tensor o = net.output(x)) {
        full = o.toFloatArray();
      }
      for (int round = 0; round < 2; ++round) {  // again after rnnClearPreviousState
        for (int s = 0; s < t; ++s) {
          try (Tensor xs = x.slice(2, s, s + 1); Tensor step = xs.reshape(n, f)) {
            try (Tensor o = net.rnnTimeStep(step)) {
              assertArrayEquals(new long[] {n, c}, o.shape());
              float[] ov = o.toFloatArray();
              for (int b = 0; b < n; ++b) {
                for (int k = 0; k < c; ++k) {
                  assertEquals(full[(b * c + k) * t + s], ov[b * c + k], 1e-5, "step " + s + " [" + b + ", " + k + "]");
                }
              }
            }
          }
          if (s == 3) {  // output() in between neither uses nor moves the stored state
            try (Tensor o = net.output(x)) {
              assertArrayEquals(full, o.toFloatArray());
            }
          }
        }
        net.rnnClearPreviousState();
      }
      // Pieces of several steps: [0, 4) then [4, 9).
      try (Tensor a = x.slice(2, 0, 4); Tensor b = x.slice(2, 4, t); Tensor oa = net.rnnTimeStep(a);
           Tensor ob = net.rnnTimeStep(b)) {
        float[] va = oa.toFloatArray();
        float[] vb = ob.toFloatArray();
        for (int bb = 0; bb < n; ++bb) {
          for (int k = 0; k < c; ++k) {
            for (int s = 0; s < t; ++s) {
              float got = s < 4 ? va[(bb * c + k) * 4 + s] : vb[(bb * c + k) * (t - 4) + s - 4];
              assertEquals(full[(bb * c + k) * t + s], got, 1e-5, "piecewise [" + bb + ", " + k + ", " + s + "]");
            }
          }
        }
      }
      // Another batch size while a state is stored: a clear error.
      try (Tensor one = Tensor.zeros(DType.F32, 1, f)) {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> net.rnnTimeStep(one));
        assertTrue(e.getMessage().contains("rnnClearPreviousState"), e.getMessage());
        net.rnnClearPreviousState();
        net.rnnTimeStep(one).close();
      }
    }
    // Bidirectional layers need whole sequences.
    MultiLayerConfiguration bi = base(22).layer(new Bidirectional(new LSTM.Builder().nOut(3).build()))
        .layer(new RnnOutputLayer.Builder().nOut(2).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.recurrent(2)).build();
    try (MultiLayerNetwork net = new MultiLayerNetwork(bi); Tensor x = Tensor.zeros(DType.F32, 1, 2)) {
      net.init();
      assertThrows(UnsupportedOperationException.class, () -> net.rnnTimeStep(x));
      try (Tensor seq = Tensor.zeros(DType.F32, 1, 2, 3); Tensor o = net.output(seq)) {
        assertArrayEquals(new long[] {1, 2, 3}, o.shape(), "the network still works after the refusal");
      }
    }
  }

  @Test
  void rnnTimeStepThroughLastTimeStep() {
    MultiLayerConfiguration conf = base(23).layer(new LastTimeStep(new GRU.Builder().nOut(5).build()))
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(3).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.recurrent(2)).build();
    Random r = new Random(24);
    try (MultiLayerNetwork net = new MultiLayerNetwork(conf); Tensor x = Tensor.from(randomSeq(r, 2, 2, 6), 2, 2, 6);
         Tensor a = x.slice(2, 0, 2); Tensor b = x.slice(2, 2, 6)) {
      net.init();
      Tensor full = net.output(x);
      try (Tensor o = net.rnnTimeStep(a)) {
        assertArrayEquals(new long[] {2, 3}, o.shape());
      }
      try (Tensor o = net.rnnTimeStep(b)) {
        assertClose(full.toFloatArray(), o.toFloatArray(), 1e-5, "the last step's output after two pieces");
      }
      full.close();
    }
  }

  // ----------------------------------------------------------------- configuration, save, JSON

  @Test
  void inputTypesAreInferred() {
    MultiLayerConfiguration conf = base(25)
        .layer(new LSTM.Builder().nOut(6).build())
        .layer(new DropoutLayer.Builder(0.2).build())
        .layer(new Bidirectional(new GRU.Builder().nOut(4).build()))
        .layer(new LastTimeStep(new Bidirectional(Bidirectional.Mode.ADD, new LSTM.Builder().nOut(3).build())))
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(2).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.recurrent(7, 10))
        .build();
    assertEquals(7, conf.layers().get(0).nIn());
    assertEquals(InputType.recurrent(6, 10), conf.layerInput(1));
    assertEquals(6, conf.layers().get(2).nIn());
    assertEquals(InputType.recurrent(8, 10), conf.layerInput(3), "CONCAT doubles the features");
    assertEquals(8, ((Bidirectional) ((LastTimeStep) conf.layers().get(3)).getUnderlying()).getFwd().nIn());
    assertEquals(InputType.feedForward(3), conf.layerInput(4), "LastTimeStep gives rows; ADD keeps nOut");
    assertEquals(Activation.TANH, conf.layers().get(0).activation());
    // An LSTM without input type or nIn; a dense layer on sequences; another activation; tBPTT settings.
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> base(1)
        .layer(new LSTM.Builder().nOut(3).build()).layer(new RnnOutputLayer.Builder().nOut(2).build()).build());
    assertTrue(e.getMessage().contains("InputType.recurrent"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> base(1)
        .layer(new LSTM.Builder().nOut(3).build()).layer(new DenseLayer.Builder().nOut(3).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(2).build()).setInputType(InputType.recurrent(2)).build());
    assertTrue(e.getMessage().contains("LastTimeStep"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> base(1)
        .layer(new LSTM.Builder().nOut(3).activation(Activation.RELU).build())
        .layer(new RnnOutputLayer.Builder().nOut(2).build()).setInputType(InputType.recurrent(2)).build());
    assertTrue(e.getMessage().contains("TANH"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> base(1)
        .layer(new RnnOutputLayer.Builder().nOut(2).build()).setInputType(InputType.feedForward(2)).build());
    assertTrue(e.getMessage().contains("InputType.recurrent"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> base(1)
        .layer(new LastTimeStep(new LSTM.Builder().nOut(3).build()))
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(2).build()).setInputType(InputType.recurrent(2))
        .backpropType(BackpropType.TruncatedBPTT).build());
    assertTrue(e.getMessage().contains("RnnOutputLayer"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> base(1)
        .layer(new LSTM.Builder().nOut(3).build()).layer(new RnnOutputLayer.Builder().nOut(2).build())
        .setInputType(InputType.recurrent(2)).backpropType(BackpropType.TruncatedBPTT).tBPTTForwardLength(10)
        .tBPTTBackwardLength(5).build());
    assertTrue(e.getMessage().contains("tBPTTBackwardLength"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> new LastTimeStep(new DenseLayer.Builder().nOut(2).build()));
    assertThrows(IllegalArgumentException.class, () -> new LSTM.Builder().gateActivationFunction(Activation.TANH));
  }

  @Test
  void jsonAndSaveLoadRoundTrip(@TempDir Path dir) throws Exception {
    List<MultiLayerConfiguration> confs = List.of(
        base(26).layer(new LSTM.Builder().nOut(5).forgetGateBiasInit(0.7).build())
            .layer(new Bidirectional(Bidirectional.Mode.AVERAGE, new GRU.Builder().nOut(4).build()))
            .layer(new RnnOutputLayer.Builder(LossFunction.MCXENT).nOut(3).activation(Activation.SOFTMAX).build())
            .setInputType(InputType.recurrent(4)).build(),
        base(27).layer(new GRU.Builder().nOut(5).build())
            .layer(new LastTimeStep(new Bidirectional(new LSTM.Builder().nOut(3).build())))
            .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(3).activation(Activation.SOFTMAX).build())
            .setInputType(InputType.recurrent(4, 6)).build(),
        new NeuralNetConfiguration.Builder().seed(28).updater(new Adam(0.01)).list()
            .layer(new LSTM.Builder().nIn(4).nOut(5).build())
            .layer(new RnnOutputLayer.Builder(LossFunction.MCXENT).nOut(3).activation(Activation.SOFTMAX).build())
            .backpropType(BackpropType.TruncatedBPTT).tBPTTLength(4).build());
    int k = 0;
    for (MultiLayerConfiguration conf : confs) {
      String json = conf.toJson();
      MultiLayerConfiguration back = MultiLayerConfiguration.fromJson(json);
      assertEquals(conf, back);
      assertEquals(json, back.toJson());
      assertEquals(conf.backpropType(), back.backpropType());
      assertEquals(conf.tbpttFwdLength(), back.tbpttFwdLength());
      boolean seq = conf.outputLayer() instanceof RnnOutputLayer;
      Random r = new Random(29 + k);
      File f = dir.resolve("rnn" + k++ + ".zip").toFile();
      try (MultiLayerNetwork net = new MultiLayerNetwork(conf);
           DataSet ds = new DataSet(Tensor.from(randomSeq(r, 3, 4, 6), 3, 4, 6),
               seq ? Tensor.from(oneHotSeq(r, 3, 3, 6), 3, 3, 6) : Tensor.from(oneHotSeq(r, 3, 3, 1), 3, 3),
               Tensor.from(prefixMask(6, 6, 4, 5), 3, 6), null)) {
        net.init();
        for (int i = 0; i < 3; ++i) {
          net.fit(ds);
        }
        net.save(f);
        try (MultiLayerNetwork loaded = MultiLayerNetwork.load(f);
             Tensor a = net.output(ds.features(), ds.featuresMask());
             Tensor b = loaded.output(ds.features(), ds.featuresMask())) {
          assertEquals(net.getConfiguration(), loaded.getConfiguration());
          MultiLayerNetworkTest.assertBits(a.toFloatArray(), b.toFloatArray());
          net.fit(ds);
          loaded.fit(ds);
          MultiLayerNetworkTest.assertBits(net.params().toFloatArray(), loaded.params().toFloatArray());
        }
      }
    }
  }
}
