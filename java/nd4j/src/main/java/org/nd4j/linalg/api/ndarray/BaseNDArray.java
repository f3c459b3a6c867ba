package org.nd4j.linalg.api.ndarray;

import java.util.Arrays;
import java.util.List;
import org.nd4j.linalg.api.buffer.DataBuffer;
import org.nd4j.linalg.indexing.conditions.Condition;
import org.nd4j.linalg.string.NDArrayStrings;
import org.ndrt.DType;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.nd4j.ArrayCore;
import org.ndrt.nd4j.ArrayMath;
import org.ndrt.nd4j.ConditionMasks;
import org.ndrt.nd4j.Shapes;

/**
 * ndrt's INDArray, last layer: reductions (whole array or over dimensions, ND4J's bias-corrected
 * std/var), equality within ND4J's epsilon, printing as ND4J prints, and the methods this drop-in
 * refuses. See {@link ArrayCore} for the layers below.
 */
public abstract class BaseNDArray extends ArrayMath {
  private static final long serialVersionUID = 1L;

  /** ND4J's epsilon for equals(): elements closer than this (absolutely or relatively) are equal. */
  public static final double EPS_THRESHOLD = 1e-5;

  protected BaseNDArray(Tensor t, ArrayCore viewOf, char rootOrder) {
    super(t, viewOf, rootOrder);
  }

  // ------------------------------------------------------------------------------- reductions

  /** A reduction runtime op over {@code axes} (all when empty). */
  @FunctionalInterface
  private interface Reduce {
    Tensor apply(Tensor x, long[] axes, boolean keepDims);
  }

  private INDArray reduce(Reduce op, boolean keepDims, int[] dims) {
    long[] axes = Shapes.axes(dims, rank());
    if (axes.length == 0) {
      axes = allAxes();
    }
    return wrap(op.apply(t, axes, keepDims));
  }

  private long[] allAxes() {
    long[] a = new long[rank()];
    for (int i = 0; i < a.length; ++i) {
      a[i] = i;
    }
    return a;
  }

  /** |x| as a new tensor (the a-forms and normmax reduce it). */
  private Reduce onAbs(Reduce op) {
    return (x, axes, keep) -> {
      try (Tensor a = Ops.abs(x)) {
        return op.apply(a, axes, keep);
      }
    };
  }

  private static final Reduce SUM = Ops::sum;
  private static final Reduce MEAN = Ops::mean;
  private static final Reduce MAX = Ops::max;
  private static final Reduce MIN = Ops::min;
  private static final Reduce PROD = Ops::prod;
  private static final Reduce NORM1 = Ops::norm1;
  private static final Reduce NORM2 = Ops::norm2;

  private static Reduce std(boolean biasCorrected) {
    return (x, axes, keep) -> Ops.std(x, axes, keep, biasCorrected ? 1 : 0);
  }

  private static Reduce var(boolean biasCorrected) {
    return (x, axes, keep) -> Ops.var_(x, axes, keep, biasCorrected ? 1 : 0);
  }

  private Number number(Reduce op) {
    try (Tensor r = op.apply(t, allAxes(), false)) {
      return r.item();
    }
  }

  @Override public INDArray sum(int... d) { return reduce(SUM, false, d); }
  @Override public INDArray sum(boolean keepDims, int... d) { return reduce(SUM, keepDims, d); }
  @Override public INDArray sum(INDArray result, int... d) { return result.assign(sum(d)); }
  @Override public INDArray sum(INDArray result, boolean keepDims, int... d) { return result.assign(sum(keepDims, d)); }
  @Override public Number sumNumber() { return number(SUM); }
  @Override public INDArray mean(int... d) { return reduce(MEAN, false, d); }
  @Override public INDArray mean(boolean keepDims, int... d) { return reduce(MEAN, keepDims, d); }
  @Override public INDArray mean(INDArray result, int... d) { return result.assign(mean(d)); }
  @Override public INDArray mean(INDArray result, boolean keepDims, int... d) { return result.assign(mean(keepDims, d)); }
  @Override public Number meanNumber() { return number(MEAN); }
  @Override public INDArray amean(int... d) { return reduce(onAbs(MEAN), false, d); }
  @Override public Number ameanNumber() { return number(onAbs(MEAN)); }
  @Override public INDArray max(int... d) { return reduce(MAX, false, d); }
  @Override public INDArray max(boolean keepDims, int... d) { return reduce(MAX, keepDims, d); }
  @Override public Number maxNumber() { return number(MAX); }
  @Override public INDArray amax(int... d) { return reduce(onAbs(MAX), false, d); }
  @Override public Number amaxNumber() { return number(onAbs(MAX)); }
  @Override public INDArray min(int... d) { return reduce(MIN, false, d); }
  @Override public INDArray min(boolean keepDims, int... d) { return reduce(MIN, keepDims, d); }
  @Override public Number minNumber() { return number(MIN); }
  @Override public INDArray amin(int... d) { return reduce(onAbs(MIN), false, d); }
  @Override public Number aminNumber() { return number(onAbs(MIN)); }
  @Override public INDArray prod(int... d) { return reduce(PROD, false, d); }
  @Override public INDArray prod(boolean keepDims, int... d) { return reduce(PROD, keepDims, d); }
  @Override public Number prodNumber() { return number(PROD); }
  @Override public INDArray norm1(int... d) { return reduce(NORM1, false, d); }
  @Override public INDArray norm1(boolean keepDims, int... d) { return reduce(NORM1, keepDims, d); }
  @Override public Number norm1Number() { return number(NORM1); }
  @Override public INDArray norm2(int... d) { return reduce(NORM2, false, d); }
  @Override public INDArray norm2(boolean keepDims, int... d) { return reduce(NORM2, keepDims, d); }
  @Override public Number norm2Number() { return number(NORM2); }
  @Override public INDArray normmax(int... d) { return reduce(onAbs(MAX), false, d); }
  @Override public INDArray normmax(boolean keepDims, int... d) { return reduce(onAbs(MAX), keepDims, d); }
  @Override public Number normmaxNumber() { return number(onAbs(MAX)); }
  /** Bias-corrected (n - 1), as ND4J's default. */
  @Override public INDArray std(int... d) { return reduce(std(true), false, d); }
  @Override public INDArray std(boolean biasCorrected, int... d) { return reduce(std(biasCorrected), false, d); }
  @Override public INDArray std(boolean biasCorrected, boolean keepDims, int... d) { return reduce(std(biasCorrected), keepDims, d); }
  @Override public Number stdNumber() { return number(std(true)); }
  @Override public Number stdNumber(boolean biasCorrected) { return number(std(biasCorrected)); }
  @Override public INDArray var(int... d) { return reduce(var(true), false, d); }
  @Override public INDArray var(boolean biasCorrected, int... d) { return reduce(var(biasCorrected), false, d); }
  @Override public Number varNumber() { return number(var(true)); }

  /**
   * Index (LONG) of the largest element: over the whole array in 'c' order, along one dimension, or
   * over several (the index into those dimensions flattened in 'c' order).
   */
  @Override
  public INDArray argMax(int... dimensions) {
    long[] axes = Shapes.axes(dimensions, rank());
    if (axes.length == 1) {
      return wrap(Ops.argmax(t, axes[0]));
    }
    if (axes.length == 0 || axes.length == rank()) {
      try (Tensor c = cOrder(); Tensor flat = c.reshape(-1)) {
        return wrap(Ops.argmax(flat, 0));
      }
    }
    int r = rank();
    int[] perm = new int[r];
    boolean[] reduced = new boolean[r];
    for (long a : axes) {
      reduced[(int) a] = true;
    }
    int k = 0;
    long[] shape = shape();
    long[] kept = new long[r - axes.length + 1];
    for (int i = 0; i < r; ++i) {
      if (!reduced[i]) {
        kept[k] = shape[i];
        perm[k++] = i;
      }
    }
    long inner = 1;
    for (long a : axes) {
      perm[k++] = (int) a;
      inner *= shape[(int) a];
    }
    kept[kept.length - 1] = inner;
    try (Tensor p = t.permute(perm); Tensor c = p.contiguous(); Tensor m = c.reshape(kept)) {
      return wrap(Ops.argmax(m, kept.length - 1));
    }
  }

  /** How many elements satisfy {@code condition}. */
  @Override
  public Number scan(Condition condition) {
    try (Tensor m = ConditionMasks.maskTensor(this, condition); Tensor f = m.cast(DType.F64);
         Tensor s = Ops.sum(f)) {
      return (long) s.item();
    }
  }

  @Override
  public double distance1(INDArray other) {
    try (Tensor o = operand(other); Tensor d = Ops.sub(t, o); Tensor n = Ops.norm1(d)) {
      return n.item();
    }
  }

  @Override
  public double distance2(INDArray other) {
    try (Tensor o = operand(other); Tensor d = Ops.sub(t, o); Tensor n = Ops.norm2(d)) {
      return n.item();
    }
  }

  @Override
  public double squaredDistance(INDArray other) {
    double d = distance2(other);
    return d * d;
  }

  /** true when every element is non-zero (true). */
  @Override
  public boolean all() {
    try (Tensor z = Tensor.zeros(t.dtype()); Tensor nz = Ops.ne(t, z); Tensor f = nz.cast(DType.F64);
         Tensor m = Ops.min(f)) {
      return length() == 0 || m.item() != 0;
    }
  }

  @Override
  public boolean any() {
    try (Tensor z = Tensor.zeros(t.dtype()); Tensor nz = Ops.ne(t, z); Tensor f = nz.cast(DType.F64);
         Tensor m = Ops.max(f)) {
      return length() > 0 && m.item() != 0;
    }
  }

  @Override
  public boolean none() {
    return !any();
  }

  // ------------------------------------------------------------------------------- equality

  /**
   * Same dtype, same shape (or both vectors of one length) and every pair of elements within
   * {@link #EPS_THRESHOLD}, absolutely or relatively.
   */
  @Override
  public boolean equals(Object o) {
    return equalsWithEps(o, EPS_THRESHOLD);
  }

  @Override
  public boolean equalsWithEps(Object o, double eps) {
    if (o == this) {
      return true;
    }
    if (!(o instanceof INDArray)) {
      return false;
    }
    INDArray n = (INDArray) o;
    if (n.dataType() != dataType() || n.isEmpty() != isEmpty()) {
      return false;
    }
    if (!Arrays.equals(shape(), n.shape()) && !(isVector() && n.isVector() && length() == n.length())) {
      return false;
    }
    if (isEmpty()) {
      return true;
    }
    try (Tensor b = tensorOf(n).reshape(t.shape())) {
      if (!t.dtype().isFloatingPoint()) {
        try (Tensor ne = Ops.ne(t, b); Tensor f = ne.cast(DType.F64); Tensor s = Ops.sum(f)) {
          return s.item() == 0;
        }
      }
      // differing = |a - b| > eps and |a - b| > eps * max(|a|, |b|); NaN equals NaN
      try (Tensor a64 = t.cast(DType.F64); Tensor b64 = b.cast(DType.F64); Tensor d = Ops.sub(a64, b64);
           Tensor ad = Ops.abs(d); Tensor aa = Ops.abs(a64); Tensor ab = Ops.abs(b64); Tensor mx = Ops.maximum(aa, ab);
           Tensor e = Tensor.full(eps, DType.F64); Tensor rel = Ops.mul(mx, e); Tensor far = Ops.gt(ad, e);
           Tensor farRel = Ops.gt(ad, rel); Tensor both = Ops.logicalAnd(far, farRel);
           Tensor nanA = Ops.ne(a64, a64); Tensor nanB = Ops.ne(b64, b64); Tensor nanDiff = Ops.logicalXor(nanA, nanB);
           Tensor bad = Ops.logicalOr(both, nanDiff); Tensor f = bad.cast(DType.F64); Tensor s = Ops.sum(f)) {
        return s.item() == 0;
      }
    } catch (org.ndrt.NdrtException e) {
      return false;
    }
  }

  @Override
  public boolean equalShapes(INDArray other) {
    return Arrays.equals(shape(), other.shape());
  }

  /** From the shape and dtype only (equal arrays have equal hashes; no element is read). */
  @Override
  public int hashCode() {
    return Arrays.hashCode(shape()) * 31 + dataType().hashCode();
  }

  // ------------------------------------------------------------------------------- printing

  /** The elements as ND4J prints them (4 decimals; summarised above 1000 elements). */
  @Override
  public String toString() {
    if (wasClosed()) {
      return "<closed array>";
    }
    return new NDArrayStrings().format(this);
  }

  @Override
  public String toString(NDArrayStrings options) {
    return options.format(this);
  }

  @Override
  public String toString(long maxElements, boolean forceSummarize, int precision) {
    return new NDArrayStrings(maxElements, forceSummarize, precision).format(this);
  }

  @Override
  public String toStringFull() {
    return new NDArrayStrings(Long.MAX_VALUE, false, 4).format(this);
  }

  // ------------------------------------------------------------------------------- refused

  @Override
  public INDArray cumsum(int dimension) {
    throw refused("cumsum", "ndrt has no cumulative-sum op yet");
  }

  @Override
  public INDArray cumsumi(int dimension) {
    throw refused("cumsumi", "ndrt has no cumulative-sum op yet");
  }

  @Override
  public Number entropyNumber() {
    throw refused("entropyNumber");
  }

  @Override
  public Number shannonEntropyNumber() {
    throw refused("shannonEntropyNumber");
  }

  @Override
  public Number logEntropyNumber() {
    throw refused("logEntropyNumber");
  }

  @Override
  public INDArray entropy(int... dimension) {
    throw refused("entropy");
  }

  @Override
  public INDArray shannonEntropy(int... dimension) {
    throw refused("shannonEntropy");
  }

  @Override
  public INDArray logEntropy(int... dimension) {
    throw refused("logEntropy");
  }

  @Override
  public Number percentileNumber(Number percentile) {
    throw refused("percentileNumber", "ndrt has no sort op yet");
  }

  @Override
  public Number medianNumber() {
    throw refused("medianNumber", "ndrt has no sort op yet");
  }

  @Override
  public INDArray median(int... dimension) {
    throw refused("median", "ndrt has no sort op yet");
  }

  @Override
  public INDArray percentile(Number percentile, int... dimension) {
    throw refused("percentile", "ndrt has no sort op yet");
  }

  @Override public INDArray remainder(INDArray d) { throw refused("remainder"); }
  @Override public INDArray remainder(INDArray d, INDArray r) { throw refused("remainder"); }
  @Override public INDArray remainder(Number d) { throw refused("remainder"); }
  @Override public INDArray remainder(Number d, INDArray r) { throw refused("remainder"); }
  @Override public INDArray remainderi(INDArray d) { throw refused("remainderi"); }
  @Override public INDArray remainderi(Number d) { throw refused("remainderi"); }
  @Override public INDArray fmod(INDArray d) { throw refused("fmod"); }
  @Override public INDArray fmod(INDArray d, INDArray r) { throw refused("fmod"); }
  @Override public INDArray fmod(Number d) { throw refused("fmod"); }
  @Override public INDArray fmod(Number d, INDArray r) { throw refused("fmod"); }
  @Override public INDArray fmodi(INDArray d) { throw refused("fmodi"); }
  @Override public INDArray fmodi(Number d) { throw refused("fmodi"); }

  @Override
  public INDArray repmat(long... shape) {
    throw refused("repmat", "use Nd4j.tile");
  }

  @Override
  public INDArray repmat(int... shape) {
    throw refused("repmat", "use Nd4j.tile");
  }

  @Override
  public INDArray repeat(int dimension, long... repeats) {
    throw refused("repeat");
  }

  @Override
  public long linearIndex(long i) {
    throw refused("linearIndex");
  }

  @Override
  public void sliceVectors(List<INDArray> list) {
    throw refused("sliceVectors");
  }

  @Override
  public void setData(DataBuffer data) {
    throw refused("setData", "an ndrt array's storage is fixed at creation");
  }

  @Override
  public void setShapeAndStride(int[] shape, int[] stride) {
    throw refused("setShapeAndStride", "use reshape or permute");
  }

  @Override
  public void setOrder(char order) {
    throw refused("setOrder", "use dup(order)");
  }

  @Override
  public void markAsCompressed(boolean reallyCompressed) {
    throw refused("markAsCompressed");
  }

  @Override
  public String getString(long index) {
    throw refused("getString", "ndrt has no string arrays");
  }

  @Override
  public long[] shapeInfoJava() {
    throw refused("shapeInfoJava");
  }

  @Override
  public INDArray dimShuffle(Object[] rearrange, int[] newOrder, boolean[] broadCastable) {
    throw refused("dimShuffle", "use permute and reshape");
  }

  @Override
  public INDArray dimShuffle(Object[] rearrange, long[] newOrder, boolean[] broadCastable) {
    throw refused("dimShuffle", "use permute and reshape");
  }
}
