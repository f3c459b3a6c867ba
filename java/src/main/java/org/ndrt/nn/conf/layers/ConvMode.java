package org.ndrt.nn.conf.layers;

/** How a convolution or pooling window meets the border (Deeplearning4j's ConvolutionMode). */
public enum ConvMode {
  /** Explicit padding; windows that do not fit are dropped: out = (in + 2p - d(k-1) - 1) / s + 1. */
  Truncate,
  /** out = ceil(in / s), the padding computed to get there (explicit padding is ignored). */
  Same;

  /** The output size along one spatial axis, or an exception naming {@code who} when nothing fits. */
  static long outSize(String who, long in, int k, int s, int p, int d, ConvMode mode) {
    if (mode == Same) {
      return (in + s - 1) / s;
    }
    long span = (long) d * (k - 1) + 1;
    if (span > in + 2L * p) {
      throw new IllegalArgumentException(who + ": kernel " + k + " (dilation " + d + ") is larger than the padded input "
          + in + " + 2 * " + p);
    }
    return (in + 2L * p - span) / s + 1;
  }
}
