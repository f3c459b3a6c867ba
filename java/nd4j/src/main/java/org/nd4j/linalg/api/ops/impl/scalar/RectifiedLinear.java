package org.nd4j.linalg.api.ops.impl.scalar;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.BaseOp;
import org.ndrt.Ops;
import org.ndrt.nd4j.ArrayCore;

/** max(x, 0) into z (z = x when not given), as ND4J's RectifiedLinear; other cutoffs are refused. */
public class RectifiedLinear extends BaseOp {
  private double cutoff;

  public RectifiedLinear() {}

  public RectifiedLinear(INDArray x) {
    this(x, x, 0);
  }

  public RectifiedLinear(INDArray x, double cutoff) {
    this(x, x, cutoff);
  }

  public RectifiedLinear(INDArray x, INDArray z) {
    this(x, z, 0);
  }

  public RectifiedLinear(INDArray x, INDArray z, double cutoff) {
    super(x, null, z == null ? x : z);
    this.cutoff = cutoff;
  }

  @Override
  public String opName() {
    return "relu";
  }

  @Override
  public INDArray exec() {
    if (cutoff != 0) {
      throw new UnsupportedOperationException("RectifiedLinear with cutoff " + cutoff + " is not in ndrt yet (cutoff 0 is)");
    }
    Ops.relu(ArrayCore.tensorOf(x), ArrayCore.tensorOf(z));
    return z;
  }
}
