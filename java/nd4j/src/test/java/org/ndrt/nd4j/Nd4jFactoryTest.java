package org.ndrt.nd4j;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import java.util.function.DoubleUnaryOperator;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.impl.reduce.longer.MatchCondition;
import org.nd4j.linalg.api.ops.impl.transforms.Pad;
import org.nd4j.linalg.api.ops.impl.transforms.strict.Sin;
import org.nd4j.linalg.exception.ND4JIllegalStateException;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.BooleanIndexing;
import org.nd4j.linalg.indexing.conditions.Conditions;
import org.nd4j.linalg.ops.transforms.Transforms;

/**
 * Nd4j's factories, Transforms, conditions and printing against float64 references computed here
 * on random data (never zero), plus ND4J's exceptions for bad arguments.
 */
class Nd4jFactoryTest {
  private final Random rng = new Random(11272026);

  private double[] data(int n, double lo, double hi) {
    double[] d = new double[n];
    for (int i = 0; i < n; ++i) {
      d[i] = lo + (hi - lo) * rng.nextDouble();
      if (d[i] == 0) {
        d[i] = hi;
      }
    }
    return d;
  }

  private static void close(double[] want, INDArray got, double tol) {
    assertEquals(want.length, got.length(), "length");
    double[] g = got.dup('c').data().asDouble();
    for (int i = 0; i < want.length; ++i) {
      if (Double.isNaN(want[i])) {
        assertTrue(Double.isNaN(g[i]), "element " + i + " should be NaN");
        continue;
      }
      assertEquals(want[i], g[i], tol * Math.max(1, Math.abs(want[i])), "element " + i);
    }
  }

  private static double[] map(double[] a, DoubleUnaryOperator f) {
    double[] r = new double[a.length];
    for (int i = 0; i < a.length; ++i) {
      r[i] = f.applyAsDouble(a[i]);
    }
    return r;
  }

  @Test
  void createFromJavaDataInBothOrdersAndTypes() {
    double[] a = data(6, -3, 3);
    INDArray v = Nd4j.create(a);
    assertEquals(DataType.DOUBLE, v.dataType());
    assertArrayEquals(new long[] {6}, v.shape());
    float[] fa = new float[6];
    for (int i = 0; i < 6; ++i) {
      fa[i] = (float) a[i];
    }
    INDArray f = Nd4j.create(fa, 2, 3);
    assertEquals(DataType.FLOAT, f.dataType());
    close(map(a, x -> (float) x), f, 0);
    INDArray m = Nd4j.create(new double[][] {{a[0], a[1], a[2]}, {a[3], a[4], a[5]}});
    close(a, m, 0);
    INDArray fo = Nd4j.create(a, new long[] {2, 3}, 'f');
    assertEquals(a[2], fo.getDouble(0, 1), 0);
    INDArray ints = Nd4j.create(new int[] {3, -1, 7}, new long[] {3}, DataType.INT);
    assertEquals(DataType.INT, ints.dataType());
    assertArrayEquals(new int[] {3, -1, 7}, ints.toIntVector());
    assertEquals(DataType.FLOAT, Nd4j.zeros(2, 3).dataType());
    assertEquals(DataType.FLOAT, Nd4j.create(new int[] {2, 3}).dataType());
    assertEquals(0, Nd4j.scalar(2.5).rank());
    assertEquals(DataType.LONG, Nd4j.createFromArray(1L, 2L).dataType());
    assertThrows(ND4JIllegalStateException.class, () -> Nd4j.create(new double[] {1, 2, 3}, 2, 2));
    assertThrows(IllegalArgumentException.class, () -> Nd4j.create(new double[][] {{1, 2}, {3}}));
  }

  @Test
  void filledRangesAndIdentity() {
    double v = 1 + rng.nextDouble();
    close(map(new double[12], x -> v), Nd4j.valueArrayOf(new long[] {3, 4}, v), 1e-7);
    close(map(new double[6], x -> 1), Nd4j.ones(2, 3), 0);
    double lo = -rng.nextDouble() - 1, hi = rng.nextDouble() + 2;
    double[] lin = new double[7];
    for (int i = 0; i < 7; ++i) {
      lin[i] = lo + (hi - lo) * i / 6;
    }
    close(lin, Nd4j.linspace(lo, hi, 7, DataType.DOUBLE), 1e-12);
    close(new double[] {1.5, 3.5, 5.5}, Nd4j.arange(1.5, 7, 2), 1e-7);
    INDArray eye = Nd4j.eye(4);
    for (int i = 0; i < 4; ++i) {
      for (int j = 0; j < 4; ++j) {
        assertEquals(i == j ? 1 : 0, eye.getDouble(i, j), 0);
      }
    }
    double[] d = data(3, 1, 2);
    INDArray diag = Nd4j.diag(Nd4j.create(d));
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) {
        assertEquals(i == j ? d[i] : 0, diag.getDouble(i, j), 0);
      }
    }
    close(d, Nd4j.diag(diag), 0);
  }

  @Test
  void randomDrawsRepeatWithTheSeedAndStayInRange() {
    INDArray a = Nd4j.rand(12345L, new long[] {3, 5});
    INDArray b = Nd4j.rand(12345L, new long[] {3, 5});
    assertEquals(a, b);
    INDArray c = Nd4j.rand(3, 5);
    assertNotEquals(a, c);
    assertTrue(a.minNumber().doubleValue() >= 0 && a.maxNumber().doubleValue() < 1);
    Nd4j.getRandom().setSeed(7);
    INDArray n1 = Nd4j.randn(1000);
    Nd4j.getRandom().setSeed(7);
    assertEquals(n1, Nd4j.randn(1000));
    assertEquals(0, n1.meanNumber().doubleValue(), 0.15);
    assertEquals(1, n1.stdNumber().doubleValue(), 0.15);
  }

  @Test
  void joiningAndPadding() {
    double[] a = data(4, -1, 1), b = data(6, -1, 1);
    INDArray x = Nd4j.create(a, 2, 2), y = Nd4j.create(b, 2, 3);
    INDArray h = Nd4j.hstack(x, y);
    assertArrayEquals(new long[] {2, 5}, h.shape());
    close(new double[] {a[0], a[1], b[0], b[1], b[2], a[2], a[3], b[3], b[4], b[5]}, h, 0);
    INDArray vs = Nd4j.vstack(Nd4j.create(new double[] {a[0], a[1]}), Nd4j.create(new double[] {a[2], a[3]}));
    close(a, vs, 0);
    assertArrayEquals(new long[] {2, 2}, vs.shape());
    INDArray c0 = Nd4j.concat(0, x, x);
    assertArrayEquals(new long[] {4, 2}, c0.shape());
    INDArray flat = Nd4j.toFlattened(x, y);
    double[] ab = new double[10];
    System.arraycopy(a, 0, ab, 0, 4);
    System.arraycopy(b, 0, ab, 4, 6);
    close(ab, flat, 0);
    INDArray p = Nd4j.pad(x, new int[] {1, 1}, Pad.Mode.CONSTANT, 0);
    assertArrayEquals(new long[] {4, 4}, p.shape());
    close(new double[] {0, 0, 0, 0, 0, a[0], a[1], 0, 0, a[2], a[3], 0, 0, 0, 0, 0}, p, 0);
    assertThrows(ND4JIllegalStateException.class, () -> Nd4j.concat(0, x, y));
    assertThrows(UnsupportedOperationException.class, () -> Nd4j.pad(x, new int[] {1, 1}, Pad.Mode.SYMMETRIC, 0));
  }

  /** More arrays than one runtime concat takes (64): joined in groups into one output, in order. */
  @Test
  void joiningMoreArraysThanOneRuntimeCallTakes() {
    int n = 150;
    INDArray[] rows = new INDArray[n];
    double[] want = new double[n * 3];
    for (int i = 0; i < n; ++i) {
      double[] r = data(3, -1, 1);
      System.arraycopy(r, 0, want, 3 * i, 3);
      rows[i] = Nd4j.create(r, 1, 3);
    }
    INDArray v = Nd4j.vstack(rows);
    assertArrayEquals(new long[] {n, 3}, v.shape());
    close(want, v, 0);
    INDArray h = Nd4j.concat(1, rows);
    assertArrayEquals(new long[] {1, 3L * n}, h.shape());
    close(want, h, 0);
  }

  @Test
  void transformsMatchFloat64References() {
    double[] a = data(10, -3, 3), pos = data(10, 0.1, 4);
    INDArray x = Nd4j.create(a), p = Nd4j.create(pos);
    close(map(a, v -> 1 / (1 + Math.exp(-v))), Transforms.sigmoid(x), 1e-12);
    close(map(a, Math::tanh), Transforms.tanh(x), 1e-12);
    close(map(a, Math::exp), Transforms.exp(x), 1e-12);
    close(map(a, Math::abs), Transforms.abs(x), 0);
    close(map(a, v -> Math.max(v, 0)), Transforms.relu(x), 0);
    close(map(a, Math::sin), Transforms.sin(x), 1e-12);
    close(map(a, Math::floor), Transforms.floor(x), 0);
    close(map(pos, Math::log), Transforms.log(p), 1e-12);
    close(map(pos, Math::sqrt), Transforms.sqrt(p), 1e-12);
    close(map(pos, v -> Math.pow(v, 3)), Transforms.pow(p, 3), 1e-12);
    close(map(a, v -> Math.max(v, 0.5)), Transforms.max(x, 0.5), 0);
    close(map(a, v -> Math.min(v, -0.5)), Transforms.min(x, -0.5), 0);
    close(map(a, v -> Math.max(-1, Math.min(1, v))), Transforms.hardTanh(x), 0);
    close(map(a, v -> Math.signum(v) * Math.floor(Math.abs(v) + 0.5)), Transforms.round(x), 0);
    close(new double[] {1, -1, 3, -3}, Transforms.round(Nd4j.create(new double[] {0.5, -0.5, 2.5, -2.5})), 0);
    double s = 0;
    for (double v : a) {
      s += Math.exp(v);
    }
    final double sum = s;
    close(map(a, v -> Math.exp(v) / sum), Transforms.softmax(x), 1e-12);
    // dup = false writes the argument
    INDArray y = x.dup();
    Transforms.tanh(y, false);
    close(map(a, Math::tanh), y, 1e-12);
    // distances
    double dot = 0, na = 0, nb = 0, d2 = 0, d1 = 0;
    for (int i = 0; i < 10; ++i) {
      dot += a[i] * pos[i];
      na += a[i] * a[i];
      nb += pos[i] * pos[i];
      d2 += (a[i] - pos[i]) * (a[i] - pos[i]);
      d1 += Math.abs(a[i] - pos[i]);
    }
    assertEquals(dot / Math.sqrt(na * nb), Transforms.cosineSim(x, p), 1e-12);
    assertEquals(Math.sqrt(d2), Transforms.euclideanDistance(x, p), 1e-12);
    assertEquals(d1, Transforms.manhattanDistance(x, p), 1e-12);
    // Sin through the executioner runs in place on its argument
    INDArray z = x.dup();
    INDArray r = Nd4j.getExecutioner().exec(new Sin(z));
    assertTrue(r == z);
    close(map(a, Math::sin), z, 1e-12);
    assertThrows(UnsupportedOperationException.class, () -> Transforms.atan2(x, p));
  }

  @Test
  void conditionsAndBooleanIndexing() {
    double[] a = data(12, -2, 2);
    a[5] = Double.NaN;
    INDArray x = Nd4j.create(a, 3, 4);
    INDArray r = x.dup();
    BooleanIndexing.replaceWhere(r, 0.0, Conditions.lessThan(0.0));
    close(map(a, v -> v < 0 ? 0 : v), r, 0);
    INDArray nan = x.dup();
    BooleanIndexing.replaceWhere(nan, -7.0, Conditions.isNan());
    assertEquals(-7.0, nan.getDouble(5), 0);
    assertFalse(BooleanIndexing.or(nan, Conditions.isNan()));
    assertTrue(BooleanIndexing.or(x, Conditions.isNan()));
    double[] t = data(12, 5, 6);
    INDArray from = x.dup();
    BooleanIndexing.replaceWhere(from, Nd4j.create(t, 3, 4), Conditions.greaterThan(0.0));
    long positives = 0;
    for (int i = 0; i < 12; ++i) {
      double want = a[i] > 0 ? t[i] : a[i];
      if (Double.isNaN(want)) {
        assertTrue(Double.isNaN(from.getDouble(i)));
      } else {
        assertEquals(want, from.getDouble(i), 0);
      }
      positives += a[i] > 0 ? 1 : 0;
    }
    assertEquals(positives, Nd4j.getExecutioner().exec(new MatchCondition(x, Conditions.greaterThan(0.0))).getInt(0));
    assertEquals(positives, x.scan(Conditions.greaterThan(0.0)).longValue());
    assertTrue(BooleanIndexing.and(Nd4j.create(t), Conditions.greaterThanOrEqual(5)));
    INDArray lt = x.lt(0.5);
    assertEquals(DataType.BOOL, lt.dataType());
    INDArray not = Transforms.not(lt);
    for (int i = 0; i < 12; ++i) {
      assertEquals(a[i] < 0.5, lt.getDouble(i) != 0);
      assertEquals(!(a[i] < 0.5), not.getDouble(i) != 0);
    }
  }

  @Test
  void printsAsNd4jDoes() {
    // ND4J's layout: fields of 10, 4 decimals, zero as 0, rows on their own lines
    assertEquals("[[    1.0000,         0], \n [   -2.5000,   12.0000]]",
        Nd4j.create(new double[] {1, 0, -2.5, 12}, 2, 2).toString());
    assertEquals("[[    1.0000,    2.0000]]", Nd4j.create(new float[] {1, 2}, 1, 2).toString());
    assertEquals("[[3.0000], \n [4.0000]]", Nd4j.create(new float[] {3, 4}, 2, 1).toString());
    assertEquals("[     -1e-5,  1.2346e4]", Nd4j.create(new double[] {-0.00001, 12345.678}).toString());
    assertEquals("2.5000", Nd4j.scalar(2.5).toString());
    assertEquals("[         1,         2]", Nd4j.createFromArray(1L, 2L).toString());
    assertEquals("[      true,     false]", Nd4j.create(new boolean[] {true, false}).toString());
    assertEquals("[[[    1.0000,    2.0000]], \n\n [[    3.0000,    4.0000]]]",
        Nd4j.create(new double[] {1, 2, 3, 4}, 2, 1, 2).toString());
    String big = Nd4j.linspace(1, 2000, 2000).toString();
    assertTrue(big.startsWith("[    1.0000,    2.0000,    3.0000,  ...  1998.0000, 1999.0000, 2000.0000]".substring(0, 34)), big);
    assertTrue(big.contains("  ...") && big.length() < 200, big);
    assertEquals("[]", Nd4j.empty().toString());
  }
}
