package org.ndrt.nn.layers;

import java.util.List;
import org.ndrt.DType;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.layers.BatchNormalization;

/**
 * batch_norm (training: batch statistics, running statistics updated in place) or
 * batch_norm_inference, over the channel axis (1; 3 for channels-last images); computed in f32
 * (cast around it under mixed precision).
 */
final class BatchNormImpl extends LayerImpl {
  private final long c;
  private final double momentum;
  private final double eps;
  private final Activation act;  // applied after the normalisation (Deeplearning4j's batch norm does)
  private final DType sd;  // where the statistics are computed: f32, f64 when the layer computes in f64
  private Tensor xf;
  private Tensor z;  // the normalised output, before the activation
  private Tensor a;  // after it
  /** The convolution before it applies this normalisation in inference passes ({@link ConvolutionImpl#foldBatchNorm}). */
  private boolean folded;

  BatchNormImpl(BatchNormalization conf, DType dtype) {
    super(dtype);
    this.c = conf.nOut();
    this.momentum = 1 - conf.decay();
    this.eps = conf.eps();
    this.sd = dtype == DType.F64 ? DType.F64 : DType.F32;
    this.act = conf.activation() == null ? Activation.IDENTITY : conf.activation();
  }

  @Override
  public List<ParamSpec> params() {
    return List.of(ParamSpec.bias("gamma", 1, true, c), ParamSpec.bias("beta", 0, true, c),
        ParamSpec.state("mean", 0, c), ParamSpec.state("var", 1, c));
  }

  @Override
  public ChannelsLast.Role channelsLastRole() {
    return ChannelsLast.Role.FOLLOWS_INPUT;
  }

  private long axis() {
    return nhwcIn ? 3 : 1;
  }

  /** Whether a convolution may fold this normalisation into its weights (f32 throughout). */
  boolean foldable() {
    return dtype == DType.F32;
  }

  void foldIntoConvolution() {
    folded = true;
  }

  /**
   * This normalisation in inference folded into a convolution's weights {@code w} [O, ...] and bias
   * {@code b} (null: none): w' = w s per output channel, b' = (b - mean) s + beta, where
   * s = gamma / sqrt(var + eps); returns {w', b'} (in {@code wOut}, {@code bOut}).
   */
  Tensor[] foldInto(Tensor w, Tensor b, Tensor wOut, Tensor bOut) {
    Tensor sc = buffer("fold_scale", sd, c);
    Ops.add(p[3], buffer("fold_eps", sd).fill(eps), sc);
    Ops.rsqrt(sc, sc);
    Ops.mul(sc, p[0], sc);
    long[] perChannel = new long[w.rank()];
    java.util.Arrays.fill(perChannel, 1);
    perChannel[0] = c;
    Ops.mul(w, view("fold_scale_w", sc, perChannel), wOut);
    if (b != null) {
      Ops.sub(b, p[2], bOut);
      Ops.mul(bOut, sc, bOut);
    } else {
      Ops.mul(p[2], sc, bOut);
      Ops.neg(bOut, bOut);
    }
    Ops.add(bOut, p[1], bOut);
    return new Tensor[] {wOut, bOut};
  }

  @Override
  public Tensor forward(Tensor x, boolean training) {
    if (folded && !training) {  // the convolution applied the normalisation
      z = x;
      a = act == Activation.IDENTITY ? z : Activations.forward(act, z, buffer("act", dtype, z.shape()));
      return a;
    }
    xf = sd == DType.F64 ? x : asF32("xf", x);
    Tensor y = buffer("y", sd, x.shape());
    if (training) {
      Ops.batchNorm(xf, p[0], p[1], p[2], p[3], axis(), momentum, eps, y, buffer("mean", sd, c),
          buffer("invstd", sd, c), p[2], p[3]);
    } else {
      Ops.batchNormInference(xf, p[0], p[1], p[2], p[3], axis(), eps, y);
    }
    z = asCompute("yc", y);
    a = act == Activation.IDENTITY ? z : Activations.forward(act, z, buffer("act", dtype, z.shape()));
    return a;
  }

  @Override
  public Tensor backward(Tensor dyAct, boolean needDx) {
    Tensor dy = act == Activation.IDENTITY ? dyAct : Activations.backward(act, z, a, dyAct, buffer("dz", dtype, z.shape()));
    Tensor dx = buffer("dx", sd, xf.shape());
    Ops.batchNormBp(xf, p[0], buffer("mean", sd, c), buffer("invstd", sd, c), sd == DType.F64 ? dy : asF32("dyf", dy), axis(), dx,
        g[0], g[1]);
    return asCompute("dxc", dx);
  }
}
