package org.ndrt.nn.layers;

import org.ndrt.DType;
import org.ndrt.Ops;
import org.ndrt.Tensor;

/**
 * A 2-D image layer (convolution, subsampling) that can run its op channels-last (NHWC).
 *
 * <p>{@link ChannelsLast} plans where images stay NHWC between layers: such a layer turns an NCHW
 * input to NHWC (a view for one channel) or its NHWC output back at a region's edge, and the
 * gradients the same way in reverse. Parameters stay in Deeplearning4j's OIHW order; a convolution
 * copies its weights to OHWI for the op and its weight gradient back.
 */
abstract class ImageLayerImpl extends LayerImpl {
  static final long[] TO_NHWC = {0, 2, 3, 1};
  static final long[] TO_NCHW = {0, 3, 1, 2};

  /** This layer runs its op channels-last. */
  boolean nhwc;

  ImageLayerImpl(DType dtype) {
    super(dtype);
  }

  /** Runs channels-last in f32 (the network's compute dtype). */
  @Override
  public ChannelsLast.Role channelsLastRole() {
    return dtype == DType.F32 ? ChannelsLast.Role.CONVERTS : ChannelsLast.Role.NCHW_ONLY;
  }

  @Override
  public void setChannelsLast(boolean in, boolean out) {
    super.setChannelsLast(in, out);
    nhwc = in || out;
  }

  /** The layout attribute of the op: 0 NCHW, 1 NHWC. */
  long layout() {
    return nhwc ? 1 : 0;
  }

  /** Shape of a [n, c, h, w] activation as the op lays it out. */
  long[] opShape(long n, long[] chw) {
    return nhwc ? new long[] {n, chw[1], chw[2], chw[0]} : withBatch(n, chw);
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
