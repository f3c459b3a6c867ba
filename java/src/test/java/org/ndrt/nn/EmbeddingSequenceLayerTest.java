package org.ndrt.nn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ndrt.DType;
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
import org.ndrt.nn.conf.layers.EmbeddingSequenceLayer;
import org.ndrt.nn.conf.layers.GRU;
import org.ndrt.nn.conf.layers.LSTM;
import org.ndrt.nn.conf.layers.LastTimeStep;
import org.ndrt.nn.conf.layers.RnnOutputLayer;
import org.ndrt.nn.layers.LayerImpl;
import org.ndrt.nn.layers.Layers;
import org.ndrt.nn.updater.Adam;

/**
 * EmbeddingSequenceLayer: gradients against central differences in f64, the output against a
 * float64 computation written here (f32, f64, bf16 with indices above 256), repeated indices
 * accumulating, refused indices, masks, input types, JSON and save/load, and a character model
 * (embedding or one-hot input, LSTM, RnnOutputLayer) that trains down.
 */
class EmbeddingSequenceLayerTest {
  static NeuralNetConfiguration.ListBuilder base(long seed) {
    return RecurrentNetworkTest.base(seed);
  }

  static EmbeddingSequenceLayer embedding(int vocab, int dim, boolean bias, Activation act) {
    EmbeddingSequenceLayer.Builder b = new EmbeddingSequenceLayer.Builder().nIn(vocab).nOut(dim).hasBias(bias);
    if (act != null) {
      b.activation(act);
    }
    return b.build();
  }

  /** Random indices in [0, vocab) as float values [n * t] (example b, step s at b * t + s). */
  static float[] randomIndices(Random r, int n, int t, int vocab) {
    float[] x = new float[n * t];
    for (int i = 0; i < x.length; ++i) {
      x[i] = r.nextInt(vocab);
    }
    return x;
  }

  // -------------------------------------------------------------- gradients in f64 (layers alone)

  /**
   * Every parameter's gradient (the embedding table's and the layers' after it) against central
   * differences (h = 1e-6) in f64; the table's rows of indices that never occur at a valid step get
   * exactly 0.
   */
  static void checkGradients(MultiLayerConfiguration conf, double[] idx, int n, int t, int c, long[] lengths, long seed) {
    Random r = new Random(seed);
    double[] yv = new double[n * c * t];
    for (int b = 0; b < n; ++b) {
      for (int s = 0; s < t; ++s) {
        int k = r.nextInt(c);
        for (int j = 0; j < c; ++j) {
          yv[(b * c + j) * t + s] = j == k ? 0.8 : 0.2 / (c - 1);
        }
      }
    }
    EmbeddingSequenceLayer emb = (EmbeddingSequenceLayer) conf.layers().get(0);
    int dim = (int) emb.nOut();
    boolean[] used = new boolean[(int) emb.nIn()];
    for (int b = 0; b < n; ++b) {
      for (int s = 0; s < t; ++s) {
        if (lengths == null || s < lengths[b]) {
          used[(int) idx[b * t + s]] = true;
        }
      }
    }
    try (RecurrentNetworkTest.F64Stack st = new RecurrentNetworkTest.F64Stack(conf, seed + 1);
         Tensor x = Tensor.from(idx, n, 1, t);
         Tensor y = Tensor.from(yv, n, c, t);
         Tensor len = lengths == null ? null : Tensor.from(lengths, n);
         Tensor mask = lengths == null ? null
             : Tensor.from(RecurrentNetworkTest.toDoubles(RecurrentNetworkTest.prefixMask(t, lengths)), n, t)) {
      double l0 = st.loss(x, y, len, mask);
      assertTrue(Double.isFinite(l0) && l0 > 0, "loss " + l0);
      assertNull(st.backward(y), "indices have no gradient");
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
            double lp = st.loss(x, y, len, mask);
            p[k] = keep - h;
            ps[j].copyFrom(p);
            double lm = st.loss(x, y, len, mask);
            p[k] = keep;
            ps[j].copyFrom(p);
            double fd = (lp - lm) / (2 * h);
            String what = "layer " + i + " (" + conf.layers().get(i).getClass().getSimpleName() + ") parameter "
                + st.specs.get(i)[j].name + "[" + k + "]";
            assertEquals(fd, g[k], 1e-6 + 1e-5 * Math.abs(fd), what);
            if (i == 0 && j == 0 && !used[k / dim]) {
              assertEquals(0.0, g[k], 0.0, what + ": index " + k / dim + " does not occur");
            }
            nonzero += g[k] != 0 ? 1 : 0;
            ++checked;
          }
        }
      }
      assertTrue(nonzero > checked / 2, "most gradients are nonzero: " + nonzero + " of " + checked);
    }
  }

  @Test
  void gradientsMatchFiniteDifferencesInF64() {
    int vocab = 7;
    int n = 3;
    int t = 5;
    // Indices 5 and 6 never occur; 2 occurs five times (twice in one sequence, also at padded steps).
    double[] idx = {2, 0, 2, 1, 4, 3, 2, 4, 2, 1, 0, 3, 2, 2, 1};
    MultiLayerConfiguration withLstm = base(1)
        .layer(embedding(vocab, 4, true, Activation.TANH))
        .layer(new LSTM.Builder().nOut(3).build())
        .layer(new RnnOutputLayer.Builder(LossFunction.MCXENT).nOut(3).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.recurrent(1))
        .build();
    checkGradients(withLstm, idx, n, t, 3, null, 11);
    checkGradients(withLstm, idx, n, t, 3, new long[] {5, 3, 1}, 12);
    MultiLayerConfiguration direct = base(2)
        .layer(embedding(vocab, 3, false, null))
        .layer(new RnnOutputLayer.Builder(LossFunction.MSE).nOut(2).activation(Activation.SIGMOID).build())
        .setInputType(InputType.recurrent(1))
        .build();
    checkGradients(direct, idx, n, t, 2, null, 21);
    checkGradients(direct, idx, n, t, 2, new long[] {2, 5, 0}, 22);
    MultiLayerConfiguration bi = base(3)
        .layer(embedding(vocab, 3, true, Activation.RELU))
        .layer(new Bidirectional(new GRU.Builder().nOut(2).build()))
        .layer(new RnnOutputLayer.Builder(LossFunction.MCXENT).nOut(3).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.recurrent(1))
        .build();
    checkGradients(bi, idx, n, t, 3, new long[] {4, 5, 2}, 31);
  }

  // ------------------------------------------------------------------------- forward, reference

  /** The layer alone in f64: y[b, t, :] = act(W[x[b, t]] + b), exactly (a gather and one add). */
  @Test
  void outputIsTheTableRowsInF64() {
    int vocab = 9;
    int dim = 5;
    int n = 4;
    int t = 6;
    Random r = new Random(3);
    for (Activation act : new Activation[] {Activation.IDENTITY, Activation.TANH}) {
      MultiLayerConfiguration conf = base(4).layer(embedding(vocab, dim, true, act))
          .layer(new RnnOutputLayer.Builder(LossFunction.MSE).nOut(2).activation(Activation.IDENTITY).build())
          .setInputType(InputType.recurrent(1)).build();
      double[] idx = new double[n * t];
      for (int i = 0; i < idx.length; ++i) {
        idx[i] = r.nextInt(vocab);
      }
      try (RecurrentNetworkTest.F64Stack st = new RecurrentNetworkTest.F64Stack(conf, 5);
           Tensor x = Tensor.from(idx, n, 1, t); Tensor xt = x.permute(0, 2, 1)) {
        double[] w = st.params.get(0)[0].toDoubleArray();
        double[] b = st.params.get(0)[1].toDoubleArray();
        LayerImpl l = st.layers[0];
        Tensor y = l.forward(xt, false);
        assertArrayEquals(new long[] {n, t, dim}, y.shape());
        double[] yv = y.toDoubleArray();
        for (int bb = 0; bb < n; ++bb) {
          for (int s = 0; s < t; ++s) {
            int k = (int) idx[bb * t + s];
            for (int j = 0; j < dim; ++j) {
              double z = w[k * dim + j] + b[j];
              double want = act == Activation.TANH ? Math.tanh(z) : z;
              assertEquals(want, yv[(bb * t + s) * dim + j], act == Activation.TANH ? 1e-13 : 0.0,
                  act + " [" + bb + ", " + s + ", " + j + "]");
            }
          }
        }
      }
    }
  }

  /**
   * In a network (f32, and bf16 mixed precision with indices above 256, which a bf16 cast of the
   * features would round): the output of embedding + softmax output layer against the same written
   * out in f64 from the network's parameters; [N, 1, T] and [N, T] features and i32 / i64 indices
   * give the same; rnnTimeStep step by step gives the same.
   */
  @Test
  void networkOutputMatchesAFloat64Computation() {
    int n = 3;
    int t = 7;
    int c = 4;
    for (DType dt : new DType[] {DType.F32, DType.BF16}) {
      int vocab = dt == DType.F32 ? 11 : 700;
      int dim = 6;
      MultiLayerConfiguration conf = new NeuralNetConfiguration.Builder().seed(6).weightInit(WeightInit.XAVIER)
          .updater(new Adam(0.01)).dataType(dt).list()
          .layer(embedding(vocab, dim, true, Activation.TANH))
          .layer(new RnnOutputLayer.Builder(LossFunction.MCXENT).nOut(c).activation(Activation.SOFTMAX).build())
          .build();
      assertEquals(InputType.recurrent(1), conf.inputType(), "implied by the embedding layer");
      Random r = new Random(7);
      float[] xv = randomIndices(r, n, t, vocab);
      if (dt == DType.BF16) {
        xv[0] = 513;  // bf16 would round 513 to 512 and 699 to 700
        xv[1] = 699;
      }
      try (MultiLayerNetwork net = new MultiLayerNetwork(conf); Tensor x = Tensor.from(xv, n, 1, t);
           Tensor x2 = Tensor.from(xv, n, t)) {
        net.init();
        float[] p = RecurrentNetworkTest.copyOfParams(net);
        for (int i = 0; i < p.length; ++i) {
          p[i] += (float) (r.nextGaussian() * 0.3);  // the biases too
        }
        if (dt == DType.BF16) {
          for (int i = 0; i < p.length; ++i) {
            p[i] = bf16(p[i]);  // what the layers compute with
          }
        }
        RecurrentNetworkTest.setParams(net, p);
        long[][] ranges = net.gradientRanges();
        float[] w = RecurrentNetworkTest.slice(p, ranges[0], 0);
        float[] b = RecurrentNetworkTest.slice(p, ranges[0], 1);
        float[] wo = RecurrentNetworkTest.slice(p, ranges[1], 0);
        float[] bo = RecurrentNetworkTest.slice(p, ranges[1], 1);
        assertEquals(vocab * dim, w.length, "W is [nIn, nOut]");
        assertEquals(dim, b.length);
        float[] out;
        try (Tensor o = net.output(x)) {
          assertArrayEquals(new long[] {n, c, t}, o.shape());
          out = o.toFloatArray();
        }
        double tol = dt == DType.F32 ? 2e-6 : 2e-2;
        for (int bb = 0; bb < n; ++bb) {
          for (int s = 0; s < t; ++s) {
            int k = (int) xv[bb * t + s];
            double[] e = new double[dim];
            for (int j = 0; j < dim; ++j) {
              e[j] = Math.tanh((double) w[k * dim + j] + b[j]);
            }
            double[] want = softmax(e, wo, bo, c);
            for (int j = 0; j < c; ++j) {
              assertEquals(want[j], out[(bb * c + j) * t + s], tol, dt + " output [" + bb + ", " + j + ", " + s + "]");
            }
          }
        }
        try (Tensor o = net.output(x2)) {
          assertArrayEquals(out, o.toFloatArray(), "[N, T] features");
        }
        float[] xT = new float[n * t];  // [t, n]
        for (int bb = 0; bb < n; ++bb) {
          for (int s = 0; s < t; ++s) {
            xT[s * n + bb] = xv[bb * t + s];
          }
        }
        try (Tensor tn = Tensor.from(xT, t, n); Tensor xst = tn.transpose(0, 1); Tensor o = net.output(xst)) {
          assertTrue(!xst.isContiguous());
          assertArrayEquals(out, o.toFloatArray(), "[N, T] features as a strided view");
        }
        for (DType it : new DType[] {DType.I32, DType.I64, DType.F64}) {
          try (Tensor xi = x.cast(it); Tensor o = net.output(xi)) {
            assertArrayEquals(out, o.toFloatArray(), it + " indices");
          }
        }
        // rnnTimeStep: one step [N, 1] at a time, then [N, T] pieces.
        net.rnnClearPreviousState();
        for (int s = 0; s < t; ++s) {
          try (Tensor xs = x2.slice(1, s, s + 1); Tensor o = net.rnnTimeStep(xs)) {
            assertArrayEquals(new long[] {n, c}, o.shape());
            float[] ov = o.toFloatArray();
            for (int bb = 0; bb < n; ++bb) {
              for (int j = 0; j < c; ++j) {
                assertEquals(out[(bb * c + j) * t + s], ov[bb * c + j], dt == DType.F32 ? 1e-6 : tol, "rnnTimeStep step " + s);
              }
            }
          }
        }
        net.rnnClearPreviousState();
        try (Tensor a = x2.slice(1, 0, 3); Tensor o = net.rnnTimeStep(a)) {
          assertArrayEquals(new long[] {n, c, 3}, o.shape(), "[N, T] indices in rnnTimeStep: T steps");
        }
      }
    }
  }

  static double[] softmax(double[] e, float[] wo, float[] bo, int c) {
    int dim = e.length;
    double[] z = new double[c];
    double max = Double.NEGATIVE_INFINITY;
    for (int j = 0; j < c; ++j) {
      z[j] = bo[j];
      for (int i = 0; i < dim; ++i) {
        z[j] += e[i] * wo[i * c + j];
      }
      max = Math.max(max, z[j]);
    }
    double sum = 0;
    for (int j = 0; j < c; ++j) {
      z[j] = Math.exp(z[j] - max);
      sum += z[j];
    }
    for (int j = 0; j < c; ++j) {
      z[j] /= sum;
    }
    return z;
  }

  /** f rounded to bf16 (nearest even), as a float. */
  static float bf16(float f) {
    int bits = Float.floatToIntBits(f);
    bits += 0x7fff + ((bits >> 16) & 1);
    return Float.intBitsToFloat(bits & 0xffff0000);
  }

  // ------------------------------------------------------------------------- repeated indices

  /**
   * dW from the layer alone (f64): row k is the sum of dy over every step whose index is k (an index
   * repeated in a sequence and across sequences accumulates; gather_bp is a scatter-add into zeros);
   * rows of indices that do not occur are 0; with a bias, db sums every step.
   */
  @Test
  void repeatedIndicesAccumulate() {
    int vocab = 6;
    int dim = 3;
    int n = 2;
    int t = 5;
    double[] idx = {2, 2, 0, 2, 5, 2, 1, 2, 0, 2};  // 2 six times, 0 twice, 1 and 5 once, 3 and 4 never
    MultiLayerConfiguration conf = base(8).layer(embedding(vocab, dim, true, null))
        .layer(new RnnOutputLayer.Builder(LossFunction.MSE).nOut(2).activation(Activation.IDENTITY).build())
        .setInputType(InputType.recurrent(1)).build();
    Random r = new Random(9);
    double[] dyv = new double[n * t * dim];
    for (int i = 0; i < dyv.length; ++i) {
      dyv[i] = r.nextDouble() * 2 - 1;
    }
    try (RecurrentNetworkTest.F64Stack st = new RecurrentNetworkTest.F64Stack(conf, 10);
         Tensor x = Tensor.from(idx, n, 1, t); Tensor xt = x.permute(0, 2, 1); Tensor dy = Tensor.from(dyv, n, t, dim)) {
      // Garbage in the gradient buffers first: gather_bp must overwrite, not add to them.
      st.grads.get(0)[0].fill(7);
      st.grads.get(0)[1].fill(7);
      LayerImpl l = st.layers[0];
      l.forward(xt, true);
      assertNull(l.backward(dy, false));
      double[] dw = st.grads.get(0)[0].toDoubleArray();
      double[] db = st.grads.get(0)[1].toDoubleArray();
      double[] want = new double[vocab * dim];
      double[] wantB = new double[dim];
      for (int i = 0; i < n * t; ++i) {
        for (int j = 0; j < dim; ++j) {
          want[(int) idx[i] * dim + j] += dyv[i * dim + j];
          wantB[j] += dyv[i * dim + j];
        }
      }
      for (int k = 0; k < vocab; ++k) {
        for (int j = 0; j < dim; ++j) {
          assertEquals(want[k * dim + j], dw[k * dim + j], 1e-12, "dW[" + k + ", " + j + "]");
        }
      }
      for (int j = 0; j < dim; ++j) {
        assertEquals(wantB[j], db[j], 1e-12, "db[" + j + "]");
        double six = 0;
        for (int i : new int[] {0, 1, 3, 5, 7, 9}) {
          six += dyv[i * dim + j];
        }
        assertEquals(six, dw[2 * dim + j], 1e-12, "index 2's row: the sum of its six steps");
        assertEquals(0.0, dw[3 * dim + j], 0.0, "index 3 does not occur");
        assertEquals(0.0, dw[4 * dim + j], 0.0, "index 4 does not occur");
      }
    }
  }

  /** In a network (f32, SGD): one step moves a repeated index's row by lr times the sum of its steps' gradients. */
  @Test
  void repeatedIndicesAccumulateInTraining() {
    int vocab = 4;
    int dim = 2;
    MultiLayerConfiguration conf = new NeuralNetConfiguration.Builder().seed(11).weightInit(WeightInit.XAVIER)
        .updater(new org.ndrt.nn.updater.Sgd(1.0)).list()
        .layer(embedding(vocab, dim, false, null))
        .layer(new RnnOutputLayer.Builder(LossFunction.MSE).nOut(1).activation(Activation.IDENTITY).build())
        .build();
    // One sequence, index 1 at every step; the output layer's W [2, 1] and b fixed here.
    try (MultiLayerNetwork net = new MultiLayerNetwork(conf);
         DataSet ds = new DataSet(Tensor.from(new float[] {1, 1, 1, 1}, 1, 4), Tensor.from(new float[] {0, 0, 0, 0}, 1, 1, 4))) {
      net.init();
      float[] p = RecurrentNetworkTest.copyOfParams(net);
      long[][] ranges = net.gradientRanges();
      float[] w = RecurrentNetworkTest.slice(p, ranges[0], 0);
      float[] wo = RecurrentNetworkTest.slice(p, ranges[1], 0);
      float[] bo = RecurrentNetworkTest.slice(p, ranges[1], 1);
      net.fit(ds);
      float[] g = net.gradients().toFloatArray();
      float[] dw = RecurrentNetworkTest.slice(g, ranges[0], 0);
      // Loss = sum over 4 steps of (z - 0)^2 / nOut, / N (N = 1): dL/dz = 2 z at each step, the same z.
      double z = w[2] * wo[0] + w[3] * wo[1] + bo[0];
      for (int j = 0; j < dim; ++j) {
        assertEquals(4 * 2 * z * wo[j], dw[dim + j], 1e-5 * (1 + Math.abs(4 * 2 * z * wo[j])), "dW[1, " + j + "]");
        assertEquals(0f, dw[j], 0f, "dW[0] (not used)");
        assertEquals(0f, dw[2 * dim + j], 0f, "dW[2] (not used)");
      }
    }
  }

  // ---------------------------------------------------------------------------- bad indices, masks

  @Test
  void badIndicesAreRefused() {
    MultiLayerConfiguration conf = base(12).layer(embedding(5, 3, false, null))
        .layer(new RnnOutputLayer.Builder(LossFunction.MCXENT).nOut(2).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.recurrent(1)).build();
    try (MultiLayerNetwork net = new MultiLayerNetwork(conf)) {
      net.init();
      Object[][] cases = {{5f, "index 5 "}, {-1f, "index -1 "}, {1.5f, "index 1.5 "}, {Float.NaN, "index NaN "},
          {Float.POSITIVE_INFINITY, "index Infinity "}, {1e10f, "index 10000000000 "}};
      for (Object[] c : cases) {
        float v = (Float) c[0];
        try (Tensor x = Tensor.from(new float[] {0, 1, 2, 3, 4, 0, v, 1}, 2, 1, 4)) {
          IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> net.output(x).close(), "" + v);
          assertTrue(e.getMessage().contains(c[1] + "at example 1, step 2"), e.getMessage());
          assertTrue(e.getMessage().contains("[0, 5)"), e.getMessage());
          assertTrue(e.getMessage().contains("EmbeddingSequenceLayer \"layer0\""), e.getMessage());
        }
      }
      try (Tensor x = Tensor.from(new long[] {0, 1, 7}, 1, 1, 3)) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> net.output(x).close());
        assertTrue(e.getMessage().contains("index 7 at example 0, step 2"), e.getMessage());
      }
      try (Tensor x = Tensor.from(new float[] {0, 1, 2, 3}, 1, 2, 2)) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> net.output(x).close());
        assertTrue(e.getMessage().contains("[N, T]"), e.getMessage());
      }
      // The network still works after the refusals.
      try (Tensor x = Tensor.from(new float[] {0, 1, 2, 3, 4, 0, 4, 1}, 2, 1, 4); Tensor o = net.output(x)) {
        assertArrayEquals(new long[] {2, 2, 4}, o.shape());
      }
    }
  }

  /**
   * Padded steps (features mask) are not read: any value there (out of range, fractional) gives the
   * same outputs, score and gradients; the embedding's outputs there are 0, and the valid steps are
   * those of the trimmed sequences.
   */
  @Test
  void paddedStepsAreNotRead() {
    int n = 3;
    int t = 6;
    int vocab = 8;
    int c = 3;
    long[] lengths = {6, 3, 1};
    MultiLayerConfiguration conf = base(13).layer(embedding(vocab, 4, true, Activation.TANH))
        .layer(new LSTM.Builder().nOut(5).build())
        .layer(new RnnOutputLayer.Builder(LossFunction.MCXENT).nOut(c).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.recurrent(1)).build();
    Random r = new Random(14);
    float[] x = randomIndices(r, n, t, vocab);
    float[] y = RecurrentNetworkTest.oneHotSeq(r, n, c, t);
    float[] mask = RecurrentNetworkTest.prefixMask(t, lengths);
    float[] x2 = x.clone();
    for (int b = 0; b < n; ++b) {
      for (int s = (int) lengths[b]; s < t; ++s) {
        x2[b * t + s] = s % 2 == 0 ? -3 : 100.5f;  // garbage a valid step would refuse
      }
    }
    try (MultiLayerNetwork net = new MultiLayerNetwork(conf)) {
      net.init();
      float[] p0 = RecurrentNetworkTest.copyOfParams(net);
      float[] out;
      float[] g;
      double score;
      try (DataSet ds = new DataSet(Tensor.from(x, n, t), Tensor.from(y, n, c, t), Tensor.from(mask, n, t), null)) {
        try (Tensor o = net.output(ds.features(), ds.featuresMask())) {
          out = o.toFloatArray();
        }
        score = net.score(ds);
        net.fit(ds);
        g = net.gradients().toFloatArray();
        RecurrentNetworkTest.setParams(net, p0);
      }
      try (DataSet ds = new DataSet(Tensor.from(x2, n, t), Tensor.from(y, n, c, t), Tensor.from(mask, n, t), null)) {
        try (Tensor o = net.output(ds.features(), ds.featuresMask())) {
          assertArrayEquals(out, o.toFloatArray(), "outputs with other values in the padding");
        }
        assertEquals(score, net.score(ds), 0.0, "score with other values in the padding");
        net.fit(ds);
        assertArrayEquals(g, net.gradients().toFloatArray(), "gradients with other values in the padding");
        RecurrentNetworkTest.setParams(net, p0);
      }
      // Each sequence alone, trimmed to its length: the same outputs at its valid steps.
      for (int b = 0; b < n; ++b) {
        int len = (int) lengths[b];
        try (Tensor xb = Tensor.from(java.util.Arrays.copyOfRange(x, b * t, b * t + len), 1, 1, len);
             Tensor o = net.output(xb)) {
          float[] ob = o.toFloatArray();
          for (int k = 0; k < c; ++k) {
            for (int s = 0; s < len; ++s) {
              assertEquals(ob[k * len + s], out[(b * c + k) * t + s], 1e-6, "[" + b + ", " + k + ", " + s + "]");
            }
          }
        }
      }
    }
    // The embedding's own output is 0 at the padded steps (f64, the layer alone).
    MultiLayerConfiguration alone = base(15).layer(embedding(vocab, 4, true, Activation.TANH))
        .layer(new RnnOutputLayer.Builder(LossFunction.MSE).nOut(2).activation(Activation.IDENTITY).build())
        .setInputType(InputType.recurrent(1)).build();
    try (RecurrentNetworkTest.F64Stack st = new RecurrentNetworkTest.F64Stack(alone, 16);
         Tensor xx = Tensor.from(RecurrentNetworkTest.toDoubles(x2), n, 1, t); Tensor xt = xx.permute(0, 2, 1);
         Tensor len = Tensor.from(lengths, n)) {
      LayerImpl l = st.layers[0];
      l.setSequenceLengths(len);
      double[] o = l.forward(xt, false).toDoubleArray();
      for (int b = 0; b < n; ++b) {
        for (int s = 0; s < t; ++s) {
          for (int j = 0; j < 4; ++j) {
            double v = o[(b * t + s) * 4 + j];
            if (s >= lengths[b]) {
              assertEquals(0.0, v, 0.0, "padded [" + b + ", " + s + ", " + j + "]");
            } else {
              assertTrue(v != 0, "valid [" + b + ", " + s + ", " + j + "]");
            }
          }
        }
      }
    }
  }

  // ----------------------------------------------------------------- configuration, JSON, save

  @Test
  void inputTypesAreInferred() {
    MultiLayerConfiguration conf = new NeuralNetConfiguration.Builder().seed(1).activation(Activation.RELU).list()
        .layer(new EmbeddingSequenceLayer.Builder().nIn(50).nOut(8).build())
        .layer(new LSTM.Builder().nOut(6).build())
        .layer(new RnnOutputLayer.Builder(LossFunction.MCXENT).nOut(50).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.recurrent(1, 30))
        .build();
    EmbeddingSequenceLayer e = (EmbeddingSequenceLayer) conf.layers().get(0);
    assertEquals(50, e.nIn(), "nIn is the vocabulary, not the input's size");
    assertEquals(InputType.recurrent(8, 30), conf.layerInput(1));
    assertEquals(8, conf.layers().get(1).nIn());
    assertEquals(Activation.IDENTITY, e.activation(), "IDENTITY by default, whatever the network's default");
    assertEquals(false, e.hasBias(), "no bias by default");
    assertEquals(WeightInit.XAVIER, e.weightInit(), "the network's weight init");
    // Without an input type: recurrent(1) is implied; with inputLength and inferInputLength(false), its length.
    MultiLayerConfiguration implied = base(2)
        .layer(new EmbeddingSequenceLayer.Builder().nIn(10).nOut(4).inputLength(12).inferInputLength(false).build())
        .layer(new RnnOutputLayer.Builder().nOut(3).activation(Activation.SOFTMAX).build()).build();
    assertEquals(InputType.recurrent(1, 12), implied.inputType());
    assertEquals(InputType.recurrent(4, 12), implied.layerInput(1));
    try (MultiLayerNetwork net = new MultiLayerNetwork(implied); Tensor x = Tensor.zeros(DType.F32, 2, 1, 11)) {
      net.init();
      IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> net.output(x).close());
      assertTrue(ex.getMessage().contains("inputLength is 12"), ex.getMessage());
    }
    // recurrent(k), k > 1, is Deeplearning4j's form: nIn = k (the given 5 replaced), the features still indices.
    for (EmbeddingSequenceLayer given : new EmbeddingSequenceLayer[] {embedding(5, 3, false, null),
        new EmbeddingSequenceLayer.Builder().nOut(3).build()}) {
      MultiLayerConfiguration vocab = base(3).layer(given).layer(new RnnOutputLayer.Builder().nOut(2).build())
          .setInputType(InputType.recurrent(7, 4)).build();
      assertEquals(7, vocab.layers().get(0).nIn());
      assertEquals(InputType.recurrent(1, 4), vocab.inputType(), "the network takes indices");
      assertEquals(InputType.recurrent(3, 4), vocab.layerInput(1));
      assertEquals(vocab.toJson(), MultiLayerConfiguration.fromJson(vocab.toJson()).toJson());
      try (MultiLayerNetwork net = new MultiLayerNetwork(vocab);
          Tensor ok = Tensor.from(new float[] {6, 0, 6, 2}, 1, 1, 4);
          Tensor bad = Tensor.from(new float[] {7, 0, 6, 2}, 1, 4)) {
        net.init();
        assertEquals(7 * 3 + 3 * 2 + 2, net.numParams());
        try (Tensor y = net.output(ok)) {
          float[] v = y.toFloatArray();  // [1, 2, 4]: steps 0 and 2 read the same row 6
          assertEquals(v[0], v[2]);
          assertEquals(v[4], v[6]);
        }
        IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> net.output(bad).close());
        assertTrue(ex.getMessage().contains("7"), ex.getMessage());
      }
    }
    // Refusals: not first, nIn or nOut missing, wrapped, a bad inputLength.
    IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> base(3)
        .layer(new LSTM.Builder().nOut(1).build()).layer(embedding(5, 3, false, null))
        .layer(new RnnOutputLayer.Builder().nOut(2).build()).setInputType(InputType.recurrent(1)).build());
    assertTrue(ex.getMessage().contains("only the first layer"), ex.getMessage());
    ex = assertThrows(IllegalArgumentException.class, () -> base(3).layer(embedding(5, 3, false, null))
        .layer(new RnnOutputLayer.Builder().nOut(2).build()).setInputType(InputType.feedForward(4)).build());
    assertTrue(ex.getMessage().contains("InputType.recurrent(1)"), ex.getMessage());
    ex = assertThrows(IllegalArgumentException.class, () -> base(3).layer(new EmbeddingSequenceLayer.Builder().nOut(3).build())
        .layer(new RnnOutputLayer.Builder().nOut(2).build()).setInputType(InputType.recurrent(1)).build());
    assertTrue(ex.getMessage().contains("nIn"), ex.getMessage());
    ex = assertThrows(IllegalArgumentException.class, () -> base(3).layer(new EmbeddingSequenceLayer.Builder().nIn(3).build())
        .layer(new RnnOutputLayer.Builder().nOut(2).build()).setInputType(InputType.recurrent(1)).build());
    assertTrue(ex.getMessage().contains("nOut"), ex.getMessage());
    ex = assertThrows(IllegalArgumentException.class, () -> base(3)
        .layer(new EmbeddingSequenceLayer.Builder().nIn(5).nOut(3).inputLength(4).inferInputLength(false).build())
        .layer(new RnnOutputLayer.Builder().nOut(2).build()).setInputType(InputType.recurrent(1, 6)).build());
    assertTrue(ex.getMessage().contains("inputLength"), ex.getMessage());
    assertThrows(IllegalArgumentException.class, () -> new LastTimeStep(embedding(5, 3, false, null)));
    assertThrows(IllegalArgumentException.class, () -> new Bidirectional(embedding(5, 3, false, null)));
    assertThrows(IllegalArgumentException.class, () -> new EmbeddingSequenceLayer.Builder().inferInputLength(false).build());
    assertThrows(IllegalArgumentException.class, () -> new EmbeddingSequenceLayer.Builder().inputLength(0));
  }

  @Test
  void jsonAndSaveLoadRoundTrip(@TempDir Path dir) throws Exception {
    List<MultiLayerConfiguration> confs = List.of(
        base(20).layer(new EmbeddingSequenceLayer.Builder().nIn(9).nOut(5).hasBias(true).activation(Activation.TANH)
                .weightInit(WeightInit.NORMAL).build())
            .layer(new LSTM.Builder().nOut(4).build())
            .layer(new RnnOutputLayer.Builder(LossFunction.MCXENT).nOut(3).activation(Activation.SOFTMAX).build())
            .setInputType(InputType.recurrent(1)).backpropType(BackpropType.TruncatedBPTT).tBPTTLength(3).build(),
        new NeuralNetConfiguration.Builder().seed(21).updater(new Adam(0.01)).list()
            .layer(new EmbeddingSequenceLayer.Builder().nIn(9).nOut(4).inputLength(6).inferInputLength(false).build())
            .layer(new RnnOutputLayer.Builder(LossFunction.MCXENT).nOut(3).activation(Activation.SOFTMAX).build())
            .build());
    int k = 0;
    for (MultiLayerConfiguration conf : confs) {
      String json = conf.toJson();
      assertTrue(json.contains("\"EmbeddingSequenceLayer\""), json);
      MultiLayerConfiguration back = MultiLayerConfiguration.fromJson(json);
      assertEquals(conf, back);
      assertEquals(json, back.toJson());
      EmbeddingSequenceLayer a = (EmbeddingSequenceLayer) conf.layers().get(0);
      EmbeddingSequenceLayer b = (EmbeddingSequenceLayer) back.layers().get(0);
      assertEquals(a.hasBias(), b.hasBias());
      assertEquals(a.inputLength(), b.inputLength());
      assertEquals(a.inferInputLength(), b.inferInputLength());
      assertEquals(a.activation(), b.activation());
      assertEquals(a.weightInit(), b.weightInit());
      Random r = new Random(22 + k);
      File f = dir.resolve("emb" + k++ + ".zip").toFile();
      try (MultiLayerNetwork net = new MultiLayerNetwork(conf);
           DataSet ds = new DataSet(Tensor.from(randomIndices(r, 3, 6, 9), 3, 6),
               Tensor.from(RecurrentNetworkTest.oneHotSeq(r, 3, 3, 6), 3, 3, 6),
               Tensor.from(RecurrentNetworkTest.prefixMask(6, 6, 4, 5), 3, 6), null)) {
        net.init();
        for (int i = 0; i < 3; ++i) {
          net.fit(ds);
        }
        net.save(f);
        try (MultiLayerNetwork loaded = MultiLayerNetwork.load(f);
             Tensor o1 = net.output(ds.features(), ds.featuresMask());
             Tensor o2 = loaded.output(ds.features(), ds.featuresMask())) {
          assertEquals(net.getConfiguration(), loaded.getConfiguration());
          MultiLayerNetworkTest.assertBits(o1.toFloatArray(), o2.toFloatArray());
          net.fit(ds);
          loaded.fit(ds);
          MultiLayerNetworkTest.assertBits(net.params().toFloatArray(), loaded.params().toFloatArray());
        }
      }
    }
  }

  // ------------------------------------------------------------------------- a character model

  /** Text of a few sentences in random order: what a character model can learn quickly. */
  static String text(Random r, int chars) {
    String[] sentences = {"the cat sat on the mat. ", "a dog ate the hat! ", "to be or not to be? ", "tea at ten. "};
    StringBuilder sb = new StringBuilder();
    while (sb.length() < chars) {
      sb.append(sentences[r.nextInt(sentences.length)]);
    }
    return sb.substring(0, chars);
  }

  /**
   * Embedding (or one-hot, as Deeplearning4j's character example) -> LSTM -> RnnOutputLayer on
   * next-character prediction with truncated BPTT: the loss per character falls well below chance
   * (log of the vocabulary) and below where it started, and rnnTimeStep continues a prompt with a
   * character that follows it in the text.
   */
  @Test
  void characterModelTrainsDown() {
    String chars = " .!?abcdeghimnorstw";
    int v = chars.length();
    int n = 16;
    int t = 30;
    for (boolean oneHot : new boolean[] {false, true}) {
      MultiLayerConfiguration conf = new NeuralNetConfiguration.Builder().seed(30).weightInit(WeightInit.XAVIER)
          .updater(new Adam(0.02)).list()
          .layer(oneHot ? new LSTM.Builder().nOut(32).build() : embedding(v, 8, false, null))
          .layer(new LSTM.Builder().nOut(32).build())
          .layer(new RnnOutputLayer.Builder(LossFunction.MCXENT).nOut(v).activation(Activation.SOFTMAX).build())
          .setInputType(InputType.recurrent(oneHot ? v : 1))
          .backpropType(BackpropType.TruncatedBPTT).tBPTTLength(15)
          .build();
      Random r = new Random(31);
      try (MultiLayerNetwork net = new MultiLayerNetwork(conf); DataSet test = batch(text(new Random(99), 4000), chars, 32, t,
          new Random(98), oneHot)) {
        net.init();
        double first = net.score(test) / t;
        String train = text(r, 20000);
        for (int i = 0; i < 150; ++i) {
          try (DataSet ds = batch(train, chars, n, t, r, oneHot)) {
            net.fit(ds);
          }
        }
        double last = net.score(test) / t;
        double chance = Math.log(v);
        assertTrue(first > 0.9 * chance, (oneHot ? "one-hot" : "embedding") + ": starts near chance: " + first + " vs "
            + chance);
        assertTrue(last < 0.25 * chance && last < 0.25 * first, (oneHot ? "one-hot" : "embedding")
            + ": loss per character " + first + " -> " + last + " (chance " + chance + ")");
        // "the cat sat on th" is always followed by "e".
        String prompt = "the cat sat on th";
        net.rnnClearPreviousState();
        float[] last1 = null;
        for (char ch : prompt.toCharArray()) {
          try (Tensor x = oneHot ? oneHotStep(chars, ch) : Tensor.from(new float[] {chars.indexOf(ch)}, 1, 1);
               Tensor o = net.rnnTimeStep(x)) {
            last1 = o.toFloatArray();
          }
        }
        int best = 0;
        for (int k = 1; k < v; ++k) {
          best = last1[k] > last1[best] ? k : best;
        }
        assertEquals('e', chars.charAt(best), (oneHot ? "one-hot" : "embedding") + ": the most likely next character");
      }
    }
  }

  static Tensor oneHotStep(String chars, char ch) {
    float[] x = new float[chars.length()];
    x[chars.indexOf(ch)] = 1;
    return Tensor.from(x, 1, chars.length());
  }

  /** n random windows of t + 1 characters: inputs (indices [n, 1, t] or one-hot [n, v, t]) and next-character labels. */
  static DataSet batch(String text, String chars, int n, int t, Random r, boolean oneHot) {
    int v = chars.length();
    float[] x = new float[oneHot ? n * v * t : n * t];
    float[] y = new float[n * v * t];
    for (int b = 0; b < n; ++b) {
      int start = r.nextInt(text.length() - t - 1);
      for (int s = 0; s < t; ++s) {
        int in = chars.indexOf(text.charAt(start + s));
        int next = chars.indexOf(text.charAt(start + s + 1));
        if (oneHot) {
          x[(b * v + in) * t + s] = 1;
        } else {
          x[b * t + s] = in;
        }
        y[(b * v + next) * t + s] = 1;
      }
    }
    return new DataSet(oneHot ? Tensor.from(x, n, v, t) : Tensor.from(x, n, 1, t), Tensor.from(y, n, v, t));
  }
}
