package org.ndrt.jmh;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.ndrt.DType;
import org.ndrt.Device;
import org.ndrt.Ndrt;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The per-op cost of org.ndrt's own {@link Tensor} API (JMH): the baseline the drop-in APIs are held
 * to. A small op (16 floats) with a new output and with a given one, a 1M-element add into a given
 * output, and a 1024 x 1024 f32 matmul, on one intra-op thread unless {@code -p threads=N}.
 *
 * <p>Run: {@code java -cp build/java/ndrt-jmh.jar:build/java/ndrt.jar:<jmh jars> org.openjdk.jmh.Main
 * TensorOpsBench} (java/jmh.sh builds the class path).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class TensorOpsBench {
  @Param({"1"})
  public int threads;

  Tensor small1, small2, smallOut, big1, big2, bigOut, m1, m2, mOut, s1, s2, sOut;

  static Tensor random(SplittableRandom rng, long... shape) {
    long n = 1;
    for (long s : shape) {
      n *= s;
    }
    float[] v = new float[Math.toIntExact(n)];
    for (int i = 0; i < v.length; ++i) {
      v[i] = (float) (rng.nextDouble() * 2 - 1);
    }
    return Tensor.from(v, shape);
  }

  @Setup(Level.Trial)
  public void setUp() {
    Device.CPU.attach();
    Ndrt.setConfig("cpu.threads", Integer.toString(threads));
    SplittableRandom rng = new SplittableRandom(42);
    small1 = random(rng, 16);
    small2 = random(rng, 16);
    smallOut = Tensor.empty(DType.F32, 16);
    big1 = random(rng, 1 << 20);
    big2 = random(rng, 1 << 20);
    bigOut = Tensor.empty(DType.F32, 1 << 20);
    m1 = random(rng, 1024, 1024);
    m2 = random(rng, 1024, 1024);
    mOut = Tensor.empty(DType.F32, 1024, 1024);
    s1 = random(rng, 16, 16);
    s2 = random(rng, 16, 16);
    sOut = Tensor.empty(DType.F32, 16, 16);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    for (Tensor t : new Tensor[] {small1, small2, smallOut, big1, big2, bigOut, m1, m2, mOut, s1, s2, sOut}) {
      t.close();
    }
  }

  /** A small add allocating its output, closed at once: what a typical Java expression costs. */
  @Benchmark
  public long smallAddNewOutput() {
    try (Tensor y = small1.add(small2)) {
      return y.handle();
    }
  }

  @Benchmark
  public Tensor smallAddGivenOutput() {
    return Ops.add(small1, small2, smallOut);
  }

  @Benchmark
  public Tensor add1M() {
    return Ops.add(big1, big2, bigOut);
  }

  @Benchmark
  @OutputTimeUnit(TimeUnit.MILLISECONDS)
  public Tensor matmul1024() {
    return Ops.matmul(m1, m2, false, false, mOut);
  }

  /** A small tensor times a Java number into a given output: a rank-0 operand, as Tensor.mul(Number) makes. */
  @Benchmark
  public Tensor smallMulScalarGivenOutput() {
    try (Tensor s = Tensor.scalar(2.5, DType.F32)) {
      return Ops.mul(small1, s, smallOut);
    }
  }

  @Benchmark
  public Tensor matmul16() {
    return Ops.matmul(s1, s2, false, false, sOut);
  }

  @Benchmark
  public long sumRows16() {
    try (Tensor y = Ops.sum(s1, new long[] {1})) {
      return y.handle();
    }
  }

  @Benchmark
  public long smallTanhNewOutput() {
    try (Tensor y = Ops.tanh(small1)) {
      return y.handle();
    }
  }
}
