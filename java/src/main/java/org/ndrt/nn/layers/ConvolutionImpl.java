package org.ndrt.nn.layers;

import java.util.List;
import org.ndrt.DType;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.layers.ConvMode;
import org.ndrt.nn.conf.layers.ConvolutionLayer;

/** conv2d_bias (+ activation) forward; conv2d_bp_weights / _bias / _data backward. */
final class ConvolutionImpl extends LayerImpl {
  private final ConvolutionLayer conf;
  private final long[] kernel;
  private final long[] stride;
  private final long[] padding;
  private final long[] dilation;
  private final boolean same;
  private final long[] outShape;  // C, H, W
  private final Activation act;
  private Tensor x;
  private Tensor z;
  private Tensor y;

  ConvolutionImpl(ConvolutionLayer conf, InputType out, DType dtype) {
    super(dtype);
    this.conf = conf;
    this.kernel = longs(conf.kernel());
    this.stride = longs(conf.stride());
    this.padding = longs(conf.padding());
    this.dilation = longs(conf.dilation());
    this.same = conf.convolutionMode() == ConvMode.Same;
    this.outShape = new long[] {out.channels, out.height, out.width};
    this.act = conf.activation();
  }

  static long[] longs(int[] v) {
    long[] r = new long[v.length];
    for (int i = 0; i < v.length; ++i) {
      r[i] = v[i];
    }
    return r;
  }

  @Override
  public List<ParamSpec> params() {
    long k = kernel[0] * kernel[1];
    return List.of(
        ParamSpec.weight("W", conf.nIn() * k, conf.nOut() * k, conf.nOut(), conf.nIn(), kernel[0], kernel[1]),
        ParamSpec.bias("b", 0, false, conf.nOut()));
  }

  @Override
  public Tensor forward(Tensor in, boolean training) {
    x = in;
    long n = in.shape()[0];
    z = buffer("z", dtype, withBatch(n, outShape));
    Ops.conv2dBias(in, p[0], p[1], stride, padding, same, dilation, 1, 0, 0, z);
    y = act == Activation.IDENTITY ? z : Activations.forward(act, z, buffer("y", dtype, z.shape()));
    return y;
  }

  @Override
  public Tensor backward(Tensor dy, boolean needDx) {
    Tensor dz = act == Activation.IDENTITY ? dy : Activations.backward(act, z, y, dy, buffer("dz", dtype, z.shape()));
    Ops.conv2dBpWeights(x, p[0], dz, stride, padding, same, dilation, 1, 0, 0, g[0]);
    Ops.conv2dBpBias(dz, 0, g[1]);
    if (!needDx) {
      return null;  // the first layer: no gradient of the data, one convolution saved
    }
    return Ops.conv2dBpData(x, p[0], dz, stride, padding, same, dilation, 1, 0, 0, buffer("dx", dtype, x.shape()));
  }
}
