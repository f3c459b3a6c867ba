package org.ndrt.nn.layers;

import org.ndrt.DType;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.layers.ConvMode;
import org.ndrt.nn.conf.layers.SubsamplingLayer;

/** max_pool2d / avg_pool2d and their backward ops. */
final class SubsamplingImpl extends LayerImpl {
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
    x = in;
    Tensor y = buffer("y", dtype, withBatch(in.shape()[0], outShape));
    return max ? Ops.maxPool2d(in, kernel, stride, padding, same, 0, y)
               : Ops.avgPool2d(in, kernel, stride, padding, same, 0, false, y);
  }

  @Override
  public Tensor backward(Tensor dy, boolean needDx) {
    if (!needDx) {
      return null;
    }
    Tensor dx = buffer("dx", dtype, x.shape());
    return max ? Ops.maxPool2dBp(x, dy, kernel, stride, padding, same, 0, dx)
               : Ops.avgPool2dBp(x, dy, kernel, stride, padding, same, 0, false, dx);
  }
}
