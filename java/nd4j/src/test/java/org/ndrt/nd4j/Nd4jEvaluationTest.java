package org.ndrt.nd4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.nd4j.evaluation.EvaluationAveraging;
import org.nd4j.evaluation.classification.Evaluation;
import org.nd4j.evaluation.classification.EvaluationBinary;
import org.nd4j.evaluation.classification.ROC;
import org.nd4j.evaluation.classification.ROCMultiClass;
import org.nd4j.evaluation.regression.RegressionEvaluation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/** Evaluation and RegressionEvaluation against counts and float64 references computed here. */
class Nd4jEvaluationTest {
  private final Random rng = new Random(20261130);

  @Test
  void classificationAgainstCounts() {
    int n = 200, c = 5;
    double[][] y = new double[n][c], p = new double[n][c];
    int[] actual = new int[n], predicted = new int[n];
    double[] mask = new double[n];
    for (int i = 0; i < n; i++) {
      actual[i] = rng.nextInt(c);
      y[i][actual[i]] = 1;
      for (int j = 0; j < c; j++) {
        p[i][j] = rng.nextDouble();
      }
      predicted[i] = 0;
      for (int j = 1; j < c; j++) {
        predicted[i] = p[i][j] > p[i][predicted[i]] ? j : predicted[i];
      }
      mask[i] = rng.nextInt(4) == 0 ? 0 : 1;
    }
    Evaluation e = new Evaluation();
    INDArray mArr = Nd4j.create(mask, new long[] {n, 1}, DataType.FLOAT);
    e.eval(Nd4j.create(y).castTo(DataType.FLOAT), Nd4j.create(p).castTo(DataType.FLOAT), mArr);
    long[][] cm = new long[c][c];
    int rows = 0;
    for (int i = 0; i < n; i++) {
      if (mask[i] != 0) {
        cm[actual[i]][predicted[i]]++;
        rows++;
      }
    }
    assertEquals(rows, e.getNumRowCounter());
    double correct = 0, precSum = 0, recSum = 0, f1Sum = 0;
    for (int k = 0; k < c; k++) {
      correct += cm[k][k];
      long predK = 0, actK = 0;
      for (int j = 0; j < c; j++) {
        predK += cm[j][k];
        actK += cm[k][j];
        assertEquals(cm[k][j], e.getConfusionMatrix().getCount(k, j));
      }
      double prec = (double) cm[k][k] / predK, rec = (double) cm[k][k] / actK;
      assertEquals(prec, e.precision(k), 1e-15);
      assertEquals(rec, e.recall(k), 1e-15);
      assertEquals(2 * prec * rec / (prec + rec), e.f1(k), 1e-15);
      precSum += prec;
      recSum += rec;
      f1Sum += 2 * prec * rec / (prec + rec);
    }
    assertEquals(correct / rows, e.accuracy(), 1e-15);
    assertEquals(precSum / c, e.precision(), 1e-15);
    assertEquals(recSum / c, e.recall(), 1e-15);
    assertEquals(f1Sum / c, e.f1(), 1e-15);
    assertEquals(correct / rows, e.precision(EvaluationAveraging.Micro), 1e-15);
    Evaluation half = new Evaluation(c);
    half.eval(Nd4j.create(y).getRows(0, 1, 2), Nd4j.create(p).getRows(0, 1, 2));
    Evaluation other = new Evaluation(c);
    other.eval(Nd4j.create(y).getRows(3, 4), Nd4j.create(p).getRows(3, 4));
    half.merge(other);
    assertEquals(5, half.getNumRowCounter());
    assertTrue(e.stats().contains("# of classes:    5"));
  }

  @Test
  void classificationErrors() {
    assertThrows(IllegalStateException.class, () -> new Evaluation().accuracy());
    assertEquals("Evaluation: No data available (no evaluation has been performed)", new Evaluation(3).stats());
    assertThrows(IllegalStateException.class, () -> new Evaluation().eval(Nd4j.ones(4, 3), Nd4j.ones(4, 2)));
    assertThrows(UnsupportedOperationException.class, () -> new Evaluation(Nd4j.ones(3)));
  }

  @Test
  void regressionAgainstReferences() {
    int n = 40, c = 3;
    double[][] y = new double[n][c], p = new double[n][c];
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < c; j++) {
        y[i][j] = rng.nextGaussian() * (j + 1);
        p[i][j] = y[i][j] * 0.8 + rng.nextGaussian() * 0.3;
      }
    }
    RegressionEvaluation r = new RegressionEvaluation();
    INDArray ya = Nd4j.create(y).castTo(DataType.DOUBLE), pa = Nd4j.create(p).castTo(DataType.DOUBLE);
    r.eval(ya.getRows(java.util.stream.IntStream.range(0, 25).toArray()),
        pa.getRows(java.util.stream.IntStream.range(0, 25).toArray()));
    r.eval(ya.getRows(java.util.stream.IntStream.range(25, 40).toArray()),
        pa.getRows(java.util.stream.IntStream.range(25, 40).toArray()));
    for (int j = 0; j < c; j++) {
      double mse = 0, mae = 0, my = 0, mp = 0;
      for (int i = 0; i < n; i++) {
        double d = p[i][j] - y[i][j];
        mse += d * d / n;
        mae += Math.abs(d) / n;
        my += y[i][j] / n;
        mp += p[i][j] / n;
      }
      double sxy = 0, sxx = 0, syy = 0, ssTot = 0;
      for (int i = 0; i < n; i++) {
        sxy += (y[i][j] - my) * (p[i][j] - mp);
        sxx += (y[i][j] - my) * (y[i][j] - my);
        syy += (p[i][j] - mp) * (p[i][j] - mp);
        ssTot += (y[i][j] - my) * (y[i][j] - my);
      }
      assertEquals(mse, r.meanSquaredError(j), 1e-12);
      assertEquals(mae, r.meanAbsoluteError(j), 1e-12);
      assertEquals(Math.sqrt(mse), r.rootMeanSquaredError(j), 1e-12);
      assertEquals(sxy / Math.sqrt(sxx * syy), r.pearsonCorrelation(j), 1e-10);
      assertEquals(1 - mse * n / ssTot, r.rSquared(j), 1e-10);
      assertEquals(mse * n / ssTot, r.relativeSquaredError(j), 1e-10);
    }
    assertTrue(r.stats().startsWith("Column"));
    assertEquals("RegressionEvaluation: No Data", new RegressionEvaluation().stats());
    assertThrows(IllegalArgumentException.class, () -> r.eval(Nd4j.ones(2, 2), Nd4j.ones(2, 2)));
  }

  @Test
  void rocAgainstRankStatistic() {
    int n = 300;
    double[] prob = new double[n], label = new double[n];
    for (int i = 0; i < n; i++) {
      label[i] = rng.nextInt(3) == 0 ? 1 : 0;
      prob[i] = Math.min(1, Math.max(0, 0.3 * label[i] + 0.7 * rng.nextDouble()));
    }
    ROC roc = new ROC();
    roc.eval(Nd4j.create(label, new long[] {n, 1}, DataType.DOUBLE), Nd4j.create(prob, new long[] {n, 1}, DataType.DOUBLE));
    // AUC = P(a positive scores above a negative), distinct scores
    double above = 0, pairs = 0;
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < n; j++) {
        if (label[i] == 1 && label[j] == 0) {
          pairs++;
          above += prob[i] > prob[j] ? 1 : 0;
        }
      }
    }
    assertEquals(above / pairs, roc.calculateAUC(), 1e-12);
    // AUPRC: trapezoids over recall of precision at each cut in descending score
    Integer[] idx = new Integer[n];
    for (int i = 0; i < n; i++) {
      idx[i] = i;
    }
    java.util.Arrays.sort(idx, (a, b) -> Double.compare(prob[b], prob[a]));
    double pos = java.util.Arrays.stream(label).sum(), area = 0, r0 = 0, p0 = 1, tp = 0;
    for (int k = 0; k < n; k++) {
      tp += label[idx[k]];
      double r1 = tp / pos, p1 = tp / (k + 1);
      area += (r1 - r0) * (p0 + p1) / 2;
      r0 = r1;
      p0 = p1;
    }
    assertEquals(area, roc.calculateAUCPR(), 1e-12);
    assertEquals((long) pos, roc.getCountActualPositive());
    ROCMultiClass mc = new ROCMultiClass();
    double[][] y = new double[n][2], q = new double[n][2];
    for (int i = 0; i < n; i++) {
      y[i][(int) label[i]] = 1;
      q[i][1] = prob[i];
      q[i][0] = 1 - prob[i];
    }
    mc.eval(Nd4j.create(y), Nd4j.create(q));
    assertEquals(above / pairs, mc.calculateAUC(1), 1e-12);
    assertEquals(above / pairs, mc.calculateAUC(0), 1e-12);
    assertThrows(IllegalStateException.class, () -> new ROC().calculateAUC());
    assertThrows(UnsupportedOperationException.class, () -> new ROC(10));
  }

  @Test
  void binaryPerOutputAgainstCounts() {
    int n = 50, c = 4;
    double[][] y = new double[n][c], p = new double[n][c], m = new double[n][c];
    double[] thr = {0.2, 0.5, 0.6, 0.9};
    long[][] want = new long[c][4]; // tp tn fp fn
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < c; j++) {
        y[i][j] = rng.nextInt(2);
        p[i][j] = rng.nextDouble();
        m[i][j] = rng.nextInt(5) == 0 ? 0 : 1;
        if (m[i][j] == 0) {
          continue;
        }
        boolean pred = p[i][j] > thr[j], act = y[i][j] == 1;
        want[j][pred && act ? 0 : !pred && !act ? 1 : pred ? 2 : 3]++;
      }
    }
    EvaluationBinary e = new EvaluationBinary(Nd4j.create(thr, new long[] {1, c}, DataType.DOUBLE));
    e.eval(Nd4j.create(y), Nd4j.create(p), Nd4j.create(m));
    for (int j = 0; j < c; j++) {
      assertEquals(want[j][0], e.truePositives(j));
      assertEquals(want[j][1], e.trueNegatives(j));
      assertEquals(want[j][2], e.falsePositives(j));
      assertEquals(want[j][3], e.falseNegatives(j));
      assertEquals((want[j][0] + want[j][1]) / (double) (want[j][0] + want[j][1] + want[j][2] + want[j][3]),
          e.accuracy(j), 1e-15);
    }
    assertThrows(UnsupportedOperationException.class, () -> new EvaluationBinary().accuracy(0));
    assertThrows(UnsupportedOperationException.class, () -> new EvaluationBinary(3, 10));
  }
}
