package org.ndrt.nd4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.exception.ND4JIllegalStateException;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The fast paths: scalar ops through the per-thread cached scalars (dtypes interleaved, several
 * threads at once) and mmul without shared handles (results and ND4J's exceptions).
 */
class Nd4jFastPathTest {
  @Test
  void scalarOpsInterleavedAcrossDtypes() {
    INDArray f = Nd4j.create(new float[] {1.5f, -2f, 3f});
    INDArray d = Nd4j.create(new double[] {1.25, -2, 4});
    INDArray i = Nd4j.create(new int[] {3, -4, 5}, new long[] {3}, DataType.INT);
    for (int k = 1; k < 20; k++) {
      double[] fv = f.mul(k).castTo(DataType.DOUBLE).toDoubleVector();
      double[] dv = d.add(k * 0.5).toDoubleVector();
      double[] iv = i.mul(k).castTo(DataType.DOUBLE).toDoubleVector();
      double[] rv = d.rdiv(k).toDoubleVector();
      for (int j = 0; j < 3; j++) {
        assertEquals(new double[] {1.5, -2, 3}[j] * k, fv[j], 1e-5);
        assertEquals(new double[] {1.25, -2, 4}[j] + k * 0.5, dv[j], 0);
        assertEquals(new double[] {3, -4, 5}[j] * k, iv[j], 0);
        assertEquals(k / new double[] {1.25, -2, 4}[j], rv[j], 1e-15);
      }
    }
    INDArray in = Nd4j.create(new double[] {1, 2});
    in.muli(3).subi(1);
    assertEquals(5.0, in.getDouble(1), 0);
  }

  @Test
  void scalarOpsFromSeveralThreads() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<Boolean>> results = new ArrayList<>();
      for (int w = 0; w < 8; w++) {
        final int seed = w;
        results.add(pool.submit(() -> {
          Random r = new Random(seed);
          INDArray a = Nd4j.create(new double[] {1, 2, 3});
          for (int k = 0; k < 500; k++) {
            double s = r.nextDouble();
            double[] got = a.mul(s).toDoubleVector();
            for (int j = 0; j < 3; j++) {
              if (got[j] != (j + 1) * s) {
                return false;
              }
            }
          }
          return true;
        }));
      }
      for (Future<Boolean> f : results) {
        assertEquals(Boolean.TRUE, f.get());
      }
    } finally {
      pool.shutdown();
    }
  }

  @Test
  void mmulFastPathAndErrors() {
    Random r = new Random(5);
    double[][] a = new double[3][4], b = new double[4][2];
    for (double[] row : a) {
      for (int j = 0; j < row.length; j++) {
        row[j] = r.nextDouble() - 0.5;
      }
    }
    for (double[] row : b) {
      for (int j = 0; j < row.length; j++) {
        row[j] = r.nextDouble() - 0.5;
      }
    }
    INDArray out = Nd4j.create(DataType.DOUBLE, 3, 2);
    INDArray p = Nd4j.create(a).mmul(Nd4j.create(b));
    Nd4j.create(a).mmul(Nd4j.create(b), out);
    for (int i = 0; i < 3; i++) {
      for (int j = 0; j < 2; j++) {
        double want = 0;
        for (int k = 0; k < 4; k++) {
          want += a[i][k] * b[k][j];
        }
        assertEquals(want, p.getDouble(i, j), 1e-15);
        assertEquals(want, out.getDouble(i, j), 1e-15);
      }
    }
    assertThrows(ND4JIllegalStateException.class, () -> Nd4j.create(a).mmul(Nd4j.create(a)));
    assertThrows(ND4JIllegalStateException.class,
        () -> Nd4j.create(a).mmul(Nd4j.create(b), Nd4j.create(DataType.DOUBLE, 2, 2)));
  }
}
