package org.ndrt.nn.graph;

import java.util.Arrays;
import org.ndrt.DType;
import org.ndrt.Ops;
import org.ndrt.Tensor;

/**
 * MergeVertex (concatenation along the feature axis) and StackVertex (along the batch axis): one
 * concat op forward; backward hands each input a view of its part of the gradient (no copy).
 */
final class ConcatImpl extends VertexImpl {
  private final boolean batchAxis;
  private long[] bounds = new long[0];
  private int axis;

  ConcatImpl(boolean batchAxis, DType dtype) {
    super(dtype);
    this.batchAxis = batchAxis;
  }

  @Override
  public Tensor forward(Tensor[] in, boolean training) {
    axis = batchAxis ? 0 : featureAxis(in[0]);
    long[] shape = in[0].shape().clone();
    bounds = new long[in.length + 1];
    for (int i = 0; i < in.length; ++i) {
      long[] s = in[i].shape();
      for (int d = 0; d < s.length; ++d) {
        if (d != axis && (s.length != shape.length || s[d] != shape[d])) {
          throw new IllegalArgumentException((batchAxis ? "StackVertex" : "MergeVertex") + ": input " + i + " has shape "
              + Arrays.toString(s) + ", input 0 " + Arrays.toString(in[0].shape()) + " (they may differ only along axis "
              + axis + " of the internal layout)");
        }
      }
      bounds[i + 1] = bounds[i] + s[axis];
    }
    shape[axis] = bounds[in.length];
    return Ops.concat(in, axis, buffer("y", dtype, shape));
  }

  @Override
  public Tensor[] backward(Tensor dy) {
    Tensor[] dx = new Tensor[bounds.length - 1];
    for (int i = 0; i < dx.length; ++i) {
      dx[i] = slice("dx" + i, dy, axis, bounds[i], bounds[i + 1]);
    }
    return dx;
  }
}
