package org.ndrt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * A program that never calls close() stays bounded: 2,000,000 small tensors, none closed, with a low
 * memory-pressure threshold. Native memory in use (ndrt_memory_stats_get) is sampled throughout and
 * must stay within 16 thresholds (32 MiB) of where it started, although keeping every tensor would take
 * 2,000,000 x 64 bytes (one 64-byte size class each) = 128 MB.
 */
class GcPressureTest {
  static final long THRESHOLD = 2L << 20; // 2 MiB

  @AfterAll
  static void restoreDefault() {
    Memory.setPressureThreshold(Memory.DEFAULT_PRESSURE_THRESHOLD);
  }

  @Test
  void twoMillionUnclosedTensorsStayBounded() {
    Device.CPU.attach();
    Memory.setPressureThreshold(THRESHOLD);
    // warm up classes and the pool, then take the baseline
    for (int i = 0; i < 1000; ++i) {
      Tensor.empty(DType.F32, 4).close();
    }
    long before = Memory.stats(Device.CPU).inUse();
    long gcBefore = Memory.gcRequests();
    long maxInUse = before;
    long sink = 0;
    final int n = 2_000_000;
    long t0 = System.nanoTime();
    for (int i = 0; i < n; ++i) {
      Tensor t = Tensor.empty(DType.F32, 4); // 16 bytes -> one 64-byte chunk; never closed
      sink += t.hashCode();
      if ((i & 0x3fff) == 0) {
        maxInUse = Math.max(maxInUse, Memory.stats(Device.CPU).inUse());
      }
    }
    long seconds = (System.nanoTime() - t0) / 1_000_000_000L;
    long after = Memory.stats(Device.CPU).inUse();
    long gcs = Memory.gcRequests() - gcBefore;
    System.out.printf("in_use before %d, max sampled %d, after %d bytes; %d GC requests from the pressure hook;"
        + " live handles %d; %d s (%d)%n", before, maxInUse, after, gcs, Memory.liveHandles(), seconds, sink & 1);

    long unbounded = 64L * n;
    long bound = before + 16 * THRESHOLD; // 32 MiB: a quarter of what never collecting takes
    assertTrue(gcs > 0, "the pressure hook never ran");
    assertTrue(maxInUse < bound, "native memory grew to " + maxInUse + " bytes (bound " + bound
        + ", never collecting would be " + unbounded + ")");
    assertTrue(after < bound, "native memory after: " + after);

    // And everything goes back once the collector has seen it all.
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (Memory.stats(Device.CPU).inUse() > before && System.nanoTime() < deadline) {
      System.gc();
      sleep(20);
    }
    assertEquals(before, Memory.stats(Device.CPU).inUse(), "in_use back at the baseline");
  }

  static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
