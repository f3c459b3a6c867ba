package org.ndrt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Programs that never call close() stay bounded. The bound is the pressure hook's guarantee, not a
 * timing margin: the runtime calls the hook after every eighth of the threshold of growth over it,
 * and the hook, on the allocating thread, collects once in use is a threshold over what was live after
 * the previous collection and releases what the collection found before returning. So the pool's
 * exact peak (not a sample) stays within the threshold plus an eighth over the baseline; the tests
 * allow two thresholds (the rest for references the collector found but the reference handler has
 * not queued yet when the hook returns), and with several threads an eighth more per other thread:
 * while one thread collects, each of the others can allocate up to the next eighth before the hook
 * holds it (seen on a loaded machine: 0.8 MB over two thresholds with three threads). The marker
 * wait is made long so that a busy machine only slows the test down.
 */
class GcPressureTest {
  static final long DEFAULT_WAIT_MILLIS = 1000;

  @BeforeAll
  static void waitForTheCollector() {
    Memory.setPressureMaxWaitMillis(60_000);
  }

  @AfterAll
  static void restoreDefault() {
    Memory.setPressureThreshold(Memory.DEFAULT_PRESSURE_THRESHOLD);
    Memory.setPressureMaxWaitMillis(DEFAULT_WAIT_MILLIS);
  }

  @Test
  void twoMillionUnclosedTensorsStayBounded() {
    final long threshold = 2L << 20; // 2 MiB
    final int n = 2_000_000;
    // Tensor.empty(F32, 4): 16 bytes -> one 64-byte chunk; keeping them all would take 128 MB
    check(threshold, n, 1, 64L * n, () -> Tensor.empty(DType.F32, 4).hashCode());
  }

  /** Two 1,000-float tensors per iteration, the input and an op's output, never closed. */
  @Test
  void twoTensorsPerIterationStayBounded() {
    final long threshold = 16L << 20; // 16 MiB
    final int n = 400_000;
    final float[] data = new float[1000];
    // each is one 4096-byte chunk: keeping them all would take 3.3 GB
    check(threshold, n, 1, 2 * 4096L * n, () -> {
      Tensor t = Tensor.from(data, 1000);
      return t.hashCode() + Ops.relu(t).hashCode();
    });
  }

  /** The same from three threads at once: the others wait while one collects and releases. */
  @Test
  void threeThreadsStayBounded() {
    final long threshold = 16L << 20;
    final int n = 150_000;
    final float[] data = new float[1000];
    check(threshold, n, 3, 3 * 2 * 4096L * n, () -> {
      Tensor t = Tensor.from(data, 1000);
      return t.hashCode() + Ops.relu(t).hashCode();
    });
  }

  interface Step {
    long run();
  }

  /** Runs {@code step} n times on each of {@code threads} threads; checks the pool's peak. */
  static void check(long threshold, int n, int threads, long unbounded, Step step) {
    Device.CPU.attach();
    Memory.setPressureThreshold(threshold);
    for (int i = 0; i < 1000; ++i) { // warm up classes and the pool, then take the baseline
      step.run();
    }
    System.gc();
    settle(-1); // until it stops falling
    long before = Memory.stats(Device.CPU).inUse();
    Memory.resetPeak(Device.CPU);
    long gcBefore = Memory.gcRequests();
    long[] sinks = new long[threads];
    long t0 = System.nanoTime();
    Thread[] ts = new Thread[threads];
    Throwable[] failed = new Throwable[1];
    for (int k = 0; k < threads; ++k) {
      final int id = k;
      ts[k] = new Thread(() -> {
        Device.CPU.attach();
        for (int i = 0; i < n; ++i) {
          sinks[id] += step.run();
        }
      });
      ts[k].setUncaughtExceptionHandler((t, e) -> failed[0] = e);
      ts[k].start();
    }
    for (Thread t : ts) {
      try {
        t.join();
      } catch (InterruptedException e) {
        throw new AssertionError(e);
      }
    }
    if (failed[0] != null) {
      throw new AssertionError("an allocating thread failed", failed[0]);
    }
    long sink = java.util.Arrays.stream(sinks).sum();
    long ms = (System.nanoTime() - t0) / 1_000_000L;
    MemoryStats s = Memory.stats(Device.CPU);
    long gcs = Memory.gcRequests() - gcBefore;
    System.out.printf("threshold %d: in_use before %d, peak %d, after %d bytes; %d GC requests from the"
        + " pressure hook; live handles %d; %d ms (%d)%n", threshold, before, s.peak(), s.inUse(), gcs,
        Memory.liveHandles(), ms, sink & 1);

    // Each other thread may cross one more eighth of the threshold before it reaches the hook and
    // waits for the thread that is collecting.
    long bound = before + 2 * threshold + (threads - 1) * (threshold / 8);
    assertTrue(gcs > 0, "the pressure hook never collected");
    assertTrue(s.peak() < bound, "native memory grew to " + s.peak() + " bytes (bound " + bound
        + ", never collecting would be " + unbounded + ")");
    assertTrue(s.inUse() < bound, "native memory after: " + s.inUse());
    // And everything goes back once the collector has seen it all.
    assertEquals(before, settle(before), "in_use back at the baseline");
  }

  /** Collects until in use is at most {@code target} or stops falling; returns in use. */
  static long settle(long target) {
    long deadline = System.nanoTime() + 30_000_000_000L;
    long last = Long.MAX_VALUE;
    int still = 0;
    while (System.nanoTime() < deadline) {
      long now = Memory.stats(Device.CPU).inUse();
      if (now <= target || (now >= last && ++still > 10)) {
        return now;
      }
      if (now < last) {
        still = 0;
      }
      last = now;
      System.gc();
      sleep(20);
    }
    return Memory.stats(Device.CPU).inUse();
  }

  static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
