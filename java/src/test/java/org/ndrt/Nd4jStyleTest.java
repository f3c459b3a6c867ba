package org.ndrt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * ND4J's fluent surface on Tensor and the Nd4j factories, against results computed here in double
 * precision on random data (the runtime does the work; Java only checks).
 */
class Nd4jStyleTest {
  private static double[] random(SplittableRandom r, int n) {
    double[] v = new double[n];
    for (int i = 0; i < n; ++i) {
      v[i] = r.nextDouble(-2, 2);
    }
    return v;
  }

  @Test
  void arithmeticWithTensorsAndScalarsAndInPlaceForms() {
    SplittableRandom r = new SplittableRandom(11);
    double[] a = random(r, 12), b = random(r, 12);
    try (Tensor ta = Nd4j.create(a, 3, 4); Tensor tb = Nd4j.create(b, 3, 4);
        Tensor sum = ta.add(tb); Tensor diff = ta.sub(tb); Tensor prod = ta.mul(tb); Tensor quot = ta.div(tb);
        Tensor plus = ta.add(2.5); Tensor neg = ta.neg()) {
      double[] s = sum.toDoubleArray(), d = diff.toDoubleArray(), p = prod.toDoubleArray(), q = quot.toDoubleArray(),
          p2 = plus.toDoubleArray(), n = neg.toDoubleArray();
      for (int i = 0; i < 12; ++i) {
        assertEquals(a[i] + b[i], s[i], 0);
        assertEquals(a[i] - b[i], d[i], 0);
        assertEquals(a[i] * b[i], p[i], 0);
        assertEquals(a[i] / b[i], q[i], 1e-15 * Math.abs(q[i]));
        assertEquals(a[i] + 2.5, p2[i], 0);
        assertEquals(-a[i], n[i], 0);
      }
      // In place: the same tensor, updated.
      try (Tensor c = ta.dup()) {
        assertSame(c, c.addi(tb).muli(2).subi(1).divi(tb));
        double[] got = c.toDoubleArray();
        for (int i = 0; i < 12; ++i) {
          assertEquals(((a[i] + b[i]) * 2 - 1) / b[i], got[i], 1e-14 * Math.max(1, Math.abs(got[i])));
        }
        assertArrayEquals(a, ta.toDoubleArray(), 0);  // dup copied: the original is untouched
      }
    }
  }

  @Test
  void mmulTransposeAndReductions() {
    SplittableRandom r = new SplittableRandom(12);
    double[] a = random(r, 15), b = random(r, 20);  // [3,5] x [5,4]
    try (Tensor ta = Nd4j.create(a, 3, 5); Tensor tb = Nd4j.create(b, 5, 4); Tensor c = ta.mmul(tb);
        Tensor t = ta.transpose()) {
      double[] got = c.toDoubleArray();
      for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 4; ++j) {
          double want = 0;
          for (int k = 0; k < 5; ++k) {
            want += a[i * 5 + k] * b[k * 4 + j];
          }
          assertEquals(want, got[i * 4 + j], 1e-13);
        }
      }
      assertArrayEquals(new long[] {5, 3}, t.shape());
      assertEquals(a[2 * 5 + 1], t.getDouble(1, 2), 0);
      try (Tensor all = ta.sum(); Tensor rows = ta.sum(1); Tensor cols = ta.mean(0); Tensor mx = ta.max(1);
          Tensor mn = ta.min(); Tensor am = ta.argMax(1); Tensor flat = ta.argMax()) {
        double total = 0, min = Double.MAX_VALUE;
        int flatArg = 0;
        for (int i = 0; i < 15; ++i) {
          total += a[i];
          min = Math.min(min, a[i]);
          flatArg = a[i] > a[flatArg] ? i : flatArg;
        }
        assertEquals(0, all.rank());
        assertEquals(total, all.item(), 1e-13);
        assertEquals(min, mn.item(), 0);
        assertEquals(flatArg, (long) flat.item());
        for (int i = 0; i < 3; ++i) {
          double rs = 0, rm = -Double.MAX_VALUE;
          int arg = 0;
          for (int k = 0; k < 5; ++k) {
            rs += a[i * 5 + k];
            rm = Math.max(rm, a[i * 5 + k]);
            arg = a[i * 5 + k] > a[i * 5 + arg] ? k : arg;
          }
          assertEquals(rs, rows.getDouble(i), 1e-13);
          assertEquals(rm, mx.getDouble(i), 0);
          assertEquals(arg, (long) am.getDouble(i));
        }
        for (int k = 0; k < 5; ++k) {
          assertEquals((a[k] + a[5 + k] + a[10 + k]) / 3, cols.getDouble(k), 1e-14);
        }
      }
      assertThrows(NotSupportedException.class, () -> ta.argMax(0, 1));
    }
  }

  @Test
  void comparisonsGiveBoolTensors() {
    try (Tensor a = Nd4j.create(new double[] {1, 2, 3, 4}, 2, 2); Tensor b = Nd4j.create(new double[] {4, 2, 1, 4}, 2, 2)) {
      try (Tensor gt = a.gt(b); Tensor gte = a.gte(b); Tensor lt = a.lt(2); Tensor lte = a.lte(2); Tensor eq = a.eq(b);
          Tensor neq = a.neq(b)) {
        assertEquals(DType.BOOL, gt.dtype());
        assertArrayEquals(new byte[] {0, 0, 1, 0}, gt.toByteArray());
        assertArrayEquals(new byte[] {0, 1, 1, 1}, gte.toByteArray());
        assertArrayEquals(new byte[] {1, 0, 0, 0}, lt.toByteArray());
        assertArrayEquals(new byte[] {1, 1, 0, 0}, lte.toByteArray());
        assertArrayEquals(new byte[] {0, 1, 0, 1}, eq.toByteArray());
        assertArrayEquals(new byte[] {1, 0, 1, 0}, neq.toByteArray());
      }
    }
  }

  @Test
  void elementAccessByIndexAndLinearIndex() {
    try (Tensor t = Nd4j.zeros(2, 3)) {
      t.putScalar(new long[] {1, 2}, 7.5).putScalar(1, 0, -1).putScalar(1, 3.25).putScalar(new int[] {0, 0}, 2);
      assertArrayEquals(new float[] {2, 3.25f, 0, -1, 0, 7.5f}, t.toFloatArray());
      assertEquals(7.5, t.getDouble(1, 2), 0);
      assertEquals(7.5, t.getDouble(5), 0);  // linear, row-major
      assertEquals(-1, t.getDouble(3), 0);
      assertThrows(InvalidArgumentException.class, () -> t.getDouble(2, 0));
      assertThrows(InvalidArgumentException.class, () -> t.getDouble(6));
      assertThrows(ShapeException.class, () -> t.getDouble(0, 0, 0));
      try (Tensor col = t.slice(1, 2, 3)) {  // a strided view: element access through it
        col.putScalar(0, 9);
        assertEquals(9, t.getDouble(0, 2), 0);
      }
    }
  }

  @Test
  void factoriesAndCastsAndToString() {
    try (Tensor m = Nd4j.create(new double[][] {{1, 2}, {3, 4}}); Tensor o = Nd4j.ones(2, 2); Tensor l = Nd4j.linspace(0, 1, 5);
        Tensor i = m.castTo(DType.I32)) {
      assertArrayEquals(new double[] {1, 2, 3, 4}, m.toDoubleArray(), 0);
      assertEquals(DType.F32, o.dtype());
      assertArrayEquals(new float[] {0, 0.25f, 0.5f, 0.75f, 1}, l.toFloatArray());
      assertEquals("Tensor(f64, [2, 2], cpu:0) [[1.0, 2.0], [3.0, 4.0]]", m.toString());
      assertEquals("Tensor(i32, [2, 2], cpu:0) [[1, 2], [3, 4]]", i.toString());
    }
    assertThrows(ShapeException.class, () -> Nd4j.create(new double[][] {{1, 2}, {3}}));
    Nd4j.setSeed(42);
    try (Tensor a = Nd4j.rand(1000); Tensor b = Nd4j.rand(1000)) {
      Nd4j.setSeed(42);
      try (Tensor a2 = Nd4j.rand(1000)) {
        assertArrayEquals(a.toFloatArray(), a2.toFloatArray());  // the seed sequence restarts
      }
      assertNotEquals(a.toFloatArray()[0], b.toFloatArray()[0]);
      for (float v : a.toFloatArray()) {
        assertTrue(v >= 0 && v < 1, "uniform value " + v);
      }
    }
  }
}
