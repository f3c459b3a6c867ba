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
