package org.ndrt.nd4j;

import java.util.Arrays;
import java.util.function.IntFunction;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.cpu.nativecpu.NDArray;
import org.nd4j.linalg.exception.ND4JIllegalStateException;
import org.ndrt.DType;
import org.ndrt.Tensor;

/**
 * Arrays from Java data in 'c' or 'f' order, and filled arrays: the pieces Nd4j's many create
 * overloads share. An 'f' array is stored as the reversed shape row-major and seen through the
 * reversed axes (column-major strides), so its memory holds the data in the order given.
 */
public final class Creation {
  private Creation() {}

  private static void checkLength(long[] shape, long n) {
    for (long d : shape) {
      if (d < 0) {
        throw new ND4JIllegalStateException("Invalid shape " + Arrays.toString(shape) + ": negative extent");
      }
    }
    if (Shapes.prod(shape) != n) {
      throw new ND4JIllegalStateException("Shape of the new array " + Arrays.toString(shape)
          + " doesn't match data length: " + n + " - prod(shape) must equal the number of values provided");
    }
  }

  /** A root array over a tensor stored in {@code order} from {@code store} (reversed shape for 'f'). */
  private static INDArray rooted(Tensor store, char order) {
    if (order == 'f') {
      Tensor v = store.permute(Shapes.reversedAxes(store.rank()));
      store.close();
      return new NDArray(v, null, 'f');
    }
    if (order != 'c') {
      store.close();
      throw new IllegalArgumentException("order must be 'c' or 'f', got '" + order + "'");
    }
    return new NDArray(store, null, 'c');
  }

  private static long[] storeShape(long[] shape, char order) {
    return order == 'f' ? Shapes.reversed(shape) : shape;
  }

  public static INDArray of(double[] data, long[] shape, char order) {
    checkLength(shape, data.length);
    return rooted(Tensor.from(data, storeShape(shape, order)), order);
  }

  public static INDArray of(float[] data, long[] shape, char order) {
    checkLength(shape, data.length);
    return rooted(Tensor.from(data, storeShape(shape, order)), order);
  }

  public static INDArray of(int[] data, long[] shape, char order) {
    checkLength(shape, data.length);
    return rooted(Tensor.from(data, storeShape(shape, order)), order);
  }

  public static INDArray of(long[] data, long[] shape, char order) {
    checkLength(shape, data.length);
    return rooted(Tensor.from(data, storeShape(shape, order)), order);
  }

  public static INDArray of(byte[] data, DType dtype, long[] shape, char order) {
    checkLength(shape, data.length);
    return rooted(Tensor.from(data, dtype, storeShape(shape, order)), order);
  }

  public static INDArray of(boolean[] data, long[] shape, char order) {
    byte[] b = new byte[data.length];
    for (int i = 0; i < b.length; ++i) {
      b[i] = (byte) (data[i] ? 1 : 0);
    }
    return of(b, DType.BOOL, shape, order);
  }

  /** The data converted to {@code type} (one cast in the runtime when it differs). */
  public static INDArray as(INDArray a, DataType type) {
    return a.dataType() == type ? a : a.castTo(type);
  }

  /** Every element {@code value}. */
  public static INDArray filled(double value, DataType type, long[] shape, char order) {
    checkShape(shape);
    return rooted(Tensor.full(value, Dtypes.toNdrt(type), storeShape(shape, order)), order);
  }

  /** Uninitialised storage. */
  public static INDArray uninitialized(DataType type, long[] shape, char order) {
    checkShape(shape);
    return rooted(Tensor.empty(Dtypes.toNdrt(type), storeShape(shape, order)), order);
  }

  private static void checkShape(long[] shape) {
    for (long d : shape) {
      if (d < 0) {
        throw new ND4JIllegalStateException("Invalid shape " + Arrays.toString(shape) + ": negative extent");
      }
    }
  }

  /** Rows of equal length flattened row-major; shapeOut gets [rows, columns]. */
  private static <A> A flattenRows(A[] rows, IntFunction<A> allocate, long[] shapeOut) {
    int n = rows.length, m = n == 0 ? 0 : java.lang.reflect.Array.getLength(rows[0]);
    A flat = allocate.apply(n * m);
    for (int i = 0; i < n; ++i) {
      requireRow(java.lang.reflect.Array.getLength(rows[i]), m, i);
      System.arraycopy(rows[i], 0, flat, i * m, m);
    }
    shapeOut[0] = n;
    shapeOut[1] = m;
    return flat;
  }

  public static double[] flatten(double[][] rows, long[] shapeOut) {
    return flattenRows(rows, double[]::new, shapeOut);
  }

  public static float[] flatten(float[][] rows, long[] shapeOut) {
    return flattenRows(rows, float[]::new, shapeOut);
  }

  public static int[] flatten(int[][] rows, long[] shapeOut) {
    return flattenRows(rows, int[]::new, shapeOut);
  }

  public static long[] flatten(long[][] rows, long[] shapeOut) {
    return flattenRows(rows, long[]::new, shapeOut);
  }

  private static void requireRow(int len, int m, int i) {
    if (len != m) {
      throw new IllegalArgumentException("All rows must have the same length: row " + i + " has " + len
          + " values, row 0 has " + m);
    }
  }
}
