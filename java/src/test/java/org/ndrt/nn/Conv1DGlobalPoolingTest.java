package org.ndrt.nn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
import org.ndrt.Tensor;
import org.ndrt.data.DataSet;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.LossFunction;
import org.ndrt.nn.conf.MultiLayerConfiguration;
import org.ndrt.nn.conf.NeuralNetConfiguration;
import org.ndrt.nn.conf.WeightInit;
import org.ndrt.nn.conf.layers.ConvMode;
import org.ndrt.nn.conf.layers.Convolution1DLayer;
import org.ndrt.nn.conf.layers.ConvolutionLayer;
import org.ndrt.nn.conf.layers.DenseLayer;
import org.ndrt.nn.conf.layers.GlobalPoolingLayer;
import org.ndrt.nn.conf.layers.LSTM;
import org.ndrt.nn.conf.layers.Layer;
import org.ndrt.nn.conf.layers.OutputLayer;
import org.ndrt.nn.conf.layers.PoolingType;
import org.ndrt.nn.conf.layers.RnnOutputLayer;
import org.ndrt.nn.layers.LayerImpl;
import org.ndrt.nn.layers.Layers;
import org.ndrt.nn.layers.ParamSpec;
import org.ndrt.nn.updater.Adam;

/**
 * Convolution1DLayer and GlobalPoolingLayer: gradients against finite differences in f64 (layers
 * computing in f64 outside a network, lengths handed on as the network does), forward values against
 * references written here, masks at the network level (values in the padding change nothing), type
 * inference, configuration errors, JSON and save/load, and a small text-CNN that learns.
 */
class Conv1DGlobalPoolingTest {
  // ------------------------------------------------------------------------------------ helpers

  static NeuralNetConfiguration.ListBuilder base(long seed) {
    return RecurrentNetworkTest.base(seed);
  }

  static Convolution1DLayer conv(int k, int s, int p, int d, ConvMode mode, int nOut, Activation act) {
    return new Convolution1DLayer.Builder(k).stride(s).padding(p).dilation(d).convolutionMode(mode).nOut(nOut)
        .activation(act).build();
  }

  static GlobalPoolingLayer pool(PoolingType t) {
    return new GlobalPoolingLayer.Builder(t).build();
  }

  static OutputLayer softmaxOut(int c) {
    return new OutputLayer.Builder(LossFunction.MCXENT).nOut(c).activation(Activation.SOFTMAX).build();
  }

  /** The layers of a configuration in f64 with parameters of their own; lengths handed on as the network does. */
  static final class F64Layers implements AutoCloseable {
    final LayerImpl[] layers;
    final List<Tensor[]> params = new ArrayList<>();
    final List<Tensor[]> grads = new ArrayList<>();
    final List<ParamSpec[]> specs = new ArrayList<>();

    F64Layers(MultiLayerConfiguration conf, long seed) {
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

    /** Hands the lengths down the layers as MultiLayerNetwork.setMasks does. */
    void setLengths(Tensor lengths) {
      Tensor lens = lengths;
      for (LayerImpl l : layers) {
        l.setSequenceLengths(lens);
        lens = l.sequenceLengthsOut(lens);
      }
    }

    /** The loss for the input as the layers see it ([N, T, F] views for sequences, NCHW images). */
    double loss(Tensor seen, Tensor labels, Tensor lengths) {
      setLengths(lengths);
      Tensor a = seen;
      for (LayerImpl l : layers) {
        a = l.forward(a, true);
      }
      return Layers.loss(layers[layers.length - 1], labels).item();
    }

    /** The gradient of the input as the layers saw it, after {@link #loss}. */
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
      for (List<Tensor[]> ls : List.of(params, grads)) {
        for (Tensor[] ts : ls) {
          for (Tensor t : ts) {
            t.close();
          }
        }
      }
    }
  }

  /** A tensor's values in row-major order (strided views included). */
  static double[] values(Tensor t) {
    try (Tensor c = t.contiguous()) {
      return c.toDoubleArray();
    }
  }

  /**
   * Every parameter's and every input element's gradient against central differences (h = 1e-6) in
   * f64. {@code shape}: the input as given to the network ([n, f, t] sequences or [n, c, h, w]
   * images); {@code lengths} (sequences only) pads them.
   */
  static void checkGradients(MultiLayerConfiguration conf, long[] shape, int c, long[] lengths, long seed) {
    Random r = new Random(seed);
    int n = (int) shape[0];
    int numel = 1;
    for (long d : shape) {
      numel *= (int) d;
    }
    double[] xv = new double[numel];
    for (int i = 0; i < xv.length; ++i) {
      xv[i] = r.nextDouble() * 2 - 1;
    }
    double[] yv = new double[n * c];
    for (int b = 0; b < n; ++b) {
      int k = r.nextInt(c);
      for (int j = 0; j < c; ++j) {
        yv[b * c + j] = j == k ? 0.8 : 0.2 / (c - 1);
      }
    }
    boolean seq = shape.length == 3;
    try (F64Layers st = new F64Layers(conf, seed + 1);
         Tensor x = Tensor.from(xv, shape);
         Tensor seen = seq ? x.permute(0, 2, 1) : x.share();
         Tensor y = Tensor.from(yv, n, c);
         Tensor len = lengths == null ? null : Tensor.from(lengths, n)) {
      double l0 = st.loss(seen, y, len);
      assertTrue(Double.isFinite(l0) && l0 > 0, "loss " + l0);
      Tensor dxSeen = st.backward(y);
      double[] dx;
      if (seq) {
        try (Tensor back = dxSeen.permute(0, 2, 1)) {
          dx = values(back);  // [n, f, t] as x
        }
      } else {
        dx = values(dxSeen);
      }
      double h = 1e-6;
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
            double lp = st.loss(seen, y, len);
            p[k] = keep - h;
            ps[j].copyFrom(p);
            double lm = st.loss(seen, y, len);
            p[k] = keep;
            ps[j].copyFrom(p);
            double fd = (lp - lm) / (2 * h);
            assertEquals(fd, g[k], 1e-6 + 1e-5 * Math.abs(fd), "layer " + i + " ("
                + conf.layers().get(i).getClass().getSimpleName() + ") parameter " + st.specs.get(i)[j].name + "[" + k + "]");
            nonzero += g[k] != 0 ? 1 : 0;
            ++checked;
          }
        }
      }
      for (int k = 0; k < xv.length; ++k) {
        double keep = xv[k];
        xv[k] = keep + h;
        x.copyFrom(xv);
        double lp = st.loss(seen, y, len);
        xv[k] = keep - h;
        x.copyFrom(xv);
        double lm = st.loss(seen, y, len);
        xv[k] = keep;
        x.copyFrom(xv);
        double fd = (lp - lm) / (2 * h);
        assertEquals(fd, dx[k], 1e-6 + 1e-5 * Math.abs(fd), "dL/dx element " + k);
        if (seq && lengths != null) {
          int t = (int) shape[2];
          int b = k / (int) (shape[1] * t);
          if (k % t >= lengths[b]) {
            assertEquals(0.0, dx[k], 0.0, "padded step " + k % t + " of example " + b + " has no gradient");
          }
        }
      }
      assertTrue(nonzero > checked / 2, "most gradients are nonzero: " + nonzero + " of " + checked);
    }
  }

  // ----------------------------------------------------------------------------------- gradients

  @Test
  void gradientsMatchFiniteDifferencesInF64() {
    long[] seqShape = {3, 3, 7};
    long[] lengths = {7, 4, 1};
    for (PoolingType pt : new PoolingType[] {PoolingType.MAX, PoolingType.AVG, PoolingType.SUM}) {
      MultiLayerConfiguration conf = base(1)
          .layer(conv(3, 1, 0, 1, ConvMode.Same, 4, Activation.TANH))
          .layer(pool(pt))
          .layer(softmaxOut(3))
          .setInputType(InputType.recurrent(3))
          .build();
      checkGradients(conf, seqShape, 3, null, 11 + pt.ordinal());
      checkGradients(conf, seqShape, 3, lengths, 21 + pt.ordinal());
    }
    // Stride, padding, dilation, no bias, two convolutions (the second sees the first's lengths), a dense layer.
    MultiLayerConfiguration deep = base(2)
        .layer(conv(2, 2, 1, 1, ConvMode.Truncate, 4, Activation.TANH))
        .layer(new Convolution1DLayer.Builder(3).convolutionMode(ConvMode.Same).dilation(2).hasBias(false).nOut(3)
            .activation(Activation.SIGMOID).build())
        .layer(pool(PoolingType.AVG))
        .layer(new DenseLayer.Builder().nOut(4).activation(Activation.TANH).build())
        .layer(new OutputLayer.Builder(LossFunction.MSE).nOut(2).activation(Activation.IDENTITY).build())
        .setInputType(InputType.recurrent(3))
        .build();
    checkGradients(deep, new long[] {3, 3, 8}, 2, null, 31);
    checkGradients(deep, new long[] {3, 3, 8}, 2, new long[] {8, 5, 2}, 32);
    MultiLayerConfiguration strided = base(3)
        .layer(conv(3, 2, 0, 2, ConvMode.Truncate, 3, Activation.IDENTITY))
        .layer(pool(PoolingType.MAX))
        .layer(new OutputLayer.Builder(LossFunction.XENT).nOut(2).activation(Activation.SIGMOID).build())
        .setInputType(InputType.recurrent(2))
        .build();
    checkGradients(strided, new long[] {2, 2, 9}, 2, new long[] {9, 6}, 33);
    // After a recurrent layer (the convolution's input is strided; the pooling of an LSTM reads [N, T, C]).
    MultiLayerConfiguration afterLstm = base(4)
        .layer(new LSTM.Builder().nOut(3).build())
        .layer(conv(2, 1, 0, 1, ConvMode.Same, 3, Activation.TANH))
        .layer(pool(PoolingType.SUM))
        .layer(softmaxOut(3))
        .setInputType(InputType.recurrent(2))
        .build();
    checkGradients(afterLstm, new long[] {3, 2, 5}, 3, new long[] {5, 3, 2}, 34);
    MultiLayerConfiguration lstmPool = base(5)
        .layer(new LSTM.Builder().nOut(3).build())
        .layer(pool(PoolingType.AVG))
        .layer(softmaxOut(2))
        .setInputType(InputType.recurrent(2))
        .build();
    checkGradients(lstmPool, new long[] {3, 2, 5}, 2, new long[] {5, 2, 0}, 35);
    // Images: [N, C, H, W] pooled over H W, with and without collapsing.
    for (boolean collapse : new boolean[] {true, false}) {
      MultiLayerConfiguration img = base(6)
          .layer(new ConvolutionLayer.Builder(2, 2).nOut(2).activation(Activation.TANH).build())
          .layer(new GlobalPoolingLayer.Builder(PoolingType.AVG).collapseDimensions(collapse).build())
          .layer(new DenseLayer.Builder().nOut(3).activation(Activation.TANH).build())
          .layer(softmaxOut(2))
          .setInputType(InputType.convolutional(4, 4, 1))
          .build();
      checkGradients(img, new long[] {2, 1, 4, 4}, 2, null, 36);
    }
  }

  // ------------------------------------------------------------------------------ forward values

  /** Deeplearning4j's conv1d on [n][f][t] with zero padding: [n][o][t'] (before the activation). */
  static double[][][] referenceConv(double[][][] x, double[][][] w, double[] bias, int s, int p, int d, ConvMode mode) {
    int n = x.length;
    int f = x[0].length;
    int t = x[0][0].length;
    int o = w.length;
    int k = w[0][0].length;
    int span = d * (k - 1) + 1;
    int out;
    int left;
    if (mode == ConvMode.Same) {
      out = (t + s - 1) / s;
      left = Math.max(0, (out - 1) * s + span - t) / 2;
    } else {
      out = (t + 2 * p - span) / s + 1;
      left = p;
    }
    double[][][] y = new double[n][o][out];
    for (int b = 0; b < n; ++b) {
      for (int q = 0; q < o; ++q) {
        for (int u = 0; u < out; ++u) {
          double acc = bias == null ? 0 : bias[q];
          for (int c = 0; c < f; ++c) {
            for (int j = 0; j < k; ++j) {
              int at = u * s - left + j * d;
              if (at >= 0 && at < t) {
                acc += w[q][c][j] * x[b][c][at];
              }
            }
          }
          y[b][q][u] = acc;
        }
      }
    }
    return y;
  }

  /** Deeplearning4j's mask of a convolution's output: max pooling of the input mask over each window. */
  static int[] referenceMask(int len, int t, int k, int s, int p, int d, ConvMode mode) {
    int span = d * (k - 1) + 1;
    int out = mode == ConvMode.Same ? (t + s - 1) / s : (t + 2 * p - span) / s + 1;
    if (mode == ConvMode.Same && s == 1) {
      int[] m = new int[t];
      for (int i = 0; i < len; ++i) {
        m[i] = 1;
      }
      return m;
    }
    int left = mode == ConvMode.Same ? Math.max(0, (out - 1) * s + span - t) / 2 : p;
    int[] m = new int[out];
    for (int u = 0; u < out; ++u) {
      for (int j = 0; j < k; ++j) {
        int at = u * s - left + j * d;
        if (at >= 0 && at < len) {
          m[u] = 1;
        }
      }
    }
    return m;
  }

  static double pooled(double[] v, int[] mask, PoolingType pt) {
    double acc = pt == PoolingType.MAX ? Double.NEGATIVE_INFINITY : 0;
    int count = 0;
    for (int i = 0; i < v.length; ++i) {
      if (mask[i] == 0) {
        continue;
      }
      ++count;
      acc = pt == PoolingType.MAX ? Math.max(acc, v[i]) : acc + v[i];
    }
    if (count == 0) {
      return 0;
    }
    return pt == PoolingType.AVG ? acc / count : acc;
  }

  @Test
  void forwardMatchesAReferenceInF64() {
    int n = 3;
    int f = 2;
    int t = 9;
    int o = 3;
    long[] lengths = {9, 5, 0};
    // kernel, stride, padding, dilation, mode (0 Truncate, 1 Same)
    int[][] cases = {{3, 1, 0, 1, 1}, {2, 2, 0, 1, 1}, {4, 1, 0, 2, 1}, {3, 2, 1, 2, 0}, {2, 3, 2, 1, 0}, {1, 1, 0, 1, 0}};
    int ci = 0;
    for (int[] cs : cases) {
      ConvMode mode = cs[4] == 1 ? ConvMode.Same : ConvMode.Truncate;
      PoolingType pt = PoolingType.values()[ci % 3];
      boolean bias = ci % 2 == 0;
      MultiLayerConfiguration conf = base(7)
          .layer(new Convolution1DLayer.Builder(cs[0]).stride(cs[1]).padding(cs[2]).dilation(cs[3]).convolutionMode(mode)
              .hasBias(bias).nOut(o).activation(Activation.TANH).build())
          .layer(pool(pt))
          .layer(softmaxOut(2))
          .setInputType(InputType.recurrent(f))
          .build();
      Random r = new Random(100 + ci);
      double[] xv = new double[n * f * t];
      for (int i = 0; i < xv.length; ++i) {
        xv[i] = r.nextDouble() * 2 - 1;
      }
      for (boolean masked : new boolean[] {false, true}) {
        String what = "case " + ci + (masked ? " masked" : "");
        try (F64Layers st = new F64Layers(conf, 200 + ci);
             Tensor x = Tensor.from(xv, n, f, t);
             Tensor seen = x.permute(0, 2, 1);
             Tensor len = masked ? Tensor.from(lengths, n) : null) {
          double[][][] xa = new double[n][f][t];
          for (int b = 0; b < n; ++b) {
            for (int c = 0; c < f; ++c) {
              for (int s = 0; s < t; ++s) {
                // the layer zeroes the padded input steps
                xa[b][c][s] = masked && s >= lengths[b] ? 0 : xv[(b * f + c) * t + s];
              }
            }
          }
          double[] wv = st.params.get(0)[0].toDoubleArray();
          int k = cs[0];
          double[][][] w = new double[o][f][k];
          for (int q = 0; q < o; ++q) {
            for (int c = 0; c < f; ++c) {
              for (int j = 0; j < k; ++j) {
                w[q][c][j] = wv[(q * f + c) * k + j];
              }
            }
          }
          double[] bv = bias ? st.params.get(0)[1].toDoubleArray() : null;
          double[][][] ref = referenceConv(xa, w, bv, cs[1], cs[2], cs[3], mode);
          int out = ref[0][0].length;
          assertEquals(out, ((Convolution1DLayer) conf.layers().get(0)).outputLength(t), what + ": output length");
          st.setLengths(len);
          Tensor y = st.layers[0].forward(seen, false);
          assertArrayEquals(new long[] {n, out, o}, y.shape(), what + ": [N, T', nOut]");
          double[] got;
          try (Tensor back = y.permute(0, 2, 1)) {
            got = values(back);
          }
          for (int b = 0; b < n; ++b) {
            for (int q = 0; q < o; ++q) {
              for (int u = 0; u < out; ++u) {
                assertEquals(Math.tanh(ref[b][q][u]), got[(b * o + q) * out + u], 1e-12, what + ": y[" + b + ", " + q
                    + ", " + u + "]");
              }
            }
          }
          Tensor pooledT = st.layers[1].forward(y, false);
          assertArrayEquals(new long[] {n, o}, pooledT.shape());
          double[] pv = pooledT.toDoubleArray();
          for (int b = 0; b < n; ++b) {
            // Deeplearning4j's reduced mask, made a prefix: up to its last valid step (case 4's first window,
            // padding {-2, -1} only, is 0 there and valid here; see Convolution1DLayer).
            int[] m = referenceMask(masked ? (int) lengths[b] : t, t, cs[0], cs[1], cs[2], cs[3], mode);
            int valid = 0;
            for (int i = 0; i < m.length; ++i) {
              valid = m[i] == 1 ? i + 1 : valid;
            }
            for (int i = 0; i < m.length; ++i) {
              m[i] = i < valid ? 1 : 0;
            }
            assertEquals(valid, ((Convolution1DLayer) conf.layers().get(0)).validOutputLength(masked ? lengths[b] : t, t),
                what + ": valid output steps of example " + b);
            for (int q = 0; q < o; ++q) {
              double[] v = new double[out];
              for (int u = 0; u < out; ++u) {
                v[u] = Math.tanh(ref[b][q][u]);
              }
              assertEquals(pooled(v, m, pt), pv[b * o + q], 1e-12, what + " " + pt + ": pooled[" + b + ", " + q + "]");
            }
          }
        }
      }
      ++ci;
    }
  }

  @Test
  void validOutputLengthsFollowDeeplearning4jsMaskReduction() {
    Convolution1DLayer c = new Convolution1DLayer.Builder(2).stride(2).padding(1).build();
    assertEquals(6, c.outputLength(10));
    assertEquals(3, c.validOutputLength(5, 10), "windows {-1,0}, {1,2}, {3,4} see valid steps, {5,6} does not");
    assertEquals(6, c.validOutputLength(10, 10));
    assertEquals(0, c.validOutputLength(0, 10));
    Convolution1DLayer same = new Convolution1DLayer.Builder(5).convolutionMode(ConvMode.Same).build();
    assertEquals(4, same.validOutputLength(4, 9), "Same mode, stride 1: the mask passes unchanged");
    Convolution1DLayer truncate = new Convolution1DLayer.Builder(3).build();
    assertEquals(7, truncate.outputLength(9));
    assertEquals(4, truncate.validOutputLength(4, 9), "partial windows at the end of the valid steps count");
    assertEquals(7, truncate.validOutputLength(9, 9));
  }

  // --------------------------------------------------------------------------------------- masks

  static float[] randomSeq(Random r, int n, int f, int t) {
    return RecurrentNetworkTest.randomSeq(r, n, f, t);
  }

  /**
   * Values in the padding change nothing (outputs, score, gradients), and with stride 1 in Same mode
   * (and after an LSTM) each padded sequence gives what it gives alone, trimmed: its output, and its
   * share of the score and the gradients.
   */
  @Test
  void paddedStepsChangeNothing() {
    int n = 3;
    int f = 4;
    int c = 3;
    int t = 8;
    long[] lengths = {8, 5, 2};
    List<MultiLayerConfiguration> trimmable = List.of(
        base(8).layer(conv(3, 1, 0, 1, ConvMode.Same, 5, Activation.TANH))
            .layer(conv(2, 1, 0, 2, ConvMode.Same, 4, Activation.RELU))
            .layer(pool(PoolingType.AVG)).layer(softmaxOut(c)).setInputType(InputType.recurrent(f)).build(),
        base(9).layer(conv(4, 1, 0, 1, ConvMode.Same, 5, Activation.TANH))
            .layer(pool(PoolingType.MAX)).layer(softmaxOut(c)).setInputType(InputType.recurrent(f)).build(),
        base(10).layer(new LSTM.Builder().nOut(4).build())
            .layer(pool(PoolingType.SUM)).layer(softmaxOut(c)).setInputType(InputType.recurrent(f)).build());
    List<MultiLayerConfiguration> others = List.of(
        base(11).layer(conv(2, 2, 1, 1, ConvMode.Truncate, 5, Activation.TANH))
            .layer(conv(3, 1, 0, 1, ConvMode.Truncate, 4, Activation.TANH))
            .layer(pool(PoolingType.MAX)).layer(softmaxOut(c)).setInputType(InputType.recurrent(f)).build(),
        base(12).layer(conv(3, 2, 0, 1, ConvMode.Same, 5, Activation.TANH))
            .layer(pool(PoolingType.AVG)).layer(softmaxOut(c)).setInputType(InputType.recurrent(f)).build());
    List<MultiLayerConfiguration> all = new ArrayList<>(trimmable);
    all.addAll(others);
    for (MultiLayerConfiguration conf : all) {
      Random r = new Random(13);
      float[] x = randomSeq(r, n, f, t);
      float[] y = RecurrentNetworkTest.oneHotSeq(r, n, c, 1);
      float[] x2 = x.clone();
      for (int b = 0; b < n; ++b) {
        for (int j = 0; j < f; ++j) {
          for (int s = (int) lengths[b]; s < t; ++s) {
            x2[(b * f + j) * t + s] = 100 * r.nextFloat();
          }
        }
      }
      float[] mask = RecurrentNetworkTest.prefixMask(t, lengths);
      try (MultiLayerNetwork net = new MultiLayerNetwork(conf)) {
        net.init();
        float[] p0 = net.params().toFloatArray();
        float[] outPadded;
        float[] gPadded;
        double sPadded;
        try (DataSet ds = new DataSet(Tensor.from(x, n, f, t), Tensor.from(y, n, c), Tensor.from(mask, n, t), null)) {
          try (Tensor o = net.output(ds.features(), ds.featuresMask())) {
            outPadded = o.toFloatArray();
          }
          sPadded = net.score(ds);
          net.fit(ds);
          gPadded = net.gradients().toFloatArray();
          RecurrentNetworkTest.setParams(net, p0);
        }
        try (DataSet ds = new DataSet(Tensor.from(x2, n, f, t), Tensor.from(y, n, c), Tensor.from(mask, n, t), null)) {
          try (Tensor o = net.output(ds.features(), ds.featuresMask())) {
            assertArrayEquals(outPadded, o.toFloatArray(), "other values in the padding: the same outputs");
          }
          assertEquals(sPadded, net.score(ds), 0, "other values in the padding: the same score");
          net.fit(ds);
          assertArrayEquals(gPadded, net.gradients().toFloatArray(), "other values in the padding: the same gradients");
          RecurrentNetworkTest.setParams(net, p0);
        }
        if (!trimmable.contains(conf)) {
          continue;
        }
        float[] gMean = new float[gPadded.length];
        double sMean = 0;
        for (int b = 0; b < n; ++b) {
          int len = (int) lengths[b];
          try (DataSet one = new DataSet(Tensor.from(RecurrentNetworkTest.trim(x, n, f, t, b, len), 1, f, len),
              Tensor.from(java.util.Arrays.copyOfRange(y, b * c, b * c + c), 1, c))) {
            try (Tensor o = net.output(one.features())) {
              float[] ob = o.toFloatArray();
              for (int k = 0; k < c; ++k) {
                assertEquals(ob[k], outPadded[b * c + k], 1e-6, "output [" + b + ", " + k + "]");
              }
            }
            sMean += net.score(one) / n;
            net.fit(one);
            float[] gb = net.gradients().toFloatArray();
            for (int i = 0; i < gMean.length; ++i) {
              gMean[i] += gb[i] / n;
            }
            RecurrentNetworkTest.setParams(net, p0);
          }
        }
        assertEquals(sMean, sPadded, 1e-5 * Math.abs(sMean), "score: the mean of the trimmed sequences' scores");
        RecurrentNetworkTest.assertClose(gMean, gPadded, 2e-5, "gradients: the mean of the trimmed sequences' gradients");
      }
    }
  }

  // ------------------------------------------------------------------------- types and errors

  @Test
  void inputTypesAreInferred() {
    MultiLayerConfiguration conf = base(14)
        .layer(conv(3, 1, 0, 1, ConvMode.Truncate, 6, Activation.RELU))
        .layer(conv(3, 2, 0, 1, ConvMode.Same, 5, Activation.RELU))
        .layer(conv(2, 2, 1, 1, ConvMode.Truncate, 4, Activation.RELU))
        .layer(pool(PoolingType.MAX))
        .layer(softmaxOut(2))
        .setInputType(InputType.recurrent(7, 10))
        .build();
    assertEquals(7, conf.layers().get(0).nIn());
    assertEquals(InputType.recurrent(6, 8), conf.layerInput(1));
    assertEquals(6, conf.layers().get(1).nIn());
    assertEquals(InputType.recurrent(5, 4), conf.layerInput(2), "Same, stride 2: ceil(8 / 2)");
    assertEquals(InputType.recurrent(4, 3), conf.layerInput(3), "(4 + 2 - 2) / 2 + 1");
    assertEquals(InputType.feedForward(4), conf.layerInput(4));
    assertEquals(4, conf.layers().get(3).nOut());
    assertEquals(Activation.IDENTITY, new NeuralNetConfiguration.Builder().list()
        .layer(new Convolution1DLayer.Builder(2).nOut(2).build()).layer(pool(PoolingType.SUM)).layer(softmaxOut(2))
        .setInputType(InputType.recurrent(3)).build().layers().get(0).activation(), "default activation");
    MultiLayerConfiguration open = base(15)
        .layer(conv(3, 2, 0, 1, ConvMode.Truncate, 6, Activation.RELU))
        .layer(pool(PoolingType.AVG))
        .layer(softmaxOut(2))
        .setInputType(InputType.recurrent(7))
        .build();
    assertEquals(InputType.recurrent(6), open.layerInput(1), "an open length stays open");
    MultiLayerConfiguration implied = base(16)
        .layer(new Convolution1DLayer.Builder(2).nIn(3).nOut(4).build())
        .layer(pool(PoolingType.AVG))
        .layer(softmaxOut(2))
        .build();
    assertEquals(InputType.recurrent(3), implied.inputType());
    MultiLayerConfiguration img = base(17)
        .layer(new ConvolutionLayer.Builder(3, 3).nOut(5).build())
        .layer(new GlobalPoolingLayer.Builder().collapseDimensions(false).build())
        .layer(softmaxOut(2))
        .setInputType(InputType.convolutional(8, 8, 1))
        .build();
    assertEquals(InputType.convolutional(1, 1, 5), img.layerInput(2));
    assertEquals(PoolingType.MAX, ((GlobalPoolingLayer) img.layers().get(1)).poolingType(), "MAX by default");
  }

  static void assertError(String contains, Runnable r) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, r::run);
    assertTrue(e.getMessage().contains(contains), "\"" + e.getMessage() + "\" should mention \"" + contains + "\"");
  }

  static MultiLayerConfiguration net(Layer first, Layer second, InputType in) {
    return base(1).layer(first).layer(second).layer(softmaxOut(2)).setInputType(in).build();
  }

  @Test
  void badConfigurationsAreRefused() {
    assertError("PNORM", () -> new GlobalPoolingLayer.Builder(PoolingType.PNORM).build());
    assertError("not supported", () -> new GlobalPoolingLayer.Builder().poolingType(PoolingType.PNORM).build());
    assertError("kernel size is not set", () -> new Convolution1DLayer.Builder().nOut(3).build());
    assertError("kernel size", () -> new Convolution1DLayer.Builder(0));
    assertError("stride", () -> new Convolution1DLayer.Builder(2).stride(0));
    assertError("padding", () -> new Convolution1DLayer.Builder(2).padding(-1));
    assertError("dilation", () -> new Convolution1DLayer.Builder(2).dilation(0));
    assertError("InputType.recurrent", () -> net(conv(2, 1, 0, 1, ConvMode.Same, 3, Activation.RELU), pool(PoolingType.MAX),
        InputType.feedForward(4)));
    assertError("larger than", () -> net(conv(5, 1, 0, 1, ConvMode.Truncate, 3, Activation.RELU), pool(PoolingType.MAX),
        InputType.recurrent(3, 4)));
    assertError("SOFTMAX", () -> net(conv(2, 1, 0, 1, ConvMode.Same, 3, Activation.SOFTMAX), pool(PoolingType.MAX),
        InputType.recurrent(3)));
    assertError("nOut", () -> net(new Convolution1DLayer.Builder(2).build(), pool(PoolingType.MAX), InputType.recurrent(3)));
    assertError("InputType.recurrent", () -> base(1).layer(new Convolution1DLayer.Builder(2).nOut(2).build())
        .layer(pool(PoolingType.MAX)).layer(softmaxOut(2)).build());
    assertError("takes sequences", () -> net(new DenseLayer.Builder().nOut(3).build(), pool(PoolingType.AVG),
        InputType.feedForward(4)));
    assertError("collapseDimensions", () -> net(new GlobalPoolingLayer.Builder().collapseDimensions(false).build(),
        new DenseLayer.Builder().nOut(2).build(), InputType.recurrent(3)));
    assertError("LastTimeStep", () -> net(conv(2, 1, 0, 1, ConvMode.Same, 3, Activation.RELU),
        new DenseLayer.Builder().nOut(2).build(), InputType.recurrent(3)));
    assertError("InputType.recurrent", () -> base(1).layer(pool(PoolingType.MAX)).layer(softmaxOut(2)).build());
    // At run time: sequences shorter than the kernel when the length is open.
    MultiLayerConfiguration open = net(conv(5, 1, 0, 1, ConvMode.Truncate, 3, Activation.RELU), pool(PoolingType.MAX),
        InputType.recurrent(2));
    try (MultiLayerNetwork m = new MultiLayerNetwork(open); Tensor x = Tensor.zeros(DType.F32, 2, 2, 3)) {
      m.init();
      assertError("larger than", () -> m.output(x).close());
    }
  }

  // ------------------------------------------------------------------------------ JSON, save/load

  @Test
  void jsonAndSaveLoadRoundTrip(@TempDir Path dir) throws Exception {
    List<MultiLayerConfiguration> confs = List.of(
        base(18).layer(new Convolution1DLayer.Builder(3, 2, 1).dilation(2).hasBias(false).nOut(5)
                .activation(Activation.RELU).build())
            .layer(conv(2, 1, 0, 1, ConvMode.Same, 4, Activation.TANH))
            .layer(new GlobalPoolingLayer.Builder(PoolingType.AVG).build())
            .layer(softmaxOut(3)).setInputType(InputType.recurrent(4, 6)).build(),
        new NeuralNetConfiguration.Builder().seed(19).updater(new Adam(0.01)).weightInit(WeightInit.RELU).list()
            .layer(new Convolution1DLayer.Builder(3).convolutionMode(ConvMode.Same).nIn(4).nOut(5).build())
            .layer(new GlobalPoolingLayer.Builder(PoolingType.SUM).build())
            .layer(new DenseLayer.Builder().nOut(4).activation(Activation.TANH).build())
            .layer(softmaxOut(3)).build());
    int k = 0;
    for (MultiLayerConfiguration conf : confs) {
      String json = conf.toJson();
      MultiLayerConfiguration back = MultiLayerConfiguration.fromJson(json);
      assertEquals(conf, back);
      assertEquals(json, back.toJson());
      Convolution1DLayer c0 = (Convolution1DLayer) back.layers().get(0);
      assertEquals(((Convolution1DLayer) conf.layers().get(0)).convolutionMode(), c0.convolutionMode());
      assertEquals(((Convolution1DLayer) conf.layers().get(0)).hasBias(), c0.hasBias());
      Random r = new Random(29 + k);
      File f = dir.resolve("cnn1d" + k++ + ".zip").toFile();
      try (MultiLayerNetwork net = new MultiLayerNetwork(conf);
           DataSet ds = new DataSet(Tensor.from(randomSeq(r, 3, 4, 6), 3, 4, 6),
               Tensor.from(RecurrentNetworkTest.oneHotSeq(r, 3, 3, 1), 3, 3),
               Tensor.from(RecurrentNetworkTest.prefixMask(6, 6, 4, 5), 3, 6), null)) {
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
    MultiLayerConfiguration img = base(20)
        .layer(new ConvolutionLayer.Builder(3, 3).nOut(4).build())
        .layer(new GlobalPoolingLayer.Builder(PoolingType.MAX).collapseDimensions(false).build())
        .layer(softmaxOut(2))
        .setInputType(InputType.convolutional(6, 6, 1))
        .build();
    assertEquals(img, MultiLayerConfiguration.fromJson(img.toJson()));
    assertTrue(img.toJson().contains("\"collapseDimensions\": false"), img.toJson());
  }

  // -------------------------------------------------------------------------------- end to end

  /**
   * A text CNN on one-hot tokens: does a sequence of 4 to 12 tokens (vocabulary 6, padded to 12 with
   * a features mask) hold the bigram "1 2"? Conv1D (width 2) -> global max pooling -> softmax.
   */
  @Test
  void textCnnLearnsToSpotABigram() {
    int vocab = 6;
    int t = 12;
    Random r = new Random(42);
    int nTrain = 256;
    int nTest = 128;
    float[][] data = new float[2][];
    float[][] labels = new float[2][];
    float[][] masks = new float[2][];
    int[][] classes = new int[2][];
    for (int part = 0; part < 2; ++part) {
      int n = part == 0 ? nTrain : nTest;
      data[part] = new float[n * vocab * t];
      labels[part] = new float[n * 2];
      masks[part] = new float[n * t];
      classes[part] = new int[n];
      for (int b = 0; b < n; ++b) {
        int len = 4 + r.nextInt(t - 3);
        boolean positive = b % 2 == 0;
        int[] tok = new int[len];
        do {
          for (int s = 0; s < len; ++s) {
            tok[s] = r.nextInt(vocab);
          }
          if (positive) {
            int at = r.nextInt(len - 1);
            tok[at] = 1;
            tok[at + 1] = 2;
          }
        } while (hasBigram(tok) != positive);
        for (int s = 0; s < len; ++s) {
          data[part][(b * vocab + tok[s]) * t + s] = 1;
          masks[part][b * t + s] = 1;
        }
        // Garbage after the end: the mask must keep it out.
        for (int s = len; s < t; ++s) {
          data[part][(b * vocab + r.nextInt(vocab)) * t + s] = 1;
        }
        classes[part][b] = positive ? 1 : 0;
        labels[part][b * 2 + (positive ? 1 : 0)] = 1;
      }
    }
    MultiLayerConfiguration conf = new NeuralNetConfiguration.Builder().seed(5).updater(new Adam(0.02))
        .weightInit(WeightInit.XAVIER).list()
        .layer(new Convolution1DLayer.Builder(2).convolutionMode(ConvMode.Same).nOut(8).activation(Activation.RELU).build())
        .layer(new GlobalPoolingLayer.Builder(PoolingType.MAX).build())
        .layer(softmaxOut(2))
        .setInputType(InputType.recurrent(vocab, t))
        .build();
    int batch = 32;
    try (MultiLayerNetwork net = new MultiLayerNetwork(conf)) {
      net.init();
      double first = Double.NaN;
      double last = Double.NaN;
      for (int epoch = 0; epoch < 25; ++epoch) {
        double sum = 0;
        for (int b0 = 0; b0 < nTrain; b0 += batch) {
          float[] xb = java.util.Arrays.copyOfRange(data[0], b0 * vocab * t, (b0 + batch) * vocab * t);
          float[] yb = java.util.Arrays.copyOfRange(labels[0], b0 * 2, (b0 + batch) * 2);
          float[] mb = java.util.Arrays.copyOfRange(masks[0], b0 * t, (b0 + batch) * t);
          try (DataSet ds = new DataSet(Tensor.from(xb, batch, vocab, t), Tensor.from(yb, batch, 2),
              Tensor.from(mb, batch, t), null)) {
            net.fit(ds);
            sum += net.score();
          }
        }
        double mean = sum / (nTrain / batch);
        if (epoch == 0) {
          first = mean;
        }
        last = mean;
      }
      assertTrue(last < first / 4, "the score falls: " + first + " -> " + last);
      int correct = 0;
      try (Tensor x = Tensor.from(data[1], nTest, vocab, t); Tensor m = Tensor.from(masks[1], nTest, t);
           Tensor out = net.output(x, m)) {
        float[] p = out.toFloatArray();
        for (int b = 0; b < nTest; ++b) {
          correct += (p[b * 2 + 1] > p[b * 2] ? 1 : 0) == classes[1][b] ? 1 : 0;
        }
      }
      assertTrue(correct >= nTest * 0.95, "held-out accuracy " + correct + " / " + nTest);
    }
  }

  static boolean hasBigram(int[] tok) {
    for (int s = 0; s + 1 < tok.length; ++s) {
      if (tok[s] == 1 && tok[s + 1] == 2) {
        return true;
      }
    }
    return false;
  }

  /** Mixed precision runs the layers in f16 (the ops have f16 kernels). */
  @Test
  void trainsInF16() {
    MultiLayerConfiguration conf = new NeuralNetConfiguration.Builder().seed(3).updater(new Adam(0.01))
        .dataType(DType.F16).list()
        .layer(conv(3, 1, 0, 1, ConvMode.Same, 6, Activation.RELU))
        .layer(conv(2, 2, 0, 1, ConvMode.Truncate, 4, Activation.TANH))
        .layer(pool(PoolingType.AVG))
        .layer(softmaxOut(3))
        .setInputType(InputType.recurrent(4))
        .build();
    Random r = new Random(4);
    try (MultiLayerNetwork net = new MultiLayerNetwork(conf);
         DataSet ds = new DataSet(Tensor.from(randomSeq(r, 4, 4, 9), 4, 4, 9),
             Tensor.from(RecurrentNetworkTest.oneHotSeq(r, 4, 3, 1), 4, 3),
             Tensor.from(RecurrentNetworkTest.prefixMask(9, 9, 7, 3, 1), 4, 9), null)) {
      net.init();
      double first = net.score(ds);
      for (int i = 0; i < 30; ++i) {
        net.fit(ds);
      }
      assertTrue(Double.isFinite(net.score()), "score " + net.score());
      assertTrue(net.score(ds) < first, "the score falls: " + first + " -> " + net.score(ds));
    }
  }

  /** An RnnOutputLayer after a Same, stride-1 convolution: the time axis and the mask are unchanged. */
  @Test
  void sameConvolutionFeedsAnRnnOutputLayer() {
    MultiLayerConfiguration conf = base(21)
        .layer(conv(3, 1, 0, 1, ConvMode.Same, 5, Activation.TANH))
        .layer(new RnnOutputLayer.Builder(LossFunction.MCXENT).nOut(3).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.recurrent(4))
        .build();
    Random r = new Random(22);
    try (MultiLayerNetwork net = new MultiLayerNetwork(conf);
         DataSet ds = new DataSet(Tensor.from(randomSeq(r, 2, 4, 6), 2, 4, 6),
             Tensor.from(RecurrentNetworkTest.oneHotSeq(r, 2, 3, 6), 2, 3, 6),
             Tensor.from(RecurrentNetworkTest.prefixMask(6, 6, 3), 2, 6), null)) {
      net.init();
      double first = net.score(ds);
      for (int i = 0; i < 20; ++i) {
        net.fit(ds);
      }
      assertTrue(net.score(ds) < first);
      try (Tensor o = net.output(ds.features(), ds.featuresMask())) {
        assertArrayEquals(new long[] {2, 3, 6}, o.shape());
        float[] v = o.toFloatArray();
        for (int k = 0; k < 3; ++k) {
          for (int s = 3; s < 6; ++s) {
            assertEquals(0f, v[(3 + k) * 6 + s], 0f, "padded step output");
          }
        }
      }
    }
  }
}
