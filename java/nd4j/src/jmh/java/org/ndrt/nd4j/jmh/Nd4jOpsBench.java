package org.ndrt.nd4j.jmh;

import java.util.concurrent.TimeUnit;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.ops.transforms.Transforms;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The same cases as org.ndrt.jmh.TensorOpsBench, written against ND4J's API only: compiled once
 * (against ndrt-nd4j.jar), run on ndrt's drop-in and on ND4J 1.0.0-M2.1 itself by putting one or the
 * other on the class path (java/nd4j/bench.sh runs the three side by side and prints the ratios).
 * The script runs both libraries' ops on the same number of threads (NDRT_CPU_THREADS for ndrt,
 * OMP_NUM_THREADS for ND4J).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class Nd4jOpsBench {
  INDArray small1, small2, smallOut, big1, big2, bigOut, m1, m2, mOut, s1, s2, sOut;

  @Setup(Level.Trial)
  public void setUp() {
    Nd4j.getRandom().setSeed(42);
    small1 = Nd4j.rand(DataType.FLOAT, 16);
    small2 = Nd4j.rand(DataType.FLOAT, 16);
    smallOut = Nd4j.create(DataType.FLOAT, 16);
    big1 = Nd4j.rand(DataType.FLOAT, 1 << 20);
    big2 = Nd4j.rand(DataType.FLOAT, 1 << 20);
    bigOut = Nd4j.create(DataType.FLOAT, 1 << 20);
    m1 = Nd4j.rand(DataType.FLOAT, 1024, 1024);
    m2 = Nd4j.rand(DataType.FLOAT, 1024, 1024);
    mOut = Nd4j.create(DataType.FLOAT, 1024, 1024);
    s1 = Nd4j.rand(DataType.FLOAT, 16, 16);
    s2 = Nd4j.rand(DataType.FLOAT, 16, 16);
    sOut = Nd4j.create(DataType.FLOAT, 16, 16);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    for (INDArray a : new INDArray[] {small1, small2, smallOut, big1, big2, bigOut, m1, m2, mOut, s1, s2, sOut}) {
      a.close();
    }
  }

  /** A small add allocating its result, released at once. */
  @Benchmark
  public long smallAddNewOutput() {
    INDArray y = small1.add(small2);
    long n = y.length();
    y.close();
    return n;
  }

  @Benchmark
  public INDArray smallAddGivenOutput() {
    return small1.add(small2, smallOut);
  }

  @Benchmark
  public INDArray add1M() {
    return big1.add(big2, bigOut);
  }

  @Benchmark
  @OutputTimeUnit(TimeUnit.MILLISECONDS)
  public INDArray matmul1024() {
    return m1.mmul(m2, mOut);
  }

  /** A small array times a Java number, into a given output (the scalar path). */
  @Benchmark
  public INDArray smallMulScalarGivenOutput() {
    return small1.mul(2.5, smallOut);
  }

  /** A small matrix product into a given output: the per-call overhead of mmul. */
  @Benchmark
  public INDArray matmul16() {
    return s1.mmul(s2, sOut);
  }

  /** Row sums of a 16x16 matrix into a new array, released at once. */
  @Benchmark
  public long sumRows16() {
    INDArray y = s1.sum(1);
    long n = y.length();
    y.close();
    return n;
  }

  /** tanh of a small array into a new array, released at once. */
  @Benchmark
  public long smallTanhNewOutput() {
    INDArray y = Transforms.tanh(small1);
    long n = y.length();
    y.close();
    return n;
  }
}
