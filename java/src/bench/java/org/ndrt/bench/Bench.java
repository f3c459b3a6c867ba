package org.ndrt.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import org.ndrt.DType;
import org.ndrt.Device;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.capi.NdrtC;

/**
 * Per-call overhead of the Java binding, with a warm JIT (a benchmark, not a test: java/bench.sh).
 *
 * <ul>
 *   <li>{@code ops_add1_given}: {@code Ops.add(a, b, y)} on 1-element f32 tensors with a given output:
 *       the generated method, its arrays, the JNI transition and ndrt_exec.
 *   <li>{@code capi_exec_add1_given}: the same through {@code NdrtC.exec} with preallocated arrays (the
 *       SWIG layer alone, arrays copied through JNI).
 *   <li>{@code capi_exec_small_add1}: the same through {@code NdrtC.exec_small} (handles as scalars: the
 *       path generated ops without attributes take).
 *   <li>{@code tensor_create_close}: {@code Tensor.empty(F32, 4)} then {@code close()}, per pair
 *       (handle, pool chunk, Cleaner registration and its clean).
 * </ul>
 *
 * Each case runs {@code rounds} timed rounds after warm-up rounds; it prints the median, min and
 * max of the rounds in wall-clock ns per operation, and the median in thread cpu ns per operation
 * (the calling thread's cpu time; on a shared machine it leaves out time the thread was preempted).
 *
 * <p>Usage: {@code java -cp ndrt.jar:ndrt-bench.jar org.ndrt.bench.Bench [rounds] [iterations]}
 */
public final class Bench {
  private Bench() {}

  static volatile long sink;

  interface Case {
    void run(int iterations);
  }

  static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  /** Wall-clock and thread-cpu ns per operation of each round: {wall[], cpu[]}. */
  static double[][] measure(Case c, int rounds, int iterations) {
    for (int w = 0; w < 5; ++w) { // warm-up: C1, C2, inlining
      c.run(iterations);
    }
    double[] wall = new double[rounds];
    double[] cpu = new double[rounds];
    for (int r = 0; r < rounds; ++r) {
      long c0 = THREADS.getCurrentThreadCpuTime();
      long t0 = System.nanoTime();
      c.run(iterations);
      wall[r] = (System.nanoTime() - t0) / (double) iterations;
      cpu[r] = (THREADS.getCurrentThreadCpuTime() - c0) / (double) iterations;
    }
    return new double[][] {wall, cpu};
  }

  static double median(double[] v) {
    double[] s = v.clone();
    Arrays.sort(s);
    return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  }

  /** Prints wall-clock median/min/max and the median of thread cpu time (what preemption by other
   * processes on a shared machine does not inflate). */
  static void report(String name, double[][] m) {
    double[] s = m[0].clone();
    Arrays.sort(s);
    System.out.printf("%-24s median %8.1f ns/op   min %8.1f   max %8.1f   cpu %8.1f   (%d rounds)%n", name,
        median(m[0]), s[0], s[s.length - 1], median(m[1]), s.length);
  }

  public static void main(String[] args) {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 9;
    int iterations = args.length > 1 ? Integer.parseInt(args[1]) : 1_000_000;
    Device.CPU.attach();
    System.out.printf("java %s, %s; rounds %d x %d iterations%n", System.getProperty("java.version"),
        System.getProperty("java.vm.name"), rounds, iterations);
    try (Tensor a = Tensor.from(new float[] {1}, 1);
        Tensor b = Tensor.from(new float[] {2}, 1);
        Tensor y = Tensor.empty(DType.F32, 1)) {
      report("ops_add1_given", measure(n -> {
        for (int i = 0; i < n; ++i) {
          Ops.add(a, b, y);
        }
      }, rounds, iterations));

      int add = NdrtC.op_find("add");
      long[] in = {a.handle(), b.handle()};
      long[] out = {y.handle()};
      report("capi_exec_add1_given", measure(n -> {
        for (int i = 0; i < n; ++i) {
          NdrtC.exec(add, in, out, null, null);
        }
      }, rounds, iterations));
      report("capi_exec_small_add1", measure(n -> {
        for (int i = 0; i < n; ++i) {
          NdrtC.exec_small(add, 2, in[0], in[1], 0, 0, out[0]);
        }
      }, rounds, iterations));
      if (y.toFloatArray()[0] != 3f) {
        throw new AssertionError("add gave " + y.toFloatArray()[0]);
      }
    }
    report("tensor_create_close", measure(n -> {
      long s = 0;
      for (int i = 0; i < n; ++i) {
        Tensor t = Tensor.empty(DType.F32, 4);
        s += t.handle();
        t.close();
      }
      sink = s;
    }, rounds, iterations));
  }
}
