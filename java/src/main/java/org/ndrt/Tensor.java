package org.ndrt;

import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Objects;
import java.util.SplittableRandom;
import org.ndrt.capi.NdrtC;

/**
 * An n-dimensional array living off-heap in the runtime: a handle to a view (dtype, shape, strides,
 * offset) of refcounted storage on one device.
 *
 * <p>Each {@code Tensor} owns one runtime handle. Release it with {@link #close()} (try-with-resources);
 * a tensor that is never closed is released after the garbage collector finds it unreachable (by
 * the daemon thread {@code ndrt-cleaner}, and by allocating threads under memory pressure), and
 * native memory pressure triggers the collector (see {@link Memory}), so a program that never
 * closes stays bounded. Views ({@link #reshape}, {@link #permute}, {@link #slice}, ...) are new
 * tensors sharing storage: the storage lives as long as any view does, whatever order they are
 * closed in.
 *
 * <p>Tensors may be used from many threads at once. Ops run on the calling thread's current device
 * ({@link Device#current()}), which must be the device of every tensor they touch.
 */
public final class Tensor implements AutoCloseable {
  static {
    Memory.installDefaultPressureHandler();
  }

  private final long handle;
  private final NativeReleaser.Ref release;
  private volatile boolean closed;

  private Tensor(long handle) {
    this.handle = handle;
    this.release = NativeReleaser.register(this, handle);
    if (Memory.collecting) {
      Memory.awaitCollection(); // back-pressure: the memory hook is releasing unclosed tensors
    }
  }

  /**
   * Takes ownership of a raw handle (from {@link org.ndrt.capi.NdrtC}): the new Tensor releases it.
   *
   * @param handle a live tensor handle the caller owns and does not release itself
   */
  public static Tensor adopt(long handle) {
    if (handle == 0) {
      throw new InvalidHandleException(200, "adopt: handle 0 is not a tensor");
    }
    try {
      return new Tensor(handle);
    } catch (RuntimeException | Error e) {
      NdrtC.tensor_release(handle);
      throw e;
    }
  }

  /**
   * The runtime handle, for calls through {@link org.ndrt.capi.NdrtC}. It stays this tensor's: do
   * not release it, and keep the Tensor reachable while you use it.
   *
   * @throws InvalidHandleException if the tensor was closed
   */
  public long handle() {
    if (closed) {
      throw new InvalidHandleException(200, "the tensor was closed (handle " + handle + ")");
    }
    return handle;
  }

  static long handleOf(Tensor t, String what) {
    return Objects.requireNonNull(t, what).handle();
  }

  static long handleOrZero(Tensor t) {
    return t == null ? 0 : t.handle();
  }

  /** Releases the handle now (idempotent; later uses throw {@link InvalidHandleException}). */
  @Override
  public void close() {
    closed = true;
    NativeReleaser.release(release);
  }

  public boolean isClosed() {
    return closed;
  }

  // ------------------------------------------------------------------------------- creation

  /** An uninitialised tensor on the calling thread's current device. */
  public static Tensor empty(DType dtype, long... shape) {
    return adopt(NdrtC.tensor_create(dtype.code(), shape, NdrtC.NDRT_DEVICE_CURRENT));
  }

  /** An uninitialised tensor on {@code device}. */
  public static Tensor empty(DType dtype, Device device, long... shape) {
    return adopt(NdrtC.tensor_create(dtype.code(), shape, device.id()));
  }

  /** Every element {@code value} (through the runtime's {@code fill} op), on the current device. */
  public static Tensor full(double value, DType dtype, long... shape) {
    Tensor t = empty(dtype, shape);
    try {
      return t.fill(value);
    } catch (RuntimeException e) {
      t.close();
      throw e;
    }
  }

  public static Tensor zeros(DType dtype, long... shape) {
    return full(0, dtype, shape);
  }

  public static Tensor ones(DType dtype, long... shape) {
    return full(1, dtype, shape);
  }

  /** A rank-0 tensor. */
  public static Tensor scalar(double value, DType dtype) {
    return full(value, dtype);
  }

  /** Sets every element to {@code value} (converted to the dtype; for bool nonzero is true). */
  public Tensor fill(double value) {
    try {
      NdrtC.exec(OpIds.FILL, null, new long[] {handle()}, null, new double[] {value});
      return this;
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** Copies of Java arrays, row-major, on the current device; the length must match the shape. */
  public static Tensor from(float[] data, long... shape) {
    return fromArray(DType.F32, data, shape);
  }

  public static Tensor from(double[] data, long... shape) {
    return fromArray(DType.F64, data, shape);
  }

  public static Tensor from(long[] data, long... shape) {
    return fromArray(DType.I64, data, shape);
  }

  public static Tensor from(int[] data, long... shape) {
    return fromArray(DType.I32, data, shape);
  }

  /** From a byte[]: dtype I8, U8 or BOOL. */
  public static Tensor from(byte[] data, DType dtype, long... shape) {
    return fromArray(dtype, data, shape);
  }

  /** From raw 16-bit patterns: dtype F16 or BF16. */
  public static Tensor from(short[] data, DType dtype, long... shape) {
    return fromArray(dtype, data, shape);
  }

  private static Tensor fromArray(DType dtype, Object data, long[] shape) {
    Objects.requireNonNull(data, "data");
    return adopt(NdrtC.tensor_from_array(dtype.code(), shape, data, NdrtC.NDRT_DEVICE_CURRENT));
  }

  /**
   * Uniform values in [0, 1). Generated on the Java side with {@link SplittableRandom}(seed) for now:
   * the runtime has no random op yet. This moves to the runtime's counter-based (Philox) op when it
   * exists, after which the same seed will give other numbers (but the same on CPU and GPU).
   */
  public static Tensor rand(long seed, DType dtype, long... shape) {
    SplittableRandom rng = new SplittableRandom(seed);
    int n = checkedNumel(shape);
    if (dtype == DType.F32) {
      float[] v = new float[n];
      for (int i = 0; i < n; ++i) {
        v[i] = (float) rng.nextDouble();
        if (v[i] >= 1.0f) { // rounding of values just below 1
          v[i] = Math.nextDown(1.0f);
        }
      }
      return from(v, shape);
    }
    double[] v = new double[n];
    for (int i = 0; i < n; ++i) {
      v[i] = rng.nextDouble();
    }
    return fromDoubles(v, dtype, shape);
  }

  /**
   * Standard normal values. Java side for now ({@link SplittableRandom#nextGaussian()}); see
   * {@link #rand}.
   */
  public static Tensor randn(long seed, DType dtype, long... shape) {
    SplittableRandom rng = new SplittableRandom(seed);
    int n = checkedNumel(shape);
    if (dtype == DType.F32) {
      float[] v = new float[n];
      for (int i = 0; i < n; ++i) {
        v[i] = (float) rng.nextGaussian();
      }
      return from(v, shape);
    }
    double[] v = new double[n];
    for (int i = 0; i < n; ++i) {
      v[i] = rng.nextGaussian();
    }
    return fromDoubles(v, dtype, shape);
  }

  /** 0, 1, ..., stop-1 as I64 (Java side for now, like {@link #rand}). */
  public static Tensor arange(long stop) {
    return arange(0, stop, 1);
  }

  /** start, start+step, ... below stop (above it for a negative step), as I64. */
  public static Tensor arange(long start, long stop, long step) {
    if (step == 0) {
      throw new InvalidArgumentException(201, "arange: step is 0");
    }
    long n = step > 0 ? Math.max(0, (stop - start + step - 1) / step) : Math.max(0, (start - stop - step - 1) / -step);
    long[] v = new long[checkedNumel(new long[] {n})];
    for (int i = 0; i < v.length; ++i) {
      v[i] = start + i * step;
    }
    return from(v, n);
  }

  /** start, start+step, ... below stop (numpy's arange: ceil((stop-start)/step) values), any dtype. */
  public static Tensor arange(double start, double stop, double step, DType dtype) {
    if (step == 0 || Double.isNaN(step)) {
      throw new InvalidArgumentException(201, "arange: step is " + step);
    }
    long n = (long) Math.max(0, Math.ceil((stop - start) / step));
    double[] v = new double[checkedNumel(new long[] {n})];
    for (int i = 0; i < v.length; ++i) {
      v[i] = start + i * step;
    }
    return fromDoubles(v, dtype, n);
  }

  private static Tensor fromDoubles(double[] v, DType dtype, long... shape) {
    Tensor t = from(v, shape);
    if (dtype == DType.F64) {
      return t;
    }
    try (t) {
      return t.cast(dtype);
    }
  }

  private static int checkedNumel(long[] shape) {
    long n = 1;
    for (long d : shape) {
      if (d < 0) {
        throw new InvalidArgumentException(201, "negative extent in shape " + Arrays.toString(shape));
      }
      n = Math.multiplyExact(n, d);
    }
    if (n > Integer.MAX_VALUE - 8) {
      throw new InvalidArgumentException(201, "shape " + Arrays.toString(shape) + " has more elements than a Java array holds");
    }
    return (int) n;
  }

  // ------------------------------------------------------------------------------- zero-copy

  /**
   * Wraps the memory of a direct ByteBuffer (from its address to its capacity, native byte order)
   * as a cpu tensor, without a copy. The tensor keeps the buffer reachable until its last view dies.
   */
  public static Tensor wrap(ByteBuffer buffer, DType dtype, long... shape) {
    return wrap(buffer, dtype, shape, null, null);
  }

  /**
   * Like {@link #wrap(ByteBuffer, DType, long...)} with explicit strides (in elements; null for
   * row-major) and a hook that runs once, on whatever thread releases the last view of the memory.
   */
  public static Tensor wrap(ByteBuffer buffer, DType dtype, long[] shape, long[] strides, Runnable onRelease) {
    Objects.requireNonNull(buffer, "buffer");
    return adopt(NdrtC.tensor_wrap_buffer(dtype.code(), shape, strides, buffer, onRelease));
  }

  /**
   * The tensor's memory as a direct ByteBuffer in native byte order, without a copy (contiguous cpu
   * tensors only). The buffer holds a handle of its own to the storage, released when the buffer
   * (and every buffer derived from it) is garbage: it stays valid after this Tensor is closed.
   */
  public ByteBuffer asByteBuffer() {
    long own = NdrtC.tensor_retain(handle());
    Reference.reachabilityFence(this);
    ByteBuffer b;
    try {
      b = NdrtC.tensor_direct_buffer(own);
    } catch (RuntimeException e) {
      NdrtC.tensor_release(own);
      throw e;
    }
    NativeReleaser.register(b, own);
    return b.order(ByteOrder.nativeOrder());
  }

  // ------------------------------------------------------------------------------- reading

  public float[] toFloatArray() {
    float[] a = new float[checkedNumel(shape())];
    readInto(DType.F32, a);
    return a;
  }

  public double[] toDoubleArray() {
    double[] a = new double[checkedNumel(shape())];
    readInto(DType.F64, a);
    return a;
  }

  public long[] toLongArray() {
    long[] a = new long[checkedNumel(shape())];
    readInto(DType.I64, a);
    return a;
  }

  public int[] toIntArray() {
    int[] a = new int[checkedNumel(shape())];
    readInto(DType.I32, a);
    return a;
  }

  /** The elements of an I8, U8 or BOOL tensor as bytes (other dtypes are cast to I8 first). */
  public byte[] toByteArray() {
    byte[] a = new byte[checkedNumel(shape())];
    DType d = dtype();
    readInto(d == DType.I8 || d == DType.U8 || d == DType.BOOL ? d : DType.I8, a);
    return a;
  }

  /** The single value of a one-element tensor, as a double. */
  public double item() {
    if (numel() != 1) {
      throw new ShapeException(202, "item: the tensor has shape " + Arrays.toString(shape()) + ", not one element");
    }
    return toDoubleArray()[0];
  }

  /** Reads the elements as {@code as} (casting through the runtime first when the dtype differs). */
  private void readInto(DType as, Object array) {
    try {
      if (dtype() == as) {
        NdrtC.tensor_read_array(handle(), array);
      } else {
        long c = NdrtC.tensor_cast(handle(), as.code());
        try {
          NdrtC.tensor_read_array(c, array);
        } finally {
          NdrtC.tensor_release(c);
        }
      }
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** Overwrites the elements from a Java array of the tensor's dtype (row-major). */
  public Tensor copyFrom(Object array) {
    Objects.requireNonNull(array, "array");
    try {
      NdrtC.tensor_write_array(handle(), array);
      return this;
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  // ------------------------------------------------------------------------------- description

  // A handle's dtype and shape never change (views and reshapes are new handles), so they are read
  // through JNI once and kept: array APIs over Tensor (the ND4J drop-in) check them on every op.
  private DType dtype;
  private long[] shape;

  public DType dtype() {
    long h = handle();
    DType d = dtype;
    if (d == null) {
      try {
        dtype = d = DType.of(NdrtC.tensor_dtype(h));
      } finally {
        Reference.reachabilityFence(this);
      }
    }
    return d;
  }

  private long[] cachedShape() {
    long h = handle();
    long[] s = shape;
    if (s == null) {
      try {
        shape = s = NdrtC.tensor_shape(h);
      } finally {
        Reference.reachabilityFence(this);
      }
    }
    return s;
  }

  /** The shape (a fresh array). */
  public long[] shape() {
    return cachedShape().clone();
  }

  /** Strides in elements (a fresh array). */
  public long[] strides() {
    try {
      return NdrtC.tensor_strides(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  public int rank() {
    return cachedShape().length;
  }

  public long numel() {
    try {
      return NdrtC.tensor_numel(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** Offset of element [0,...,0] in the storage, in elements. */
  public long offset() {
    try {
      return NdrtC.tensor_offset(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  public Device device() {
    try {
      return Device.of(NdrtC.tensor_device(handle()));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  public boolean isContiguous() {
    try {
      return NdrtC.tensor_is_contiguous(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  // ------------------------------------------------------------------------------- views and copies

  /** Same elements, new shape (one extent may be -1); never copies (see {@link #contiguous()}). */
  public Tensor reshape(long... shape) {
    try {
      return adopt(NdrtC.tensor_reshape(handle(), shape));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** Axes reordered: output axis i is input axis perm[i]. */
  public Tensor permute(int... perm) {
    try {
      return adopt(NdrtC.tensor_permute(handle(), perm));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** Axes a and b swapped (negative axes count from the end). */
  public Tensor transpose(int a, int b) {
    try {
      return adopt(NdrtC.tensor_transpose(handle(), a, b));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** Python-style start:stop along one axis. */
  public Tensor slice(int axis, long start, long stop) {
    return slice(axis, start, stop, 1);
  }

  /** Python-style start:stop:step along one axis (negative bounds count from the end). */
  public Tensor slice(int axis, long start, long stop, long step) {
    try {
      return adopt(NdrtC.tensor_slice(handle(), axis, start, stop, step));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** Broadcast view to {@code shape} (numpy rules; no copy, stride 0 on broadcast axes). */
  public Tensor expand(long... shape) {
    try {
      return adopt(NdrtC.tensor_expand(handle(), shape));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** A contiguous row-major tensor: a new handle to this one when already contiguous, else a copy. */
  public Tensor contiguous() {
    try {
      return adopt(NdrtC.tensor_contiguous(handle()));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** A new contiguous tensor of another dtype. */
  public Tensor cast(DType dtype) {
    try {
      return adopt(NdrtC.tensor_cast(handle(), dtype.code()));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** A new contiguous copy on {@code device} (explicit moves only: ops never move data). */
  public Tensor to(Device device) {
    try {
      return adopt(NdrtC.tensor_to_device(handle(), device.id()));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** Another handle to the same view (closed independently). */
  public Tensor share() {
    try {
      return adopt(NdrtC.tensor_retain(handle()));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  // ---- ND4J's fluent surface: each call is one runtime op (through the generated Ops); a Number
  // operand becomes a rank-0 tensor of this dtype, broadcast. The "i" forms write this tensor.

  /** {@code this + other}, numpy broadcasting, as a new tensor. */
  public Tensor add(Tensor other) {
    return Ops.add(this, other);
  }

  public Tensor add(Number other) {
    try (Tensor s = scalarLike(other)) {
      return Ops.add(this, s);
    }
  }

  /** In place: {@code this += other}; returns this. */
  public Tensor addi(Tensor other) {
    Ops.add(this, other, this);
    return this;
  }

  public Tensor addi(Number other) {
    try (Tensor s = scalarLike(other)) {
      return addi(s);
    }
  }

  public Tensor sub(Tensor other) {
    return Ops.sub(this, other);
  }

  public Tensor sub(Number other) {
    try (Tensor s = scalarLike(other)) {
      return Ops.sub(this, s);
    }
  }

  public Tensor subi(Tensor other) {
    Ops.sub(this, other, this);
    return this;
  }

  public Tensor subi(Number other) {
    try (Tensor s = scalarLike(other)) {
      return subi(s);
    }
  }

  public Tensor mul(Tensor other) {
    return Ops.mul(this, other);
  }

  public Tensor mul(Number other) {
    try (Tensor s = scalarLike(other)) {
      return Ops.mul(this, s);
    }
  }

  public Tensor muli(Tensor other) {
    Ops.mul(this, other, this);
    return this;
  }

  public Tensor muli(Number other) {
    try (Tensor s = scalarLike(other)) {
      return muli(s);
    }
  }

  public Tensor div(Tensor other) {
    return Ops.div(this, other);
  }

  public Tensor div(Number other) {
    try (Tensor s = scalarLike(other)) {
      return Ops.div(this, s);
    }
  }

  public Tensor divi(Tensor other) {
    Ops.div(this, other, this);
    return this;
  }

  public Tensor divi(Number other) {
    try (Tensor s = scalarLike(other)) {
      return divi(s);
    }
  }

  /** {@code -this}. */
  public Tensor neg() {
    return Ops.neg(this);
  }

  /** Matrix product (ND4J's mmul): the runtime's matmul, batched over leading axes. */
  public Tensor mmul(Tensor other) {
    return Ops.matmul(this, other);
  }

  /** All axes reversed, as a view (ND4J's transpose() of a matrix swaps rows and columns). */
  public Tensor transpose() {
    int r = rank();
    int[] perm = new int[r];
    for (int i = 0; i < r; ++i) {
      perm[i] = r - 1 - i;
    }
    return permute(perm);
  }

  /** Sum over {@code dims} (all when none), the reduced axes dropped. */
  public Tensor sum(int... dims) {
    return Ops.sum(this, axes(dims), false);
  }

  public Tensor mean(int... dims) {
    return Ops.mean(this, axes(dims), false);
  }

  public Tensor max(int... dims) {
    return Ops.max(this, axes(dims), false);
  }

  public Tensor min(int... dims) {
    return Ops.min(this, axes(dims), false);
  }

  /**
   * Index (i64) of the largest element along one dimension, or into the row-major flattened tensor
   * when no dimension is given (a non-contiguous tensor is copied first).
   */
  public Tensor argMax(int... dims) {
    if (dims.length > 1) {
      throw new NotSupportedException(300, "argMax: one dimension at a time (got " + Arrays.toString(dims) + ")");
    }
    if (dims.length == 1) {
      return Ops.argmax(this, dims[0]);
    }
    try (Tensor dense = isContiguous() ? share() : contiguous(); Tensor flat = dense.reshape(-1)) {
      return Ops.argmax(flat, 0);
    }
  }

  /** Comparisons with numpy broadcasting, giving bool tensors (ND4J's gt, gte, lt, lte, eq, neq). */
  public Tensor gt(Tensor other) {
    return Ops.gt(this, other);
  }

  public Tensor gt(Number other) {
    try (Tensor s = scalarLike(other)) {
      return Ops.gt(this, s);
    }
  }

  public Tensor gte(Tensor other) {
    return Ops.ge(this, other);
  }

  public Tensor gte(Number other) {
    try (Tensor s = scalarLike(other)) {
      return Ops.ge(this, s);
    }
  }

  public Tensor lt(Tensor other) {
    return Ops.lt(this, other);
  }

  public Tensor lt(Number other) {
    try (Tensor s = scalarLike(other)) {
      return Ops.lt(this, s);
    }
  }

  public Tensor lte(Tensor other) {
    return Ops.le(this, other);
  }

  public Tensor lte(Number other) {
    try (Tensor s = scalarLike(other)) {
      return Ops.le(this, s);
    }
  }

  public Tensor eq(Tensor other) {
    return Ops.eq(this, other);
  }

  public Tensor eq(Number other) {
    try (Tensor s = scalarLike(other)) {
      return Ops.eq(this, s);
    }
  }

  public Tensor neq(Tensor other) {
    return Ops.ne(this, other);
  }

  public Tensor neq(Number other) {
    try (Tensor s = scalarLike(other)) {
      return Ops.ne(this, s);
    }
  }

  /** A contiguous copy with its own storage (ND4J's dup). */
  public Tensor dup() {
    return Ops.copy(this);
  }

  /** ND4J's castTo: a new contiguous tensor of another dtype ({@link #cast}). */
  public Tensor castTo(DType dtype) {
    return cast(dtype);
  }

  /**
   * One element as a double: a full index (one entry per axis), or one row-major linear index.
   * Reads the element through a view; the tensor may live on any device.
   */
  public double getDouble(long... index) {
    try (Tensor e = element(index)) {
      return e.item();
    }
  }

  /** Sets one element (index as for {@link #getDouble}); returns this. */
  public Tensor putScalar(long[] index, double value) {
    try (Tensor e = element(index)) {
      e.fill(value);
    }
    return this;
  }

  public Tensor putScalar(int[] index, double value) {
    return putScalar(Arrays.stream(index).asLongStream().toArray(), value);
  }

  /** Sets the element at a row-major linear index. */
  public Tensor putScalar(long linearIndex, double value) {
    return putScalar(new long[] {linearIndex}, value);
  }

  public Tensor putScalar(long row, long col, double value) {
    return putScalar(new long[] {row, col}, value);
  }

  /** The rank-0 view of one element (a full index or one linear index). */
  private Tensor element(long[] index) {
    long[] shape = shape();
    long[] full = index;
    if (index.length == 1 && shape.length != 1) {  // a linear index, row-major
      long n = numel();
      if (index[0] < 0 || index[0] >= n) {
        throw new InvalidArgumentException(201, "index " + index[0] + " is outside a tensor of " + n + " elements");
      }
      full = new long[shape.length];
      long rest = index[0];
      for (int i = shape.length - 1; i >= 0; --i) {
        full[i] = rest % shape[i];
        rest /= shape[i];
      }
    }
    if (full.length != shape.length) {
      throw new ShapeException(202, "index " + Arrays.toString(index) + " does not address an element of a tensor of shape "
          + Arrays.toString(shape));
    }
    Tensor v = share();
    try {
      for (int i = full.length - 1; i >= 0; --i) {  // slice the last axes first: axis numbers stay valid
        if (full[i] < 0 || full[i] >= shape[i]) {
          throw new InvalidArgumentException(201, "index " + Arrays.toString(full) + " is outside shape "
              + Arrays.toString(shape));
        }
        try (Tensor prev = v) {
          v = prev.slice(i, full[i], full[i] + 1);
        }
      }
      Tensor e = v.reshape();
      v.close();
      return e;
    } catch (RuntimeException ex) {
      v.close();
      throw ex;
    }
  }

  private Tensor scalarLike(Number v) {
    return full(v.doubleValue(), dtype());
  }

  private static long[] axes(int[] dims) {
    long[] a = new long[dims.length];
    for (int i = 0; i < dims.length; ++i) {
      a[i] = dims[i];
    }
    return a;
  }

  /**
   * The dtype, shape and device; for up to 64 elements (f16/bf16/f32/f64 and integer dtypes) also
   * the values, nested by axis as ND4J prints them, e.g. {@code [[1.0, 2.0], [3.0, 4.0]]}.
   */
  @Override
  public String toString() {
    if (closed) {
      return "Tensor(closed)";
    }
    try {
      String head = "Tensor(" + dtype() + ", " + Arrays.toString(shape()) + ", " + device() + ")";
      if (numel() > 64) {
        return head;
      }
      double[] v = toDoubleArray();
      StringBuilder b = new StringBuilder(head).append(' ');
      appendNested(b, v, shape(), 0, new int[] {0}, dtype() == DType.F32 || dtype() == DType.F64
          || dtype() == DType.F16 || dtype() == DType.BF16);
      return b.toString();
    } catch (NdrtException e) {
      return "Tensor(handle " + handle + ": " + e.getMessage() + ")";
    }
  }

  private static void appendNested(StringBuilder b, double[] v, long[] shape, int axis, int[] next, boolean floats) {
    if (axis == shape.length) {
      double x = v[next[0]++];
      b.append(floats ? Double.toString(x) : Long.toString((long) x));
      return;
    }
    b.append('[');
    for (long i = 0; i < shape[axis]; ++i) {
      if (i > 0) {
        b.append(", ");
      }
      appendNested(b, v, shape, axis + 1, next, floats);
    }
    b.append(']');
  }

  /** Op ids the Tensor methods need, looked up once. */
  private static final class OpIds {
    static final int FILL = NdrtC.op_find("fill");
  }
}
