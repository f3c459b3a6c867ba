package org.ndrt.nn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.File;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ndrt.Tensor;
import org.ndrt.data.DataSet;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.LossFunction;
import org.ndrt.nn.conf.MultiLayerConfiguration;
import org.ndrt.nn.conf.NeuralNetConfiguration;
import org.ndrt.nn.conf.WeightInit;
import org.ndrt.nn.conf.layers.DenseLayer;
import org.ndrt.nn.conf.layers.Layer;
import org.ndrt.nn.conf.layers.OutputLayer;
import org.ndrt.nn.updater.Sgd;

/** Per-layer l1 / l2 / weight decay of weights and biases against a float64 reference of one SGD step. */
class RegularizationTest {
  static final double LR = 0.2;
  static final double NET_L2 = 0.004;
  static final double NET_WD = 0.01;
  // {l1, l2, wd} per range, in the flat layout: W0 [4x5], W1 [5x3] (weights first), b0 [5], b1 [3].
  static final double[][] COEFF = {{0.03, 0.02, 0.1}, {0, 0, NET_WD}, {0.01, 0.05, 0.2}, {0, 0, 0}};
  static final int[] LEN = {20, 15, 5, 3};

  static MultiLayerConfiguration conf(boolean regularised) {
    NeuralNetConfiguration.Builder g = new NeuralNetConfiguration.Builder().seed(5).updater(new Sgd(LR))
        .weightInit(WeightInit.XAVIER);
    DenseLayer.Builder d = new DenseLayer.Builder().nIn(4).nOut(5).activation(Activation.TANH);
    OutputLayer.Builder o = new OutputLayer.Builder(LossFunction.MSE).nOut(3).activation(Activation.IDENTITY);
    if (regularised) {
      g.l2(NET_L2).weightDecay(NET_WD);
      d.l1(0.03).l2(0.02).weightDecay(0.1).l1Bias(0.01).l2Bias(0.05).weightDecayBias(0.2);
      o.l2(0);  // overrides the network's l2; its weights keep the network's weight decay, its biases none
    }
    return g.list().layer(d.build()).layer(o.build()).build();
  }

  static DataSet data() {
    java.util.Random r = new java.util.Random(17);
    float[] x = new float[6 * 4];
    float[] y = new float[6 * 3];
    for (int i = 0; i < x.length; ++i) {
      x[i] = (float) r.nextGaussian();
    }
    for (int i = 0; i < y.length; ++i) {
      y[i] = (float) r.nextGaussian();
    }
    return new DataSet(Tensor.from(x, 6, 4), Tensor.from(y, 6, 3));
  }

  @Test
  void oneSgdStepMatchesAFloat64Reference() {
    try (MultiLayerNetwork net = new MultiLayerNetwork(conf(true)); MultiLayerNetwork plain = new MultiLayerNetwork(conf(false));
         DataSet ds = data()) {
      net.init();
      plain.init();
      // Move the parameters off their init (biases start at 0, where sign() is 0) to random values.
      java.util.Random r = new java.util.Random(3);
      float[] p0 = new float[(int) net.numParams()];
      for (int i = 0; i < p0.length; ++i) {
        p0[i] = (float) (0.5 * r.nextGaussian());
      }
      try (Tensor t = Tensor.from(p0, p0.length)) {
        net.setParams(t);
        plain.setParams(t);
      }
      // The loss gradient without regularisation: the plain network's (its own tests check it).
      double loss = plain.computeGradientAndScore(ds);
      float[] g = TrainerSupport.gradients(plain).toFloatArray();
      double term = 0;
      double[] expect = new double[p0.length];
      int at = 0;
      for (int k = 0; k < LEN.length; ++k) {
        double l1 = COEFF[k][0];
        double l2 = COEFF[k][1];
        double wd = COEFF[k][2];
        for (int i = at; i < at + LEN[k]; ++i) {
          double w = p0[i];
          double grad = g[i] + l2 * w + l1 * Math.signum(w);
          expect[i] = w - LR * wd * w - LR * grad;
          term += l1 * Math.abs(w) + 0.5 * (l2 + wd) * w * w;
        }
        at += LEN[k];
      }
      assertEquals(loss + term, net.score(ds), 1e-5 * (loss + term), "score(DataSet) = loss + the regularisation terms");
      net.fit(ds);
      assertEquals(loss + term, net.score(), 1e-5 * (loss + term), "fit's score: before the update, with the terms");
      float[] p1 = net.params().toFloatArray();
      for (int i = 0; i < p1.length; ++i) {
        assertEquals(expect[i], p1[i], 1e-6 + 1e-5 * Math.abs(expect[i]), "parameter " + i);
      }
    }
  }

  @Test
  void uniformL2StaysOnTheFusedPathAndScores() {
    // Every weight with the network's l2 only: the updater op applies it; the score still has the term.
    MultiLayerConfiguration c = new NeuralNetConfiguration.Builder().seed(5).updater(new Sgd(LR)).l2(0.3).list()
        .layer(new DenseLayer.Builder().nIn(4).nOut(5).activation(Activation.TANH).build())
        .layer(new OutputLayer.Builder(LossFunction.MSE).nOut(3).activation(Activation.IDENTITY).l2(0.3).build())
        .build();
    try (MultiLayerNetwork net = new MultiLayerNetwork(c); MultiLayerNetwork plain = new MultiLayerNetwork(conf(false));
         DataSet ds = data()) {
      net.init();
      plain.init();
      float[] p0 = net.params().toFloatArray();
      try (Tensor t = Tensor.from(p0, p0.length)) {
        plain.setParams(t);
      }
      assertEquals(true, net.regularizer().fused());
      double loss = plain.computeGradientAndScore(ds);
      float[] g = TrainerSupport.gradients(plain).toFloatArray();
      double term = 0;
      for (int i = 0; i < 35; ++i) {
        term += 0.15 * p0[i] * p0[i];
      }
      net.fit(ds);
      assertEquals(loss + term, net.score(), 1e-5 * (loss + term));
      float[] p1 = net.params().toFloatArray();
      for (int i = 0; i < p1.length; ++i) {
        double e = p0[i] - LR * (g[i] + (i < 35 ? 0.3 * p0[i] : 0));
        assertEquals(e, p1[i], 1e-6 + 1e-5 * Math.abs(e), "parameter " + i);
      }
    }
  }

  @Test
  void jsonAndSaveLoadKeepThePerLayerSettings(@TempDir Path dir) throws Exception {
    MultiLayerConfiguration c = conf(true);
    MultiLayerConfiguration back = MultiLayerConfiguration.fromJson(c.toJson());
    assertEquals(c, back);
    assertArrayEquals(new double[] {0.03, 0.02, 0.1, 0.01, 0.05, 0.2}, back.layers().get(0).regularization());
    double n = Double.NaN;
    assertArrayEquals(new double[] {n, 0, n, n, n, n}, back.layers().get(1).regularization());
    File f = dir.resolve("net.zip").toFile();
    try (MultiLayerNetwork net = new MultiLayerNetwork(c); DataSet ds = data()) {
      net.init();
      net.fit(ds);
      net.save(f);
      try (MultiLayerNetwork l = MultiLayerNetwork.load(f); MultiLayerNetwork m = net.clone()) {
        assertEquals(c, l.getConfiguration());
        l.fit(ds);
        m.fit(ds);
        assertArrayEquals(m.params().toFloatArray(), l.params().toFloatArray(), "the loaded network trains the same");
        assertEquals(m.score(), l.score(), 0);
      }
    }
    assertThrows(IllegalArgumentException.class, () -> new DenseLayer.Builder().l1(-1));
    Layer plainLayer = new DenseLayer.Builder().nIn(2).nOut(2).build();
    assertEquals(c.toJson().contains("\"weightDecayBias\""), true);
    assertEquals(plainLayer.toJson().containsKey("l2"), false, "unset coefficients are not written");
  }
}
