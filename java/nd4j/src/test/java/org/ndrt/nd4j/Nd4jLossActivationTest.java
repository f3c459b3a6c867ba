package org.ndrt.nd4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import java.util.function.DoubleUnaryOperator;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.activations.IActivation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.impl.reduce.floating.Norm2;
import org.nd4j.linalg.api.ops.impl.scalar.ScalarAdd;
import org.nd4j.linalg.api.ops.impl.transforms.custom.SoftMax;
import org.nd4j.linalg.api.ops.impl.transforms.strict.Tanh;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.AdaDelta;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.learning.config.Nadam;
import org.nd4j.linalg.learning.config.Nesterovs;
import org.nd4j.linalg.learning.config.NoOp;
import org.nd4j.linalg.learning.config.RmsProp;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.ILossFunction;
import org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction;
import org.nd4j.linalg.lossfunctions.impl.LossMCXENT;
import org.nd4j.linalg.schedule.MapSchedule;
import org.nd4j.linalg.schedule.ScheduleType;
import org.nd4j.linalg.schedule.StepSchedule;

/**
 * Activations (forward, backward), losses (scores, per-example scores, gradients with weights and
 * masks), the executioner's ops, updater configurations and schedules: every element against float64
 * references computed here on random data; the refusals name what is missing.
 */
class Nd4jLossActivationTest {
  private final Random rng = new Random(20261128);
  private static final int N = 5, C = 4;

  private double[][] rand(double lo, double hi) {
    double[][] d = new double[N][C];
    for (double[] r : d) {
      for (int j = 0; j < C; j++) {
        r[j] = lo + (hi - lo) * rng.nextDouble();
      }
    }
    return d;
  }

  private double[][] oneHot() {
    double[][] d = new double[N][C];
    for (double[] r : d) {
      r[rng.nextInt(C)] = 1;
    }
    return d;
  }

  private static INDArray arr(double[][] d) {
    return Nd4j.create(d).castTo(DataType.DOUBLE);
  }

  private static void close(double[][] want, INDArray got, double tol) {
    double[][] g = got.castTo(DataType.DOUBLE).toDoubleMatrix();
    assertEquals(want.length, g.length, "rows");
    for (int i = 0; i < want.length; i++) {
      for (int j = 0; j < want[i].length; j++) {
        assertEquals(want[i][j], g[i][j], tol * Math.max(1, Math.abs(want[i][j])), "element " + i + "," + j);
      }
    }
  }

  private static double[][] map(double[][] x, DoubleUnaryOperator f) {
    double[][] r = new double[x.length][];
    for (int i = 0; i < x.length; i++) {
      r[i] = new double[x[i].length];
      for (int j = 0; j < x[i].length; j++) {
        r[i][j] = f.applyAsDouble(x[i][j]);
      }
    }
    return r;
  }

  private static double[][] softmax(double[][] z) {
    double[][] r = new double[z.length][];
    for (int i = 0; i < z.length; i++) {
      double m = Double.NEGATIVE_INFINITY, s = 0;
      for (double v : z[i]) {
        m = Math.max(m, v);
      }
      r[i] = new double[z[i].length];
      for (int j = 0; j < z[i].length; j++) {
        r[i][j] = Math.exp(z[i][j] - m);
        s += r[i][j];
      }
      for (int j = 0; j < z[i].length; j++) {
        r[i][j] /= s;
      }
    }
    return r;
  }

  private static double sig(double v) {
    return 1 / (1 + Math.exp(-v));
  }

  @Test
  void activationsForwardAndBackwardInPlace() {
    double[][] z = rand(-3, 3), e = rand(-1, 1);
    DoubleUnaryOperator[][] fwdBwd = {
        {v -> v, v -> 1},
        {v -> Math.max(v, 0), v -> v > 0 ? 1 : 0},
        {v -> v > 0 ? v : 0.01 * v, v -> v > 0 ? 1 : 0.01},
        {Math::tanh, v -> 1 - Math.tanh(v) * Math.tanh(v)},
        {Nd4jLossActivationTest::sig, v -> sig(v) * (1 - sig(v))},
        {v -> v > 0 ? v : Math.exp(v) - 1, v -> v > 0 ? 1 : Math.exp(v)},
        {v -> Math.log1p(Math.exp(v)), Nd4jLossActivationTest::sig},
    };
    Activation[] acts = {Activation.IDENTITY, Activation.RELU, Activation.LEAKYRELU, Activation.TANH, Activation.SIGMOID,
        Activation.ELU, Activation.SOFTPLUS};
    for (int k = 0; k < acts.length; k++) {
      IActivation f = acts[k].getActivationFunction();
      INDArray in = arr(z);
      INDArray out = f.getActivation(in, true);
      close(map(z, fwdBwd[k][0]), out, 1e-12);
      close(map(z, fwdBwd[k][0]), in, 1e-12); // in place, as ND4J
      DoubleUnaryOperator d = fwdBwd[k][1];
      double[][] want = new double[N][C];
      for (int i = 0; i < N; i++) {
        for (int j = 0; j < C; j++) {
          want[i][j] = d.applyAsDouble(z[i][j]) * e[i][j];
        }
      }
      close(want, f.backprop(arr(z), arr(e)).getFirst(), 1e-12);
    }
    // softmax: dz_j = y_j (e_j - sum_k e_k y_k)
    double[][] y = softmax(z);
    close(y, Activation.SOFTMAX.getActivationFunction().getActivation(arr(z), false), 1e-12);
    double[][] want = new double[N][C];
    for (int i = 0; i < N; i++) {
      double dot = 0;
      for (int j = 0; j < C; j++) {
        dot += e[i][j] * y[i][j];
      }
      for (int j = 0; j < C; j++) {
        want[i][j] = y[i][j] * (e[i][j] - dot);
      }
    }
    close(want, Activation.SOFTMAX.getActivationFunction().backprop(arr(z), arr(e)).getFirst(), 1e-12);
  }

  @Test
  void activationRefusalsAndMapping() {
    UnsupportedOperationException ex = assertThrows(UnsupportedOperationException.class,
        () -> Activation.SWISH.getActivationFunction());
    assertTrue(ex.getMessage().contains("SWISH"), ex.getMessage());
    assertEquals(org.ndrt.nn.conf.Activation.RELU, Activation.RELU.toNdrt());
    assertEquals(org.ndrt.nn.conf.Activation.SOFTMAX, Activation.fromString("softmax").toNdrt());
    assertThrows(UnsupportedOperationException.class, () -> Activation.CUBE.toNdrt());
    assertThrows(IllegalStateException.class,
        () -> Activation.TANH.getActivationFunction().backprop(Nd4j.ones(2, 3), Nd4j.ones(3, 2)));
  }

  /** Per-example scores, the averaged score and the gradient of one loss against references. */
  private void checkLoss(ILossFunction loss, Activation act, double[][] y, double[][] z, double[][] perExample,
      double[][] grad) {
    IActivation f = act.getActivationFunction();
    close(perExample, loss.computeScoreArray(arr(y), arr(z), f, null), 1e-10);
    double sum = 0;
    for (double[] r : perExample) {
      sum += r[0];
    }
    assertEquals(sum / N, loss.computeScore(arr(y), arr(z), f, null, true), 1e-10);
    assertEquals(sum, loss.computeScore(arr(y), arr(z), f, null, false), 1e-10);
    close(grad, loss.computeGradient(arr(y), arr(z), f, null), 1e-10);
    // a per-example mask zeroes rows 1 and 3 of both
    INDArray mask = Nd4j.create(new double[] {1, 0, 1, 0, 1}, new long[] {N, 1}, DataType.DOUBLE);
    double masked = perExample[0][0] + perExample[2][0] + perExample[4][0];
    assertEquals(masked / N, loss.computeScore(arr(y), arr(z), f, mask, true), 1e-10);
    double[][] g = loss.computeGradient(arr(y), arr(z), f, mask).toDoubleMatrix();
    for (int j = 0; j < C; j++) {
      assertEquals(0, g[1][j], 0);
      assertEquals(grad[2][j], g[2][j], 1e-10);
    }
  }

  @Test
  void lossesAgainstReferences() {
    double[][] z = rand(-2, 2), y = oneHot(), r = rand(-1, 1);
    double[][] sm = softmax(z), s = map(z, Nd4jLossActivationTest::sig);
    double[][] ceEx = new double[N][1], ceGrad = new double[N][C], bceEx = new double[N][1], bceGrad = new double[N][C];
    double[][] mseEx = new double[N][1], mseGrad = new double[N][C], l1Ex = new double[N][1], l1Grad = new double[N][C];
    double[][] l2Ex = new double[N][1], l2Grad = new double[N][C];
    for (int i = 0; i < N; i++) {
      for (int j = 0; j < C; j++) {
        ceEx[i][0] -= y[i][j] * Math.log(sm[i][j]);
        ceGrad[i][j] = sm[i][j] - y[i][j];
        bceEx[i][0] -= y[i][j] * Math.log(s[i][j]) + (1 - y[i][j]) * Math.log(1 - s[i][j]);
        bceGrad[i][j] = s[i][j] - y[i][j];
        double d = z[i][j] - r[i][j];
        l2Ex[i][0] += d * d;
        l2Grad[i][j] = 2 * d;
        mseEx[i][0] += d * d / C;
        mseGrad[i][j] = 2 * d / C;
        l1Ex[i][0] += Math.abs(d);
        l1Grad[i][j] = Math.signum(d);
      }
    }
    checkLoss(LossFunction.MCXENT.getILossFunction(), Activation.SOFTMAX, y, z, ceEx, ceGrad);
    checkLoss(LossFunction.NEGATIVELOGLIKELIHOOD.getILossFunction(), Activation.SOFTMAX, y, z, ceEx, ceGrad);
    checkLoss(LossFunction.XENT.getILossFunction(), Activation.SIGMOID, y, z, bceEx, bceGrad);
    checkLoss(LossFunction.MSE.getILossFunction(), Activation.IDENTITY, r, z, mseEx, mseGrad);
    checkLoss(LossFunction.L2.getILossFunction(), Activation.IDENTITY, r, z, l2Ex, l2Grad);
    checkLoss(LossFunction.L1.getILossFunction(), Activation.IDENTITY, r, z, l1Ex, l1Grad);
  }

  @Test
  void weightedCrossEntropy() {
    double[][] z = rand(-2, 2), y = oneHot(), sm = softmax(z);
    double[] w = {1, 2, 0.5, 3};
    INDArray wa = Nd4j.create(w, new long[] {1, C}, DataType.DOUBLE);
    double[][] ex = new double[N][1], grad = new double[N][C];
    for (int i = 0; i < N; i++) {
      double wy = 0;
      for (int j = 0; j < C; j++) {
        ex[i][0] -= w[j] * y[i][j] * Math.log(sm[i][j]);
        wy += w[j] * y[i][j];
      }
      for (int j = 0; j < C; j++) {
        grad[i][j] = sm[i][j] * wy - w[j] * y[i][j];
      }
    }
    checkLoss(new LossMCXENT(wa), Activation.SOFTMAX, y, z, ex, grad);
  }

  @Test
  void lossErrorsAndMapping() {
    ILossFunction mse = LossFunction.MSE.getILossFunction();
    IActivation id = Activation.IDENTITY.getActivationFunction();
    assertThrows(IllegalStateException.class, () -> mse.computeScore(Nd4j.ones(2, 3), Nd4j.ones(3, 2), id, null, true));
    UnsupportedOperationException ex = assertThrows(UnsupportedOperationException.class,
        () -> LossFunction.HINGE.getILossFunction());
    assertTrue(ex.getMessage().contains("HINGE"), ex.getMessage());
    assertEquals(org.ndrt.nn.conf.LossFunction.NEGATIVELOGLIKELIHOOD, LossFunction.NEGATIVELOGLIKELIHOOD.toNdrt());
    assertEquals(org.ndrt.nn.conf.LossFunction.L1, LossFunction.MEAN_ABSOLUTE_ERROR.toNdrt());
    assertThrows(UnsupportedOperationException.class, () -> LossFunction.L1.toNdrt());
    assertEquals("LossMCXENT()", new LossMCXENT().toString());
  }

  @Test
  void executionerOps() {
    double[][] z = rand(-2, 2);
    INDArray a = arr(z);
    INDArray t = Nd4j.getExecutioner().exec(new Tanh(a));
    close(map(z, Math::tanh), a, 1e-12); // in place
    assertEquals(a, t);
    close(softmax(z), Nd4j.exec(new SoftMax(arr(z)))[0], 1e-12);
    INDArray b = arr(z);
    Nd4j.getExecutioner().exec(new ScalarAdd(b, 2.5));
    close(map(z, v -> v + 2.5), b, 1e-12);
    double[][] norms = new double[N][1];
    for (int i = 0; i < N; i++) {
      for (double v : z[i]) {
        norms[i][0] += v * v;
      }
      norms[i][0] = Math.sqrt(norms[i][0]);
    }
    close(norms, Nd4j.getExecutioner().exec(new Norm2(arr(z), true, 1)), 1e-12);
  }

  @Test
  void updatersMapToNdrtOrRefuseByName() {
    assertEquals(new org.ndrt.nn.updater.Adam(0.01, 0.8, 0.99, 1e-7), new Adam(0.01, 0.8, 0.99, 1e-7).toNdrt());
    assertEquals(new org.ndrt.nn.updater.Nesterovs(0.1, 0.95), new Nesterovs(0.1, 0.95).toNdrt());
    assertEquals(new org.ndrt.nn.updater.Sgd(0.05), new Sgd(0.05).toNdrt());
    assertEquals(new org.ndrt.nn.updater.RmsProp(0.1, 0.95, 1e-8), new RmsProp().toNdrt());
    assertInstanceOf(org.ndrt.nn.updater.AdaGrad.class, new org.nd4j.linalg.learning.config.AdaGrad().toNdrt());
    for (org.nd4j.linalg.learning.config.IUpdater u : new org.nd4j.linalg.learning.config.IUpdater[] {new Nadam(),
        new AdaDelta(), new NoOp()}) {
      UnsupportedOperationException ex = assertThrows(UnsupportedOperationException.class, u::toNdrt);
      assertTrue(ex.getMessage().startsWith(u.getClass().getSimpleName()), ex.getMessage());
    }
    assertThrows(UnsupportedOperationException.class, () -> new Adam(new StepSchedule(ScheduleType.EPOCH, 1, 0.5, 2)).toNdrt());
    assertEquals(0.001, new Adam().getLearningRate(), 0);
    assertEquals(2 * 7, new Adam().stateSize(7));
    Adam c = new Adam(0.02);
    assertEquals(c, c.clone());
    assertEquals("Sgd(learningRate=0.05, learningRateSchedule=null)", new Sgd(0.05).toString());
  }

  @Test
  void schedules() {
    MapSchedule m = new MapSchedule.Builder(ScheduleType.ITERATION).add(0, 1.0).add(4, 0.5).add(9, 0.25).build();
    double[] want = {1, 1, 1, 1, 0.5, 0.5, 0.5, 0.5, 0.5, 0.25, 0.25};
    for (int i = 0; i < want.length; i++) {
      assertEquals(want[i], m.valueAt(i, 100), 0);
    }
    assertThrows(IllegalArgumentException.class, () -> new MapSchedule.Builder(ScheduleType.EPOCH).add(1, 0.1).build());
    StepSchedule s = new StepSchedule(ScheduleType.EPOCH, 0.8, 0.5, 3);
    for (int e = 0; e < 10; e++) {
      assertEquals(0.8 * Math.pow(0.5, Math.floor(e / 3.0)), s.valueAt(0, e), 1e-15);
    }
    assertEquals(0.25, new Sgd(m).getLearningRate(10, 0), 0);
  }
}
