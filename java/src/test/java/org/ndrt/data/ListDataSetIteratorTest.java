package org.ndrt.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.NoSuchElementException;
import org.junit.jupiter.api.Test;

/** The in-memory iterator: contiguous row slices, one-hot labels, reset, and its argument checks. */
class ListDataSetIteratorTest {
  @Test
  void slicesContiguousRowsIntoBatches() {
    int n = 7;
    float[] x = new float[n * 6]; // examples of shape [2, 3]
    int[] y = new int[n];
    for (int i = 0; i < x.length; i++) {
      x[i] = i * 0.5f - 3;
    }
    for (int i = 0; i < n; i++) {
      y[i] = (i * 2) % 3;
    }
    ListDataSetIterator it = new ListDataSetIterator(x, new long[] {2, 3}, y, 3, 3);
    assertEquals(7, it.numExamples());
    assertEquals(3, it.totalOutcomes());
    assertEquals(3, it.batchSize());
    for (int epoch = 0; epoch < 2; epoch++) {
      int start = 0;
      for (int expectedSize : new int[] {3, 3, 1}) {
        assertTrue(it.hasNext());
        try (DataSet ds = it.next()) {
          assertArrayEquals(new long[] {expectedSize, 2, 3}, ds.features().shape());
          assertArrayEquals(new long[] {expectedSize, 3}, ds.labels().shape());
          assertArrayEquals(Arrays.copyOfRange(x, start * 6, (start + expectedSize) * 6), ds.features().toFloatArray());
          float[] l = ds.labels().toFloatArray();
          for (int r = 0; r < expectedSize; r++) {
            for (int c = 0; c < 3; c++) {
              assertEquals(c == y[start + r] ? 1f : 0f, l[r * 3 + c]);
            }
          }
        }
        start += expectedSize;
      }
      assertFalse(it.hasNext());
      assertThrows(NoSuchElementException.class, it::next);
      it.reset();
    }
  }

  @Test
  void rowsAndFloatLabelsForms() {
    float[][] rows = {{1, 2}, {3, 4}, {5, 6}};
    ListDataSetIterator it = new ListDataSetIterator(rows, new int[] {1, 0, 1}, 2, 2);
    try (DataSet ds = it.next()) {
      assertArrayEquals(new float[] {1, 2, 3, 4}, ds.features().toFloatArray());
      assertArrayEquals(new float[] {0, 1, 1, 0}, ds.labels().toFloatArray());
    }
    rows[2][0] = 99; // copied at construction: later changes do not show
    try (DataSet ds = it.next()) {
      assertArrayEquals(new float[] {5, 6}, ds.features().toFloatArray());
    }

    float[] targets = {0.25f, -1, 2, 7, 8, 9};
    ListDataSetIterator reg = new ListDataSetIterator(new float[] {1, 2, 3}, new long[] {1}, targets, 2, 5);
    assertEquals(2, reg.totalOutcomes());
    try (DataSet ds = reg.next()) {
      assertArrayEquals(new long[] {3, 2}, ds.labels().shape());
      assertArrayEquals(targets, ds.labels().toFloatArray());
    }
  }

  @Test
  void badArgumentsAreRejected() {
    long[] s = {2};
    assertThrows(IllegalArgumentException.class, () -> new ListDataSetIterator(new float[5], s, new int[] {0, 1, 0}, 2, 1));
    assertThrows(IllegalArgumentException.class, () -> new ListDataSetIterator(new float[4], s, new int[] {0, 2}, 2, 1));
    assertThrows(IllegalArgumentException.class, () -> new ListDataSetIterator(new float[4], s, new int[] {0, -1}, 2, 1));
    assertThrows(IllegalArgumentException.class, () -> new ListDataSetIterator(new float[4], s, new int[] {0, 1}, 2, 0));
    assertThrows(IllegalArgumentException.class, () -> new ListDataSetIterator(new float[4], s, new int[] {0, 1}, 0, 1));
    assertThrows(IllegalArgumentException.class, () -> new ListDataSetIterator(new float[4], new long[] {0}, new int[] {0, 1}, 2, 1));
    assertThrows(IllegalArgumentException.class, () -> new ListDataSetIterator(null, s, new int[] {0}, 2, 1));
    assertThrows(IllegalArgumentException.class, () -> new ListDataSetIterator(new float[][] {{1, 2}, {3}}, new int[] {0, 1}, 2, 1));
    assertThrows(IllegalArgumentException.class, () -> new ListDataSetIterator(new float[0][], new int[0], 2, 1));
    assertThrows(IllegalArgumentException.class, () -> new ListDataSetIterator(new float[4], s, new float[3], 2, 1));
  }
}
