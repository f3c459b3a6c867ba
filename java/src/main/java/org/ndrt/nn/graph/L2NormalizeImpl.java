package org.ndrt.nn.graph;

import org.ndrt.DType;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.nn.layers.LayerImpl;

/**
 * L2NormalizeVertex: y = x / n per example, n = max(|x|_2 over the non-batch axes, eps). Backward:
 * dx = (dy - y sum(dy y)) / n where the norm is above eps, dy / eps where it was clamped.
 */
final class L2NormalizeImpl extends LayerImpl {
  private final double eps;
  private long[] axes;
  private Tensor y;
  private Tensor norm;
  private Tensor above;

  L2NormalizeImpl(double eps, DType dtype) {
    super(dtype);
    this.eps = eps;
  }

  @Override
  public Tensor forward(Tensor x, boolean training) {
    long[] s = x.shape();
    axes = new long[s.length - 1];
    long[] kept = s.clone();
    for (int d = 1; d < s.length; ++d) {
      axes[d - 1] = d;
      kept[d] = 1;
    }
    Tensor raw = Ops.norm2(x, axes, true, buffer("raw", dtype, kept));
    Tensor e = buffer("eps", dtype).fill(eps);
    above = Ops.cast(Ops.gt(raw, e, buffer("gt", DType.BOOL, kept)), dtype, buffer("above", dtype, kept));
    norm = Ops.maximum(raw, e, buffer("norm", dtype, kept));
    y = Ops.div(x, norm, buffer("y", dtype, s));
    return y;
  }

  @Override
  public Tensor backward(Tensor dy, boolean needDx) {
    if (!needDx) {
      return null;
    }
    long[] kept = norm.shape();
    Tensor prod = Ops.mul(dy, y, buffer("prod", dtype, y.shape()));
    Tensor dot = Ops.sum(prod, axes, true, buffer("dot", dtype, kept));
    Ops.mul(dot, above, dot);  // a clamped norm is a constant: no projection
    Tensor dx = Ops.mul(y, dot, buffer("dx", dtype, y.shape()));
    Ops.sub(dy, dx, dx);
    return Ops.div(dx, norm, dx);
  }
}
