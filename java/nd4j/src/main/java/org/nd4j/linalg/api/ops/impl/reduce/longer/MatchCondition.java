package org.nd4j.linalg.api.ops.impl.reduce.longer;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.BaseOp;
import org.nd4j.linalg.cpu.nativecpu.NDArray;
import org.nd4j.linalg.indexing.conditions.Condition;
import org.ndrt.DType;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.nd4j.ConditionMasks;
import org.ndrt.nd4j.Shapes;

/** How many elements satisfy a condition (over all, or along dimensions), as LONG. */
public class MatchCondition extends BaseOp {
  private final Condition condition;
  private final boolean keepDims;
  private final int[] dimensions;

  public MatchCondition(INDArray x, Condition condition, int... dimensions) {
    this(x, condition, false, dimensions);
  }

  public MatchCondition(INDArray x, Condition condition, boolean keepDims, int... dimensions) {
    super(x, null, null);
    this.condition = condition;
    this.keepDims = keepDims;
    this.dimensions = dimensions.clone();
  }

  @Override
  public String opName() {
    return "match_condition";
  }

  @Override
  public INDArray exec() {
    long[] axes = Shapes.axes(dimensions, x.rank());
    if (axes.length == 0) {
      axes = new long[x.rank()];
      for (int i = 0; i < axes.length; ++i) {
        axes[i] = i;
      }
    }
    try (Tensor m = ConditionMasks.maskTensor(x, condition); Tensor f = m.cast(DType.F64);
         Tensor s = Ops.sum(f, axes, keepDims)) {
      z = new NDArray(s.cast(DType.I64));
      return z;
    }
  }
}
