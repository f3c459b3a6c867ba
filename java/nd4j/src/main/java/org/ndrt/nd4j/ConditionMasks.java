package org.ndrt.nd4j;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.cpu.nativecpu.NDArray;
import org.nd4j.linalg.indexing.conditions.Condition;
import org.ndrt.DType;
import org.ndrt.Ops;
import org.ndrt.Tensor;

/** A condition evaluated on a whole array by runtime comparison ops, giving a bool mask. */
public final class ConditionMasks {
  private ConditionMasks() {}

  public static INDArray mask(INDArray x, Condition c) {
    return new NDArray(maskTensor(x, c), null, 'c');
  }

  /** The mask as a new tensor (the caller closes it). */
  public static Tensor maskTensor(INDArray x, Condition c) {
    Tensor t = ArrayCore.tensorOf(x);
    DType d = t.dtype();
    double v = c.getValue();
    switch (c.conditionType()) {
      case LESS_THAN: return withValue(t, v, Ops::lt);
      case GREATER_THAN: return withValue(t, v, Ops::gt);
      case LESS_THAN_OR_EQUAL: return withValue(t, v, Ops::le);
      case GREATER_THAN_OR_EQUAL: return withValue(t, v, Ops::ge);
      case NOT_EQUALS: return withValue(t, v, Ops::ne);
      case EPSILON_EQUALS: return near(t, v, c.epsThreshold(), true);
      case EPSILON_NOT_EQUALS: return near(t, v, c.epsThreshold(), false);
      case ABS_LESS_THAN: return onAbs(t, v, Ops::lt);
      case ABS_GREATER_THAN: return onAbs(t, v, Ops::gt);
      case ABS_LESS_THAN_OR_EQUAL: return onAbs(t, v, Ops::le);
      case ABS_GREATER_OR_EQUAL: return onAbs(t, v, Ops::ge);
      case ABS_EQUALS: return onAbs(t, v, Ops::eq);
      case IS_NAN: return d.isFloatingPoint() ? Ops.ne(t, t) : Tensor.zeros(DType.BOOL, t.shape());
      case IS_INFINITE: return infinite(t);
      case NOT_FINITE: return notFinite(t);
      case IS_FINITE: {
        try (Tensor nf = notFinite(t)) {
          return Ops.logicalNot(nf);
        }
      }
      default:
        throw new UnsupportedOperationException("ndrt's ND4J drop-in does not implement condition mode "
            + c.conditionType() + " on arrays");
    }
  }

  private interface Cmp {
    Tensor apply(Tensor a, Tensor b);
  }

  private static Tensor withValue(Tensor t, double v, Cmp op) {
    try (Tensor s = Tensor.full(v, t.dtype())) {
      return op.apply(t, s);
    }
  }

  private static Tensor onAbs(Tensor t, double v, Cmp op) {
    try (Tensor a = Ops.abs(t)) {
      return withValue(a, v, op);
    }
  }

  /** Whether |x - v| is at most eps (or, negated, above it). */
  private static Tensor near(Tensor t, double v, double eps, boolean equal) {
    try (Tensor s = Tensor.full(v, t.dtype()); Tensor d = Ops.sub(t, s); Tensor a = Ops.abs(d);
         Tensor e = Tensor.full(eps, t.dtype())) {
      return equal ? Ops.le(a, e) : Ops.gt(a, e);
    }
  }

  private static Tensor infinite(Tensor t) {
    if (!t.dtype().isFloatingPoint()) {
      return Tensor.zeros(DType.BOOL, t.shape());
    }
    return onAbs(t, Double.POSITIVE_INFINITY, Ops::eq);
  }

  private static Tensor notFinite(Tensor t) {
    if (!t.dtype().isFloatingPoint()) {
      return Tensor.zeros(DType.BOOL, t.shape());
    }
    try (Tensor inf = infinite(t); Tensor nan = Ops.ne(t, t)) {
      return Ops.logicalOr(inf, nan);
    }
  }
}
