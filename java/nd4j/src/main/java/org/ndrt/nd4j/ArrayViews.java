package org.ndrt.nd4j;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.cpu.nativecpu.NDArray;
import org.nd4j.linalg.exception.ND4JIllegalStateException;
import org.nd4j.linalg.indexing.INDArrayIndex;
import org.nd4j.linalg.indexing.IntervalIndex;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.nd4j.linalg.indexing.NewAxis;
import org.nd4j.linalg.indexing.PointIndex;
import org.nd4j.linalg.indexing.SpecifiedIndex;
import org.ndrt.NdrtException;
import org.ndrt.Ops;
import org.ndrt.Tensor;

/**
 * Indexing, views and copies: get/put with ND4J's indices, rows and columns, reshape in 'c' or 'f'
 * order, permute/transpose, dup, broadcast, assign. Views are Tensor views (slice, permute, reshape,
 * expand); writes go through the runtime's copy op into the view.
 */
public abstract class ArrayViews extends ArrayCore {
  private static final long serialVersionUID = 1L;

  protected ArrayViews(Tensor t, ArrayCore viewOf, char rootOrder) {
    super(t, viewOf, rootOrder);
  }

  // ------------------------------------------------------------------------------- get / put

  /**
   * A view selected by ND4J indices (points drop their axis, intervals keep it, newAxis inserts one,
   * missing trailing indices mean all()). Listed indices ({@link NDArrayIndex#indices}) give a copy.
   */
  @Override
  public INDArray get(INDArrayIndex... indexes) {
    long[] shape = shape();
    int consumed = 0;
    for (INDArrayIndex i : indexes) {
      consumed += i instanceof NewAxis ? 0 : 1;
    }
    if (consumed > shape.length) {
      throw new IllegalArgumentException("Indices " + Arrays.toString(indexes) + " address " + consumed
          + " dimensions of an array of rank " + shape.length + " (shape " + Arrays.toString(shape) + ")");
    }
    Tensor v = t.share();
    boolean copied = false;
    try {
      int axis = 0; // axis in v
      int src = 0; // axis in this array
      for (INDArrayIndex idx : indexes) {
        if (idx instanceof NewAxis) {
          v = replace(v, v.reshape(insert(v.shape(), axis, 1)));
          ++axis;
          continue;
        }
        long size = shape[src];
        if (idx instanceof PointIndex) {
          long p = idx.offset() < 0 ? idx.offset() + size : idx.offset();
          if (p < 0 || p >= size) {
            throw new IllegalArgumentException("Indices are out of range: cannot get point " + idx.offset()
                + " on dimension " + src + " of size " + size + ". Array shape: " + Arrays.toString(shape)
                + ", indices: " + Arrays.toString(indexes));
          }
          v = replace(v, v.slice(axis, p, p + 1));
          v = replace(v, v.reshape(remove(v.shape(), axis)));
        } else if (idx instanceof SpecifiedIndex) {
          long[] pos = ((SpecifiedIndex) idx).getIndexes();
          for (long p : pos) {
            if (p < -size || p >= size) {
              throw new IllegalArgumentException("Indices are out of range: index " + p + " on dimension " + src
                  + " of size " + size + ". Array shape: " + Arrays.toString(shape));
            }
          }
          try (Tensor ix = Tensor.from(pos, pos.length)) {
            v = replace(v, Ops.gather(v, ix, axis));
          }
          copied = true;
          ++axis;
        } else if (idx instanceof IntervalIndex) {
          IntervalIndex in = (IntervalIndex) idx;
          long b = in.offset(), e = in instanceof org.nd4j.linalg.indexing.NDArrayIndexAll ? size : in.end();
          if (b < 0 || e > size) {
            throw new IllegalStateException("Indices are out of range: Cannot get interval index " + idx
                + " on array with size(" + src + ")=" + size + ". Array shape: " + Arrays.toString(shape)
                + ", indices: " + Arrays.toString(indexes));
          }
          v = replace(v, v.slice(axis, b, e, in.stride()));
          ++axis;
        } else {
          throw new UnsupportedOperationException("ndrt's ND4J drop-in does not implement index type "
              + idx.getClass().getName());
        }
        ++src;
      }
      Tensor r = v;
      v = null;
      return copied ? wrap(r) : view(r);
    } finally {
      if (v != null) {
        v.close();
      }
    }
  }

  private static Tensor replace(Tensor old, Tensor next) {
    old.close();
    return next;
  }

  private static long[] insert(long[] s, int at, long value) {
    long[] r = new long[s.length + 1];
    System.arraycopy(s, 0, r, 0, at);
    r[at] = value;
    System.arraycopy(s, at, r, at + 1, s.length - at);
    return r;
  }

  private static long[] remove(long[] s, int at) {
    long[] r = new long[s.length - 1];
    System.arraycopy(s, 0, r, 0, at);
    System.arraycopy(s, at + 1, r, at, s.length - at - 1);
    return r;
  }

  @Override
  public INDArray get(INDArray indices) {
    throw refused("get(INDArray)", "use get(NDArrayIndex.indices(...)) or getRows");
  }

  @Override
  public INDArray put(INDArrayIndex[] indices, INDArray element) {
    get(indices).assign(element);
    return this;
  }

  @Override
  public INDArray put(INDArrayIndex[] indices, Number element) {
    get(indices).assign(element);
    return this;
  }

  @Override
  public INDArray put(int[] indices, INDArray element) {
    return putScalar(indices, scalarOf(element, "put(int[], INDArray)"));
  }

  @Override
  public INDArray put(int i, int j, INDArray element) {
    return putScalar(new long[] {i, j}, scalarOf(element, "put(int, int, INDArray)"));
  }

  @Override
  public INDArray put(int i, int j, Number element) {
    return putScalar(new long[] {i, j}, element.doubleValue());
  }

  @Override
  public INDArray put(int i, INDArray element) {
    return putScalar(i, scalarOf(element, "put(int, INDArray)"));
  }

  @Override
  public INDArray put(INDArray indices, INDArray element) {
    throw refused("put(INDArray, INDArray)");
  }

  private static double scalarOf(INDArray element, String what) {
    if (element.length() != 1) {
      throw new IllegalArgumentException(what + ": the element must be a scalar, got shape "
          + Arrays.toString(element.shape()));
    }
    return element.getDouble(0L);
  }

  @Override
  public INDArray putRow(long row, INDArray toPut) {
    getRow(row).assign(toPut);
    return this;
  }

  @Override
  public INDArray putColumn(int column, INDArray toPut) {
    getColumn(column).assign(toPut);
    return this;
  }

  @Override
  public INDArray putSlice(int slice, INDArray put) {
    slice(slice).assign(put);
    return this;
  }

  /** Row {@code i} of a matrix as a rank-1 view ([1, n] with keepDim). */
  @Override
  public INDArray getRow(long i) {
    return getRow(i, false);
  }

  @Override
  public INDArray getRow(long i, boolean keepDim) {
    if (rank() != 2) {
      throw new IllegalStateException("getRow() can be called on 2D arrays only, got shape " + Arrays.toString(shape()));
    }
    if (i < 0 || i >= rows()) {
      throw new IllegalArgumentException("Row index must be smaller than total number of rows: got " + i + " for "
          + rows() + " rows");
    }
    return keepDim ? get(NDArrayIndex.interval(i, i + 1), NDArrayIndex.all())
        : get(NDArrayIndex.point(i), NDArrayIndex.all());
  }

  @Override
  public INDArray getColumn(long i) {
    return getColumn(i, false);
  }

  @Override
  public INDArray getColumn(long i, boolean keepDim) {
    if (rank() != 2) {
      throw new IllegalStateException("getColumn() can be called on 2D arrays only, got shape "
          + Arrays.toString(shape()));
    }
    if (i < 0 || i >= columns()) {
      throw new IllegalArgumentException("Column index must be smaller than total number of columns: got " + i
          + " for " + columns() + " columns");
    }
    return keepDim ? get(NDArrayIndex.all(), NDArrayIndex.interval(i, i + 1))
        : get(NDArrayIndex.all(), NDArrayIndex.point(i));
  }

  /** A copy of the listed rows (ND4J's getRows copies). */
  @Override
  public INDArray getRows(int... rows) {
    if (rank() != 2) {
      throw new IllegalStateException("getRows() can be called on 2D arrays only, got shape " + Arrays.toString(shape()));
    }
    return get(new SpecifiedIndex(rows), NDArrayIndex.all());
  }

  @Override
  public INDArray getColumns(int... columns) {
    if (rank() != 2) {
      throw new IllegalStateException("getColumns() can be called on 2D arrays only, got shape "
          + Arrays.toString(shape()));
    }
    return get(NDArrayIndex.all(), new SpecifiedIndex(columns));
  }

  @Override
  public INDArray getScalar(long i) {
    return getScalarAt(rank() == 0 ? new long[0] : linearToFull(i));
  }

  @Override
  public INDArray getScalar(long row, long column) {
    return getScalarAt(checkFull(new long[] {row, column}));
  }

  @Override
  public INDArray getScalar(int... indices) {
    return getScalar(Shapes.toLong(indices));
  }

  @Override
  public INDArray getScalar(long... indices) {
    if (indices.length == 1 && rank() != 1) {
      return getScalar(indices[0]);
    }
    return getScalarAt(checkFull(indices));
  }

  /** A rank-0 view of one element. */
  private INDArray getScalarAt(long[] full) {
    INDArrayIndex[] ix = new INDArrayIndex[full.length];
    for (int i = 0; i < full.length; ++i) {
      ix[i] = NDArrayIndex.point(full[i]);
    }
    return get(ix);
  }

  // ------------------------------------------------------------------------------- slices

  @Override
  public long slices() {
    return rank() == 0 ? 1 : size(0);
  }

  @Override
  public INDArray slice(long i) {
    return slice(i, 0);
  }

  @Override
  public INDArray slice(long i, int dimension) {
    int r = rank();
    int d = dimension < 0 ? dimension + r : dimension;
    if (d < 0 || d >= r) {
      throw new IllegalArgumentException("slice: dimension " + dimension + " of an array of rank " + r);
    }
    long n = size(d);
    long p = i < 0 ? i + n : i;
    if (p < 0 || p >= n) {
      throw new IllegalArgumentException("Illegal slice " + i + ": dimension " + d + " has " + n + " slices");
    }
    INDArrayIndex[] ix = new INDArrayIndex[d + 1];
    for (int k = 0; k < d; ++k) {
      ix[k] = NDArrayIndex.all();
    }
    ix[d] = NDArrayIndex.point(p);
    return get(ix);
  }

  /** The sub-array along {@code dimension} (kept in their order) at the index-th position of the others. */
  @Override
  public INDArray tensorAlongDimension(long index, int... dimension) {
    int r = rank();
    long[] dims = Shapes.axes(dimension, r);
    boolean[] keep = new boolean[r];
    for (long d : dims) {
      keep[(int) d] = true;
    }
    long[] shape = shape();
    List<Long> others = new ArrayList<>();
    for (int i = 0; i < r; ++i) {
      if (!keep[i]) {
        others.add(shape[i]);
      }
    }
    long[] otherShape = others.stream().mapToLong(Long::longValue).toArray();
    long count = Shapes.prod(otherShape);
    if (index < 0 || index >= count) {
      throw new IllegalArgumentException("tensorAlongDimension: index " + index + " is outside the " + count
          + " tensors along " + Arrays.toString(dimension) + " of shape " + Arrays.toString(shape));
    }
    long[] pos = Shapes.unravel(index, otherShape, 'c');
    INDArrayIndex[] ix = new INDArrayIndex[r];
    for (int i = 0, k = 0; i < r; ++i) {
      ix[i] = keep[i] ? NDArrayIndex.all() : NDArrayIndex.point(pos[k++]);
    }
    return get(ix);
  }

  @Override
  public long tensorsAlongDimension(int... dimension) {
    long[] dims = Shapes.axes(dimension, rank());
    long n = length();
    for (long d : dims) {
      n /= Math.max(1, size((int) d));
    }
    return n;
  }

  @Override
  public INDArray vectorAlongDimension(int index, int dimension) {
    return tensorAlongDimension(index, dimension);
  }

  @Override
  public long vectorsAlongDimension(int dimension) {
    return tensorsAlongDimension(dimension);
  }

  // ------------------------------------------------------------------------------- reshape, permute

  @Override
  public INDArray reshape(char order, long... newShape) {
    return reshapeImpl(order, newShape);
  }

  @Override
  public INDArray reshape(char order, int... newShape) {
    return reshapeImpl(order, Shapes.toLong(newShape));
  }

  @Override
  public INDArray reshape(char order, boolean enforceView, long... newShape) {
    INDArray r = reshapeImpl(order, newShape);
    if (enforceView && !r.isView()) {
      throw new ND4JIllegalStateException("Unable to reshape array as view, called with enforceView=true. Use "
          + "enforceView=false to return a copy instead, or call reshape on a non-strided array. Array shape: "
          + Arrays.toString(shape()) + ", new shape " + Arrays.toString(newShape));
    }
    return r;
  }

  @Override
  public INDArray reshape(char order, int rows, int columns) {
    return reshapeImpl(order, new long[] {rows, columns});
  }

  @Override
  public INDArray reshape(long... newShape) {
    return reshapeImpl('c', newShape);
  }

  @Override
  public INDArray reshape(int[] newShape) {
    return reshapeImpl('c', Shapes.toLong(newShape));
  }

  @Override
  public INDArray reshape(long rows, long columns) {
    return reshapeImpl('c', new long[] {rows, columns});
  }

  /**
   * Elements read in {@code order} into the new shape, filled in the same order: a view where the
   * runtime can express one, else a copy.
   */
  private INDArray reshapeImpl(char order, long[] newShape) {
    if (order != 'c' && order != 'f') {
      throw new IllegalArgumentException("reshape: order must be 'c' or 'f', got '" + order + "'");
    }
    long[] target = newShape.clone();
    int unknown = -1;
    long known = 1;
    for (int i = 0; i < target.length; ++i) {
      if (target[i] == -1 && unknown < 0) {
        unknown = i;
      } else if (target[i] < 0) {
        throw new ND4JIllegalStateException("reshape: invalid extent " + target[i] + " in " + Arrays.toString(newShape));
      } else {
        known *= target[i];
      }
    }
    long n = length();
    if (unknown >= 0 && known > 0) {
      target[unknown] = n / known;
    }
    if (Shapes.prod(target) != n) {
      throw new ND4JIllegalStateException("New shape length doesn't match original length: ["
          + Shapes.prod(target) + "] vs [" + n + "]. Original shape: " + Arrays.toString(shape())
          + " New Shape: " + Arrays.toString(newShape));
    }
    if (order == 'c') {
      return reshapeC(t, target);
    }
    // 'f': reverse the axes, reshape row-major to the reversed shape, reverse back.
    try (Tensor rev = t.permute(Shapes.reversedAxes(rank()))) {
      INDArray r = reshapeC(rev, Shapes.reversed(target));
      Tensor back = tensorOf(r).permute(Shapes.reversedAxes(target.length));
      return r.isView() ? view(back) : wrapKeepingOrder(back, tensorOf(r));
    }
  }

  private INDArray reshapeC(Tensor src, long[] target) {
    try {
      return view(src.reshape(target));
    } catch (NdrtException notAView) {
      try (Tensor c = src.contiguous()) {
        return wrap(c.reshape(target));
      }
    }
  }

  private NDArray wrapKeepingOrder(Tensor v, Tensor owner) {
    NDArray r = new NDArray(v, null, 'f');
    owner.close();
    return r;
  }

  @Override
  public INDArray permute(int... rearrange) {
    checkPermutation(rearrange);
    return view(t.permute(rearrange));
  }

  /** Permutes this array itself (ND4J's in-place variant): later calls see the new shape. */
  @Override
  public INDArray permutei(int... rearrange) {
    checkPermutation(rearrange);
    Tensor old = t;
    t = t.permute(rearrange);
    old.close();
    return this;
  }

  private void checkPermutation(int[] p) {
    int r = rank();
    if (p.length != r) {
      throw new IllegalArgumentException("Invalid permutation: expected " + r + " dimensions, got "
          + Arrays.toString(p) + " for shape " + Arrays.toString(shape()));
    }
    boolean[] seen = new boolean[r];
    for (int d : p) {
      if (d < 0 || d >= r) {
        throw new IllegalArgumentException("Invalid permutation " + Arrays.toString(p) + " for rank " + r);
      }
      if (seen[d]) {
        throw new IllegalArgumentException("Permute array must have unique elements: " + Arrays.toString(p));
      }
      seen[d] = true;
    }
  }

  /** All axes reversed (a matrix's rows and columns swapped), as a view. */
  @Override
  public INDArray transpose() {
    return view(t.permute(Shapes.reversedAxes(rank())));
  }

  @Override
  public INDArray transposei() {
    return permutei(Shapes.reversedAxes(rank()));
  }

  @Override
  public INDArray swapAxes(int dimension, int with) {
    int[] p = new int[rank()];
    for (int i = 0; i < p.length; ++i) {
      p[i] = i;
    }
    p[dimension] = with;
    p[with] = dimension;
    return permute(p);
  }

  // ------------------------------------------------------------------------------- copies

  /** A copy in 'c' order (ND4J's default order). */
  @Override
  public INDArray dup() {
    return dup(ordering());
  }

  /** A copy whose memory is in {@code order}. */
  @Override
  public INDArray dup(char order) {
    if (order == 'f') {
      Tensor store = Tensor.empty(t.dtype(), Shapes.reversed(shape()));
      Tensor fview = store.permute(Shapes.reversedAxes(rank()));
      store.close();
      Ops.copy(t, fview);
      return new NDArray(fview, null, 'f');
    }
    return wrap(Ops.copy(t));
  }

  @Override
  public INDArray unsafeDuplication() {
    return dup();
  }

  @Override
  public INDArray unsafeDuplication(boolean blocking) {
    return dup();
  }

  @Override
  public INDArray ravel() {
    return ravel('c');
  }

  /** The elements as a rank-1 array, read in {@code order} (a view when possible). */
  @Override
  public INDArray ravel(char order) {
    return reshapeImpl(order, new long[] {length()});
  }

  /** A copy of this array broadcast to {@code shape} (numpy rules). */
  @Override
  public INDArray broadcast(long... shape) {
    long[] s = shape();
    long[] b = Shapes.broadcast(s, shape);
    if (b == null || !Arrays.equals(b, shape)) {
      throw new IllegalArgumentException("Incompatible broadcast from " + Arrays.toString(s) + " to "
          + Arrays.toString(shape));
    }
    try (Tensor e = t.expand(shape)) {
      return wrap(Ops.copy(e));
    }
  }

  @Override
  public INDArray broadcast(INDArray result) {
    long[] shape = result.shape();
    long[] b = Shapes.broadcast(shape(), shape);
    if (b == null || !Arrays.equals(b, shape)) {
      throw new IllegalArgumentException("Incompatible broadcast from " + Arrays.toString(shape()) + " to "
          + Arrays.toString(shape));
    }
    return result.assign(this);
  }

  /**
   * Writes {@code other}'s elements into this array: broadcast when its shape broadcasts to this
   * one, else element by element in 'c' order when the lengths agree; converted to this dtype.
   */
  @Override
  public INDArray assign(INDArray other) {
    Tensor o = tensorOf(other);
    long[] s = shape(), os = other.shape();
    Tensor src;
    long[] b = Shapes.broadcast(s, os);
    if (b != null && Arrays.equals(b, s)) {
      src = o.expand(s);
    } else if (other.length() == length()) {
      INDArray flat = other.reshape('c', s);
      src = tensorOf(flat).share();
    } else {
      throw new IllegalStateException("Cannot assign an array of shape " + Arrays.toString(os)
          + " to an array of shape " + Arrays.toString(s) + ": shapes do not broadcast and lengths differ");
    }
    try (src) {
      if (src.dtype() == t.dtype()) {
        Ops.copy(src, t);
      } else {
        Ops.cast(src, t.dtype(), t);
      }
    }
    return this;
  }

  @Override
  public INDArray assign(Number value) {
    t.fill(value.doubleValue());
    return this;
  }

  @Override
  public INDArray assign(boolean value) {
    t.fill(value ? 1 : 0);
    return this;
  }

  /** This array converted to {@code dataType} (this array itself when it already is). */
  @Override
  public INDArray castTo(DataType dataType) {
    if (dataType == dataType()) {
      return this;
    }
    return wrap(t.cast(Dtypes.toNdrt(dataType)));
  }

  /** A new zero-filled array of this shape, dtype and order. */
  @Override
  public INDArray like() {
    return ulike().assign(0);
  }

  @Override
  public INDArray ulike() {
    if (ordering() == 'f') {
      Tensor store = Tensor.empty(t.dtype(), Shapes.reversed(shape()));
      Tensor fview = store.permute(Shapes.reversedAxes(rank()));
      store.close();
      return new NDArray(fview, null, 'f');
    }
    return wrap(Tensor.empty(t.dtype(), shape()));
  }
}
