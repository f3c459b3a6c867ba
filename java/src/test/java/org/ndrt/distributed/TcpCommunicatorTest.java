package org.ndrt.distributed;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.ndrt.distributed.TcpRanks.PATIENT;

import java.net.InetAddress;
import java.nio.channels.ServerSocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.ndrt.BackendException;
import org.ndrt.DType;
import org.ndrt.InvalidArgumentException;
import org.ndrt.Tensor;

/** TcpCommunicator's collectives with ranks as threads of this JVM, against float64 references. */
class TcpCommunicatorTest {
  /** Rank {@code r}'s {@code n} values in [-1, 1) for case {@code seed}. */
  static float[] data(int r, int n, long seed) {
    Random g = new Random(seed * 1009 + r);
    float[] x = new float[n];
    for (int i = 0; i < n; ++i) {
      x[i] = 2 * g.nextFloat() - 1;
    }
    return x;
  }

  static double[] data64(int r, int n, long seed) {
    Random g = new Random(seed * 1013 + r);
    double[] x = new double[n];
    for (int i = 0; i < n; ++i) {
      x[i] = g.nextGaussian();
    }
    return x;
  }

  /** max over i of |got - ref| / (sum over ranks of |x|): f32 sums of 2 or 3 values stay below 1e-7. */
  static double worstF32Sum(float[] got, int size, int n, long seed, double divide) {
    double[] ref = new double[n];
    double[] mag = new double[n];
    for (int r = 0; r < size; ++r) {
      float[] x = data(r, n, seed);
      for (int i = 0; i < n; ++i) {
        ref[i] += x[i];
        mag[i] += Math.abs(x[i]);
      }
    }
    double worst = 0;
    for (int i = 0; i < n; ++i) {
      worst = Math.max(worst, Math.abs(got[i] - ref[i] / divide) / (mag[i] / divide));
    }
    return worst;
  }

  @Test
  void sumOfRandomF32MatchesTheFloat64SumAndIsBitIdenticalOnEveryRank() throws Exception {
    // one element; fewer than the ranks; a chunk and one more (empty segments); 1e6 (4 chunks, not a multiple of 3)
    int[] lengths = {1, 2, 5, TcpCommunicator.CHUNK_BYTES / 4 + 1, 1_000_000};
    for (int size : new int[] {2, 3}) {
      List<List<float[]>> got = TcpRanks.run(size, PATIENT, (r, c) -> {
        List<float[]> out = new ArrayList<>();
        for (int n : lengths) {
          try (Tensor t = Tensor.from(data(r, n, n), n)) {
            c.allreduce(t, ReduceOp.SUM);
            out.add(t.toFloatArray());
          }
        }
        return out;
      });
      for (int i = 0; i < lengths.length; ++i) {
        int n = lengths[i];
        double worst = worstF32Sum(got.get(0).get(i), size, n, n, 1);
        assertTrue(worst <= 1e-6, size + " ranks, " + n + " elements: relative error " + worst);
        for (int r = 1; r < size; ++r) {
          assertArrayEquals(got.get(0).get(i), got.get(r).get(i), size + " ranks, " + n + " elements: rank " + r + " differs");
        }
      }
    }
  }

  @Test
  void f64SumMeanAndIntegerReductions() throws Exception {
    int n = 200_001; // two f64 chunks, not a multiple of the ranks
    for (int size : new int[] {2, 3}) {
      List<List<Object>> got = TcpRanks.run(size, PATIENT, (r, c) -> {
        List<Object> out = new ArrayList<>();
        try (Tensor s = Tensor.from(data64(r, n, 1), n); Tensor m = Tensor.from(data64(r, n, 1), n)) {
          c.allreduce(s, ReduceOp.SUM);
          c.allreduce(m, ReduceOp.MEAN);
          out.add(s.toDoubleArray());
          out.add(m.toDoubleArray());
        }
        for (ReduceOp op : new ReduceOp[] {ReduceOp.MEAN, ReduceOp.MAX, ReduceOp.MIN}) {
          try (Tensor t = Tensor.from(data(r, 1001, 2), 1001)) {
            c.allreduce(t, op);
            out.add(t.toFloatArray());
          }
        }
        long[] l = {r * 3_000_000_000L + 7, -r, 5 - r};
        int[] k = {r * 100_000, -7 * r, 3 + r};
        try (Tensor tl = Tensor.from(l, 3); Tensor tk = Tensor.from(k, 3); Tensor tm = Tensor.from(k, 3)) {
          c.allreduce(tl, ReduceOp.SUM);
          c.allreduce(tk, ReduceOp.MAX);
          c.allreduce(tm, ReduceOp.MIN);
          out.add(tl.toLongArray());
          out.add(tk.toIntArray());
          out.add(tm.toIntArray());
        }
        return out;
      });
      double[] sum = new double[n];
      float[] max = data(0, 1001, 2);
      float[] min = data(0, 1001, 2);
      for (int r = 0; r < size; ++r) {
        double[] x = data64(r, n, 1);
        for (int i = 0; i < n; ++i) {
          sum[i] += x[i];
        }
        float[] f = data(r, 1001, 2);
        for (int i = 0; i < 1001; ++i) {
          max[i] = Math.max(max[i], f[i]);
          min[i] = Math.min(min[i], f[i]);
        }
      }
      double[] s = (double[]) got.get(0).get(0);
      double[] m = (double[]) got.get(0).get(1);
      for (int i = 0; i < n; ++i) {
        assertEquals(sum[i], s[i], 1e-12 * (1 + Math.abs(sum[i])), "f64 SUM at " + i);
        assertEquals(sum[i] / size, m[i], 1e-12 * (1 + Math.abs(sum[i])), "f64 MEAN at " + i);
      }
      double worst = worstF32Sum((float[]) got.get(0).get(2), size, 1001, 2, size);
      assertTrue(worst <= 1e-6, "f32 MEAN: relative error " + worst);
      assertArrayEquals(max, (float[]) got.get(0).get(3), "f32 MAX");
      assertArrayEquals(min, (float[]) got.get(0).get(4), "f32 MIN");
      long[] l = new long[3];
      int[] kmax = {Integer.MIN_VALUE, Integer.MIN_VALUE, Integer.MIN_VALUE};
      int[] kmin = {Integer.MAX_VALUE, Integer.MAX_VALUE, Integer.MAX_VALUE};
      for (int r = 0; r < size; ++r) {
        long[] lr = {r * 3_000_000_000L + 7, -r, 5 - r};
        int[] kr = {r * 100_000, -7 * r, 3 + r};
        for (int i = 0; i < 3; ++i) {
          l[i] += lr[i];
          kmax[i] = Math.max(kmax[i], kr[i]);
          kmin[i] = Math.min(kmin[i], kr[i]);
        }
      }
      assertArrayEquals(l, (long[]) got.get(0).get(5), "i64 SUM");
      assertArrayEquals(kmax, (int[]) got.get(0).get(6), "i32 MAX");
      assertArrayEquals(kmin, (int[]) got.get(0).get(7), "i32 MIN");
      for (int r = 1; r < size; ++r) {
        for (int j = 0; j < got.get(0).size(); ++j) {
          assertTrue(java.util.Objects.deepEquals(got.get(0).get(j), got.get(r).get(j)), "result " + j + " of rank " + r
              + " differs from rank 0's");
        }
      }
    }
  }

  @Test
  void broadcastGivesEveryRankTheRootsValues() throws Exception {
    int n = 1_000_000; // 4 chunks through the pipeline
    for (int size : new int[] {2, 3}) {
      List<List<Object>> got = TcpRanks.run(size, PATIENT, (r, c) -> {
        List<Object> out = new ArrayList<>();
        for (int root = 0; root < size; ++root) {
          try (Tensor t = Tensor.from(data(r, n, root), n);
               Tensor l = Tensor.from(new long[] {r, 10L * r, -r}, 3);
               Tensor b = Tensor.from(new byte[] {(byte) r, (byte) (200 + r)}, DType.U8, 2)) {
            c.broadcast(t, root);
            c.broadcast(l, root);
            c.broadcast(b, root);
            out.add(t.toFloatArray());
            out.add(l.toLongArray());
            out.add(b.toByteArray());
          }
        }
        return out;
      });
      for (int root = 0; root < size; ++root) {
        for (int r = 0; r < size; ++r) {
          List<Object> g = got.get(r);
          assertArrayEquals(data(root, n, root), (float[]) g.get(3 * root), "f32 from root " + root + " on rank " + r);
          assertArrayEquals(new long[] {root, 10L * root, -root}, (long[]) g.get(3 * root + 1), "i64 on rank " + r);
          assertArrayEquals(new byte[] {(byte) root, (byte) (200 + root)}, (byte[]) g.get(3 * root + 2), "u8 on rank " + r);
        }
      }
    }
  }

  @Test
  void stridedViewsAreReducedInPlace() throws Exception {
    List<float[]> got = TcpRanks.run(2, PATIENT, (r, c) -> {
      try (Tensor base = Tensor.from(data(r, 12, 3), 4, 3); Tensor view = base.transpose(0, 1)) {
        assertFalse(view.isContiguous(), "the test needs a strided view");
        c.allreduce(view, ReduceOp.SUM);
        return base.toFloatArray();
      }
    });
    float[] a = data(0, 12, 3);
    float[] b = data(1, 12, 3);
    for (int i = 0; i < 12; ++i) {
      assertEquals(a[i] + b[i], got.get(0)[i], 0f, "element " + i);
    }
    assertArrayEquals(got.get(0), got.get(1));
  }

  @Test
  void asyncBucketsRunInCallOrderWithTheSynchronousCalls() throws Exception {
    List<List<float[]>> got = TcpRanks.run(3, PATIENT, (r, c) -> {
      float[] big = data(r, 40, 4);
      try (Tensor whole = Tensor.from(big, 40);
           Tensor a = whole.slice(0, 5, 15);
           Tensor b = Tensor.from(data(r, 15, 5), 3, 5);
           Tensor one = Tensor.from(new float[] {r + 0.5f}, 1);
           Tensor later = Tensor.from(data(r, 7, 6), 7)) {
        Collectives.Pending p = c.allreduceAsync(ReduceOp.SUM, a, b, one);
        Collectives.Pending q = c.allreduceAsync(ReduceOp.MAX, later);
        c.barrier(); // queued behind both: they are done when it returns
        assertTrue(p.isDone() && q.isDone());
        p.await();
        q.close();
        p.close();
        return List.of(whole.toFloatArray(), b.toFloatArray(), one.toFloatArray(), later.toFloatArray());
      }
    });
    float[] whole = new float[40];
    float[] b = new float[15];
    float[] later = data(0, 7, 6);
    System.arraycopy(data(0, 40, 4), 0, whole, 0, 40);
    for (int r = 1; r < 3; ++r) {
      float[] w = data(r, 40, 4);
      for (int i = 5; i < 15; ++i) {
        whole[i] += w[i];
      }
      float[] l = data(r, 7, 6);
      for (int i = 0; i < 7; ++i) {
        later[i] = Math.max(later[i], l[i]);
      }
    }
    for (int r = 0; r < 3; ++r) {
      float[] br = data(r, 15, 5);
      for (int i = 0; i < 15; ++i) {
        b[i] += br[i];
      }
    }
    for (int r = 0; r < 3; ++r) {
      float[] mine = data(r, 40, 4);
      for (int i = 0; i < 40; ++i) { // outside the slice each rank keeps its own
        float want = i >= 5 && i < 15 ? whole[i] : mine[i];
        assertEquals(want, got.get(r).get(0)[i], 1e-6f, "rank " + r + ", element " + i);
      }
      assertArrayEquals(b, got.get(r).get(1), 1e-6f);
      assertArrayEquals(new float[] {0.5f + 1.5f + 2.5f}, got.get(r).get(2));
      assertArrayEquals(later, got.get(r).get(3));
    }
  }

  @Test
  void barrierWaitsForEveryRank() throws Exception {
    AtomicBoolean lastArrived = new AtomicBoolean();
    List<Boolean> seen = TcpRanks.run(3, PATIENT, (r, c) -> {
      if (r == 2) {
        Thread.sleep(300); // the others reach the barrier first
        lastArrived.set(true);
      }
      c.barrier();
      return lastArrived.get();
    });
    assertEquals(List.of(true, true, true), seen);
  }

  @Test
  void differentCollectivesOnTheRanksFailEveryRankAndLeaveTheGroupUsable() throws Exception {
    List<List<Throwable>> got = TcpRanks.run(2, PATIENT, (r, c) -> {
      List<Throwable> out = new ArrayList<>();
      try (Tensor t = Tensor.from(data(r, 10 + r, 7), 10 + r); Tensor u = Tensor.from(new float[] {r + 1f}, 1)) {
        out.add(TcpRanks.thrown(() -> c.allreduce(t, ReduceOp.SUM)));
        out.add(TcpRanks.thrown(() -> {
          if (r == 0) {
            c.barrier();
          } else {
            c.broadcast(u, 0);
          }
        }));
        c.allreduce(u, ReduceOp.SUM); // in step again
        assertEquals(3f, u.item(), 0f);
      }
      return out;
    });
    for (int r = 0; r < 2; ++r) {
      Throwable e = got.get(r).get(0);
      assertInstanceOf(InvalidArgumentException.class, e, "rank " + r);
      assertTrue(e.getMessage().contains("rank 0 allreduce SUM of 10 f32 elements; rank 1 allreduce SUM of 11 f32 elements"),
          e.getMessage());
      e = got.get(r).get(1);
      assertInstanceOf(InvalidArgumentException.class, e, "rank " + r);
      assertTrue(e.getMessage().contains("rank 0 barrier; rank 1 broadcast from rank 0"), e.getMessage());
    }
  }

  @Test
  @Timeout(120)
  void aPeerThatDiesMidAllreduceFailsEverySurvivingRank() throws Exception {
    for (int size : new int[] {2, 3}) {
      List<Throwable> got = TcpRanks.run(size, Duration.ofSeconds(2), (r, c) -> {
        if (r == 1) {
          c.crashAfterExchanges(size - 1 + 2); // the header ring, then two data steps
        }
        try (Tensor t = Tensor.from(data(r, 1_000_000, 8), 1_000_000)) {
          Throwable e = TcpRanks.thrown(() -> c.allreduce(t, ReduceOp.SUM));
          Throwable again = TcpRanks.thrown(() -> c.allreduce(t, ReduceOp.SUM));
          assertInstanceOf(BackendException.class, again, "a broken communicator fails at once");
          assertTrue(again.getMessage().contains("broken by an earlier failure"), again.getMessage());
          return e;
        }
      });
      for (int r = 0; r < size; ++r) {
        assertInstanceOf(BackendException.class, got.get(r), size + " ranks, rank " + r);
      }
      assertTrue(got.get(1).getMessage().contains("crashAfterExchanges"), got.get(1).getMessage());
    }
  }

  @Test
  @Timeout(120)
  void closeEndsTheWorkerThreadAndThePeersCollectiveFails() throws Exception {
    CountDownLatch closed = new CountDownLatch(1);
    List<Throwable> got = TcpRanks.run(2, PATIENT, (r, c) -> {
      if (r == 1) {
        c.close();
        boolean alive = Thread.getAllStackTraces().keySet().stream()
            .anyMatch(t -> t.getName().equals("ndrt-tcp-rank1") && t.isAlive());
        closed.countDown();
        return alive ? new AssertionError("the worker thread outlived close()") : null;
      }
      closed.await();
      try (Tensor t = Tensor.from(data(r, 100, 11), 100)) {
        return TcpRanks.thrown(() -> c.allreduce(t, ReduceOp.SUM));
      }
    });
    assertInstanceOf(BackendException.class, got.get(0)); // its peer's end of file (or a reset)
    assertEquals(null, got.get(1));
  }

  @Test
  @Timeout(120)
  void aSilentPeerFailsTheOthersAfterTheTimeout() throws Exception {
    CountDownLatch othersDone = new CountDownLatch(2);
    List<Throwable> got = TcpRanks.run(3, Duration.ofSeconds(1), (r, c) -> {
      if (r == 1) { // connected, then silent: it makes no collective until the others have failed
        othersDone.await();
        return null;
      }
      try (Tensor t = Tensor.from(data(r, 100, 9), 100)) {
        return TcpRanks.thrown(() -> c.allreduce(t, ReduceOp.SUM));
      } finally {
        othersDone.countDown();
      }
    });
    for (int r : new int[] {0, 2}) {
      assertInstanceOf(BackendException.class, got.get(r), "rank " + r);
    }
    // rank 2 waits on rank 1 and times out; rank 0 times out as well or sees rank 2 close
    assertTrue(got.get(2).getMessage().contains("no data moved for 1000 ms"), got.get(2).getMessage());
  }

  @Test
  @Timeout(120)
  void aRankThatNeverComesFailsConnectAfterTheTimeout() throws Exception {
    try (ServerSocketChannel absent = TcpCommunicator.listen(); ServerSocketChannel mine = TcpCommunicator.listen()) {
      List<String> addresses = List.of(TcpCommunicator.address(mine), TcpCommunicator.address(absent));
      BackendException e = assertThrows(BackendException.class,
          () -> TcpCommunicator.connect(0, addresses, mine, Duration.ofMillis(500)));
      assertTrue(e.getMessage().contains("rank 1"), e.getMessage());
      assertFalse(mine.isOpen(), "connect closes the server socket");
    }
  }

  /** connect(rank 0) on a fresh server socket, "MINE" in the list standing for its address. */
  static void refused(List<String> list, Duration timeout) throws Exception {
    try (ServerSocketChannel c = TcpCommunicator.listen()) {
      String me = TcpCommunicator.address(c);
      List<String> l = list == null ? null : new ArrayList<>();
      for (String s : list == null ? List.<String>of() : list) {
        l.add("MINE".equals(s) ? me : s);
      }
      assertThrows(IllegalArgumentException.class, () -> TcpCommunicator.connect(0, l, c, timeout), String.valueOf(l));
      assertFalse(c.isOpen(), "connect closes the server socket when it throws");
    }
  }

  @Test
  void badAddressesAndRanksAreRefused() throws Exception {
    Duration t = Duration.ofSeconds(5);
    refused(List.of("MINE", "MINE"), t); // one address twice
    refused(List.of("MINE", "nohost"), t);
    refused(List.of("MINE", "h:0"), t);
    refused(List.of("MINE", "h:65536"), t);
    refused(List.of("MINE", "h:x"), t);
    refused(List.of("MINE", "::1:80"), t); // IPv6 without brackets
    refused(List.of("127.0.0.1:1", "MINE"), t); // rank 0's address is not its server socket's
    refused(List.of(), t);
    refused(null, t);
    refused(java.util.Arrays.asList("MINE", null), t);
    refused(List.of("MINE", "127.0.0.1:1"), Duration.ZERO);
    refused(List.of("MINE", "127.0.0.1:1"), null);
    try (ServerSocketChannel c = TcpCommunicator.listen()) {
      List<String> l = List.of(TcpCommunicator.address(c), "127.0.0.1:1");
      assertThrows(IllegalArgumentException.class, () -> TcpCommunicator.connect(2, l, c, t));
      assertThrows(IllegalArgumentException.class, () -> TcpCommunicator.connect(-1, l, c, t));
      assertThrows(IllegalArgumentException.class, () -> TcpCommunicator.connect(0, l, null, t));
    }
    try (ServerSocketChannel w = ServerSocketChannel.open()) {
      w.bind(new java.net.InetSocketAddress(InetAddress.getByName("0.0.0.0"), 0));
      assertThrows(IllegalArgumentException.class, () -> TcpCommunicator.address(w));
    }
  }

  @Test
  @Timeout(120)
  void ranksGivenDifferentAddressListsAreRefusedOnBothSides() throws Exception {
    // rank 1 believes in a third rank; rank 0 does not
    try (ServerSocketChannel third = TcpCommunicator.listen()) {
      String extra = TcpCommunicator.address(third);
      List<Throwable> got = TcpRanks.start(2, (r, addresses, mine) -> {
        List<String> l = new ArrayList<>(addresses);
        if (r == 1) {
          l.add(extra);
        }
        return TcpRanks.thrown(() -> TcpCommunicator.connect(r, l, mine, PATIENT).close());
      });
      for (int r = 0; r < 2; ++r) {
        assertInstanceOf(IllegalArgumentException.class, got.get(r), "rank " + r);
        assertTrue(got.get(r).getMessage().contains("different numbers of addresses"), got.get(r).getMessage());
      }
    }
    // the same ranks, one list naming a host differently
    List<Throwable> got = TcpRanks.start(2, (r, addresses, mine) -> {
      List<String> l = new ArrayList<>(addresses);
      if (r == 1) {
        l.set(0, l.get(0).replace("127.0.0.1", "localhost"));
      }
      return TcpRanks.thrown(() -> TcpCommunicator.connect(r, l, mine, PATIENT).close());
    });
    for (int r = 0; r < 2; ++r) {
      assertInstanceOf(IllegalArgumentException.class, got.get(r), "rank " + r);
      assertTrue(got.get(r).getMessage().contains("different address lists"), got.get(r).getMessage());
    }
  }

  @Test
  void badCallsAreRefusedOnTheCallingThreadAndTheGroupGoesOn() throws Exception {
    List<Float> got = TcpRanks.run(2, PATIENT, (r, c) -> {
      try (Tensor f = Tensor.from(new float[] {r + 1f}, 1);
           Tensor i = Tensor.from(new int[] {r}, 1);
           Tensor h = Tensor.zeros(DType.F16, 2)) {
        assertThrows(IllegalArgumentException.class, () -> c.allreduce(null, ReduceOp.SUM));
        assertThrows(IllegalArgumentException.class, () -> c.allreduce(f, null));
        assertThrows(IllegalArgumentException.class, () -> c.allreduce(i, ReduceOp.MEAN));
        assertThrows(UnsupportedOperationException.class, () -> c.allreduce(h, ReduceOp.SUM));
        assertThrows(IllegalArgumentException.class, () -> c.broadcast(f, 2));
        assertThrows(IllegalArgumentException.class, () -> c.broadcast(f, -1));
        assertThrows(IllegalArgumentException.class, () -> c.allreduceAsync(ReduceOp.SUM));
        assertThrows(IllegalArgumentException.class, () -> c.allreduceAsync(ReduceOp.SUM, f, i));
        c.allreduce(f, ReduceOp.MEAN); // none of the above reached the wire
        return (float) f.item();
      }
    });
    assertEquals(List.of(1.5f, 1.5f), got);
  }

  @Test
  void aGroupOfOneAndCallsAfterClose() throws Exception {
    ServerSocketChannel mine = TcpCommunicator.listen();
    TcpCommunicator c = TcpCommunicator.connect(0, List.of(TcpCommunicator.address(mine)), mine, PATIENT);
    try (Tensor t = Tensor.from(data(0, 5, 10), 5)) {
      assertEquals(0, c.rank());
      assertEquals(1, c.size());
      c.allreduce(t, ReduceOp.MEAN);
      c.broadcast(t, 0);
      c.barrier();
      c.allreduceAsync(ReduceOp.SUM, t).await();
      assertArrayEquals(data(0, 5, 10), t.toFloatArray());
      c.close();
      c.close();
      assertThrows(IllegalStateException.class, () -> c.allreduce(t, ReduceOp.SUM));
      assertThrows(IllegalStateException.class, c::barrier);
    }
  }
}
