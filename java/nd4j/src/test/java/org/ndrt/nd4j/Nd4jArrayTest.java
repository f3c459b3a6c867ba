package org.ndrt.nd4j;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import java.util.function.DoubleBinaryOperator;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.exception.ND4JIllegalStateException;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.INDArrayIndex;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * INDArray against float64 references computed here, on random data (never zero): arithmetic with
 * ND4J's broadcasting and in-place forms, views and write-through, 'c'/'f' orders, reductions, mmul,
 * and the exceptions ND4J throws for bad shapes and indices.
 */
class Nd4jArrayTest {
  private final Random rng = new Random(20261127);

  /** Values in [-2, -0.1] or [0.1, 2]: no zeros, both signs. */
  private double[] data(int n) {
    double[] d = new double[n];
    for (int i = 0; i < n; ++i) {
      double v = 0.1 + 1.9 * rng.nextDouble();
      d[i] = rng.nextBoolean() ? v : -v;
    }
    return d;
  }

  private static void close(double[] want, INDArray got, double tol) {
    assertEquals(want.length, got.length(), "length");
    double[] g = got.dup('c').data().asDouble();
    for (int i = 0; i < want.length; ++i) {
      assertEquals(want[i], g[i], tol * Math.max(1, Math.abs(want[i])), "element " + i);
    }
  }

  private static double[] map(double[] a, double[] b, int rows, int cols, int brows, int bcols, DoubleBinaryOperator f) {
    double[] r = new double[rows * cols];
    for (int i = 0; i < rows; ++i) {
      for (int j = 0; j < cols; ++j) {
        r[i * cols + j] = f.applyAsDouble(a[i * cols + j], b[(brows == 1 ? 0 : i) * bcols + (bcols == 1 ? 0 : j)]);
      }
    }
    return r;
  }

  @Test
  void arithmeticWithArraysScalarsAndBroadcasting() {
    double[] a = data(12), b = data(12), row = data(4), col = data(3);
    INDArray x = Nd4j.create(a, 3, 4), y = Nd4j.create(b, 3, 4);
    close(map(a, b, 3, 4, 3, 4, Double::sum), x.add(y), 1e-12);
    close(map(a, b, 3, 4, 3, 4, (p, q) -> p - q), x.sub(y), 1e-12);
    close(map(a, b, 3, 4, 3, 4, (p, q) -> p * q), x.mul(y), 1e-12);
    close(map(a, b, 3, 4, 3, 4, (p, q) -> p / q), x.div(y), 1e-12);
    close(map(a, b, 3, 4, 3, 4, (p, q) -> q - p), x.rsub(y), 1e-12);
    close(map(a, b, 3, 4, 3, 4, (p, q) -> q / p), x.rdiv(y), 1e-12);
    close(map(a, new double[] {1.5}, 3, 4, 1, 1, (p, q) -> p * q), x.mul(1.5), 1e-12);
    close(map(a, new double[] {1.5}, 3, 4, 1, 1, (p, q) -> q / p), x.rdiv(1.5), 1e-12);
    close(map(a, new double[] {0.25}, 3, 4, 1, 1, (p, q) -> q - p), x.rsub(0.25), 1e-12);
    // row and column vectors: rank 1, [1, n] and [n, 1] all serve
    close(map(a, row, 3, 4, 1, 4, Double::sum), x.addRowVector(Nd4j.create(row)), 1e-12);
    close(map(a, row, 3, 4, 1, 4, (p, q) -> p * q), x.mulRowVector(Nd4j.create(row, 1, 4)), 1e-12);
    close(map(a, col, 3, 4, 3, 1, (p, q) -> p - q), x.subColumnVector(Nd4j.create(col, 3, 1)), 1e-12);
    close(map(a, col, 3, 4, 3, 1, (p, q) -> q / p), x.rdivColumnVector(Nd4j.create(col)), 1e-12);
    // numpy broadcasting through add/mul
    close(map(a, row, 3, 4, 1, 4, (p, q) -> p / q), x.div(Nd4j.create(row, 1, 4)), 1e-12);
    close(map(a, col, 3, 4, 3, 1, Double::sum), x.add(Nd4j.create(col, 3, 1)), 1e-12);
    // the originals are untouched
    close(a, x, 0);
    close(b, y, 0);
  }

  @Test
  void inPlaceFormsWriteThisArrayAndReturnIt() {
    double[] a = data(6), b = data(6), row = data(3);
    INDArray x = Nd4j.create(a, 2, 3);
    assertSame(x, x.addi(Nd4j.create(b, 2, 3)));
    close(map(a, b, 2, 3, 2, 3, Double::sum), x, 1e-12);
    INDArray z = Nd4j.create(a, 2, 3);
    assertSame(z, z.muliRowVector(Nd4j.create(row)));
    close(map(a, row, 2, 3, 1, 3, (p, q) -> p * q), z, 1e-12);
    INDArray w = Nd4j.create(a, 2, 3);
    assertSame(w, w.rsubi(2.0));
    close(map(a, new double[] {2}, 2, 3, 1, 1, (p, q) -> q - p), w, 1e-12);
    INDArray n = Nd4j.create(a, 2, 3);
    assertNotSame(n, n.add(1));
    assertSame(n, n.negi());
    close(map(a, a, 2, 3, 2, 3, (p, q) -> -p), n, 0);
    // an in-place op needs the broadcast shape to be this array's
    assertThrows(IllegalStateException.class, () -> Nd4j.create(a, 2, 3).addi(Nd4j.create(data(12), 4, 3)));
  }

  @Test
  void resultTakesThisArraysDataType() {
    double[] a = data(6);
    INDArray f = Nd4j.create(a, 2, 3).castTo(DataType.FLOAT);
    INDArray d = Nd4j.create(data(6), 2, 3);
    assertEquals(DataType.FLOAT, f.add(d).dataType());
    assertEquals(DataType.DOUBLE, d.add(f).dataType());
    assertEquals(DataType.BOOL, f.gt(0).dataType());
    assertEquals(DataType.LONG, f.argMax(1).dataType());
  }

  @Test
  void viewsShareStorageAndWritesGoThrough() {
    double[] a = data(20);
    INDArray m = Nd4j.create(a.clone(), 4, 5);
    INDArray row = m.getRow(2);
    assertArrayEquals(new long[] {5}, row.shape());
    assertTrue(row.isView());
    row.addi(10);
    INDArray col = m.getColumn(1, true);
    assertArrayEquals(new long[] {4, 1}, col.shape());
    col.muli(-1);
    INDArray block = m.get(NDArrayIndex.interval(0, 2), NDArrayIndex.interval(1, 2, 5));
    assertArrayEquals(new long[] {2, 2}, block.shape());
    block.assign(7);
    double[] want = a.clone();
    for (int j = 0; j < 5; ++j) {
      want[2 * 5 + j] += 10;
    }
    for (int i = 0; i < 4; ++i) {
      want[i * 5 + 1] = -want[i * 5 + 1];
    }
    for (int i = 0; i < 2; ++i) {
      want[i * 5 + 1] = 7;
      want[i * 5 + 3] = 7;
    }
    close(want, m, 1e-12);
    // put with indices writes the element into the selection (broadcast)
    INDArray z = Nd4j.create(a.clone(), 4, 5);
    double[] c = data(4);
    z.put(new INDArrayIndex[] {NDArrayIndex.all(), NDArrayIndex.point(3)}, Nd4j.create(c, 4, 1));
    double[] want2 = a.clone();
    for (int i = 0; i < 4; ++i) {
      want2[i * 5 + 3] = c[i];
    }
    close(want2, z, 0);
    // listed indices give a copy
    INDArray rows = z.getRows(3, 0);
    rows.addi(100);
    close(want2, z, 0);
    double[] wantRows = new double[10];
    System.arraycopy(want2, 15, wantRows, 0, 5);
    System.arraycopy(want2, 0, wantRows, 5, 5);
    for (int i = 0; i < 10; ++i) {
      wantRows[i] += 100;
    }
    close(wantRows, rows, 1e-12);
    assertFalse(m.dup().isView());
  }

  @Test
  void getWithPointsNewAxisAndScalars() {
    double[] a = data(24);
    INDArray t = Nd4j.create(a, 2, 3, 4);
    INDArray p = t.get(NDArrayIndex.point(1), NDArrayIndex.all(), NDArrayIndex.point(2));
    assertArrayEquals(new long[] {3}, p.shape());
    close(new double[] {a[12 + 2], a[12 + 4 + 2], a[12 + 8 + 2]}, p, 0);
    INDArray n = t.get(NDArrayIndex.point(0), NDArrayIndex.newAxis());
    assertArrayEquals(new long[] {1, 3, 4}, n.shape());
    assertEquals(a[1 * 12 + 2 * 4 + 3], t.getDouble(1, 2, 3), 0);
    assertEquals(a[23], t.getScalar(1, 2, 3).getDouble(0), 0);
    assertEquals(0, t.getScalar(1, 2, 3).rank());
    assertArrayEquals(new long[] {3, 4}, t.tensorAlongDimension(1, 1, 2).shape());
    assertThrows(IllegalArgumentException.class, () -> t.tensorAlongDimension(2, 1, 2));
    assertArrayEquals(new long[] {4}, t.tensorAlongDimension(4, 2).shape());
    INDArray tad = t.tensorAlongDimension(4, 2);
    close(new double[] {a[16], a[17], a[18], a[19]}, tad, 0);
    assertEquals(4, tad.length());
  }

  @Test
  void ordersTransposeReshapeAndLinearIndexing() {
    double[] a = data(6);
    INDArray c = Nd4j.create(a, new int[] {2, 3}, 'c');
    INDArray f = Nd4j.create(a, new int[] {2, 3}, 'f');
    assertEquals('c', c.ordering());
    assertEquals('f', f.ordering());
    // 'f' data fills columns first: f[i][j] = a[j * 2 + i]
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 3; ++j) {
        assertEquals(a[i * 3 + j], c.getDouble(i, j), 0);
        assertEquals(a[j * 2 + i], f.getDouble(i, j), 0);
      }
    }
    // data() is memory order; a linear index follows the array's ordering
    assertArrayEquals(a, f.data().asDouble(), 0);
    assertEquals(a[1], f.getDouble(1), 0);
    assertEquals(a[1], c.getDouble(1), 0);
    INDArray tr = c.transpose();
    assertArrayEquals(new long[] {3, 2}, tr.shape());
    assertEquals('f', tr.ordering());
    assertEquals(c.getDouble(1, 2), tr.getDouble(2, 1), 0);
    // reshape in c and f order
    close(a, c.reshape(3, 2), 0);
    INDArray rf = c.reshape('f', 3, 2);
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 2; ++j) {
        long k = j * 3 + i; // f-order position in the new shape, read in f order from c
        assertEquals(c.getDouble(k % 2, k / 2), rf.getDouble(i, j), 0);
      }
    }
    // reshape of a transposed (non-contiguous) view copies in 'c' order of the view
    INDArray flat = tr.reshape(6);
    for (int k = 0; k < 6; ++k) {
      assertEquals(tr.getDouble(k / 2, k % 2), flat.getDouble(k), 0);
    }
    INDArray fd = c.dup('f');
    assertEquals('f', fd.ordering());
    assertEquals(c, fd);
    INDArray p = Nd4j.create(data(24), 2, 3, 4).permute(2, 0, 1);
    assertArrayEquals(new long[] {4, 2, 3}, p.shape());
    assertThrows(IllegalArgumentException.class, () -> c.permute(0, 0));
    assertThrows(ND4JIllegalStateException.class, () -> c.reshape(4, 4));
  }

  @Test
  void reductionsMatchFloat64References() {
    int r = 4, k = 5;
    double[] a = data(r * k);
    INDArray m = Nd4j.create(a, r, k);
    double[] sum0 = new double[k], sum1 = new double[r], max0 = new double[k], min1 = new double[r];
    java.util.Arrays.fill(max0, Double.NEGATIVE_INFINITY);
    java.util.Arrays.fill(min1, Double.POSITIVE_INFINITY);
    double total = 0, abs = 0, sq = 0, prod = 1;
    long[] arg0 = new long[k];
    for (int i = 0; i < r; ++i) {
      for (int j = 0; j < k; ++j) {
        double v = a[i * k + j];
        sum0[j] += v;
        sum1[i] += v;
        if (v > max0[j]) {
          max0[j] = v;
          arg0[j] = i;
        }
        min1[i] = Math.min(min1[i], v);
        total += v;
        abs += Math.abs(v);
        sq += v * v;
        prod *= v;
      }
    }
    close(sum0, m.sum(0), 1e-12);
    close(sum1, m.sum(1), 1e-12);
    assertArrayEquals(new long[] {1, k}, m.sum(true, 0).shape());
    close(max0, m.max(0), 0);
    close(min1, m.min(1), 0);
    assertEquals(total, m.sumNumber().doubleValue(), 1e-12);
    assertEquals(total / (r * k), m.meanNumber().doubleValue(), 1e-12);
    assertEquals(abs, m.norm1Number().doubleValue(), 1e-12);
    assertEquals(Math.sqrt(sq), m.norm2Number().doubleValue(), 1e-12);
    assertEquals(prod, m.prodNumber().doubleValue(), 1e-12 * Math.abs(prod));
    double mean = total / (r * k), ss = 0;
    for (double v : a) {
      ss += (v - mean) * (v - mean);
    }
    assertEquals(Math.sqrt(ss / (r * k - 1)), m.stdNumber().doubleValue(), 1e-12);
    assertEquals(ss / (r * k - 1), m.varNumber().doubleValue(), 1e-12);
    assertEquals(Math.sqrt(ss / (r * k)), m.stdNumber(false).doubleValue(), 1e-12);
    double[] std0 = new double[k];
    for (int j = 0; j < k; ++j) {
      double mu = sum0[j] / r, s = 0;
      for (int i = 0; i < r; ++i) {
        s += (a[i * k + j] - mu) * (a[i * k + j] - mu);
      }
      std0[j] = Math.sqrt(s / (r - 1));
    }
    close(std0, m.std(0), 1e-12);
    long[] got = m.argMax(0).toLongVector();
    assertArrayEquals(arg0, got);
    // argMax over everything: index in 'c' order
    int best = 0;
    for (int i = 1; i < a.length; ++i) {
      if (a[i] > a[best]) {
        best = i;
      }
    }
    assertEquals(best, m.argMax().getLong(0));
    assertEquals(best, m.argMax(0, 1).getLong(0));
    assertThrows(ND4JIllegalStateException.class, () -> m.sum(2));
    // float arrays reduce to the float result, widened
    INDArray f = m.castTo(DataType.FLOAT);
    assertEquals((float) total, f.sumNumber().doubleValue(), 1e-5);
  }

  @Test
  void mmulMatchesFloat64ReferenceAndChecksShapes() {
    int n = 3, k = 4, p = 5;
    double[] a = data(n * k), b = data(k * p);
    double[] want = new double[n * p];
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < p; ++j) {
        for (int q = 0; q < k; ++q) {
          want[i * p + j] += a[i * k + q] * b[q * p + j];
        }
      }
    }
    INDArray x = Nd4j.create(a, n, k), y = Nd4j.create(b, k, p);
    close(want, x.mmul(y), 1e-12);
    // the same through 'f' operands and a transposed view
    close(want, x.dup('f').mmul(y.dup('f')), 1e-12);
    close(want, x.transpose().dup().transpose().mmul(y.transpose().dup().transpose()), 1e-12);
    INDArray out = Nd4j.zeros(DataType.DOUBLE, n, p);
    assertSame(out, x.mmul(y, out));
    close(want, out, 1e-12);
    // rank-1 left operand is a row vector
    double[] v = data(k);
    double[] wantV = new double[p];
    for (int j = 0; j < p; ++j) {
      for (int q = 0; q < k; ++q) {
        wantV[j] += v[q] * b[q * p + j];
      }
    }
    INDArray rv = Nd4j.create(v).mmul(y);
    assertArrayEquals(new long[] {1, p}, rv.shape());
    close(wantV, rv, 1e-12);
    ND4JIllegalStateException e = assertThrows(ND4JIllegalStateException.class, () -> x.mmul(x));
    assertTrue(e.getMessage().contains("Column of left array 4 != rows of right 3"), e.getMessage());
  }

  @Test
  void errorPathsThrowNd4jsExceptionTypes() {
    INDArray m = Nd4j.create(data(15), 3, 5);
    IllegalStateException add = assertThrows(IllegalStateException.class, () -> m.add(Nd4j.ones(2, 2)));
    assertTrue(add.getMessage().contains("[3, 5]") && add.getMessage().contains("[2, 2]"), add.getMessage());
    assertThrows(IllegalArgumentException.class, () -> m.getRow(7));
    assertThrows(IllegalArgumentException.class, () -> m.getColumn(5));
    assertThrows(IndexOutOfBoundsException.class, () -> m.getDouble(3, 0));
    assertThrows(IllegalArgumentException.class, () -> m.getDouble(15));
    assertThrows(IllegalArgumentException.class, () -> m.putScalar(new int[] {0, 9}, 1.0));
    assertThrows(IllegalArgumentException.class, () -> m.size(5));
    assertThrows(IllegalStateException.class, () -> m.get(NDArrayIndex.interval(0, 9)));
    assertThrows(IllegalArgumentException.class, () -> m.get(NDArrayIndex.point(3)));
    assertThrows(IllegalArgumentException.class, () -> m.get(NDArrayIndex.all(), NDArrayIndex.all(), NDArrayIndex.all()));
    assertThrows(IllegalStateException.class, () -> m.addRowVector(Nd4j.ones(3)));
    assertThrows(IllegalStateException.class, () -> m.addColumnVector(Nd4j.ones(5)));
    assertThrows(IllegalStateException.class, () -> m.assign(Nd4j.ones(2, 2)));
    UnsupportedOperationException u = assertThrows(UnsupportedOperationException.class, () -> m.cumsum(0));
    assertTrue(u.getMessage().contains("INDArray.cumsum"), u.getMessage());
  }

  @Test
  void equalityUsesNd4jsEpsilonAndDataType() {
    double[] a = data(6);
    INDArray x = Nd4j.create(a, 2, 3);
    assertEquals(x, x.dup());
    assertEquals(x, x.add(1e-7));
    assertFalse(x.equals(x.add(1e-3)));
    assertFalse(x.equals(x.castTo(DataType.FLOAT)));
    assertFalse(x.equals(x.reshape(3, 2)));
    assertTrue(x.equalsWithEps(x.add(1e-3), 1e-2));
    assertEquals(x.hashCode(), x.dup().hashCode());
    assertEquals(x.distance2(x.add(0.5)), Math.sqrt(6 * 0.25), 1e-12);
  }
}
