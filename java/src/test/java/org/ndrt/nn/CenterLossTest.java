package org.ndrt.nn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ndrt.DType;
import org.ndrt.Tensor;
import org.ndrt.data.DataSet;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.LossFunction;
import org.ndrt.nn.conf.MultiLayerConfiguration;
import org.ndrt.nn.conf.NeuralNetConfiguration;
import org.ndrt.nn.conf.layers.CenterLossOutputLayer;
import org.ndrt.nn.conf.layers.DenseLayer;
import org.ndrt.nn.updater.Sgd;

/** CenterLossOutputLayer against float64 references: its loss term, the gradients, the center step. */
class CenterLossTest {
  static final int N = 7;
  static final int IN = 4;
  static final int F = 5;
  static final int C = 3;

  static MultiLayerConfiguration conf(double lambda, boolean gradientCheck) {
    return new NeuralNetConfiguration.Builder().seed(3).updater(new Sgd(0.1)).list()
        .layer(new DenseLayer.Builder().nIn(IN).nOut(F).activation(Activation.TANH).build())
        .layer(new CenterLossOutputLayer.Builder(LossFunction.MCXENT).nOut(C).activation(Activation.SOFTMAX)
            .alpha(0.3).lambda(lambda).gradientCheck(gradientCheck).build())
        .build();
  }

  static double[] randoms(Random r, int n) {
    double[] v = new double[n];
    for (int i = 0; i < n; ++i) {
      v[i] = r.nextDouble() * 2 - 1;
    }
    return v;
  }

  /** One-hot rows; class 2 gets no example (its center must stay). */
  static double[] oneHot(int n) {
    double[] y = new double[n * C];
    for (int i = 0; i < n; ++i) {
      y[i * C + (i % 3 == 2 ? 1 : 0)] = 1;
    }
    return y;
  }

  @Test
  void lossGradientsAndCenterStepMatchFloat64() {
    for (boolean gradCheck : new boolean[] {false, true}) {
      double lambda = 0.7;
      Random r = new Random(9);
      double[] xv = randoms(r, N * IN);
      double[] yv = oneHot(N);
      try (Conv1DGlobalPoolingTest.F64Layers st = new Conv1DGlobalPoolingTest.F64Layers(conf(lambda, gradCheck), 4);
           Conv1DGlobalPoolingTest.F64Layers plain = new Conv1DGlobalPoolingTest.F64Layers(conf(0, gradCheck), 4);
           Tensor x = Tensor.from(xv, N, IN); Tensor y = Tensor.from(yv, N, C)) {
        // f = tanh(x W0 + b0): layer 0's output; the centers are st's random cL.
        double[] f;
        try (Tensor a = st.layers[0].forward(x, true).contiguous()) {
          f = a.toDoubleArray();
        }
        double[] c = st.params.get(1)[2].toDoubleArray();
        double term = 0;
        for (int i = 0; i < N; ++i) {
          int yi = i % 3 == 2 ? 1 : 0;
          for (int k = 0; k < F; ++k) {
            double d = f[i * F + k] - c[yi * F + k];
            term += lambda / (2.0 * N) * d * d;
          }
        }
        double l0 = plain.loss(x, y, null);
        double l = st.loss(x, y, null);
        assertEquals(l0 + term, l, 1e-12, "loss = cross-entropy + lambda / 2N sum |f - c_y|^2");
        Tensor dx = st.backward(y);
        double[] dxv = dx.toDoubleArray();
        // Central differences for every parameter but the centers, and for the input.
        double h = 1e-6;
        for (int i = 0; i < 2; ++i) {
          for (int j = 0; j < 2; ++j) {
            Tensor pt = st.params.get(i)[j];
            double[] p = pt.toDoubleArray();
            double[] g = st.grads.get(i)[j].toDoubleArray();
            for (int k = 0; k < p.length; ++k) {
              double keep = p[k];
              p[k] = keep + h;
              pt.copyFrom(p);
              double lp = st.loss(x, y, null);
              p[k] = keep - h;
              pt.copyFrom(p);
              double lm = st.loss(x, y, null);
              p[k] = keep;
              pt.copyFrom(p);
              double fd = (lp - lm) / (2 * h);
              assertEquals(fd, g[k], 1e-7 + 1e-5 * Math.abs(fd), "layer " + i + " param " + j + "[" + k + "]");
            }
          }
        }
        for (int k = 0; k < xv.length; ++k) {
          double keep = xv[k];
          xv[k] = keep + h;
          x.copyFrom(xv);
          double lp = st.loss(x, y, null);
          xv[k] = keep - h;
          x.copyFrom(xv);
          double lm = st.loss(x, y, null);
          xv[k] = keep;
          x.copyFrom(xv);
          double fd = (lp - lm) / (2 * h);
          assertEquals(fd, dxv[k], 1e-7 + 1e-5 * Math.abs(fd), "dL/dx[" + k + "]");
        }
        // The center step (Deeplearning4j's): c_j += alpha sum_{y_i=j}(f_i - c_j) / (1 + n_j) / N, or for
        // gradientCheck alpha lambda sum_{y_i=j}(f_i - c_j) / N; applied after the update.
        st.loss(x, y, null);
        st.backward(y);
        assertEquals(c[0], st.params.get(1)[2].toDoubleArray()[0], 0, "the centers wait for the update");
        st.layers[1].afterUpdate();
        double[] c1 = st.params.get(1)[2].toDoubleArray();
        for (int j = 0; j < C; ++j) {
          int nj = 0;
          double[] sum = new double[F];
          for (int i = 0; i < N; ++i) {
            if ((i % 3 == 2 ? 1 : 0) == j) {
              ++nj;
              for (int k = 0; k < F; ++k) {
                sum[k] += f[i * F + k] - c[j * F + k];
              }
            }
          }
          for (int k = 0; k < F; ++k) {
            double step = gradCheck ? 0.3 * lambda * sum[k] / N : 0.3 * sum[k] / (1 + nj) / N;
            assertEquals(c[j * F + k] + step, c1[j * F + k], 1e-12, "center " + j + "[" + k + "]");
          }
        }
        assertTrue(c1[0] != c[0], "class 0's center moved");
      }
    }
  }

  @Test
  void networkTrainsSavesAndLoads(@TempDir Path dir) throws Exception {
    Random r = new Random(5);
    float[] xv = new float[32 * IN];
    float[] yv = new float[32 * C];
    for (int i = 0; i < 32; ++i) {
      int k = r.nextInt(C);
      yv[i * C + k] = 1;
      for (int j = 0; j < IN; ++j) {
        xv[i * IN + j] = (float) (r.nextGaussian() * 0.5 + (j == k ? 2 : 0));
      }
    }
    MultiLayerConfiguration c = conf(0.1, false);
    assertEquals(c, MultiLayerConfiguration.fromJson(c.toJson()));
    File f = dir.resolve("center.zip").toFile();
    try (MultiLayerNetwork net = new MultiLayerNetwork(c);
         DataSet ds = new DataSet(Tensor.from(xv, 32, IN), Tensor.from(yv, 32, C))) {
      net.init();
      assertEquals(IN * F + F + F * C + C + C * F, net.numParams(), "W, b and the centers cL");
      double first = net.score(ds);
      for (int i = 0; i < 30; ++i) {
        net.fit(ds);
      }
      assertTrue(net.score(ds) < first, first + " -> " + net.score(ds));
      float[] p = net.params().toFloatArray();
      boolean moved = false;
      for (int i = p.length - C * F; i < p.length; ++i) {
        moved |= p[i] != 0;
      }
      assertTrue(moved, "the centers (starting at 0) moved");
      net.save(f);
      try (MultiLayerNetwork back = MultiLayerNetwork.load(f)) {
        assertEquals(net.score(ds), back.score(ds), 0, "the loaded network has the same centers");
      }
    }
    MultiLayerConfiguration mixed = new NeuralNetConfiguration.Builder().dataType(DType.BF16).list()
        .layer(new CenterLossOutputLayer.Builder(LossFunction.MCXENT).nIn(IN).nOut(C).build()).build();
    try (MultiLayerNetwork m = new MultiLayerNetwork(mixed)) {
      assertThrows(UnsupportedOperationException.class, m::init);
    }
  }
}
