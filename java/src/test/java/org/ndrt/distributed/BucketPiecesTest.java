package org.ndrt.distributed;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/** How a gradient bucket's pieces become the tensors of one collective (no MPI needed). */
class BucketPiecesTest {
  @Test
  void piecesAreSortedAndTouchingOnesJoined() {
    // Backward order gives the last layer first: its weights (100..150) and bias (300..310), then
    // the layer before: weights (40..100) and bias (290..300), and an empty piece.
    List<long[]> merged = DistributedTrainer.merge(List.of(
        new long[] {100, 50}, new long[] {300, 10}, new long[] {40, 60}, new long[] {290, 10}, new long[] {7, 0}));
    assertEquals(2, merged.size());
    assertArrayEquals(new long[] {40, 110}, merged.get(0));
    assertArrayEquals(new long[] {290, 20}, merged.get(1));
  }

  @Test
  void apartPiecesStayApart() {
    List<long[]> merged = DistributedTrainer.merge(List.of(new long[] {10, 5}, new long[] {0, 5}));
    assertEquals(2, merged.size());
    assertArrayEquals(new long[] {0, 5}, merged.get(0));
    assertArrayEquals(new long[] {10, 5}, merged.get(1));
  }
}
