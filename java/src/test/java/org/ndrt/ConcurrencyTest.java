package org.ndrt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Eight Java threads running ops at once, with their own and shared tensors, get correct results. */
class ConcurrencyTest {
  static final int THREADS = 8;
  static final int ITERATIONS = 2000;

  @Test
  void eightThreadsDoingOps() throws Exception {
    final int n = 257; // odd size
    float[] shared = new float[n];
    for (int i = 0; i < n; ++i) {
      shared[i] = i * 0.5f;
    }
    Tensor common = Tensor.from(shared, n); // read by every thread at once
    ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < THREADS; ++t) {
      final int id = t;
      Thread th = new Thread(() -> {
        try {
          start.await();
          Device.CPU.attach();
          float[] mine = new float[n];
          for (int i = 0; i < n; ++i) {
            mine[i] = id + i;
          }
          try (Tensor x = Tensor.from(mine, n); Tensor y = Tensor.empty(DType.F32, n)) {
            for (int it = 0; it < ITERATIONS; ++it) {
              // y = x * common + it  (given output), s = sum(y)
              Ops.mul(x, common, y);
              try (Tensor c = Tensor.full(it, DType.F32, n)) {
                Ops.add(y, c, y);
              }
              float[] got = y.toFloatArray();
              double expectSum = 0;
              for (int i = 0; i < n; ++i) {
                float e = mine[i] * shared[i] + it;
                if (got[i] != e) {
                  throw new AssertionError("thread " + id + " it " + it + " y[" + i + "] = " + got[i] + ", expected " + e);
                }
                expectSum += e;
              }
              try (Tensor s = Ops.sum(y, new long[] {0}, false);
                  Tensor ns = Ops.neg(s);
                  Tensor r = Ops.relu(ns)) { // relu(-s) = 0 for s >= 0
                double sum = s.item();
                if (Math.abs(sum - expectSum) > 1e-6 * Math.abs(expectSum) + 1e-3) {
                  throw new AssertionError("thread " + id + " sum " + sum + " expected " + expectSum);
                }
                assertEquals(0.0, r.item());
              }
              if (it % 97 == 0) { // matmul on top: [1,n] x [n,1]
                try (Tensor a = x.reshape(1, n); Tensor b = common.reshape(n, 1); Tensor m = Ops.matmul(a, b)) {
                  double dot = 0;
                  for (int i = 0; i < n; ++i) {
                    dot += (double) mine[i] * shared[i];
                  }
                  assertEquals(dot, m.item(), 1e-4 * dot);
                  assertArrayEquals(new long[] {1, 1}, m.shape());
                }
              }
            }
          }
        } catch (Throwable e) {
          errors.add(e);
        }
      }, "ops-" + t);
      threads.add(th);
      th.start();
    }
    start.countDown();
    for (Thread th : threads) {
      th.join(TimeUnit.MINUTES.toMillis(5));
      assertTrue(!th.isAlive(), th.getName() + " did not finish");
    }
    if (!errors.isEmpty()) {
      AssertionError e = new AssertionError(errors.size() + " thread(s) failed; first: " + errors.peek());
      errors.forEach(e::addSuppressed);
      throw e;
    }
    assertArrayEquals(shared, common.toFloatArray(), "the shared input is untouched");
    common.close();
  }
}
