package org.ndrt.nn.graph;

import java.util.Arrays;
import org.ndrt.DType;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.nn.layers.LayerImpl;

/**
 * ReshapeVertex and PreprocessorVertex: a 'c'-order reshape in Deeplearning4j's layout (sequences
 * [N, F, T]) to {@code shape} (batch entry ignored: the input's). Rows and images are reshaped as
 * views when contiguous; sequences are permuted to and from the internal [N, T, F] (one copy).
 */
final class ReshapeImpl extends LayerImpl {
  private final long[] shape;
  private long[] inShape;

  ReshapeImpl(long[] shape, DType dtype) {
    super(dtype);
    this.shape = shape.clone();
  }

  @Override
  public Tensor forward(Tensor x, boolean training) {
    inShape = x.shape();
    long[] out = shape.clone();
    out[0] = inShape[0];
    return reshape("f", x, out);
  }

  @Override
  public Tensor backward(Tensor dy, boolean needDx) {
    return needDx ? reshape("b", dy, external(inShape)) : null;
  }

  /**
   * {@code t} (internal layout) reshaped to {@code to} (Deeplearning4j's layout), given back in the
   * internal layout.
   */
  private Tensor reshape(String key, Tensor t, long[] to) {
    Tensor ext = t.rank() == 3 ? permutedView(key, t) : t;
    if (!ext.isContiguous()) {
      ext = Ops.copy(ext, buffer(key + "c", dtype, ext.shape()));
    }
    long n = 1;
    for (long d : to) {
      n *= d;
    }
    if (n != ext.numel()) {
      throw new IllegalArgumentException("ReshapeVertex: cannot reshape " + Arrays.toString(ext.shape()) + " to "
          + Arrays.toString(to));
    }
    Tensor r = view(key + "r", ext, to);
    return to.length == 3 ? permutedView(key + "out", r) : r;
  }

  private final java.util.Map<String, Tensor[]> permuted = new java.util.HashMap<>();

  /** [N, A, B] as a [N, B, A] view, cached while the source stays the same. */
  private Tensor permutedView(String key, Tensor t) {
    Tensor[] c = permuted.get(key);
    if (c != null && c[0] == t) {
      return c[1];
    }
    if (c != null) {
      c[1].close();
    }
    Tensor v = t.permute(0, 2, 1);
    permuted.put(key, new Tensor[] {t, v});
    return v;
  }

  /** An internal-layout shape in Deeplearning4j's layout. */
  private static long[] external(long[] s) {
    return s.length == 3 ? new long[] {s[0], s[2], s[1]} : s.clone();
  }

  @Override
  public void close() {
    for (Tensor[] c : permuted.values()) {
      c[1].close();
    }
    permuted.clear();
    super.close();
  }
}
