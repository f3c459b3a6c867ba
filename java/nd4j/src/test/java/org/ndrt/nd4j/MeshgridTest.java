package org.ndrt.nd4j;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/** Nd4j.meshgrid as ND4J's (cartesian indexing; the ArrayProbe compares it with real ND4J too). */
class MeshgridTest {
  @Test
  void xAlongRowsYDownColumns() {
    INDArray x = Nd4j.createFromArray(-1.5, 0.25, 2.0, 7.0);
    INDArray y = Nd4j.createFromArray(3f, -4f, 5.5f);
    INDArray[] m = Nd4j.meshgrid(x, y);
    assertEquals(2, m.length);
    for (INDArray a : m) {
      assertArrayEquals(new long[] {3, 4}, a.shape());
      assertEquals(DataType.DOUBLE, a.dataType(), "x's dtype (y is cast)");
    }
    double[] xs = {-1.5, 0.25, 2.0, 7.0};
    double[] ys = {3, -4, 5.5};
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 4; ++j) {
        assertEquals(xs[j], m[0].getDouble(i, j), 0, "x at " + i + "," + j);
        assertEquals(ys[i], m[1].getDouble(i, j), 0, "y at " + i + "," + j);
      }
    }
    // ImageDrawer's use: the grid's points as rows [x, y].
    INDArray pts = Nd4j.vstack(m[0].ravel(), m[1].ravel()).transpose();
    assertArrayEquals(new double[] {0.25, -4}, pts.getRow(5).toDoubleVector(), 0);
  }

  @Test
  void columnVectorsAndRefusals() {
    INDArray[] m = Nd4j.meshgrid(Nd4j.createFromArray(1f, 2f).reshape(2, 1), Nd4j.createFromArray(9f));
    assertArrayEquals(new long[] {1, 2}, m[0].shape());
    assertArrayEquals(new float[] {9, 9}, m[1].ravel().toFloatVector(), 0);
    assertThrows(IllegalArgumentException.class, () -> Nd4j.meshgrid(Nd4j.zeros(2, 2), Nd4j.zeros(2)));
  }
}
