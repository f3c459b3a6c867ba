package org.ndrt.nn;

import java.util.Arrays;
import org.ndrt.DType;
import org.ndrt.Tensor;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.layers.LayerImpl;

/**
 * Features as the first layer takes them: flat images seen as NCHW, sequences [N, size, T] seen as
 * [N, T, size] (a permuted view: the recurrent ops read strided inputs), cast to the compute dtype.
 * Indices for an EmbeddingSequenceLayer ([N, 1, T]) are permuted the same way but not cast (a 16-bit
 * float would round indices above 256), and may be integer arrays.
 */
final class InputStage extends LayerImpl {
  private final InputType type;
  private final boolean indices;

  /** {@code indices}: the first layer is an EmbeddingSequenceLayer. */
  InputStage(InputType type, DType dtype, boolean indices) {
    super(dtype);
    this.type = type;
    this.indices = indices;
  }

  private Tensor permuted;
  private Tensor permutedSource;

  @Override
  public Tensor forward(Tensor x, boolean training) {
    if (type.isRecurrent()) {
      return sequences(x);
    }
    long[] s = x.shape();
    long[] want = type.batchShape(s.length == 0 ? 0 : s[0]);
    boolean flatImages = type.kind == InputType.Kind.CONVOLUTIONAL_FLAT && s.length == 2 && s[1] == type.flatSize();
    if (!flatImages && !Arrays.equals(s, want)) {
      throw new IllegalArgumentException("features have shape " + Arrays.toString(s) + " but the network takes "
          + type + (type.kind == InputType.Kind.CONVOLUTIONAL_FLAT ? " as [N, " + type.flatSize() + "] or " : " as ")
          + Arrays.toString(want).replaceFirst("\\d+", "N"));
    }
    if (!x.dtype().isFloatingPoint()) {
      throw new IllegalArgumentException("features must be floating point, got " + x.dtype());
    }
    Tensor v = flatImages ? view("nchw", x, want) : x;
    return asCompute("cast", v);
  }

  /** [N, size, T] as a [N, T, size] view (kept while the same features come in), in the compute dtype. */
  private Tensor sequences(Tensor x) {
    long[] s = x.shape();
    if (s.length != 3 || s[1] != type.size) {
      throw new IllegalArgumentException("features have shape " + Arrays.toString(s) + " but the network takes " + type
          + " as [N, " + type.size + ", T]" + (indices ? " or [N, T] (indices for the EmbeddingSequenceLayer)" : ""));
    }
    if (indices ? x.dtype() == DType.BOOL : !x.dtype().isFloatingPoint()) {
      throw new IllegalArgumentException("features must be " + (indices ? "numbers (indices)" : "floating point") + ", got "
          + x.dtype());
    }
    if (permutedSource != x) {
      if (permuted != null) {
        permuted.close();
      }
      permuted = x.permute(0, 2, 1);
      permutedSource = x;
    }
    return indices ? permuted : asCompute("cast", permuted);
  }

  /**
   * The valid length of each sequence from a features mask [N, T] of 0s and 1s whose 1s must be a
   * prefix of each row (the recurrent ops take lengths, not arbitrary masks).
   */
  static long[] prefixLengths(Tensor mask, Tensor features) {
    long[] ms = mask.shape();
    long[] fs = features.shape();
    if (ms.length != 2 || fs.length != 3 || ms[0] != fs[0] || ms[1] != fs[2]) {
      throw new IllegalArgumentException("the features mask has shape " + Arrays.toString(ms) + " but the features "
          + Arrays.toString(fs) + " need [N, T] = [" + (fs.length > 0 ? fs[0] : "?") + ", " + (fs.length > 2 ? fs[2] : "?")
          + "]");
    }
    int n = (int) ms[0];
    int t = (int) ms[1];
    float[] m = mask.toFloatArray();
    long[] len = new long[n];
    for (int b = 0; b < n; ++b) {
      int l = 0;
      while (l < t && m[b * t + l] == 1) {
        ++l;
      }
      for (int k = l; k < t; ++k) {
        if (m[b * t + k] != 0) {
          throw new IllegalArgumentException("features mask row " + b + " is not a prefix of valid steps (1s, then"
              + " padding 0s): step " + k + " is " + m[b * t + k] + " after " + (k == l ? "the" : "a") + " 0 at step " + l
              + " (the recurrent layers take sequences padded at the end only; masks hold 0 or 1)");
        }
      }
      len[b] = l;
    }
    return len;
  }

  @Override
  public Tensor backward(Tensor dy, boolean needDx) {
    return null;
  }

  @Override
  public void close() {
    if (permuted != null) {
      permuted.close();
      permuted = null;
      permutedSource = null;
    }
    super.close();
  }
}
