package org.ndrt.nd4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.nd4j.evaluation.EvaluationAveraging;
import org.nd4j.evaluation.classification.Evaluation;
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
}
