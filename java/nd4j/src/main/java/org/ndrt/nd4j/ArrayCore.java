package org.ndrt.nd4j;

import java.util.Arrays;
import org.nd4j.linalg.api.buffer.DataBuffer;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.cpu.nativecpu.NDArray;
import org.ndrt.DType;
import org.ndrt.Tensor;

/**
 * The description and element access of ndrt's INDArray: an {@link org.ndrt.Tensor} view (dtype,
 * shape, strides, offset over refcounted storage) plus the array whose storage it views. An 'f' array
 * is a Tensor with column-major strides. The math lives in the runtime's ops, called through
 * {@link org.ndrt.Ops}; this class only adapts ND4J's names and rules.
 *
 * <p>Split by concern: ArrayCore (description, elements, buffers), {@link ArrayViews} (indexing,
 * views, copies), {@link ArrayMath} (arithmetic, comparisons), {@link org.nd4j.linalg.api.ndarray.BaseNDArray}
 * (reductions, equality, printing).
 */
public abstract class ArrayCore implements INDArray {
  private static final long serialVersionUID = 1L;

  /** The view this array is; replaced only by the in-place shape methods (permutei, transposei). */
  protected transient Tensor t;
  /** The root array whose storage this one views; null when this is a root. */
  protected final transient ArrayCore viewOf;
  /** The order the root was created in: decides ties (vectors) and the order of data(). */
  protected final char rootOrder;
  private boolean closeable = true;

  protected ArrayCore(Tensor t, ArrayCore viewOf, char rootOrder) {
    this.t = t;
    this.viewOf = viewOf == null ? null : viewOf.root();
    this.rootOrder = rootOrder;
  }

  final ArrayCore root() {
    return viewOf == null ? this : viewOf;
  }

  /**
   * Java serialisation writes the elements, not the handle ({@link SerializedArray}); without this the
   * transient tensor would arrive as null.
   */
  protected final Object writeReplace() {
    return new SerializedArray(t, ordering());
  }

  /** The org.ndrt tensor this array is (no copy): for code that passes INDArrays to org.ndrt. */
  public Tensor tensor() {
    return t;
  }

  /** The tensor of any INDArray of this drop-in. */
  public static Tensor tensorOf(INDArray a) {
    if (a instanceof ArrayCore) {
      return ((ArrayCore) a).t;
    }
    if (a == null) {
      throw new IllegalArgumentException("the array is null");
    }
    throw new IllegalArgumentException("not an ndrt array: " + a.getClass().getName());
  }

  /** A new root array owning {@code t} (ordering 'c' unless its strides say 'f'). */
  protected static NDArray wrap(Tensor t) {
    return new NDArray(t, null, 'c');
  }

  /** A view of this array's storage. */
  protected NDArray view(Tensor v) {
    return new NDArray(v, root(), rootOrder);
  }

  // ------------------------------------------------------------------------------- description

  @Override
  public boolean isView() {
    return viewOf != null;
  }

  @Override
  public int rank() {
    return t.rank();
  }

  @Override
  public long[] shape() {
    return t.shape();
  }

  @Override
  public long[] stride() {
    return t.strides();
  }

  @Override
  public int stride(int dimension) {
    int r = rank();
    int d = dimension < 0 ? dimension + r : dimension;
    if (d < 0 || d >= r) {
      throw new IllegalArgumentException("Invalid dimension: cannot get stride of dimension " + dimension
          + " for rank " + r + " NDArray (array shape: " + Arrays.toString(shape()) + ")");
    }
    return Math.toIntExact(t.strides()[d]);
  }

  @Override
  public long size(int dimension) {
    long[] s = shape();
    int d = dimension < 0 ? dimension + s.length : dimension;
    if (d < 0 || d >= s.length) {
      throw new IllegalArgumentException("Invalid size: cannot get size of dimension " + dimension + " for rank "
          + s.length + " NDArray (array shape: " + Arrays.toString(s) + ")");
    }
    return s[d];
  }

  @Override
  public long length() {
    return t.numel();
  }

  /** Rows of a matrix; 1 for a row vector (rank 1), as ND4J. */
  @Override
  public int rows() {
    long[] s = shape();
    if (s.length == 1) {
      return 1;
    }
    if (s.length == 2) {
      return Math.toIntExact(s[0]);
    }
    throw new IllegalStateException("Rank is [" + s.length + "]; rows() call is not valid (shape "
        + Arrays.toString(s) + ")");
  }

  @Override
  public int columns() {
    long[] s = shape();
    if (s.length == 1) {
      return Math.toIntExact(s[0]);
    }
    if (s.length == 2) {
      return Math.toIntExact(s[1]);
    }
    throw new IllegalStateException("Rank is [" + s.length + "]; columns() call is not valid (shape "
        + Arrays.toString(s) + ")");
  }

  /** 'c' or 'f' by the strides; a tie (at most one axis longer than 1) goes to the root's order. */
  @Override
  public char ordering() {
    long[] s = shape(), st = t.strides();
    boolean c = true, f = true;
    long prevC = Long.MAX_VALUE, prevF = Long.MIN_VALUE;
    for (int i = 0; i < s.length; ++i) {
      if (s[i] == 1) {
        continue;
      }
      c &= st[i] <= prevC;
      f &= st[i] >= prevF;
      prevC = st[i];
      prevF = st[i];
    }
    if (c && f) {
      return rootOrder;
    }
    return f ? 'f' : 'c';
  }

  @Override
  public DataType dataType() {
    return Dtypes.fromNdrt(t.dtype());
  }

  @Override
  public boolean isR() {
    return t.dtype().isFloatingPoint();
  }

  @Override
  public boolean isZ() {
    DType d = t.dtype();
    return d == DType.I8 || d == DType.U8 || d == DType.I32 || d == DType.I64;
  }

  @Override
  public boolean isB() {
    return t.dtype() == DType.BOOL;
  }

  @Override
  public boolean isS() {
    return false;
  }

  @Override
  public boolean isEmpty() {
    return length() == 0;
  }

  @Override
  public boolean isScalar() {
    return !isEmpty() && (rank() == 0 || length() == 1 && rank() <= 2);
  }

  @Override
  public boolean isVector() {
    long[] s = shape();
    return s.length == 1 && s[0] > 1 || s.length == 2 && (s[0] == 1) != (s[1] == 1);
  }

  @Override
  public boolean isVectorOrScalar() {
    return isVector() || isScalar();
  }

  @Override
  public boolean isRowVector() {
    long[] s = shape();
    return s.length == 1 && s[0] > 1 || s.length == 2 && s[0] == 1 && s[1] > 1;
  }

  @Override
  public boolean isRowVectorOrScalar() {
    return isRowVector() || isScalar();
  }

  @Override
  public boolean isColumnVector() {
    long[] s = shape();
    return s.length == 2 && s[1] == 1 && s[0] > 1;
  }

  @Override
  public boolean isColumnVectorOrScalar() {
    return isColumnVector() || isScalar();
  }

  @Override
  public boolean isMatrix() {
    return rank() == 2;
  }

  @Override
  public boolean isSquare() {
    long[] s = shape();
    return s.length == 2 && s[0] == s[1];
  }

  @Override
  public boolean isSparse() {
    return false;
  }

  @Override
  public boolean isCompressed() {
    return false;
  }

  /** Offset of the first element in the storage, in elements. */
  @Override
  public long offset() {
    return t.offset();
  }

  @Override
  public long originalOffset() {
    return t.offset();
  }

  @Override
  public int elementWiseStride() {
    if (!t.isContiguous()) {
      return -1;
    }
    return 1;
  }

  @Override
  public String shapeInfoToString() {
    return "Rank: " + rank() + ", DataType: " + dataType() + ", Offset: " + offset() + ", Order: " + ordering()
        + ", Shape: " + Arrays.toString(shape()) + ",  Stride: " + Arrays.toString(stride());
  }

  @Override
  public int getTrailingOnes() {
    long[] s = shape();
    int n = 0;
    for (int i = s.length - 1; i >= 0 && s[i] == 1; --i) {
      ++n;
    }
    return n;
  }

  @Override
  public int getLeadingOnes() {
    long[] s = shape();
    int n = 0;
    for (int i = 0; i < s.length && s[i] == 1; ++i) {
      ++n;
    }
    return n;
  }

  // ------------------------------------------------------------------------------- elements

  /** The full index of a linear index, in this array's ordering (as ND4J's getDouble(long)). */
  protected long[] linearToFull(long i) {
    long n = length();
    if (i < 0 || i >= n) {
      throw new IllegalArgumentException("Unable to get linear index " + i + ": values is greater than length ("
          + n + ")");
    }
    return Shapes.unravel(i, shape(), ordering());
  }

  /** Checks a full index (one entry per axis, negative ones counting from the end). */
  protected long[] checkFull(long[] idx) {
    long[] s = shape();
    if (idx.length != s.length) {
      throw new IllegalArgumentException("Invalid indices: cannot get " + Arrays.toString(idx) + " from a "
          + Arrays.toString(s) + " NDArray (rank " + s.length + ", " + idx.length + " indices)");
    }
    long[] full = idx.clone();
    for (int i = 0; i < s.length; ++i) {
      if (full[i] < 0) {
        full[i] += s[i];
      }
      if (full[i] < 0 || full[i] >= s[i]) {
        throw new IndexOutOfBoundsException("Invalid indices: cannot get " + Arrays.toString(idx) + " from a "
            + Arrays.toString(s) + " NDArray (index " + idx[i] + " on dimension " + i + " of size " + s[i] + ")");
      }
    }
    return full;
  }

  private double read(long[] full) {
    return full.length == 0 ? t.item() : t.getDouble(full);
  }

  private void write(long[] full, double v) {
    if (full.length == 0) {
      t.fill(v);
    } else {
      t.putScalar(full, v);
    }
  }

  @Override
  public double getDouble(long i) {
    return read(rank() == 0 ? checkScalarIndex(i) : linearToFull(i));
  }

  private long[] checkScalarIndex(long i) {
    if (i != 0) {
      throw new IllegalArgumentException("Unable to get linear index " + i + ": values is greater than length (1)");
    }
    return new long[0];
  }

  @Override
  public double getDouble(long i, long j) {
    return read(checkFull(new long[] {i, j}));
  }

  @Override
  public double getDouble(int... indices) {
    return getDouble(Shapes.toLong(indices));
  }

  @Override
  public double getDouble(long... indices) {
    if (indices.length == 1 && rank() != 1) {
      return getDouble(indices[0]);
    }
    return read(checkFull(indices));
  }

  @Override
  public float getFloat(long i) {
    return (float) getDouble(i);
  }

  @Override
  public float getFloat(long i, long j) {
    return (float) getDouble(i, j);
  }

  @Override
  public float getFloat(int... indices) {
    return (float) getDouble(indices);
  }

  @Override
  public float getFloat(long... indices) {
    return (float) getDouble(indices);
  }

  @Override
  public int getInt(int... indices) {
    return (int) getDouble(indices);
  }

  @Override
  public long getLong(long index) {
    return (long) getDouble(index);
  }

  @Override
  public long getLong(long... indices) {
    return (long) getDouble(indices);
  }

  @Override
  public Number getNumber(long i) {
    double v = getDouble(i);
    return isR() ? (Number) v : (Number) (long) v;
  }

  @Override
  public Number getNumber(long... indices) {
    double v = getDouble(indices);
    return isR() ? (Number) v : (Number) (long) v;
  }

  @Override
  public double getDoubleUnsafe(long offset) {
    return getDouble(offset);
  }

  @Override
  public Object element() {
    if (!isScalar()) {
      throw new IllegalStateException("Unable to retrieve element from non-scalar array (shape "
          + Arrays.toString(shape()) + ")");
    }
    return getDouble(0L);
  }

  @Override
  public INDArray putScalar(long i, double value) {
    write(rank() == 0 ? checkScalarIndex(i) : linearToFull(i), value);
    return this;
  }

  @Override
  public INDArray putScalar(long i, float value) {
    return putScalar(i, (double) value);
  }

  @Override
  public INDArray putScalar(long i, int value) {
    return putScalar(i, (double) value);
  }

  @Override
  public INDArray putScalar(int[] indexes, double value) {
    return putScalar(Shapes.toLong(indexes), value);
  }

  @Override
  public INDArray putScalar(long[] indexes, double value) {
    if (indexes.length == 1 && rank() != 1) {
      return putScalar(indexes[0], value);
    }
    long[] s = shape();
    if (indexes.length != s.length) {
      throw new IllegalArgumentException("Invalid indices: cannot put " + Arrays.toString(indexes) + " into a "
          + Arrays.toString(s) + " NDArray");
    }
    for (int i = 0; i < s.length; ++i) {
      if (indexes[i] < 0 || indexes[i] >= s[i]) {
        throw new IllegalArgumentException("Invalid indices: cannot get " + joinIndex(indexes) + " from a "
            + Arrays.toString(s) + " NDArray");
      }
    }
    write(indexes, value);
    return this;
  }

  private static String joinIndex(long[] idx) {
    StringBuilder b = new StringBuilder("[");
    for (int i = 0; i < idx.length; ++i) {
      b.append(i > 0 ? "," : "").append(idx[i]);
    }
    return b.append(']').toString();
  }

  @Override
  public INDArray putScalar(long[] indexes, float value) {
    return putScalar(indexes, (double) value);
  }

  @Override
  public INDArray putScalar(long[] indexes, int value) {
    return putScalar(indexes, (double) value);
  }

  @Override
  public INDArray putScalar(int[] indexes, float value) {
    return putScalar(Shapes.toLong(indexes), (double) value);
  }

  @Override
  public INDArray putScalar(int[] indexes, int value) {
    return putScalar(Shapes.toLong(indexes), (double) value);
  }

  @Override
  public INDArray putScalar(long row, long col, double value) {
    return putScalar(new long[] {row, col}, value);
  }

  @Override
  public INDArray putScalar(long d0, long d1, long d2, double value) {
    return putScalar(new long[] {d0, d1, d2}, value);
  }

  @Override
  public INDArray putScalar(long d0, long d1, long d2, long d3, double value) {
    return putScalar(new long[] {d0, d1, d2, d3}, value);
  }

  @Override
  public INDArray putScalarUnsafe(long offset, double value) {
    return putScalar(offset, value);
  }

  // ------------------------------------------------------------------------------- buffers

  /**
   * The whole storage this array views, in memory order (ND4J's data(): a view's buffer is its
   * root's, with {@link #offset()} telling where the view starts).
   */
  @Override
  public DataBuffer data() {
    ArrayCore r = root();
    Tensor memoryOrder = r.rootOrder == 'f' ? r.t.permute(Shapes.toInt(reversedPerm(r.t.rank()))) : r.t.share();
    try (memoryOrder) {
      return new NdrtDataBuffer(memoryOrder.reshape(-1));
    }
  }

  private static long[] reversedPerm(int rank) {
    return Shapes.toLong(Shapes.reversedAxes(rank));
  }

  /** A contiguous row-major tensor holding this array's elements (this one's own when it is). */
  protected Tensor cOrder() {
    return t.isContiguous() ? t.share() : t.contiguous();
  }

  private void requireVector(String what) {
    if (!isVectorOrScalar() && rank() > 1) {
      throw new IllegalStateException(what + ": the array is not a vector (shape " + Arrays.toString(shape()) + ")");
    }
  }

  private void requireMatrix(String what) {
    if (rank() != 2) {
      throw new IllegalStateException(what + ": the array is not a matrix (shape " + Arrays.toString(shape()) + ")");
    }
  }

  @Override
  public double[] toDoubleVector() {
    requireVector("toDoubleVector");
    return t.toDoubleArray();
  }

  @Override
  public float[] toFloatVector() {
    requireVector("toFloatVector");
    return t.toFloatArray();
  }

  @Override
  public int[] toIntVector() {
    requireVector("toIntVector");
    return t.toIntArray();
  }

  @Override
  public long[] toLongVector() {
    requireVector("toLongVector");
    return t.toLongArray();
  }

  @Override
  public double[][] toDoubleMatrix() {
    requireMatrix("toDoubleMatrix");
    double[] v = t.toDoubleArray();
    double[][] m = new double[rows()][columns()];
    for (int i = 0; i < m.length; ++i) {
      System.arraycopy(v, i * m[i].length, m[i], 0, m[i].length);
    }
    return m;
  }

  @Override
  public float[][] toFloatMatrix() {
    requireMatrix("toFloatMatrix");
    float[] v = t.toFloatArray();
    float[][] m = new float[rows()][columns()];
    for (int i = 0; i < m.length; ++i) {
      System.arraycopy(v, i * m[i].length, m[i], 0, m[i].length);
    }
    return m;
  }

  @Override
  public int[][] toIntMatrix() {
    requireMatrix("toIntMatrix");
    int[] v = t.toIntArray();
    int[][] m = new int[rows()][columns()];
    for (int i = 0; i < m.length; ++i) {
      System.arraycopy(v, i * m[i].length, m[i], 0, m[i].length);
    }
    return m;
  }

  @Override
  public long[][] toLongMatrix() {
    requireMatrix("toLongMatrix");
    long[] v = t.toLongArray();
    long[][] m = new long[rows()][columns()];
    for (int i = 0; i < m.length; ++i) {
      System.arraycopy(v, i * m[i].length, m[i], 0, m[i].length);
    }
    return m;
  }

  // ------------------------------------------------------------------------------- lifetime

  @Override
  public boolean closeable() {
    return closeable;
  }

  @Override
  public void setCloseable(boolean closeable) {
    this.closeable = closeable;
  }

  /** Releases this array's handle now (its storage lives while other views of it do). */
  @Override
  public void close() {
    if (closeable) {
      t.close();
    }
  }

  @Override
  public boolean wasClosed() {
    return t.isClosed();
  }

  @Override
  public long getId() {
    return t.isClosed() ? -1 : t.handle();
  }

  @Override
  public boolean isAttached() {
    return false;
  }

  @Override
  public boolean isInScope() {
    return true;
  }

  @Override
  public INDArray detach() {
    return this;
  }

  @Override
  public INDArray leverage() {
    return this;
  }

  @Override
  public INDArray leverageTo(String id) {
    return this;
  }

  @Override
  public INDArray leverageOrDetach(String id) {
    return this;
  }

  @Override
  public INDArray migrate() {
    return this;
  }

  @Override
  public INDArray migrate(boolean detachOnNoWs) {
    return this;
  }

  /** The name of an INDArray method this drop-in refuses. */
  protected static UnsupportedOperationException refused(String method) {
    return new UnsupportedOperationException("ndrt's ND4J drop-in does not implement INDArray." + method);
  }

  protected static UnsupportedOperationException refused(String method, String why) {
    return new UnsupportedOperationException("ndrt's ND4J drop-in does not implement INDArray." + method + ": " + why);
  }
}
