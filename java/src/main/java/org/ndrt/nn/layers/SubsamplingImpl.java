package org.ndrt.nn.layers;

import org.ndrt.DType;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.layers.ConvMode;
import org.ndrt.nn.conf.layers.SubsamplingLayer;

/** max_pool2d / avg_pool2d and their backward ops. */
final class SubsamplingImpl extends ImageLayerImpl {
  private final boolean max;
  private final long[] kernel;
  private final long[] stride;
  private final long[] padding;
  private final boolean same;
  private final long[] outShape;
  private Tensor x;
  /** Set when the convolution before this layer runs the pooling too (conv2d_bias_max_pool2x2). */
  private boolean fused;
  /** Fused: each window's winner, from the forward, for the convolution's backward. */
  private Tensor index;

  SubsamplingImpl(SubsamplingLayer conf, InputType out, DType dtype) {
    super(dtype);
    this.max = conf.poolingType() == SubsamplingLayer.PoolingType.MAX;
    this.kernel = ConvolutionImpl.longs(conf.kernel());
    this.stride = ConvolutionImpl.longs(conf.stride());
    this.padding = ConvolutionImpl.longs(conf.padding());
    this.same = conf.convolutionMode() == ConvMode.Same;
    this.outShape = new long[] {out.channels, out.height, out.width};
  }

  /** Max pooling over 2x2 windows at stride 2 with no padding, NCHW: what conv2d_bias_max_pool2x2 runs. */
  boolean isMax2x2() {
    return max && !nhwc && !same && java.util.Arrays.equals(kernel, new long[] {2, 2})
        && java.util.Arrays.equals(stride, new long[] {2, 2}) && java.util.Arrays.stream(padding).allMatch(v -> v == 0);
  }

  void fuseAfter() {
    fused = true;
  }

  /** Fused: each window's winner, as the last fusedForward wrote it. */
  Tensor index() {
    return index;
  }

  /** The fused forward, called by the convolution before: the pooled output into this layer's buffer. */
  Tensor fusedForward(Tensor convIn, Tensor w, Tensor b) {
    Tensor y = buffer("y", dtype, opShape(convIn.shape()[0], outShape));
    index = buffer("index", DType.U8, y.shape());
    Ops.conv2dBiasMaxPool2x2(convIn, w, b, y, index);
    return y;
  }

  @Override
  public Tensor forward(Tensor in, boolean training) {
    if (fused) {
      return in;  // pooled by the convolution's fusedForward call
    }
    x = opInput("x_nhwc", in);
    Tensor y = buffer("y", dtype, opShape(in.shape()[0], outShape));
    y = max ? Ops.maxPool2d(x, kernel, stride, padding, same, layout(), y)
            : Ops.avgPool2d(x, kernel, stride, padding, same, layout(), false, y);
    return layerOutput("y_nchw", y);
  }

  @Override
  public Tensor backward(Tensor dyIn, boolean needDx) {
    if (!needDx) {
      return null;
    }
    if (fused) {
      return dyIn;  // the convolution's backward takes the pooled gradient with the index
    }
    Tensor dy = opGradient("dy_nhwc", dyIn);
    Tensor dx = buffer("dx", dtype, x.shape());
    dx = max ? Ops.maxPool2dBp(x, dy, kernel, stride, padding, same, layout(), dx)
             : Ops.avgPool2dBp(x, dy, kernel, stride, padding, same, layout(), false, dx);
    return layerGradient("dx_nchw", dx);
  }
}
