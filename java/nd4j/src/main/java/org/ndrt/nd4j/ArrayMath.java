package org.ndrt.nd4j;

import java.util.Arrays;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.exception.ND4JIllegalStateException;
import org.nd4j.linalg.indexing.BooleanIndexing;
import org.nd4j.linalg.indexing.conditions.Condition;
import org.ndrt.DType;
import org.ndrt.DeviceMismatchException;
import org.ndrt.NdrtException;
import org.ndrt.Ops;
import org.ndrt.Tensor;

/**
 * Arithmetic and comparisons with ND4J's rules: the result has this array's dtype (the other operand
 * is converted), shapes broadcast as numpy's, the i-forms write this array (whose shape must then be
 * the broadcast shape), the r-forms swap the operands, row/column-vector forms broadcast a vector
 * over a matrix's rows or columns. Each call is one runtime op (plus a conversion where the dtypes
 * differ).
 */
public abstract class ArrayMath extends ArrayViews {
  private static final long serialVersionUID = 1L;

  protected ArrayMath(Tensor t, ArrayCore viewOf, char rootOrder) {
    super(t, viewOf, rootOrder);
  }

  /** A binary runtime op writing {@code out} (null: the runtime allocates). */
  @FunctionalInterface
  protected interface Binary {
    Tensor apply(Tensor a, Tensor b, Tensor out);
  }

  protected static final Binary ADD = (a, b, o) -> o == null ? Ops.add(a, b) : Ops.add(a, b, o);
  protected static final Binary SUB = (a, b, o) -> o == null ? Ops.sub(a, b) : Ops.sub(a, b, o);
  protected static final Binary MUL = (a, b, o) -> o == null ? Ops.mul(a, b) : Ops.mul(a, b, o);
  protected static final Binary DIV = (a, b, o) -> o == null ? Ops.div(a, b) : Ops.div(a, b, o);
  protected static final Binary RSUB = (a, b, o) -> o == null ? Ops.sub(b, a) : Ops.sub(b, a, o);
  protected static final Binary RDIV = (a, b, o) -> o == null ? Ops.div(b, a) : Ops.div(b, a, o);

  /** A rank-0 tensor of this array's dtype. */
  protected Tensor scalarTensor(Number n) {
    return Tensor.full(n.doubleValue(), t.dtype());
  }

  /** {@code other}'s tensor in this array's dtype (a new handle the caller closes). */
  protected Tensor operand(INDArray other) {
    Tensor o = tensorOf(other);
    return o.dtype() == t.dtype() ? o.share() : o.cast(t.dtype());
  }

  /**
   * this (op) other into a new array, or into {@code result} / this. The hot path of every array
   * expression: no JNI call but the op (and a conversion where the dtypes differ); the runtime
   * checks the shapes, and a refusal is turned into ND4J's exception here.
   */
  protected INDArray binary(String name, Binary op, INDArray other, INDArray result, boolean inPlace) {
    Tensor o = tensorOf(other);
    Tensor converted = o.dtype() == t.dtype() ? null : o.cast(t.dtype());
    try {
      Tensor b = converted == null ? o : converted;
      if (inPlace) {
        op.apply(t, b, t);
        return this;
      }
      if (result != null) {
        op.apply(t, b, tensorOf(result));
        return result;
      }
      return wrap(op.apply(t, b, null));
    } catch (NdrtException e) {
      throw shapeError(name, other, result, inPlace, e);
    } finally {
      if (converted != null) {
        converted.close();
      }
    }
  }

  /** ND4J's exception for shapes that do not fit the operation, else {@code e} as it was. */
  private RuntimeException shapeError(String name, INDArray other, INDArray result, boolean inPlace,
      RuntimeException e) {
    long[] s = shape(), os = other.shape();
    long[] b = Shapes.broadcast(s, os);
    if (b == null || inPlace && !Arrays.equals(b, s)) {
      return new IllegalStateException("Cannot perform operation \"" + name + "\" - shapes are not equal and are "
          + "not broadcastable.first.shape=" + Arrays.toString(s) + ", second.shape=" + Arrays.toString(os));
    }
    if (result != null && !Arrays.equals(result.shape(), b)) {
      return new IllegalStateException("Cannot perform operation \"" + name + "\": result has shape "
          + Arrays.toString(result.shape()) + ", the operands broadcast to " + Arrays.toString(b));
    }
    return e;
  }

  /**
   * Per thread, one rank-0 tensor per dtype, refilled for each scalar op: a fill is one runtime call
   * where a new scalar costs three (create, fill, release). Never closed: a few bytes per thread.
   */
  private static final ThreadLocal<Tensor[]> SCALARS = ThreadLocal.withInitial(() -> new Tensor[DType.values().length]);

  private static Tensor cachedScalar(DType d, double v) {
    Tensor[] cache = SCALARS.get();
    Tensor s = cache[d.ordinal()];
    if (s == null) {
      return cache[d.ordinal()] = Tensor.full(v, d);
    }
    s.fill(v);
    return s;
  }

  protected INDArray scalarOp(Binary op, Number n, INDArray result, boolean inPlace) {
    try {
      return scalarOp(op, cachedScalar(t.dtype(), n.doubleValue()), result, inPlace);
    } catch (DeviceMismatchException e) {
      // the cached scalar lives where this thread's device was when it was made: a fresh one here
      try (Tensor s = scalarTensor(n)) {
        return scalarOp(op, s, result, inPlace);
      }
    }
  }

  private INDArray scalarOp(Binary op, Tensor s, INDArray result, boolean inPlace) {
    if (inPlace) {
      op.apply(t, s, t);
      return this;
    }
    if (result != null) {
      op.apply(t, s, tensorOf(result));
      return result;
    }
    return wrap(op.apply(t, s, null));
  }


  @Override public INDArray add(Number n) { return scalarOp(ADD, n, null, false); }
  @Override public INDArray addi(Number n) { return scalarOp(ADD, n, null, true); }
  @Override public INDArray add(Number n, INDArray result) { return scalarOp(ADD, n, result, false); }
  @Override public INDArray addi(Number n, INDArray result) { return scalarOp(ADD, n, result, false); }
  @Override public INDArray sub(Number n) { return scalarOp(SUB, n, null, false); }
  @Override public INDArray subi(Number n) { return scalarOp(SUB, n, null, true); }
  @Override public INDArray sub(Number n, INDArray result) { return scalarOp(SUB, n, result, false); }
  @Override public INDArray subi(Number n, INDArray result) { return scalarOp(SUB, n, result, false); }
  @Override public INDArray mul(Number n) { return scalarOp(MUL, n, null, false); }
  @Override public INDArray muli(Number n) { return scalarOp(MUL, n, null, true); }
  @Override public INDArray mul(Number n, INDArray result) { return scalarOp(MUL, n, result, false); }
  @Override public INDArray muli(Number n, INDArray result) { return scalarOp(MUL, n, result, false); }
  @Override public INDArray div(Number n) { return scalarOp(DIV, n, null, false); }
  @Override public INDArray divi(Number n) { return scalarOp(DIV, n, null, true); }
  @Override public INDArray div(Number n, INDArray result) { return scalarOp(DIV, n, result, false); }
  @Override public INDArray divi(Number n, INDArray result) { return scalarOp(DIV, n, result, false); }
  @Override public INDArray rsub(Number n) { return scalarOp(RSUB, n, null, false); }
  @Override public INDArray rsubi(Number n) { return scalarOp(RSUB, n, null, true); }
  @Override public INDArray rsub(Number n, INDArray result) { return scalarOp(RSUB, n, result, false); }
  @Override public INDArray rsubi(Number n, INDArray result) { return scalarOp(RSUB, n, result, false); }
  @Override public INDArray rdiv(Number n) { return scalarOp(RDIV, n, null, false); }
  @Override public INDArray rdivi(Number n) { return scalarOp(RDIV, n, null, true); }
  @Override public INDArray rdiv(Number n, INDArray result) { return scalarOp(RDIV, n, result, false); }
  @Override public INDArray rdivi(Number n, INDArray result) { return scalarOp(RDIV, n, result, false); }

  @Override public INDArray add(INDArray o) { return binary("add", ADD, o, null, false); }
  @Override public INDArray addi(INDArray o) { return binary("addi", ADD, o, null, true); }
  @Override public INDArray add(INDArray o, INDArray result) { return binary("add", ADD, o, result, false); }
  @Override public INDArray addi(INDArray o, INDArray result) { return binary("addi", ADD, o, result, false); }
  @Override public INDArray sub(INDArray o) { return binary("sub", SUB, o, null, false); }
  @Override public INDArray subi(INDArray o) { return binary("subi", SUB, o, null, true); }
  @Override public INDArray sub(INDArray o, INDArray result) { return binary("sub", SUB, o, result, false); }
  @Override public INDArray subi(INDArray o, INDArray result) { return binary("subi", SUB, o, result, false); }
  @Override public INDArray mul(INDArray o) { return binary("mul", MUL, o, null, false); }
  @Override public INDArray muli(INDArray o) { return binary("muli", MUL, o, null, true); }
  @Override public INDArray mul(INDArray o, INDArray result) { return binary("mul", MUL, o, result, false); }
  @Override public INDArray muli(INDArray o, INDArray result) { return binary("muli", MUL, o, result, false); }
  @Override public INDArray div(INDArray o) { return binary("div", DIV, o, null, false); }
  @Override public INDArray divi(INDArray o) { return binary("divi", DIV, o, null, true); }
  @Override public INDArray div(INDArray o, INDArray result) { return binary("div", DIV, o, result, false); }
  @Override public INDArray divi(INDArray o, INDArray result) { return binary("divi", DIV, o, result, false); }
  @Override public INDArray rsub(INDArray o) { return binary("rsub", RSUB, o, null, false); }
  @Override public INDArray rsubi(INDArray o) { return binary("rsubi", RSUB, o, null, true); }
  @Override public INDArray rsub(INDArray o, INDArray result) { return binary("rsub", RSUB, o, result, false); }
  @Override public INDArray rsubi(INDArray o, INDArray result) { return binary("rsubi", RSUB, o, result, false); }
  @Override public INDArray rdiv(INDArray o) { return binary("rdiv", RDIV, o, null, false); }
  @Override public INDArray rdivi(INDArray o) { return binary("rdivi", RDIV, o, null, true); }
  @Override public INDArray rdiv(INDArray o, INDArray result) { return binary("rdiv", RDIV, o, result, false); }
  @Override public INDArray rdivi(INDArray o, INDArray result) { return binary("rdivi", RDIV, o, result, false); }

  @Override
  public INDArray neg() {
    return wrap(Ops.neg(t));
  }

  @Override
  public INDArray negi() {
    Ops.neg(t, t);
    return this;
  }

  // ------------------------------------------------------------------------------- row / column vectors

  /** The vector as [1, n] (row) or [n, 1] (column) for broadcasting over this matrix. */
  private INDArray vectorFor(String name, INDArray v, boolean row) {
    if (rank() != 2) {
      throw new IllegalStateException(name + ": the array must be a matrix, got shape " + Arrays.toString(shape()));
    }
    long n = row ? columns() : rows();
    if (!(v.isVectorOrScalar() || v.rank() <= 2 && v.length() == n) || v.length() != n) {
      throw new IllegalStateException(name + ": the " + (row ? "row" : "column") + " vector has shape "
          + Arrays.toString(v.shape()) + " (length " + v.length() + "); the matrix " + Arrays.toString(shape())
          + " has " + n + (row ? " columns" : " rows"));
    }
    return v.reshape(row ? new long[] {1, n} : new long[] {n, 1});
  }

  private INDArray vectorOp(String name, Binary op, INDArray v, boolean row, boolean inPlace) {
    return binary(name, op, vectorFor(name, v, row), null, inPlace);
  }

  @Override public INDArray addRowVector(INDArray v) { return vectorOp("addRowVector", ADD, v, true, false); }
  @Override public INDArray addiRowVector(INDArray v) { return vectorOp("addiRowVector", ADD, v, true, true); }
  @Override public INDArray subRowVector(INDArray v) { return vectorOp("subRowVector", SUB, v, true, false); }
  @Override public INDArray subiRowVector(INDArray v) { return vectorOp("subiRowVector", SUB, v, true, true); }
  @Override public INDArray mulRowVector(INDArray v) { return vectorOp("mulRowVector", MUL, v, true, false); }
  @Override public INDArray muliRowVector(INDArray v) { return vectorOp("muliRowVector", MUL, v, true, true); }
  @Override public INDArray divRowVector(INDArray v) { return vectorOp("divRowVector", DIV, v, true, false); }
  @Override public INDArray diviRowVector(INDArray v) { return vectorOp("diviRowVector", DIV, v, true, true); }
  @Override public INDArray rsubRowVector(INDArray v) { return vectorOp("rsubRowVector", RSUB, v, true, false); }
  @Override public INDArray rsubiRowVector(INDArray v) { return vectorOp("rsubiRowVector", RSUB, v, true, true); }
  @Override public INDArray rdivRowVector(INDArray v) { return vectorOp("rdivRowVector", RDIV, v, true, false); }
  @Override public INDArray rdiviRowVector(INDArray v) { return vectorOp("rdiviRowVector", RDIV, v, true, true); }
  @Override public INDArray addColumnVector(INDArray v) { return vectorOp("addColumnVector", ADD, v, false, false); }
  @Override public INDArray addiColumnVector(INDArray v) { return vectorOp("addiColumnVector", ADD, v, false, true); }
  @Override public INDArray subColumnVector(INDArray v) { return vectorOp("subColumnVector", SUB, v, false, false); }
  @Override public INDArray subiColumnVector(INDArray v) { return vectorOp("subiColumnVector", SUB, v, false, true); }
  @Override public INDArray mulColumnVector(INDArray v) { return vectorOp("mulColumnVector", MUL, v, false, false); }
  @Override public INDArray muliColumnVector(INDArray v) { return vectorOp("muliColumnVector", MUL, v, false, true); }
  @Override public INDArray divColumnVector(INDArray v) { return vectorOp("divColumnVector", DIV, v, false, false); }
  @Override public INDArray diviColumnVector(INDArray v) { return vectorOp("diviColumnVector", DIV, v, false, true); }
  @Override public INDArray rsubColumnVector(INDArray v) { return vectorOp("rsubColumnVector", RSUB, v, false, false); }
  @Override public INDArray rsubiColumnVector(INDArray v) { return vectorOp("rsubiColumnVector", RSUB, v, false, true); }
  @Override public INDArray rdivColumnVector(INDArray v) { return vectorOp("rdivColumnVector", RDIV, v, false, false); }
  @Override public INDArray rdiviColumnVector(INDArray v) { return vectorOp("rdiviColumnVector", RDIV, v, false, true); }

  /** Every row set to the row vector. */
  @Override
  public INDArray putiRowVector(INDArray v) {
    return assign(vectorFor("putiRowVector", v, true));
  }

  @Override
  public INDArray putiColumnVector(INDArray v) {
    return assign(vectorFor("putiColumnVector", v, false));
  }

  // ------------------------------------------------------------------------------- matrix product

  /** Rank-1 operands are a row vector on the left, a column vector on the right. */
  private Tensor matrixOperand(INDArray a, boolean left) {
    try (Tensor o = operand(a)) {
      if (a.rank() == 1) {
        return left ? o.reshape(1, a.length()) : o.reshape(a.length(), 1);
      }
      return o.share();
    }
  }

  private INDArray mmulInto(INDArray other, INDArray result) {
    Tensor o = tensorOf(other);
    if (t.rank() == 2 && o.rank() == 2 && o.dtype() == t.dtype()) {
      // the common case with no handle shared or reshaped: the runtime checks the shapes, and a
      // refusal is turned into ND4J's exception by the general path below
      try {
        if (result == null) {
          return wrap(Ops.matmul(t, o));
        }
        Ops.matmul(t, o, false, false, tensorOf(result));
        return result;
      } catch (NdrtException e) {
        // fall through: ND4J's message
      }
    }
    if (rank() > 2 || other.rank() > 2 || rank() == 0 || other.rank() == 0) {
      throw new ND4JIllegalStateException("Cannot execute matrix multiplication: " + Arrays.toString(shape()) + "x"
          + Arrays.toString(other.shape()) + ": both arrays must be vectors or matrices");
    }
    try (Tensor a = matrixOperand(this, true); Tensor b = matrixOperand(other, false)) {
      long k = a.shape()[1], r = b.shape()[0];
      if (k != r) {
        throw new ND4JIllegalStateException("Cannot execute matrix multiplication: " + Arrays.toString(shape()) + "x"
            + Arrays.toString(other.shape()) + ": Column of left array " + k + " != rows of right " + r);
      }
      if (result == null) {
        return wrap(Ops.matmul(a, b));
      }
      long[] want = {a.shape()[0], b.shape()[1]};
      if (!Arrays.equals(result.shape(), want)) {
        throw new ND4JIllegalStateException("mmul: result has shape " + Arrays.toString(result.shape())
            + ", the product has shape " + Arrays.toString(want));
      }
      Ops.matmul(a, b, false, false, tensorOf(result));
      return result;
    }
  }

  @Override
  public INDArray mmul(INDArray other) {
    return mmulInto(other, null);
  }

  @Override
  public INDArray mmul(INDArray other, char resultOrder) {
    INDArray r = mmulInto(other, null);
    return resultOrder == 'f' ? r.dup('f') : r;
  }

  @Override
  public INDArray mmul(INDArray other, INDArray result) {
    return mmulInto(other, result);
  }

  /** this = this x other (the product must have this array's shape). */
  @Override
  public INDArray mmuli(INDArray other) {
    INDArray p = mmulInto(other, null);
    return assign(p);
  }

  @Override
  public INDArray mmuli(INDArray other, INDArray result) {
    return mmulInto(other, result);
  }

  // ------------------------------------------------------------------------------- comparisons

  /** A comparison runtime op (bool output). */
  @FunctionalInterface
  protected interface Compare {
    Tensor apply(Tensor a, Tensor b);
  }

  protected INDArray compare(String name, Compare op, INDArray other) {
    long[] b = Shapes.broadcast(shape(), other.shape());
    if (b == null) {
      throw new IllegalStateException("Cannot perform operation \"" + name + "\" - shapes are not equal and are not "
          + "broadcastable.first.shape=" + Arrays.toString(shape()) + ", second.shape="
          + Arrays.toString(other.shape()));
    }
    try (Tensor o = operand(other)) {
      return wrap(op.apply(t, o));
    }
  }

  protected INDArray compare(Compare op, Number n) {
    try (Tensor s = scalarTensor(n)) {
      return wrap(op.apply(t, s));
    }
  }

  @Override public INDArray gt(Number n) { return compare(Ops::gt, n); }
  @Override public INDArray gte(Number n) { return compare(Ops::ge, n); }
  @Override public INDArray lt(Number n) { return compare(Ops::lt, n); }
  @Override public INDArray lte(Number n) { return compare(Ops::le, n); }
  @Override public INDArray eq(Number n) { return compare(Ops::eq, n); }
  @Override public INDArray neq(Number n) { return compare(Ops::ne, n); }
  @Override public INDArray gt(INDArray o) { return compare("gt", Ops::gt, o); }
  @Override public INDArray lt(INDArray o) { return compare("lt", Ops::lt, o); }
  @Override public INDArray eq(INDArray o) { return compare("eq", Ops::eq, o); }
  @Override public INDArray neq(INDArray o) { return compare("neq", Ops::ne, o); }

  /** Whether |this - n| is below 1e-5, as bool (ND4J's eps). */
  @Override
  public INDArray eps(Number n) {
    try (Tensor s = scalarTensor(n); Tensor d = Ops.sub(t, s); Tensor a = Ops.abs(d, d);
         Tensor e = Tensor.full(1e-5, t.dtype())) {
      return wrap(Ops.lt(a, e));
    }
  }

  @Override
  public INDArray eps(INDArray other) {
    try (Tensor o = operand(other); Tensor d = Ops.sub(t, o); Tensor a = Ops.abs(d, d);
         Tensor e = Tensor.full(1e-5, t.dtype())) {
      return wrap(Ops.lt(a, e));
    }
  }

  /** NaN positions, as bool (x != x). */
  @Override
  public INDArray isNaN() {
    return wrap(Ops.ne(t, t));
  }

  @Override
  public INDArray isInfinite() {
    if (!t.dtype().isFloatingPoint()) {
      return wrap(Tensor.zeros(DType.BOOL, shape()));
    }
    try (Tensor a = Ops.abs(t); Tensor inf = Tensor.full(Double.POSITIVE_INFINITY, t.dtype())) {
      return wrap(Ops.eq(a, inf));
    }
  }

  /** Where {@code condition} holds on this array, as bool. */
  @Override
  public INDArray cond(Condition condition) {
    return ConditionMasks.mask(this, condition);
  }

  @Override
  public INDArray replaceWhere(INDArray arr, Condition condition) {
    BooleanIndexing.replaceWhere(this, arr, condition);
    return this;
  }

  @Override
  public INDArray match(INDArray comp, Condition condition) {
    throw refused("match(INDArray, Condition)", "use cond(Condition) or gt/lt/eq");
  }

  @Override
  public INDArray match(Number comp, Condition condition) {
    throw refused("match(Number, Condition)", "use cond(Condition) or gt/lt/eq");
  }

  @Override
  public INDArray getWhere(INDArray comp, Condition condition) {
    throw refused("getWhere");
  }

  @Override
  public INDArray getWhere(Number comp, Condition condition) {
    throw refused("getWhere");
  }

  @Override
  public INDArray putWhere(INDArray comp, INDArray put, Condition condition) {
    throw refused("putWhere");
  }

  @Override
  public INDArray putWhere(Number comp, INDArray put, Condition condition) {
    throw refused("putWhere");
  }

  @Override
  public INDArray putWhere(Number comp, Number put, Condition condition) {
    throw refused("putWhere");
  }

  /** A copy with {@code put}'s elements where {@code mask} is true. */
  @Override
  public INDArray putWhereWithMask(INDArray mask, INDArray put) {
    try (Tensor m = tensorOf(mask).dtype() == DType.BOOL ? tensorOf(mask).share() : tensorOf(mask).cast(DType.BOOL);
         Tensor p = operand(put)) {
      return wrap(Ops.where(m, p, t));
    }
  }

  @Override
  public INDArray putWhereWithMask(INDArray mask, Number put) {
    try (Tensor m = tensorOf(mask).dtype() == DType.BOOL ? tensorOf(mask).share() : tensorOf(mask).cast(DType.BOOL);
         Tensor p = scalarTensor(put)) {
      return wrap(Ops.where(m, p, t));
    }
  }

  @Override
  public INDArray assignIf(INDArray arr, Condition condition) {
    throw refused("assignIf", "use BooleanIndexing.replaceWhere");
  }
}
