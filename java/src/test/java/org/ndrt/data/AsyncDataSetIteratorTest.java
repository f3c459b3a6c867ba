package org.ndrt.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ndrt.Device;

/** Prefetching: the same batches in the same order, errors on the consumer's thread, no stray threads. */
class AsyncDataSetIteratorTest {
  @TempDir Path dir;

  /** A source that records what it made, where, and fails on request. */
  static final class Recording implements DataSetIterator {
    final DataSetIterator inner;
    final List<DataSet> produced = Collections.synchronizedList(new ArrayList<>());
    final List<String> threads = Collections.synchronizedList(new ArrayList<>());
    volatile Device device;
    volatile int failAtCall = -1; // 1-based call of next() that throws
    volatile Throwable failure;
    volatile boolean closed;
    int calls;

    Recording(DataSetIterator inner) {
      this.inner = inner;
    }

    @Override
    public boolean hasNext() {
      return inner.hasNext();
    }

    @Override
    public DataSet next() {
      calls++;
      threads.add(Thread.currentThread().getName() + (Thread.currentThread().isDaemon() ? "/daemon" : ""));
      device = Device.current();
      if (calls == failAtCall) {
        if (failure instanceof Error) {
          throw (Error) failure;
        }
        throw (RuntimeException) failure;
      }
      DataSet ds = inner.next();
      produced.add(ds);
      return ds;
    }

    @Override
    public void reset() {
      calls = 0;
      failAtCall = -1;
      inner.reset();
    }

    @Override
    public int batchSize() {
      return inner.batchSize();
    }

    @Override
    public long numExamples() {
      return inner.numExamples();
    }

    @Override
    public int totalOutcomes() {
      return inner.totalOutcomes();
    }

    @Override
    public void close() {
      closed = true;
    }
  }

  /** 23 examples of 5 random values, 4 classes, batches of 4 (the last one 3). */
  private static ListDataSetIterator listSource() {
    SplittableRandom rng = new SplittableRandom(5);
    float[] x = new float[23 * 5];
    int[] y = new int[23];
    for (int i = 0; i < x.length; i++) {
      x[i] = (float) rng.nextDouble();
    }
    for (int i = 0; i < y.length; i++) {
      y[i] = rng.nextInt(4);
    }
    return new ListDataSetIterator(x, new long[] {5}, y, 4, 4);
  }

  /** A shuffling source (reshuffles on reset) over a small synthetic IDX set. */
  private MnistDataSetIterator mnistSource() throws IOException {
    int n = 60;
    byte[] px = new byte[n * 16];
    byte[] lb = new byte[n];
    for (int i = 0; i < n; i++) {
      px[i * 16] = (byte) i;
      px[i * 16 + 1 + i % 15] = (byte) 200;
      lb[i] = (byte) (i % 10);
    }
    Path images = dir.resolve("im");
    Path labels = dir.resolve("lb");
    IdxFile.writeUnsignedBytes(images, px, n, 4, 4);
    IdxFile.writeUnsignedBytes(labels, lb, n);
    return MnistDataSetIterator.builder().images(images).labels(labels).batchSize(7).seed(21).build();
  }

  /** One epoch's values: features then labels of each batch, closing the batches. */
  private static List<float[]> drain(DataSetIterator it) {
    List<float[]> out = new ArrayList<>();
    while (it.hasNext()) {
      try (DataSet ds = it.next()) {
        out.add(ds.features().toFloatArray());
        out.add(ds.labels().toFloatArray());
      }
    }
    assertThrows(NoSuchElementException.class, it::next);
    return out;
  }

  private static void assertSameValues(List<float[]> expected, List<float[]> actual) {
    assertEquals(expected.size(), actual.size(), "number of batches (x2)");
    for (int i = 0; i < expected.size(); i++) {
      assertArrayEquals(expected.get(i), actual.get(i), "batch part " + i);
    }
  }

  private static long liveWorkers() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && t.getName().equals(AsyncDataSetIterator.THREAD_NAME)).count();
  }

  private static void waitUntil(BooleanSupplier condition, String what) throws InterruptedException {
    long end = System.nanoTime() + 5_000_000_000L;
    while (!condition.getAsBoolean()) {
      assertTrue(System.nanoTime() < end, "timed out waiting: " + what);
      Thread.sleep(5);
    }
  }

  @AfterEach
  void noThreadLeft() throws InterruptedException {
    waitUntil(() -> liveWorkers() == 0, "no ndrt-prefetch thread after a test");
  }

  @Test
  void sameSequenceAsTheSourceOverTwoEpochs() throws IOException {
    for (int prefetch : new int[] {1, 2, 5}) {
      ListDataSetIterator plain = listSource();
      List<float[]> e0 = drain(plain);
      plain.reset();
      List<float[]> e1 = drain(plain);
      assertEquals(12, e0.size(), "6 batches");
      try (AsyncDataSetIterator async = new AsyncDataSetIterator(listSource(), prefetch)) {
        assertEquals(4, async.batchSize());
        assertEquals(23, async.numExamples());
        assertEquals(4, async.totalOutcomes());
        assertSameValues(e0, drain(async));
        async.reset();
        assertSameValues(e1, drain(async));
      }
    }
    // A shuffling source: the second epoch is a different order, and must still match.
    try (MnistDataSetIterator plain = mnistSource(); AsyncDataSetIterator async = new AsyncDataSetIterator(mnistSource())) {
      List<float[]> e0 = drain(plain);
      plain.reset();
      List<float[]> e1 = drain(plain);
      assertFalse(java.util.Arrays.equals(e0.get(0), e1.get(0)), "the source reshuffles");
      assertSameValues(e0, drain(async));
      async.reset();
      assertSameValues(e1, drain(async));
    }
  }

  @Test
  void batchesAreMadeOnADaemonPrefetchThreadOnTheConsumersDevice() {
    Recording src = new Recording(listSource());
    try (AsyncDataSetIterator async = new AsyncDataSetIterator(src)) {
      drain(async);
    }
    assertEquals(6, src.threads.size());
    for (String t : src.threads) {
      assertEquals("ndrt-prefetch/daemon", t);
    }
    assertEquals(Device.current(), src.device);
  }

  @Test
  void sourceExceptionSurfacesOnTheConsumer() {
    Recording src = new Recording(listSource());
    IllegalArgumentException boom = new IllegalArgumentException("boom in the source");
    src.failure = boom;
    src.failAtCall = 3;
    ListDataSetIterator reference = listSource();
    try (AsyncDataSetIterator async = new AsyncDataSetIterator(src, 2)) {
      for (int i = 0; i < 2; i++) {
        try (DataSet got = async.next(); DataSet want = reference.next()) {
          assertArrayEquals(want.features().toFloatArray(), got.features().toFloatArray());
        }
      }
      IllegalStateException e = assertThrows(IllegalStateException.class, async::hasNext);
      assertSame(boom, e.getCause(), "the original exception is the cause");
      assertTrue(e.getMessage().contains("boom in the source"), e.getMessage());
      assertSame(boom, assertThrows(IllegalStateException.class, async::next).getCause(), "and stays until reset");

      async.reset(); // the source no longer fails after its reset
      reference.reset();
      assertSameValues(drain(reference), drain(async));
    }
  }

  @Test
  void errorsAreNotLostEither() {
    Recording src = new Recording(listSource());
    src.failure = new StackOverflowError("deep");
    src.failAtCall = 1;
    try (AsyncDataSetIterator async = new AsyncDataSetIterator(src)) {
      IllegalStateException e = assertThrows(IllegalStateException.class, async::hasNext);
      assertSame(src.failure, e.getCause());
    }
  }

  @Test
  void prefetchIsBoundedAndCloseStopsTheThreadAndClosesWhatWasQueued() throws InterruptedException {
    Recording src = new Recording(listSource()); // 6 batches
    AsyncDataSetIterator async = new AsyncDataSetIterator(src, 2);
    DataSet first = async.next();
    // The worker runs ahead: 2 queued plus at most 1 waiting in its hand, never the whole epoch.
    waitUntil(() -> src.produced.size() >= 3, "the worker prefetches");
    Thread.sleep(100);
    assertTrue(src.produced.size() <= 4, "bounded prefetch: made " + src.produced.size());
    assertEquals(1, liveWorkers());

    async.close();
    assertEquals(0, liveWorkers(), "close() leaves no ndrt-prefetch thread");
    assertTrue(src.closed, "close() closes the source");
    assertSame(first, src.produced.get(0));
    assertFalse(first.features().isClosed(), "what the consumer took is the consumer's");
    for (DataSet ds : src.produced.subList(1, src.produced.size())) {
      assertTrue(ds.features().isClosed() && ds.labels().isClosed(), "prefetched batches are closed, not leaked");
    }
    first.close();
    assertThrows(IllegalStateException.class, async::hasNext);
    assertThrows(IllegalStateException.class, async::reset);
    async.close(); // idempotent
  }

  @Test
  void resetMidEpochRestartsFromTheBeginning() throws InterruptedException {
    Recording src = new Recording(listSource());
    try (AsyncDataSetIterator async = new AsyncDataSetIterator(src, 3)) {
      async.next().close();
      waitUntil(() -> src.produced.size() >= 4, "the worker prefetches");
      async.reset();
      assertEquals(0, liveWorkers(), "reset stops the worker (the next epoch starts on demand)");
      for (DataSet ds : src.produced) {
        assertTrue(ds.features().isClosed(), "batches of the abandoned epoch are closed");
      }
      assertSameValues(drain(listSource()), drain(async));
    }
  }

  @Test
  void threadEndsWithTheEpoch() throws InterruptedException {
    AsyncDataSetIterator async = new AsyncDataSetIterator(listSource());
    drain(async);
    waitUntil(() -> liveWorkers() == 0, "the worker ends after the last batch");
    assertFalse(async.hasNext());
    async.close();
  }

  @Test
  void badArgumentsAreRejected() {
    assertThrows(IllegalArgumentException.class, () -> new AsyncDataSetIterator(null));
    assertThrows(IllegalArgumentException.class, () -> new AsyncDataSetIterator(listSource(), 0));
  }
}
