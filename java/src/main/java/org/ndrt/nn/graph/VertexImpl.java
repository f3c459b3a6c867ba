package org.ndrt.nn.graph;

import java.util.HashMap;
import java.util.Map;
import org.ndrt.DType;
import org.ndrt.Tensor;
import org.ndrt.nn.layers.LayerImpl;

/**
 * The compute side of a graph vertex with several inputs (merge, stack, element-wise, duplicate):
 * forward from all of them, backward to each. Single-input vertices are plain {@link LayerImpl}s.
 * Tensors in the network's internal layouts: rows [N, F], images [N, C, H, W], sequences [N, T, F]
 * (so the feature axis is 2 for rank 3, else 1).
 */
public abstract class VertexImpl extends LayerImpl {
  private final Map<String, Slice> slices = new HashMap<>();

  protected VertexImpl(DType dtype) {
    super(dtype);
  }

  /** The output for {@code in} (one per input); a buffer of this vertex or a view, valid until its next forward. */
  public abstract Tensor forward(Tensor[] in, boolean training);

  /**
   * The gradient for each input from the output's gradient {@code dy} (entries may be {@code dy}
   * itself, views of it, or null for an input that gets none), valid until the next backward.
   */
  public abstract Tensor[] backward(Tensor dy);

  @Override
  public final Tensor forward(Tensor x, boolean training) {
    return forward(new Tensor[] {x}, training);
  }

  @Override
  public final Tensor backward(Tensor dy, boolean needDx) {
    return backward(dy)[0];
  }

  /** The feature axis of an internal-layout tensor. */
  static int featureAxis(Tensor t) {
    return t.rank() == 3 ? 2 : 1;
  }

  /** {@code x[start:stop]} along {@code axis}, a view cached while x and the range stay the same. */
  protected Tensor slice(String key, Tensor x, int axis, long start, long stop) {
    Slice s = slices.get(key);
    if (s != null && s.source == x && s.axis == axis && s.start == start && s.stop == stop) {
      return s.view;
    }
    if (s != null) {
      s.view.close();
    }
    Tensor v = x.slice(axis, start, stop);
    slices.put(key, new Slice(x, axis, start, stop, v));
    return v;
  }

  @Override
  public void close() {
    for (Slice s : slices.values()) {
      s.view.close();
    }
    slices.clear();
    super.close();
  }

  private static final class Slice {
    final Tensor source;
    final int axis;
    final long start;
    final long stop;
    final Tensor view;

    Slice(Tensor source, int axis, long start, long stop, Tensor view) {
      this.source = source;
      this.axis = axis;
      this.start = start;
      this.stop = stop;
      this.view = view;
    }
  }
}
