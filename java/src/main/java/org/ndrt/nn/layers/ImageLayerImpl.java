package org.ndrt.nn.layers;

import org.ndrt.DType;
import org.ndrt.Ops;
import org.ndrt.Tensor;

/**
 * A 2-D image layer (convolution, subsampling) that can run its op channels-last (NHWC).
 *
 * <p>Layers exchange NCHW activations, as Deeplearning4j's do. oneDNN's convolutions are faster on
 * NHWC (measured on LeNet's shapes at batch 64: the three passes of both convolutions take 10% less time
 * at one thread and 20% less at two, where the NCHW weight gradient scales poorly), so {@link
 * Layers#planChannelsLast} has a run of two or more adjacent image layers keep NHWC between them:
 * the run's first layer turns its input to NHWC (a view for one channel), its last turns its output
 * back, and the gradients the same way in reverse. Parameters stay in Deeplearning4j's OIHW order;
 * a convolution copies its weights to OHWI for the op and its weight gradient back.
 */
abstract class ImageLayerImpl extends LayerImpl {
  static final long[] TO_NHWC = {0, 2, 3, 1};
  static final long[] TO_NCHW = {0, 3, 1, 2};

  /** This layer runs its op channels-last. */
  boolean nhwc;
  /** Its input arrives, or its output leaves, channels-last: a neighbour in the same run. */
  boolean nhwcIn;
  boolean nhwcOut;

  ImageLayerImpl(DType dtype) {
    super(dtype);
  }

  /** Whether this layer can run channels-last (the network's compute dtype is f32). */
  boolean canRunChannelsLast() {
    return dtype == DType.F32;
  }

  /** The layout attribute of the op: 0 NCHW, 1 NHWC. */
  long layout() {
    return nhwc ? 1 : 0;
  }

  /** Shape of a [n, c, h, w] activation as the op lays it out. */
  long[] opShape(long n, long[] chw) {
    return nhwc ? new long[] {n, chw[1], chw[2], chw[0]} : withBatch(n, chw);
  }

  /** Channels-last output kept NHWC for the next layer: shown NCHW, as Deeplearning4j's. */
  @Override
  public Tensor activation(Tensor y) {
    if (!(nhwc && nhwcOut)) {
      return super.activation(y);
    }
    try (Tensor v = y.permute(0, 3, 1, 2)) {
      return f32Copy(v);
    }
  }

  /** The layer's input as the op reads it. */
  Tensor opInput(String key, Tensor in) {
    return nhwc && !nhwcIn ? toNhwc(key, in) : in;
  }

  /** The op's output as the next layer takes it. */
  Tensor layerOutput(String key, Tensor y) {
    return nhwc && !nhwcOut ? toNchw(key, y) : y;
  }

  /** The gradient of the layer's output as the op reads it. */
  Tensor opGradient(String key, Tensor dy) {
    return nhwc && !nhwcOut ? toNhwc(key, dy) : dy;
  }

  /** The op's input gradient as the previous layer takes it. */
  Tensor layerGradient(String key, Tensor dx) {
    return nhwc && !nhwcIn ? toNchw(key, dx) : dx;
  }

  Tensor toNhwc(String key, Tensor x) {
    long[] s = x.shape();
    if (s[1] == 1 && x.isContiguous()) {
      return view(key, x, s[0], s[2], s[3], 1);
    }
    return Ops.transposeCopy(x, TO_NHWC, buffer(key, x.dtype(), s[0], s[2], s[3], s[1]));
  }

  Tensor toNchw(String key, Tensor x) {
    long[] s = x.shape();
    if (s[3] == 1 && x.isContiguous()) {
      return view(key, x, s[0], 1, s[1], s[2]);
    }
    return Ops.transposeCopy(x, TO_NCHW, buffer(key, x.dtype(), s[0], s[3], s[1], s[2]));
  }
}
