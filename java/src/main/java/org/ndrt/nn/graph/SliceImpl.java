package org.ndrt.nn.graph;

import java.util.Arrays;
import org.ndrt.DType;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.nn.layers.LayerImpl;

/**
 * SubsetVertex (features from..to along the feature axis) and UnstackVertex (part {@code from} of
 * {@code parts} along the batch axis): forward a view; backward zeros with the gradient in the part.
 */
final class SliceImpl extends LayerImpl {
  private final boolean batchAxis;
  private final long from;
  private final long toOrParts;
  private Tensor x;
  private Tensor yView;
  private Tensor yKey;
  private long yStart;
  private Tensor dxPart;
  private Tensor dxPartOf;
  private long dxStart;
  private int axis;
  private long start;
  private long stop;

  /** Features {@code from..to} (inclusive). */
  static SliceImpl subset(long from, long to, DType dtype) {
    return new SliceImpl(false, from, to, dtype);
  }

  /** Part {@code from} of {@code parts} along the batch axis. */
  static SliceImpl unstack(long from, long parts, DType dtype) {
    return new SliceImpl(true, from, parts, dtype);
  }

  private SliceImpl(boolean batchAxis, long from, long toOrParts, DType dtype) {
    super(dtype);
    this.batchAxis = batchAxis;
    this.from = from;
    this.toOrParts = toOrParts;
  }

  @Override
  public Tensor forward(Tensor in, boolean training) {
    x = in;
    if (batchAxis) {
      long n = in.shape()[0];
      if (n % toOrParts != 0) {
        throw new IllegalArgumentException("UnstackVertex: a batch of " + n + " does not split into " + toOrParts
            + " equal parts");
      }
      axis = 0;
      start = from * (n / toOrParts);
      stop = start + n / toOrParts;
    } else {
      axis = in.rank() == 3 ? 2 : 1;
      start = from;
      stop = toOrParts + 1;
      if (stop > in.shape()[axis]) {
        throw new IllegalArgumentException("SubsetVertex: features " + from + ".." + toOrParts + " of an input of shape "
            + Arrays.toString(in.shape()));
      }
    }
    if (yKey != in || yStart != start || yView.shape()[axis] != stop - start) {
      closeView();
      yView = in.slice(axis, start, stop);
      yKey = in;
      yStart = start;
    }
    return yView;
  }

  @Override
  public Tensor backward(Tensor dy, boolean needDx) {
    if (!needDx) {
      return null;
    }
    Tensor dx = buffer("dx", dtype, x.shape());
    dx.fill(0);
    if (dxPartOf != dx || dxStart != start || dxPart.shape()[axis] != stop - start) {
      if (dxPart != null) {
        dxPart.close();
      }
      dxPart = dx.slice(axis, start, stop);
      dxPartOf = dx;
      dxStart = start;
    }
    Ops.copy(dy, dxPart);
    return dx;
  }

  private void closeView() {
    if (yView != null) {
      yView.close();
      yView = null;
    }
    yKey = null;
  }

  @Override
  public void close() {
    closeView();
    if (dxPart != null) {
      dxPart.close();
      dxPart = null;
    }
    super.close();
  }
}
