package org.ndrt.nn.graph;

import org.ndrt.DType;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.nn.layers.LayerImpl;

/** ScaleVertex (x times a constant) and ShiftVertex (x plus a constant). */
final class AffineImpl extends LayerImpl {
  private final double scale;
  private final double shift;

  AffineImpl(double scale, double shift, DType dtype) {
    super(dtype);
    this.scale = scale;
    this.shift = shift;
  }

  @Override
  public Tensor forward(Tensor x, boolean training) {
    Tensor y = buffer("y", dtype, x.shape());
    Tensor src = x;
    if (scale != 1) {
      Ops.mul(src, buffer("scale", dtype).fill(scale), y);
      src = y;
    }
    return shift != 0 || src == x ? Ops.add(src, buffer("shift", dtype).fill(shift), y) : y;
  }

  @Override
  public Tensor backward(Tensor dy, boolean needDx) {
    if (!needDx) {
      return null;
    }
    return scale == 1 ? dy : Ops.mul(dy, buffer("scale", dtype).fill(scale), buffer("dx", dtype, dy.shape()));
  }
}
