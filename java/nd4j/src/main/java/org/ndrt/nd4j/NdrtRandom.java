package org.ndrt.nd4j;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.rng.Random;
import org.nd4j.linalg.cpu.nativecpu.NDArray;
import org.ndrt.DType;
import org.ndrt.Ops;
import org.ndrt.Tensor;

/**
 * ND4J's Random over the runtime's counter-based generator: a seed and a position in its stream.
 * Each array drawn takes the next block of the stream (the runtime's uniform/normal ops with
 * (seed, offset)), so setting the seed repeats the same sequence of arrays on any thread count.
 * Scalar draws come from a java.util.Random on the same seed.
 */
public final class NdrtRandom implements Random {
  private long seed;
  private long position;
  private java.util.Random scalar;

  public NdrtRandom(long seed) {
    setSeed(seed);
  }

  @Override
  public synchronized void setSeed(long seed) {
    this.seed = seed;
    this.position = 0;
    this.scalar = new java.util.Random(seed);
  }

  @Override
  public void setSeed(int seed) {
    setSeed((long) seed);
  }

  @Override
  public void setSeed(int[] seed) {
    long s = 0;
    for (int v : seed) {
      s = s * 31 + v;
    }
    setSeed(s);
  }

  @Override
  public synchronized long getSeed() {
    return seed;
  }

  @Override
  public synchronized long getPosition() {
    return position;
  }

  /** The (seed, offset) for the next {@code n} values; the stream moves on by whole blocks of 4. */
  private synchronized long[] take(long n) {
    long[] r = {seed, position};
    position += (n + 3) / 4 * 4;
    return r;
  }

  /** Uniform values in [low, high). */
  public Tensor uniform(double low, double high, DType dtype, long[] shape) {
    long[] so = take(Shapes.prod(shape));
    return Ops.uniform(low, high, so[0], so[1], dtype, shape);
  }

  public Tensor normal(double mean, double std, DType dtype, long[] shape) {
    long[] so = take(Shapes.prod(shape));
    return Ops.normal(mean, std, so[0], so[1], dtype, shape);
  }

  private static INDArray ordered(Tensor t, char order) {
    NDArray a = new NDArray(t);
    return order == 'f' ? a.dup('f') : a;
  }

  @Override public synchronized void nextBytes(byte[] bytes) { scalar.nextBytes(bytes); }
  @Override public synchronized int nextInt() { return scalar.nextInt(); }
  @Override public synchronized int nextInt(int n) { return scalar.nextInt(n); }
  @Override public synchronized int nextInt(int a, int n) { return a + scalar.nextInt(n - a); }
  @Override public synchronized long nextLong() { return scalar.nextLong(); }
  @Override public synchronized boolean nextBoolean() { return scalar.nextBoolean(); }
  @Override public synchronized float nextFloat() { return scalar.nextFloat(); }
  @Override public synchronized double nextDouble() { return scalar.nextDouble(); }
  @Override public synchronized double nextGaussian() { return scalar.nextGaussian(); }

  @Override public INDArray nextGaussian(int[] shape) { return nextGaussian('c', Shapes.toLong(shape)); }
  @Override public INDArray nextGaussian(long[] shape) { return nextGaussian('c', shape); }
  @Override public INDArray nextGaussian(char order, int[] shape) { return nextGaussian(order, Shapes.toLong(shape)); }
  @Override public INDArray nextGaussian(char order, long[] shape) { return ordered(normal(0, 1, DType.F32, shape), order); }
  @Override public INDArray nextDouble(int[] shape) { return nextDouble('c', Shapes.toLong(shape)); }
  @Override public INDArray nextDouble(long[] shape) { return nextDouble('c', shape); }
  @Override public INDArray nextDouble(char order, int[] shape) { return nextDouble(order, Shapes.toLong(shape)); }
  @Override public INDArray nextDouble(char order, long[] shape) { return ordered(uniform(0, 1, DType.F64, shape), order); }
  @Override public INDArray nextFloat(int[] shape) { return nextFloat('c', Shapes.toLong(shape)); }
  @Override public INDArray nextFloat(long[] shape) { return nextFloat('c', shape); }
  @Override public INDArray nextFloat(char order, int[] shape) { return nextFloat(order, Shapes.toLong(shape)); }
  @Override public INDArray nextFloat(char order, long[] shape) { return ordered(uniform(0, 1, DType.F32, shape), order); }
  @Override public INDArray nextInt(int[] shape) { return nextInt(Integer.MAX_VALUE, Shapes.toLong(shape)); }
  @Override public INDArray nextInt(long[] shape) { return nextInt(Integer.MAX_VALUE, shape); }
  @Override public INDArray nextInt(int n, int[] shape) { return nextInt(n, Shapes.toLong(shape)); }

  /** Integers uniform in [0, n) (floor of a uniform draw in [0, n)), INT. */
  @Override
  public INDArray nextInt(int n, long[] shape) {
    try (Tensor u = uniform(0, n, DType.F64, shape); Tensor f = Ops.floor(u)) {
      return new NDArray(f.cast(DType.I32));
    }
  }

  @Override
  public void reSeed() {
    setSeed(System.nanoTime());
  }

  @Override
  public void reSeed(long seed) {
    setSeed(seed);
  }

  @Override
  public void close() {}
}
