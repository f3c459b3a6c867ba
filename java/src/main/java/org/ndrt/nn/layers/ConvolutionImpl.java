package org.ndrt.nn.layers;

import java.util.List;
import org.ndrt.DType;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.layers.ConvMode;
import org.ndrt.nn.conf.layers.ConvolutionLayer;

/**
 * conv2d_bias (+ activation) forward; conv2d_bp_weights / _bias / _data backward. Fused with the max
 * pooling after it: conv2d_bias_max_pool2x2 forward, conv2d_max_pool2x2_bp_weights / _data backward.
 * In inference passes, with the batch normalisation after it folded into its weights.
 */
final class ConvolutionImpl extends ImageLayerImpl {
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
  /** The max pooling layer right after this one when the two run as one op ({@link Layers#planConvPool}). */
  private SubsamplingImpl pool;
  /** The batch normalisation after it, folded into its weights in inference passes ({@link #foldBatchNorm}). */
  private BatchNormImpl folded;
  /** The last forward pass applied {@link #folded}: its output is the normalisation's. */
  private boolean ranFolded;

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

  /**
   * Whether ndrt's direct convolution forward takes this layer's NCHW forward on a CPU that has it
   * (f32, stride 1, no padding or dilation, output width a multiple of 8; native key cpu.direct_conv).
   */
  boolean directForward() {
    return dtype == DType.F32 && !same && stride[0] == 1 && stride[1] == 1 && dilation[0] == 1 && dilation[1] == 1
        && java.util.Arrays.stream(padding).allMatch(v -> v == 0) && outShape[2] % 8 == 0;
  }

  /**
   * Whether this layer and a 2x2 max pooling at stride 2 after it can run as ndrt's direct kernel
   * fused with the pooling (conv2d_bias_max_pool2x2): {@link #directForward}, NCHW, no activation,
   * an even output height, a bias (the fused op adds one).
   */
  boolean canFusePool() {
    return directForward() && !nhwc && act == Activation.IDENTITY && outShape[1] % 2 == 0 && conf.hasBias();
  }

  /** Runs this layer's forward fused with {@code p}'s (which then passes the pooled output on). */
  void fusePool(SubsamplingImpl p) {
    pool = p;
    p.fuseAfter();
  }

  /**
   * Folds {@code bn}, the only consumer of this layer's output, into this layer's weights and bias in
   * inference passes, where the normalisation is a fixed affine map per channel: one convolution
   * with w' and b' ({@link BatchNormImpl#foldInto}, computed per pass from the current parameters)
   * instead of a convolution and a pass over its output. Training passes run both as they are. Only
   * for f32 layers without an activation of their own and not fused with a pooling; returns whether
   * it folded.
   */
  boolean foldBatchNorm(BatchNormImpl bn) {
    if (dtype != DType.F32 || act != Activation.IDENTITY || pool != null || !bn.foldable()) {
      return false;
    }
    folded = bn;
    bn.foldIntoConvolution();
    return true;
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
    double fanOut = conf.nOut() * k / ((double) stride[0] * stride[1]);  // Deeplearning4j's fans
    ParamSpec w = ParamSpec.weight("W", conf.nIn() * k, fanOut, conf.nOut(), conf.nIn(), kernel[0], kernel[1]);
    return conf.hasBias() ? List.of(w, ParamSpec.bias("b", 0, false, conf.nOut())) : List.of(w);
  }

  @Override
  public Tensor forward(Tensor in, boolean training) {
    x = opInput("x_nhwc", in);
    if (pool != null) {
      return pool.fusedForward(x, p[0], p[1]);  // the convolution's own output is never stored
    }
    long n = in.shape()[0];
    z = buffer("z", dtype, opShape(n, outShape));
    ranFolded = folded != null && !training;
    if (ranFolded) {
      Tensor[] wb = folded.foldInto(p[0], conf.hasBias() ? p[1] : null, buffer("w_fold", dtype, p[0].shape()),
          buffer("b_fold", dtype, outShape[0]));
      Tensor w = nhwc ? Ops.transposeCopy(wb[0], TO_NHWC, buffer("w_ohwi", dtype, ohwi())) : wb[0];
      Ops.conv2dBias(x, w, wb[1], stride, padding, same, dilation, 1, layout(), 0, z);
      y = z;
      return layerOutput("y_nchw", y);
    }
    convolve(x, weights(), layout(), z);
    y = act == Activation.IDENTITY ? z : Activations.forward(act, z, buffer("y", dtype, z.shape()));
    return layerOutput("y_nchw", y);
  }

  /**
   * Fused with the pooling, the convolution's own output was never stored: for its activations it is
   * computed here from the kept input by the unfused op (no activation: fusion needs IDENTITY).
   */
  @Override
  public Tensor activation(Tensor y) {
    if (pool == null && !ranFolded) {
      return super.activation(y);
    }
    // Fused with the pooling or folded with the batch norm, the convolution's own output was not
    // kept: computed again here from the kept input by the unfused op (no activation in either case).
    try (Tensor c = Tensor.empty(dtype, opShape(x.shape()[0], outShape))) {
      convolve(x, weights(), layout(), c);
      if (!nhwc) {
        return f32Copy(c);
      }
      try (Tensor v = c.permute(0, 3, 1, 2)) {
        return f32Copy(v);
      }
    }
  }

  /** z = x * w (+ b) in {@code layout}. */
  private void convolve(Tensor in, Tensor w, long layout, Tensor z) {
    if (conf.hasBias()) {
      Ops.conv2dBias(in, w, p[1], stride, padding, same, dilation, 1, layout, 0, z);
    } else {
      Ops.conv2d(in, w, stride, padding, same, dilation, 1, layout, 0, z);
    }
  }

  /** The weights as the op takes them: OIHW, or an OHWI copy when channels-last. */
  private Tensor weights() {
    if (!nhwc) {
      return p[0];
    }
    return Ops.transposeCopy(p[0], TO_NHWC, buffer("w_ohwi", dtype, ohwi()));
  }

  @Override
  public Tensor backward(Tensor dyIn, boolean needDx) {
    if (pool != null) {
      return pooledBackward(dyIn, needDx);
    }
    Tensor dy = opGradient("dy_nhwc", dyIn);
    Tensor dz = act == Activation.IDENTITY ? dy : Activations.backward(act, z, y, dy, buffer("dz", dtype, z.shape()));
    // Channels-last, the forward's OHWI copy of the weights is still current (no update in between).
    Tensor w = nhwc ? buffer("w_ohwi", dtype, ohwi()) : p[0];
    if (nhwc) {
      Tensor dw = Ops.conv2dBpWeights(x, w, dz, stride, padding, same, dilation, 1, 1, 0, buffer("dw_ohwi", dtype, w.shape()));
      Ops.transposeCopy(dw, TO_NCHW, g[0]);
    } else {
      Ops.conv2dBpWeights(x, w, dz, stride, padding, same, dilation, 1, 0, 0, g[0]);
    }
    if (conf.hasBias()) {
      Ops.conv2dBpBias(dz, layout(), g[1]);
    }
    if (!needDx) {
      return null;  // the first layer: no gradient of the data, one convolution saved
    }
    Tensor dx = Ops.conv2dBpData(x, w, dz, stride, padding, same, dilation, 1, layout(), 0, buffer("dx", dtype, x.shape()));
    return layerGradient("dx_nchw", dx);
  }

  /**
   * The backward of the fused convolution + pooling from the pooled output's gradient (the pooling
   * layer passes it on): the convolution's gradient is zero but at each window's winner, so the
   * weight and data gradients visit the windows (a quarter of the multiply-adds) and the bias
   * gradient sums the pooled gradient.
   */
  private Tensor pooledBackward(Tensor dy, boolean needDx) {
    Tensor index = pool.index();
    Ops.conv2dMaxPool2x2BpWeights(x, p[0], dy, index, g[0]);
    Ops.conv2dBpBias(dy, layout(), g[1]);
    if (!needDx) {
      return null;
    }
    return Ops.conv2dMaxPool2x2BpData(x, p[0], dy, index, buffer("dx", dtype, x.shape()));
  }

  private long[] ohwi() {
    long[] s = p[0].shape();
    return new long[] {s[0], s[2], s[3], s[1]};
  }
}
