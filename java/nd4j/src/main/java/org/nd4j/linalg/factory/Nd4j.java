package org.nd4j.linalg.factory;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.executioner.OpExecutioner;
import org.nd4j.linalg.api.ops.impl.transforms.Pad;
import org.nd4j.linalg.api.rng.Random;
import org.nd4j.linalg.cpu.nativecpu.NDArray;
import org.nd4j.linalg.exception.ND4JIllegalStateException;
import org.ndrt.DType;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.nd4j.ArrayCore;
import org.ndrt.nd4j.Creation;
import org.ndrt.nd4j.Dtypes;
import org.ndrt.nd4j.Executioner;
import org.ndrt.nd4j.NdrtRandom;
import org.ndrt.nd4j.Shapes;

/**
 * ND4J's factory: arrays from Java data, filled, random, ranges; joining and padding; the whole-array
 * reductions. Arrays default to FLOAT and 'c' order, as ND4J's. Every array is created by the
 * runtime (one copy from Java or one op).
 */
public class Nd4j {
  /** ND4J's default epsilon for comparisons. */
  public static final double EPS_THRESHOLD = 1e-5;

  private static volatile DataType defaultFloat = DataType.FLOAT;
  private static final NdrtRandom RANDOM = new NdrtRandom(System.nanoTime());

  protected Nd4j() {}

  private static INDArray wrap(Tensor t) {
    return new NDArray(t);
  }

  private static Tensor tensor(INDArray a) {
    return ArrayCore.tensorOf(a);
  }

  // ------------------------------------------------------------------------------- settings

  public static Character order() {
    return 'c';
  }

  public static DataType dataType() {
    return defaultFloat;
  }

  public static DataType defaultFloatingPointType() {
    return defaultFloat;
  }

  public static void setDataType(DataType type) {
    setDefaultDataTypes(type, type);
  }

  /** The default floating point type of new arrays (must be a floating point type). */
  public static void setDefaultDataTypes(DataType defaultType, DataType defaultFloatingPointType) {
    if (!defaultFloatingPointType.isFPType()) {
      throw new IllegalArgumentException("Default floating point type must be one of DOUBLE, FLOAT or HALF: got "
          + defaultFloatingPointType);
    }
    defaultFloat = defaultFloatingPointType;
  }

  public static Random getRandom() {
    return RANDOM;
  }

  /** Runs a custom op (ND4J's Nd4j.exec); returns its outputs. */
  public static INDArray[] exec(org.nd4j.linalg.api.ops.CustomOp op) {
    return getExecutioner().exec(op);
  }

  public static OpExecutioner getExecutioner() {
    return Executioner.INSTANCE;
  }

  public static long[] shape(INDArray arr) {
    return arr.shape();
  }

  // ------------------------------------------------------------------------------- from Java data

  public static INDArray create(double[] data) { return Creation.of(data, new long[] {data.length}, 'c'); }
  public static INDArray create(float[] data) { return Creation.of(data, new long[] {data.length}, 'c'); }
  public static INDArray create(boolean[] data) { return Creation.of(data, new long[] {data.length}, 'c'); }
  public static INDArray create(double[] data, char order) { return Creation.of(data, new long[] {data.length}, order); }
  public static INDArray create(float[] data, char order) { return Creation.of(data, new long[] {data.length}, order); }
  public static INDArray create(double[] data, long... shape) { return Creation.of(data, shape, 'c'); }
  public static INDArray create(float[] data, long... shape) { return Creation.of(data, shape, 'c'); }
  public static INDArray create(double[] data, int[] shape) { return Creation.of(data, Shapes.toLong(shape), 'c'); }
  public static INDArray create(float[] data, int[] shape) { return Creation.of(data, Shapes.toLong(shape), 'c'); }
  public static INDArray create(double[] data, int[] shape, char order) { return Creation.of(data, Shapes.toLong(shape), order); }
  public static INDArray create(float[] data, int[] shape, char order) { return Creation.of(data, Shapes.toLong(shape), order); }
  public static INDArray create(double[] data, long[] shape, char order) { return Creation.of(data, shape, order); }
  public static INDArray create(float[] data, long[] shape, char order) { return Creation.of(data, shape, order); }

  public static INDArray create(double[] data, long[] shape, DataType type) {
    return Creation.as(Creation.of(data, shape, 'c'), type);
  }

  public static INDArray create(float[] data, long[] shape, DataType type) {
    return Creation.as(Creation.of(data, shape, 'c'), type);
  }

  public static INDArray create(int[] data, long[] shape, DataType type) {
    return Creation.as(Creation.of(data, shape, 'c'), type);
  }

  public static INDArray create(long[] data, long[] shape, DataType type) {
    return Creation.as(Creation.of(data, shape, 'c'), type);
  }

  public static INDArray create(byte[] data, long[] shape, DataType type) {
    return Creation.as(Creation.of(data, DType.I8, shape, 'c'), type);
  }

  public static INDArray create(boolean[] data, long[] shape, DataType type) {
    return Creation.as(Creation.of(data, shape, 'c'), type);
  }

  public static INDArray create(double[][] data) {
    long[] s = new long[2];
    double[] flat = Creation.flatten(data, s);
    return Creation.of(flat, s, 'c');
  }

  public static INDArray create(double[][] data, char order) {
    return create(data).dup(order);
  }

  public static INDArray create(float[][] data) {
    long[] s = new long[2];
    float[] flat = Creation.flatten(data, s);
    return Creation.of(flat, s, 'c');
  }

  public static INDArray create(float[][] data, char order) {
    return create(data).dup(order);
  }

  public static INDArray create(int[][] data) {
    long[] s = new long[2];
    int[] flat = Creation.flatten(data, s);
    return Creation.of(flat, s, 'c');
  }

  public static INDArray create(long[][] data) {
    long[] s = new long[2];
    long[] flat = Creation.flatten(data, s);
    return Creation.of(flat, s, 'c');
  }

  /** Values of a list, as a DOUBLE vector. */
  public static INDArray create(List<? extends Number> list) {
    double[] d = new double[list.size()];
    for (int i = 0; i < d.length; ++i) {
      d[i] = list.get(i).doubleValue();
    }
    return create(d);
  }

  public static INDArray createFromArray(double... a) { return create(a); }
  public static INDArray createFromArray(float... a) { return create(a); }
  public static INDArray createFromArray(int... a) { return Creation.of(a, new long[] {a.length}, 'c'); }
  public static INDArray createFromArray(long... a) { return Creation.of(a, new long[] {a.length}, 'c'); }
  public static INDArray createFromArray(boolean... a) { return create(a); }
  public static INDArray createFromArray(byte... a) { return Creation.of(a, DType.I8, new long[] {a.length}, 'c'); }
  public static INDArray createFromArray(double[][] a) { return create(a); }
  public static INDArray createFromArray(float[][] a) { return create(a); }
  public static INDArray createFromArray(int[][] a) { return create(a); }
  public static INDArray createFromArray(long[][] a) { return create(a); }

  // ------------------------------------------------------------------------------- filled

  /** Zeros of the default floating point type (ND4J's create(shape)). */
  public static INDArray create(int... shape) { return zeros(shape); }
  public static INDArray create(long... shape) { return zeros(shape); }
  public static INDArray create(DataType type, long... shape) { return Creation.filled(0, type, shape, 'c'); }
  public static INDArray create(int[] shape, DataType type) { return Creation.filled(0, type, Shapes.toLong(shape), 'c'); }
  public static INDArray create(int[] shape, char order) { return Creation.filled(0, defaultFloat, Shapes.toLong(shape), order); }
  public static INDArray create(long[] shape, char order) { return Creation.filled(0, defaultFloat, shape, order); }
  public static INDArray create(long rows, long columns, char order) { return create(new long[] {rows, columns}, order); }
  public static INDArray create(DataType type, long[] shape, char order) { return Creation.filled(0, type, shape, order); }
  public static INDArray create(int length, char order) { return create(new long[] {length}, order); }

  public static INDArray zeros(int... shape) { return zeros(Shapes.toLong(shape)); }
  public static INDArray zeros(long... shape) { return Creation.filled(0, defaultFloat, shape, 'c'); }
  public static INDArray zeros(DataType type, long... shape) { return Creation.filled(0, type, shape, 'c'); }
  public static INDArray zeros(int[] shape, char order) { return Creation.filled(0, defaultFloat, Shapes.toLong(shape), order); }
  public static INDArray zeros(long[] shape, char order) { return Creation.filled(0, defaultFloat, shape, order); }
  public static INDArray zeros(int[] shape, DataType type) { return Creation.filled(0, type, Shapes.toLong(shape), 'c'); }
  public static INDArray ones(int... shape) { return ones(Shapes.toLong(shape)); }
  public static INDArray ones(long... shape) { return Creation.filled(1, defaultFloat, shape, 'c'); }
  public static INDArray ones(DataType type, long... shape) { return Creation.filled(1, type, shape, 'c'); }
  public static INDArray zerosLike(INDArray a) { return Creation.filled(0, a.dataType(), a.shape(), 'c'); }
  public static INDArray onesLike(INDArray a) { return Creation.filled(1, a.dataType(), a.shape(), 'c'); }
  public static INDArray valueArrayOf(int[] shape, double v) { return Creation.filled(v, defaultFloat, Shapes.toLong(shape), 'c'); }
  public static INDArray valueArrayOf(long[] shape, double v) { return Creation.filled(v, defaultFloat, shape, 'c'); }
  public static INDArray valueArrayOf(long[] shape, float v) { return Creation.filled(v, DataType.FLOAT, shape, 'c'); }
  public static INDArray valueArrayOf(long[] shape, int v) { return Creation.filled(v, DataType.INT, shape, 'c'); }
  public static INDArray valueArrayOf(long[] shape, double v, DataType type) { return Creation.filled(v, type, shape, 'c'); }
  public static INDArray valueArrayOf(long[] shape, long v, DataType type) { return Creation.filled(v, type, shape, 'c'); }
  public static INDArray valueArrayOf(long length, double v) { return valueArrayOf(new long[] {length}, v); }
  public static INDArray valueArrayOf(long rows, long columns, double v) { return valueArrayOf(new long[] {rows, columns}, v); }
  public static INDArray createUninitialized(long... shape) { return Creation.uninitialized(defaultFloat, shape, 'c'); }
  public static INDArray createUninitialized(int... shape) { return createUninitialized(Shapes.toLong(shape)); }
  public static INDArray createUninitialized(long length) { return createUninitialized(new long[] {length}); }
  public static INDArray createUninitialized(DataType type, long... shape) { return Creation.uninitialized(type, shape, 'c'); }
  public static INDArray createUninitialized(long[] shape, char order) { return Creation.uninitialized(defaultFloat, shape, order); }
  public static INDArray createUninitialized(int[] shape, char order) { return Creation.uninitialized(defaultFloat, Shapes.toLong(shape), order); }
  public static INDArray createUninitialized(DataType type, long[] shape, char order) { return Creation.uninitialized(type, shape, order); }

  public static INDArray scalar(double v) { return Creation.filled(v, DataType.DOUBLE, new long[0], 'c'); }
  public static INDArray scalar(float v) { return Creation.filled(v, DataType.FLOAT, new long[0], 'c'); }
  public static INDArray scalar(int v) { return Creation.filled(v, DataType.INT, new long[0], 'c'); }
  public static INDArray scalar(long v) { return Creation.filled(v, DataType.LONG, new long[0], 'c'); }
  public static INDArray scalar(boolean v) { return Creation.filled(v ? 1 : 0, DataType.BOOL, new long[0], 'c'); }
  public static INDArray scalar(DataType type, Number v) { return Creation.filled(v.doubleValue(), type, new long[0], 'c'); }

  /** A rank-0 array of the Number's own type. */
  public static INDArray scalar(Number v) {
    if (v instanceof Double) {
      return scalar(v.doubleValue());
    }
    if (v instanceof Float) {
      return scalar(v.floatValue());
    }
    if (v instanceof Long) {
      return scalar(v.longValue());
    }
    if (v instanceof Integer || v instanceof Short || v instanceof Byte) {
      return scalar(v.intValue());
    }
    return scalar(v.doubleValue());
  }

  /** An array with no elements (shape [0]: ndrt has no rank-0 empty array). */
  public static INDArray empty() {
    return empty(defaultFloat);
  }

  public static INDArray empty(DataType type) {
    return Creation.uninitialized(type, new long[] {0}, 'c');
  }

  public static INDArray eye(long n) {
    return wrap(Ops.eye(n, n, 0, Dtypes.toNdrt(defaultFloat)));
  }

  /** A vector's diagonal matrix, or a matrix's diagonal as a vector. */
  public static INDArray diag(INDArray x) {
    if (x.isVectorOrScalar() && (x.rank() == 1 || x.isRowVector() || x.isColumnVector() || x.length() == 1)) {
      long n = x.length();
      try (Tensor e = Ops.eye(n, n, 0, tensor(x).dtype()); Tensor v = tensor(x).reshape(1, n)) {
        return wrap(Ops.mul(e, v));
      }
    }
    if (x.rank() != 2) {
      throw new ND4JIllegalStateException("diag: expected a vector or a matrix, got shape " + Arrays.toString(x.shape()));
    }
    long r = x.size(0), c = x.size(1);
    try (Tensor e = Ops.eye(r, c, 0, tensor(x).dtype()); Tensor m = Ops.mul(tensor(x), e)) {
      return wrap(Ops.sum(m, new long[] {1}, false));
    }
  }

  // ------------------------------------------------------------------------------- random

  private static INDArray uniform(DataType type, long[] shape, char order) {
    INDArray a = wrap(RANDOM.uniform(0, 1, Dtypes.toNdrt(type), shape));
    return order == 'f' ? a.dup('f') : a;
  }

  private static INDArray normal(DataType type, long[] shape, char order) {
    INDArray a = wrap(RANDOM.normal(0, 1, Dtypes.toNdrt(type), shape));
    return order == 'f' ? a.dup('f') : a;
  }

  /** Uniform values in [0, 1) from the default generator ({@link #getRandom()}). */
  public static INDArray rand(int... shape) { return uniform(defaultFloat, Shapes.toLong(shape), 'c'); }
  public static INDArray rand(long... shape) { return uniform(defaultFloat, shape, 'c'); }
  public static INDArray rand(DataType type, long... shape) { return uniform(type, shape, 'c'); }
  public static INDArray rand(DataType type, int... shape) { return uniform(type, Shapes.toLong(shape), 'c'); }
  public static INDArray rand(char order, int... shape) { return uniform(defaultFloat, Shapes.toLong(shape), order); }
  public static INDArray rand(DataType type, char order, long... shape) { return uniform(type, shape, order); }
  public static INDArray rand(DataType type, char order, int... shape) { return uniform(type, Shapes.toLong(shape), order); }
  public static INDArray rand(DataType type, int[] shape, char order) { return uniform(type, Shapes.toLong(shape), order); }

  /** Seeds the default generator, then draws (as ND4J). */
  public static INDArray rand(long seed, long... shape) {
    RANDOM.setSeed(seed);
    return rand(shape);
  }

  public static INDArray rand(int[] shape, long seed) {
    return rand(seed, Shapes.toLong(shape));
  }

  /** Fills {@code target} with uniform values. */
  public static INDArray rand(INDArray target) {
    return target.assign(uniform(target.dataType(), target.shape(), 'c'));
  }

  public static INDArray randn(int[] shape) { return normal(defaultFloat, Shapes.toLong(shape), 'c'); }
  public static INDArray randn(long... shape) { return normal(defaultFloat, shape, 'c'); }
  public static INDArray randn(DataType type, long... shape) { return normal(type, shape, 'c'); }
  public static INDArray randn(DataType type, int[] shape) { return normal(type, Shapes.toLong(shape), 'c'); }
  public static INDArray randn(char order, int... shape) { return normal(defaultFloat, Shapes.toLong(shape), order); }
  public static INDArray randn(char order, long... shape) { return normal(defaultFloat, shape, order); }
  public static INDArray randn(DataType type, char order, long... shape) { return normal(type, shape, order); }

  public static INDArray randn(long seed, long[] shape) {
    RANDOM.setSeed(seed);
    return randn(shape);
  }

  public static INDArray randn(long seed, int[] shape) {
    return randn(seed, Shapes.toLong(shape));
  }

  public static INDArray randn(INDArray target) {
    return target.assign(normal(target.dataType(), target.shape(), 'c'));
  }

  // ------------------------------------------------------------------------------- ranges

  /** {@code num} values from lower to upper, both included. */
  public static INDArray linspace(long lower, long upper, long num) { return linspace((double) lower, upper, num, defaultFloat); }
  public static INDArray linspace(long lower, long upper, long num, DataType type) { return linspace((double) lower, upper, num, type); }
  public static INDArray linspace(DataType type, long lower, long upper, long num) { return linspace((double) lower, upper, num, type); }
  public static INDArray linspace(DataType type, double lower, double upper, long num) { return linspace(lower, upper, num, type); }

  public static INDArray linspace(double lower, double upper, long num, DataType type) {
    if (num < 0) {
      throw new IllegalArgumentException("linspace: number of values must be >= 0, got " + num);
    }
    return wrap(Ops.linspace(lower, upper, num, Dtypes.toNdrt(type)));
  }

  /** 0, 1, ... below {@code end}. */
  public static INDArray arange(double end) { return arange(0, end, 1); }
  public static INDArray arange(double begin, double end) { return arange(begin, end, 1); }

  public static INDArray arange(double begin, double end, double step) {
    if (step == 0) {
      throw new IllegalArgumentException("arange: step must not be 0");
    }
    return wrap(Ops.arange(begin, end, step, Dtypes.toNdrt(defaultFloat)));
  }

  // ------------------------------------------------------------------------------- joining

  /** Arrays joined along {@code dimension} (same rank; other extents equal); as the first's dtype. */
  /** The most inputs one runtime concat takes (the runtime's limit on an op's inputs). */
  private static final int CONCAT_INPUTS_PER_CALL = 64;

  /**
   * Joins along {@code d}; more tensors than one runtime call takes are written group by group into
   * slices of one output.
   */
  private static Tensor concatTensors(Tensor[] ts, int d) {
    if (ts.length <= CONCAT_INPUTS_PER_CALL) {
      return Ops.concat(ts, d);
    }
    long[] shape = ts[0].shape();
    shape[d] = 0;
    for (Tensor t : ts) {
      shape[d] += t.shape()[d];
    }
    Tensor out = Tensor.empty(ts[0].dtype(), shape);
    try {
      long at = 0;
      for (int g = 0; g < ts.length; g += CONCAT_INPUTS_PER_CALL) {
        Tensor[] group = Arrays.copyOfRange(ts, g, Math.min(ts.length, g + CONCAT_INPUTS_PER_CALL));
        long len = 0;
        for (Tensor t : group) {
          len += t.shape()[d];
        }
        try (Tensor part = out.slice(d, at, at + len)) {
          Ops.concat(group, d, part);
        }
        at += len;
      }
      return out;
    } catch (RuntimeException e) {
      out.close();
      throw e;
    }
  }

  public static INDArray concat(int dimension, INDArray... arrays) {
    if (arrays.length == 0) {
      throw new IllegalArgumentException("concat: no arrays given");
    }
    int rank = arrays[0].rank();
    int d = dimension < 0 ? dimension + rank : dimension;
    if (d < 0 || d >= rank) {
      throw new ND4JIllegalStateException("concat: dimension " + dimension + " is out of range for rank " + rank);
    }
    long[] first = arrays[0].shape();
    Tensor[] ts = new Tensor[arrays.length];
    try {
      for (int i = 0; i < arrays.length; ++i) {
        long[] s = arrays[i].shape();
        boolean ok = s.length == rank;
        for (int k = 0; ok && k < rank; ++k) {
          ok = k == d || s[k] == first[k];
        }
        if (!ok) {
          throw new ND4JIllegalStateException("concat: all arrays must have the same shape except along dimension " + d
              + ": array 0 has shape " + Arrays.toString(first) + ", array " + i + " has " + Arrays.toString(s));
        }
        ts[i] = Creation.as(arrays[i], arrays[0].dataType()) == arrays[i] ? tensor(arrays[i]).share()
            : tensor(arrays[i].castTo(arrays[0].dataType()));
      }
      return wrap(concatTensors(ts, d));
    } finally {
      for (Tensor t : ts) {
        if (t != null) {
          t.close();
        }
      }
    }
  }

  /** Side by side: rank-1 arrays end to end, others along dimension 1. */
  public static INDArray hstack(INDArray... arrays) {
    if (arrays.length > 0 && arrays[0].rank() == 1) {
      return concat(0, arrays);
    }
    return concat(1, arrays);
  }

  public static INDArray hstack(Collection<INDArray> arrays) {
    return hstack(arrays.toArray(new INDArray[0]));
  }

  /** On top of each other: rank-1 arrays become the rows of a matrix, others join along dimension 0. */
  public static INDArray vstack(INDArray... arrays) {
    if (arrays.length > 0 && arrays[0].rank() == 1) {
      INDArray[] rows = new INDArray[arrays.length];
      for (int i = 0; i < rows.length; ++i) {
        rows[i] = arrays[i].reshape(1, arrays[i].length());
      }
      return concat(0, rows);
    }
    return concat(0, arrays);
  }

  public static INDArray vstack(Collection<INDArray> arrays) {
    return vstack(arrays.toArray(new INDArray[0]));
  }

  /** Arrays of one shape stacked along a new dimension. */
  public static INDArray stack(int axis, INDArray... values) {
    Tensor[] ts = new Tensor[values.length];
    for (int i = 0; i < ts.length; ++i) {
      if (!Arrays.equals(values[i].shape(), values[0].shape())) {
        throw new ND4JIllegalStateException("stack: all arrays must have the same shape: array 0 has "
            + Arrays.toString(values[0].shape()) + ", array " + i + " has " + Arrays.toString(values[i].shape()));
      }
      ts[i] = tensor(Creation.as(values[i], values[0].dataType()));
    }
    return wrap(Ops.stack(ts, axis));
  }

  /** Every array's elements ('c' order) end to end, as one vector. */
  public static INDArray toFlattened(INDArray... arrays) {
    return toFlattened('c', arrays);
  }

  public static INDArray toFlattened(char order, INDArray... arrays) {
    INDArray[] flat = new INDArray[arrays.length];
    for (int i = 0; i < flat.length; ++i) {
      flat[i] = arrays[i].ravel(order);
    }
    return concat(0, flat);
  }

  public static INDArray toFlattened(Collection<INDArray> arrays) {
    return toFlattened('c', arrays.toArray(new INDArray[0]));
  }

  public static INDArray toFlattened(char order, Collection<INDArray> arrays) {
    return toFlattened(order, arrays.toArray(new INDArray[0]));
  }

  /** Padded with zeros: padWidth[d] = {before, after} (one row applies to every dimension). */
  public static INDArray pad(INDArray toPad, int[][] padWidth) {
    return pad(toPad, padWidth, Pad.Mode.CONSTANT, 0);
  }

  public static INDArray pad(INDArray toPad, int... padWidth) {
    return pad(toPad, new int[][] {padWidth}, Pad.Mode.CONSTANT, 0);
  }

  public static INDArray pad(INDArray toPad, int[] padWidth, Pad.Mode mode, double padValue) {
    return pad(toPad, new int[][] {padWidth}, mode, padValue);
  }

  public static INDArray pad(INDArray toPad, int[][] padWidth, Pad.Mode mode, double padValue) {
    int rank = toPad.rank();
    if (padWidth.length != rank && padWidth.length != 1) {
      throw new IllegalArgumentException("pad: " + padWidth.length + " pad widths for an array of rank " + rank);
    }
    long[] pads = new long[2 * rank];
    for (int d = 0; d < rank; ++d) {
      int[] w = padWidth[padWidth.length == 1 ? 0 : d];
      if (w.length != 2 && w.length != 1) {
        throw new IllegalArgumentException("pad: each pad width is {before, after}, got " + Arrays.toString(w));
      }
      pads[2 * d] = w[0];
      pads[2 * d + 1] = w.length == 2 ? w[1] : w[0];
    }
    long m;
    switch (mode) {
      case CONSTANT: m = 0; break;
      case REFLECT: m = 1; break;
      default: throw new UnsupportedOperationException("ndrt's ND4J drop-in does not implement Nd4j.pad with mode "
          + mode + " (ndrt pads CONSTANT and REFLECT)");
    }
    return wrap(Ops.pad(tensor(toPad), pads, m, padValue));
  }

  /** The array repeated reps[d] times along each dimension. */
  public static INDArray tile(INDArray tile, int... repeat) {
    return wrap(Ops.tile(tensor(tile), Shapes.toLong(repeat)));
  }

  /**
   * ND4J's meshgrid of two vectors (cartesian 'xy' indexing): two [y.length, x.length] arrays of x's
   * dtype (y is cast), the first with x along every row, the second with y down every column.
   */
  public static INDArray[] meshgrid(INDArray x, INDArray y) {
    if (x == null || y == null) {
      throw new NullPointerException((x == null ? "x" : "y") + " is marked non-null but is null");
    }
    if (!x.isVectorOrScalar()) {
      throw new IllegalArgumentException("X must be a vector");
    }
    if (!y.isVectorOrScalar()) {
      throw new IllegalArgumentException("Y must be a vector");
    }
    int nx = (int) x.length();
    int ny = (int) y.length();
    INDArray ys = y.dataType() == x.dataType() ? y : y.castTo(x.dataType());
    return new INDArray[] {tile(x.reshape(1, nx), ny, 1), tile(ys.reshape(ny, 1), 1, nx)};
  }

  public static INDArray expandDims(INDArray x, int axis) {
    long[] s = x.shape();
    int a = axis < 0 ? axis + s.length + 1 : axis;
    long[] r = new long[s.length + 1];
    for (int i = 0, k = 0; i < r.length; ++i) {
      r[i] = i == a ? 1 : s[k++];
    }
    return x.reshape(r);
  }

  public static INDArray squeeze(INDArray x, int axis) {
    long[] s = x.shape();
    int a = axis < 0 ? axis + s.length : axis;
    if (a < 0 || a >= s.length || s[a] != 1) {
      throw new IllegalArgumentException("squeeze: dimension " + axis + " of shape " + Arrays.toString(s)
          + " is not of size 1");
    }
    long[] r = new long[s.length - 1];
    for (int i = 0, k = 0; i < s.length; ++i) {
      if (i != a) {
        r[k++] = s[i];
      }
    }
    return x.reshape(r);
  }

  /** Every element in reverse order. */
  public static INDArray reverse(INDArray x) {
    long[] axes = new long[x.rank()];
    for (int i = 0; i < axes.length; ++i) {
      axes[i] = i;
    }
    return wrap(Ops.flip(tensor(x), axes));
  }

  /** op(a) x op(b). */
  public static INDArray gemm(INDArray a, INDArray b, boolean transposeA, boolean transposeB) {
    return wrap(Ops.matmul(tensor(a), tensor(Creation.as(b, a.dataType())), transposeA, transposeB));
  }

  // ------------------------------------------------------------------------------- reductions

  public static INDArray argMax(INDArray arr, int... dimensions) { return arr.argMax(dimensions); }

  public static INDArray argMin(INDArray arr, int... dimensions) {
    long[] axes = Shapes.axes(dimensions, arr.rank());
    if (axes.length == 1) {
      return wrap(Ops.argmin(tensor(arr), axes[0]));
    }
    return arr.neg().argMax(dimensions);
  }

  public static INDArray sum(INDArray a) { return a.sum(); }
  public static INDArray sum(INDArray a, int d) { return a.sum(d); }
  public static INDArray mean(INDArray a) { return a.mean(); }
  public static INDArray mean(INDArray a, int d) { return a.mean(d); }
  public static INDArray max(INDArray a) { return a.max(); }
  public static INDArray max(INDArray a, int d) { return a.max(d); }
  public static INDArray min(INDArray a) { return a.min(); }
  public static INDArray min(INDArray a, int d) { return a.min(d); }
  public static INDArray prod(INDArray a) { return a.prod(); }
  public static INDArray prod(INDArray a, int d) { return a.prod(d); }
  public static INDArray norm1(INDArray a) { return a.norm1(); }
  public static INDArray norm1(INDArray a, int d) { return a.norm1(d); }
  public static INDArray norm2(INDArray a) { return a.norm2(); }
  public static INDArray norm2(INDArray a, int d) { return a.norm2(d); }
  public static INDArray std(INDArray a) { return a.std(); }
  public static INDArray std(INDArray a, int d) { return a.std(d); }
  public static INDArray var(INDArray a) { return a.var(); }
  public static INDArray var(INDArray a, int d) { return a.var(d); }

  public static INDArray cumsum(INDArray a) {
    throw new UnsupportedOperationException("ndrt's ND4J drop-in does not implement Nd4j.cumsum: ndrt has no "
        + "cumulative-sum op yet");
  }

  public static INDArray cumsum(INDArray a, int d) {
    return cumsum(a);
  }

  public static INDArray sort(INDArray a, boolean ascending) {
    throw new UnsupportedOperationException("ndrt's ND4J drop-in does not implement Nd4j.sort: ndrt has no sort op yet");
  }

  public static INDArray sort(INDArray a, int dimension, boolean ascending) {
    return sort(a, ascending);
  }

  // ------------------------------------------------------------------------------- text files

  /** A matrix from a text file: one row per line, values separated by whitespace. */
  public static INDArray readNumpy(String filePath) throws IOException {
    return readNumpy(defaultFloat, filePath, " ");
  }

  public static INDArray readNumpy(String filePath, String split) throws IOException {
    return readNumpy(defaultFloat, filePath, split);
  }

  public static INDArray readNumpy(DataType type, String filePath) throws IOException {
    return readNumpy(type, filePath, " ");
  }

  public static INDArray readNumpy(DataType type, String filePath, String split) throws IOException {
    try (InputStream in = Files.newInputStream(Paths.get(filePath))) {
      return readNumpy(type, in, split);
    }
  }

  public static INDArray readNumpy(InputStream in, String split) throws IOException {
    return readNumpy(defaultFloat, in, split);
  }

  private static INDArray readNumpy(DataType type, InputStream in, String split) throws IOException {
    List<double[]> rows = new ArrayList<>();
    BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
    String regex = split.trim().isEmpty() ? "\\s+" : java.util.regex.Pattern.quote(split);
    for (String line = r.readLine(); line != null; line = r.readLine()) {
      String s = line.trim();
      if (s.isEmpty()) {
        continue;
      }
      String[] parts = s.split(regex);
      double[] row = new double[parts.length];
      for (int i = 0; i < parts.length; ++i) {
        row[i] = Double.parseDouble(parts[i].trim());
      }
      if (!rows.isEmpty() && row.length != rows.get(0).length) {
        throw new IOException("readNumpy: line " + (rows.size() + 1) + " has " + row.length + " values, line 1 has "
            + rows.get(0).length);
      }
      rows.add(row);
    }
    return Creation.as(create(rows.toArray(new double[0][])), type);
  }
}
