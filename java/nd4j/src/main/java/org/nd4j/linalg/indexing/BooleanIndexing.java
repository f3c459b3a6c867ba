package org.nd4j.linalg.indexing;

import java.util.Arrays;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.indexing.conditions.Condition;
import org.ndrt.DType;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.nd4j.ArrayCore;
import org.ndrt.nd4j.ConditionMasks;

/** Conditional replacement and tests over whole arrays, each a few runtime ops (where, comparisons). */
public class BooleanIndexing {
  public BooleanIndexing() {}

  /** true when every element satisfies the condition. */
  public static boolean and(INDArray n, Condition cond) {
    return count(n, cond) == n.length();
  }

  /** true when some element satisfies the condition. */
  public static boolean or(INDArray n, Condition cond) {
    return count(n, cond) > 0;
  }

  private static long count(INDArray n, Condition cond) {
    try (Tensor m = ConditionMasks.maskTensor(n, cond); Tensor f = m.cast(DType.F64); Tensor s = Ops.sum(f)) {
      return (long) s.item();
    }
  }

  public static boolean[] and(INDArray n, Condition cond, int... dimension) {
    throw new UnsupportedOperationException("ndrt's ND4J drop-in does not implement BooleanIndexing.and along dimensions");
  }

  public static boolean[] or(INDArray n, Condition cond, int... dimension) {
    throw new UnsupportedOperationException("ndrt's ND4J drop-in does not implement BooleanIndexing.or along dimensions");
  }

  /** to[i] = from[i] wherever condition(to[i]) holds (in place). */
  public static void replaceWhere(INDArray to, INDArray from, Condition condition) {
    if (!Arrays.equals(to.shape(), from.shape()) && to.length() != from.length()) {
      throw new IllegalStateException("replaceWhere: arrays must have the same shape: " + Arrays.toString(to.shape())
          + " vs " + Arrays.toString(from.shape()));
    }
    Tensor t = ArrayCore.tensorOf(to);
    INDArray src = from.dataType() == to.dataType() ? from : from.castTo(to.dataType());
    try (Tensor m = ConditionMasks.maskTensor(to, condition); Tensor f = ArrayCore.tensorOf(src).reshape(t.shape());
         Tensor r = Ops.where(m, f, t)) {
      Ops.copy(r, t);
    }
  }

  /** to[i] = set wherever condition(to[i]) holds (in place). */
  public static void replaceWhere(INDArray to, Number set, Condition condition) {
    Tensor t = ArrayCore.tensorOf(to);
    try (Tensor m = ConditionMasks.maskTensor(to, condition); Tensor s = Tensor.full(set.doubleValue(), t.dtype());
         Tensor r = Ops.where(m, s, t)) {
      Ops.copy(r, t);
    }
  }

  /** to[i] = from[i] wherever condition(from[i]) holds (in place). */
  public static void assignIf(INDArray to, INDArray from, Condition condition) {
    Tensor t = ArrayCore.tensorOf(to);
    INDArray src = from.dataType() == to.dataType() ? from : from.castTo(to.dataType());
    try (Tensor m = ConditionMasks.maskTensor(from, condition); Tensor f = ArrayCore.tensorOf(src).reshape(t.shape());
         Tensor r = Ops.where(m, f, t)) {
      Ops.copy(r, t);
    }
  }

  public static INDArray chooseFrom(INDArray[] input, Condition condition) {
    throw new UnsupportedOperationException("ndrt's ND4J drop-in does not implement BooleanIndexing.chooseFrom");
  }

  /** arr * mask (mask 0/1), as a new array. */
  public static INDArray applyMask(INDArray arr, INDArray mask) {
    return arr.mul(mask);
  }

  public static INDArray applyMaskInPlace(INDArray arr, INDArray mask) {
    return arr.muli(mask);
  }

  public static INDArray firstIndex(INDArray array, Condition condition) {
    throw new UnsupportedOperationException("ndrt's ND4J drop-in does not implement BooleanIndexing.firstIndex");
  }

  public static INDArray lastIndex(INDArray array, Condition condition) {
    throw new UnsupportedOperationException("ndrt's ND4J drop-in does not implement BooleanIndexing.lastIndex");
  }
}
