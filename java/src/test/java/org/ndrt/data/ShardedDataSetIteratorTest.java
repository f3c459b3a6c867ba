package org.ndrt.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The sharding rule of ShardedDataSetIterator on examples that carry their own index as their first
 * feature: the ranks' minibatches j together are the single process's global minibatch j, the last
 * partial global batch is dropped (or shared out for evaluation), seek() resumes exactly, and every
 * rank computes the same permutation from the seed alone.
 */
class ShardedDataSetIteratorTest {
  static final int N = 103;
  static final int CLASSES = 4;

  /** Example i: features {i, -i, i / 2} (shape [3]), class i % 4. */
  static ExampleSource source(int n) {
    float[] x = new float[3 * n];
    int[] y = new int[n];
    for (int i = 0; i < n; ++i) {
      x[3 * i] = i;
      x[3 * i + 1] = -i;
      x[3 * i + 2] = i / 2f;
      y[i] = i % CLASSES;
    }
    return ExampleSource.of(x, new long[] {3}, y, CLASSES);
  }

  /** The example indices of one minibatch, after checking its rows against the source. */
  static int[] ids(DataSet ds) {
    int n = ds.numExamples();
    assertArrayEquals(new long[] {n, 3}, ds.features().shape());
    assertArrayEquals(new long[] {n, CLASSES}, ds.labels().shape());
    float[] f = ds.features().toFloatArray();
    float[] l = ds.labels().toFloatArray();
    int[] ids = new int[n];
    for (int r = 0; r < n; ++r) {
      int i = Math.round(f[3 * r]);
      assertEquals(-i, f[3 * r + 1]);
      assertEquals(i / 2f, f[3 * r + 2]);
      for (int c = 0; c < CLASSES; ++c) {
        assertEquals(c == i % CLASSES ? 1f : 0f, l[r * CLASSES + c]);
      }
      ids[r] = i;
    }
    return ids;
  }

  /** Every minibatch of the iterator's current epoch, as example indices. */
  static List<int[]> epoch(DataSetIterator it) {
    List<int[]> out = new ArrayList<>();
    while (it.hasNext()) {
      try (DataSet ds = it.next()) {
        out.add(ids(ds));
      }
    }
    assertThrows(NoSuchElementException.class, it::next);
    return out;
  }

  static int[] concat(int[]... parts) {
    return Arrays.stream(parts).flatMapToInt(Arrays::stream).toArray();
  }

  @Test
  void ranksTogetherMakeTheGlobalBatchesOfOneProcess() {
    int size = 3;
    int b = 5; // global batch 15: 6 per epoch, 13 examples dropped
    ExampleSource src = source(N);
    try (ShardedDataSetIterator one = new ShardedDataSetIterator(src, size * b, 0, 1, 42)) {
      ShardedDataSetIterator[] ranks = new ShardedDataSetIterator[size];
      for (int r = 0; r < size; ++r) {
        ranks[r] = new ShardedDataSetIterator(src, b, r, size, 42);
        assertEquals(6, ranks[r].stepsPerEpoch());
        assertEquals(30, ranks[r].numExamples());
      }
      for (int e = 0; e < 3; ++e) {
        List<int[]> global = epoch(one);
        List<List<int[]>> per = new ArrayList<>();
        for (ShardedDataSetIterator it : ranks) {
          per.add(epoch(it));
        }
        assertEquals(6, global.size());
        Set<Integer> seen = new HashSet<>();
        for (int j = 0; j < global.size(); ++j) {
          int[][] parts = new int[size][];
          for (int r = 0; r < size; ++r) {
            parts[r] = per.get(r).get(j);
            assertEquals(b, parts[r].length, "every minibatch is whole");
          }
          assertArrayEquals(global.get(j), concat(parts), "epoch " + e + ", minibatch " + j);
          for (int i : global.get(j)) {
            assertTrue(seen.add(i), "example " + i + " used twice in epoch " + e);
          }
        }
        assertEquals(N - N % (size * b), seen.size());
        one.reset();
        for (ShardedDataSetIterator it : ranks) {
          it.reset();
        }
      }
    }
  }

  @Test
  void theOrderDependsOnSeedAndEpochOnly() {
    ExampleSource src = source(N);
    ShardedDataSetIterator a = new ShardedDataSetIterator(src, 8, 1, 2, 7);
    ShardedDataSetIterator b = new ShardedDataSetIterator(src, 8, 1, 2, 7);
    List<int[]> a0 = epoch(a);
    List<int[]> b0 = epoch(b);
    assertArrayEquals(a0.toArray(), b0.toArray(), "the same on every run");
    a.reset();
    assertFalse(Arrays.equals(concat(a0.toArray(new int[0][])), concat(epoch(a).toArray(new int[0][]))),
        "another order in the next epoch");
    ShardedDataSetIterator c = new ShardedDataSetIterator(src, 8, 1, 2, 8);
    assertNotEquals(Arrays.toString(concat(a0.toArray(new int[0][]))), Arrays.toString(concat(epoch(c).toArray(new int[0][]))),
        "another seed, another order");
    ShardedDataSetIterator plain = ShardedDataSetIterator.builder(src).batchSize(4).rank(0, 2).shuffle(false).build();
    assertArrayEquals(new int[] {0, 1, 2, 3}, epoch(plain).get(0), "without shuffling: source order");
  }

  @Test
  void seekGoesWhereResetsAndNextsWouldGo() {
    ExampleSource src = source(N);
    ShardedDataSetIterator walked = new ShardedDataSetIterator(src, 4, 0, 2, 3);
    for (int e = 0; e < 2; ++e) {
      walked.reset();
    }
    for (int j = 0; j < 5; ++j) {
      walked.next().close();
    }
    ShardedDataSetIterator sought = new ShardedDataSetIterator(src, 4, 0, 2, 3);
    sought.seek(2, 5);
    assertEquals(2, sought.epoch());
    assertEquals(5, sought.position());
    assertArrayEquals(epoch(walked).toArray(), epoch(sought).toArray());
    sought.seek(2, sought.stepsPerEpoch());
    assertFalse(sought.hasNext(), "the end of the epoch");
    assertThrows(IllegalArgumentException.class, () -> sought.seek(0, sought.stepsPerEpoch() + 1));
    assertThrows(IllegalArgumentException.class, () -> sought.seek(-1, 0));
  }

  @Test
  void withoutDropLastEveryExampleIsVisitedOnceOverTheRanks() {
    int size = 4;
    int b = 10; // global 40: 2 whole, then 23 left: ranks get 10, 10, 3, 0
    ExampleSource src = source(N);
    int[] expectSteps = {3, 3, 3, 2};
    long[] expectExamples = {30, 30, 23, 20};
    Set<Integer> seen = new HashSet<>();
    for (int r = 0; r < size; ++r) {
      ShardedDataSetIterator it = ShardedDataSetIterator.builder(src).batchSize(b).rank(r, size).seed(5).dropLast(false).build();
      assertEquals(expectSteps[r], it.stepsPerEpoch(), "rank " + r);
      assertEquals(expectExamples[r], it.numExamples(), "rank " + r);
      for (int[] mb : epoch(it)) {
        for (int i : mb) {
          assertTrue(seen.add(i), "example " + i + " twice");
        }
      }
    }
    assertEquals(N, seen.size());
  }

  @Test
  void badInputIsRefused() {
    ExampleSource src = source(N);
    assertThrows(IllegalArgumentException.class, () -> new ShardedDataSetIterator(null, 4, 0, 1, 1));
    assertThrows(IllegalArgumentException.class, () -> new ShardedDataSetIterator(src, 0, 0, 1, 1));
    assertThrows(IllegalArgumentException.class, () -> new ShardedDataSetIterator(src, 4, 2, 2, 1));
    assertThrows(IllegalArgumentException.class, () -> new ShardedDataSetIterator(src, 4, -1, 2, 1));
    assertThrows(IllegalArgumentException.class, () -> new ShardedDataSetIterator(src, 4, 0, 0, 1));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new ShardedDataSetIterator(src, 60, 0, 2, 1));
    assertTrue(e.getMessage().contains("fewer than one global batch"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> ExampleSource.of(new float[5], new long[] {3}, new int[] {0, 1}, 2));
    assertThrows(IllegalArgumentException.class, () -> ExampleSource.of(new float[6], new long[] {3}, new int[] {0, 2}, 2));
    assertThrows(IllegalArgumentException.class, () -> ExampleSource.of(new float[6], new long[] {3}, new int[] {0, 1}, 0));
  }
}
