package org.ndrt.nn.layers;

import org.ndrt.DType;
import org.ndrt.Ops;
import org.ndrt.Tensor;

/**
 * Helpers of the layers that work on [N, C, T] sequences (Convolution1D, GlobalPooling): masks built
 * from valid lengths, and the [N, T, C] / [N, C, T] permuted views between the network's sequence
 * layout and the ops'.
 */
final class SequenceMasks {
  private SequenceMasks() {}

  /**
   * Writes the prefix mask of {@code lengths} (1 at steps [0, len_b), else 0) into {@code dst}, a
   * float tensor of N T elements ([N, T] or [N, 1, T]); f16/bf16 through an f32 copy.
   */
  static Tensor write(Tensor dst, long[] lengths, long t) {
    int n = lengths.length;
    if (dst.dtype() == DType.F64) {
      double[] m = new double[Math.toIntExact(n * t)];
      for (int b = 0; b < n; ++b) {
        for (long s = 0; s < Math.min(t, lengths[b]); ++s) {
          m[(int) (b * t + s)] = 1;
        }
      }
      return dst.copyFrom(m);
    }
    float[] m = new float[Math.toIntExact(n * t)];
    for (int b = 0; b < n; ++b) {
      for (long s = 0; s < Math.min(t, lengths[b]); ++s) {
        m[(int) (b * t + s)] = 1;
      }
    }
    if (dst.dtype() == DType.F32) {
      return dst.copyFrom(m);
    }
    try (Tensor f = Tensor.from(m, dst.shape())) {
      return Ops.cast(f, dst.dtype(), dst);
    }
  }

  /** A cached [N, A, B] -> [N, B, A] view of one tensor, made again when another tensor comes. */
  static final class Swapped implements AutoCloseable {
    private Tensor source;
    private Tensor view;

    Tensor of(Tensor x) {
      if (x != source) {
        close();
        view = x.permute(0, 2, 1);
        source = x;
      }
      return view;
    }

    @Override
    public void close() {
      if (view != null) {
        view.close();
      }
      view = null;
      source = null;
    }
  }
}
