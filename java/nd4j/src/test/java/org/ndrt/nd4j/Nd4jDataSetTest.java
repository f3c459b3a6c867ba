package org.ndrt.nd4j;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.MultiDataSet;
import org.nd4j.linalg.dataset.SplitTestAndTrain;
import org.nd4j.linalg.dataset.ViewIterator;
import org.nd4j.linalg.dataset.api.preprocessor.ImagePreProcessingScaler;
import org.nd4j.linalg.dataset.api.preprocessor.NormalizerMinMaxScaler;
import org.nd4j.linalg.dataset.api.preprocessor.NormalizerStandardize;
import org.nd4j.linalg.exception.ND4JIllegalStateException;
import org.nd4j.linalg.factory.Nd4j;

/**
 * DataSet splitting, ranges, batching, merging and shuffling; MultiDataSet; the normalizers (fitted on
 * a data set, an iterator, time series with masks) against float64 references on random data.
 */
class Nd4jDataSetTest {
  private final Random rng = new Random(20261129);

  private double[][] rand(int n, int c, double lo, double hi) {
    double[][] d = new double[n][c];
    for (double[] r : d) {
      for (int j = 0; j < c; j++) {
        r[j] = lo + (hi - lo) * rng.nextDouble();
      }
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

  /** Row i of the features is [i, 10 i, ...] and its label is one-hot i % 3: pairs stay recognisable. */
  private static DataSet indexed(int n) {
    double[][] f = new double[n][4], l = new double[n][3];
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < 4; j++) {
        f[i][j] = i * Math.pow(10, j);
      }
      l[i][i % 3] = 1;
    }
    return new DataSet(arr(f), arr(l));
  }

  @Test
  void splitRangeBatchMerge() {
    DataSet ds = indexed(11);
    assertEquals(11, ds.numExamples());
    assertEquals(4, ds.numInputs());
    assertEquals(3, ds.numOutcomes());
    SplitTestAndTrain s = ds.splitTestAndTrain(8);
    assertEquals(8, s.getTrain().numExamples());
    assertEquals(3, s.getTest().numExamples());
    assertEquals(8.0, s.getTest().getFeatures().getDouble(0, 0), 0);
    assertEquals(7, ds.splitTestAndTrain(0.7).getTrain().numExamples());
    DataSet r = (DataSet) ds.getRange(3, 6);
    assertArrayEquals(new long[] {3, 4}, r.getFeatures().shape());
    assertEquals(500.0, r.getFeatures().getDouble(2, 2), 0);
    r.getFeatures().putScalar(0, 0, -1); // a view, as ND4J's
    assertEquals(-1.0, ds.getFeatures().getDouble(3, 0), 0);
    r.getFeatures().putScalar(0, 0, 3);
    List<DataSet> b = ds.batchBy(4);
    assertEquals(3, b.size());
    assertEquals(3, b.get(2).numExamples());
    assertEquals(ds.getFeatures(), DataSet.merge(b).getFeatures());
    assertEquals(ds.getLabels(), DataSet.merge(ds.asList()).getLabels());
    assertEquals(2, ds.get(new int[] {1, 5}).numExamples());
    assertEquals(Double.valueOf(4), ds.labelCounts().get(0));
    assertEquals(Double.valueOf(4), ds.labelCounts().get(1));
    assertEquals(Double.valueOf(3), ds.labelCounts().get(2));
  }

  @Test
  void splitErrors() {
    assertThrows(IllegalStateException.class, () -> indexed(1).splitTestAndTrain(0));
    assertThrows(IllegalArgumentException.class, () -> indexed(5).splitTestAndTrain(5));
    assertThrows(IllegalArgumentException.class, () -> indexed(5).splitTestAndTrain(1.5));
    assertThrows(IllegalArgumentException.class, () -> indexed(5).get(5));
  }

  @Test
  void shuffleIsAPermutationKeepingPairsAndRepeatsWithTheSeed() {
    DataSet a = indexed(20), b = indexed(20);
    a.shuffle(7);
    b.shuffle(7);
    assertEquals(a.getFeatures(), b.getFeatures());
    assertNotEquals(indexed(20).getFeatures(), a.getFeatures());
    double[][] f = a.getFeatures().toDoubleMatrix(), l = a.getLabels().toDoubleMatrix();
    boolean[] seen = new boolean[20];
    for (int i = 0; i < 20; i++) {
      int orig = (int) f[i][0];
      seen[orig] = true;
      assertEquals(orig * 1000.0, f[i][3], 0);
      assertEquals(1.0, l[i][orig % 3], 0, "row " + i + " keeps its label");
    }
    for (boolean s : seen) {
      assertTrue(s);
    }
    DataSet c = indexed(20);
    SplitTestAndTrain s = c.splitTestAndTrain(15, new Random(3));
    assertEquals(15, s.getTrain().numExamples());
  }

  @Test
  void multiDataSet() {
    MultiDataSet m = new MultiDataSet(new INDArray[] {indexed(6).getFeatures(), Nd4j.ones(6, 2)},
        new INDArray[] {indexed(6).getLabels()});
    assertEquals(2, m.numFeatureArrays());
    assertEquals(6, m.asList().size());
    MultiDataSet merged = MultiDataSet.merge(m.asList());
    assertEquals(m.getFeatures(0), merged.getFeatures(0));
    assertEquals(m.getLabels(0), merged.getLabels(0));
    assertEquals(1, indexed(4).toMultiDataSet().numFeatureArrays());
  }

  @Test
  void standardizeAgainstReference() {
    double[][] x = rand(30, 5, -4, 9);
    double[] mean = new double[5], sd = new double[5];
    for (double[] r : x) {
      for (int j = 0; j < 5; j++) {
        mean[j] += r[j] / 30;
      }
    }
    for (double[] r : x) {
      for (int j = 0; j < 5; j++) {
        sd[j] += (r[j] - mean[j]) * (r[j] - mean[j]) / 30;
      }
    }
    double[][] want = new double[30][5];
    for (int i = 0; i < 30; i++) {
      for (int j = 0; j < 5; j++) {
        want[i][j] = (x[i][j] - mean[j]) / Math.sqrt(sd[j]);
      }
    }
    NormalizerStandardize n = new NormalizerStandardize();
    DataSet ds = new DataSet(arr(x), Nd4j.zeros(DataType.DOUBLE, 30, 1));
    n.fit(ds);
    close(new double[][] {mean}, n.getMean(), 1e-12);
    n.transform(ds);
    close(want, ds.getFeatures(), 1e-10);
    n.revert(ds);
    close(x, ds.getFeatures(), 1e-10);
    // fitted batch by batch through an iterator: the same statistics
    NormalizerStandardize it = new NormalizerStandardize();
    it.fit(new ViewIterator(new DataSet(arr(x), Nd4j.zeros(DataType.DOUBLE, 30, 1)), 7));
    close(new double[][] {mean}, it.getMean(), 1e-12);
    close(n.getStd().toDoubleMatrix(), it.getStd(), 1e-12);
    assertThrows(ND4JIllegalStateException.class, () -> new NormalizerStandardize().transform(Nd4j.ones(2, 2)));
  }

  @Test
  void minMaxAndLabelsAgainstReference() {
    double[][] x = rand(20, 3, -2, 5), y = rand(20, 2, 10, 20);
    NormalizerMinMaxScaler n = new NormalizerMinMaxScaler(-1, 1);
    n.fitLabel(true);
    DataSet ds = new DataSet(arr(x), arr(y));
    n.fit(ds);
    n.preProcess(ds);
    for (double[][][] p : new double[][][][] {{x, ds.getFeatures().toDoubleMatrix()}, {y, ds.getLabels().toDoubleMatrix()}}) {
      double[][] d = p[0], got = p[1];
      for (int j = 0; j < d[0].length; j++) {
        double lo = Double.MAX_VALUE, hi = -Double.MAX_VALUE;
        for (double[] r : d) {
          lo = Math.min(lo, r[j]);
          hi = Math.max(hi, r[j]);
        }
        for (int i = 0; i < d.length; i++) {
          assertEquals((d[i][j] - lo) / (hi - lo) * 2 - 1, got[i][j], 1e-12);
        }
      }
    }
    n.revert(ds);
    close(x, ds.getFeatures(), 1e-10);
    close(y, ds.getLabels(), 1e-10);
  }

  @Test
  void timeSeriesWithMaskAndImages() {
    // [N=2, F=2, T=3]; the mask leaves out step 2 of example 1
    double[] v = {1, 2, 3, 4, 5, 6, 7, 8, 100, 10, 11, 200};
    INDArray f = Nd4j.create(v, new long[] {2, 2, 3}, DataType.DOUBLE);
    INDArray mask = Nd4j.create(new double[] {1, 1, 1, 1, 1, 0}, new long[] {2, 3}, DataType.DOUBLE);
    DataSet ds = new DataSet(f, Nd4j.zeros(DataType.DOUBLE, 2, 1, 3), mask, null);
    NormalizerStandardize n = new NormalizerStandardize();
    n.fit(ds);
    // feature 0 over the unmasked steps: 1 2 3 7 8; feature 1: 4 5 6 10 11
    assertEquals(4.2, n.getMean().getDouble(0, 0), 1e-12);
    assertEquals(7.2, n.getMean().getDouble(0, 1), 1e-12);
    n.transform(ds);
    assertEquals(0, ds.getFeatures().getDouble(1, 0, 2), 0); // masked steps are zeroed
    assertEquals((8 - 4.2) / Math.sqrt(Arrays.stream(new double[] {1, 2, 3, 7, 8}).map(a -> (a - 4.2) * (a - 4.2)).sum() / 5),
        ds.getFeatures().getDouble(1, 0, 1), 1e-12);
    INDArray img = Nd4j.create(new double[] {0, 51, 102, 255}, new long[] {1, 1, 2, 2}, DataType.DOUBLE);
    new ImagePreProcessingScaler(-1, 1).transform(img);
    close(new double[][] {{-1, -0.6}, {-0.2, 1}}, img.reshape(2, 2), 1e-12);
  }
}
