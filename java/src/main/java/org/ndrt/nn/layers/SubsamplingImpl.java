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

  SubsamplingImpl(SubsamplingLayer conf, InputType out, DType dtype) {
    super(dtype);
    this.max = conf.poolingType() == SubsamplingLayer.PoolingType.MAX;
    this.kernel = ConvolutionImpl.longs(conf.kernel());
    this.stride = ConvolutionImpl.longs(conf.stride());
    this.padding = ConvolutionImpl.longs(conf.padding());
    this.same = conf.convolutionMode() == ConvMode.Same;
    this.outShape = new long[] {out.channels, out.height, out.width};
  }

  @Override
  public Tensor forward(Tensor in, boolean training) {
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
    Tensor dy = opGradient("dy_nhwc", dyIn);
    Tensor dx = buffer("dx", dtype, x.shape());
    dx = max ? Ops.maxPool2dBp(x, dy, kernel, stride, padding, same, layout(), dx)
             : Ops.avgPool2dBp(x, dy, kernel, stride, padding, same, layout(), false, dx);
    return layerGradient("dx_nchw", dx);
  }
}
