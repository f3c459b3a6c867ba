package org.ndrt;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Static factories in the shape of ND4J's {@code Nd4j} class, for code moving from ND4J. Each call
 * is one runtime op (or one copy from a Java array) on the calling thread's current device. The
 * default dtype is f32, as ND4J's default floating type.
 *
 * <p>{@link #rand} draws from a seed sequence: {@link #setSeed} starts it (ND4J's
 * {@code Nd4j.getRandom().setSeed(s)}), so a program that sets the seed draws the same tensors
 * every run; the values come from the runtime's counter-based generator (the uniform and normal ops).
 */
public final class Nd4j {
  private static final AtomicLong SEED = new AtomicLong(0x5eed);

  private Nd4j() {}

  /** A copy of {@code data} with {@code shape} (row-major; as a vector when no shape is given). */
  public static Tensor create(float[] data, long... shape) {
    return Tensor.from(data, shape.length == 0 ? new long[] {data.length} : shape);
  }

  public static Tensor create(double[] data, long... shape) {
    return Tensor.from(data, shape.length == 0 ? new long[] {data.length} : shape);
  }

  /** A matrix from rows of equal length. */
  public static Tensor create(double[][] rows) {
    int n = rows.length, m = n == 0 ? 0 : rows[0].length;
    double[] flat = new double[n * m];
    for (int i = 0; i < n; ++i) {
      if (rows[i].length != m) {
        throw new ShapeException(202, "create: row " + i + " has " + rows[i].length + " values, row 0 has " + m);
      }
      System.arraycopy(rows[i], 0, flat, i * m, m);
    }
    return Tensor.from(flat, n, m);
  }

  public static Tensor create(float[][] rows) {
    int n = rows.length, m = n == 0 ? 0 : rows[0].length;
    float[] flat = new float[n * m];
    for (int i = 0; i < n; ++i) {
      if (rows[i].length != m) {
        throw new ShapeException(202, "create: row " + i + " has " + rows[i].length + " values, row 0 has " + m);
      }
      System.arraycopy(rows[i], 0, flat, i * m, m);
    }
    return Tensor.from(flat, n, m);
  }

  /** A tensor of zeros (f32). */
  public static Tensor zeros(long... shape) {
    return Tensor.zeros(DType.F32, shape);
  }

  public static Tensor zeros(DType dtype, long... shape) {
    return Tensor.zeros(dtype, shape);
  }

  public static Tensor ones(long... shape) {
    return Tensor.ones(DType.F32, shape);
  }

  public static Tensor ones(DType dtype, long... shape) {
    return Tensor.ones(dtype, shape);
  }

  /** A rank-0 tensor (ND4J's scalar). */
  public static Tensor scalar(double value) {
    return Tensor.scalar(value, DType.F64);
  }

  public static Tensor scalar(float value) {
    return Tensor.scalar(value, DType.F32);
  }

  /** Uniform values in [0, 1) (f32), the next seed of the sequence {@link #setSeed} starts. */
  public static Tensor rand(long... shape) {
    return Ops.uniform(0.0, 1.0, SEED.getAndIncrement(), 0, DType.F32, shape);
  }

  /** Standard normal values (f32), the next seed of the sequence. */
  public static Tensor randn(long... shape) {
    return Ops.normal(0.0, 1.0, SEED.getAndIncrement(), 0, DType.F32, shape);
  }

  /** Restarts the seed sequence of {@link #rand} and {@link #randn}. */
  public static void setSeed(long seed) {
    SEED.set(seed);
  }

  /** {@code num} evenly spaced values from {@code lower} to {@code upper}, both included (f32). */
  public static Tensor linspace(double lower, double upper, long num) {
    return Ops.linspace(lower, upper, num, DType.F32);
  }

  public static Tensor linspace(double lower, double upper, long num, DType dtype) {
    return Ops.linspace(lower, upper, num, dtype);
  }
}
