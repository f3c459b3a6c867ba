package org.ndrt.nn.layers;

import java.util.ArrayList;
import java.util.List;
import org.ndrt.DType;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.layers.DenseLayer;
import org.ndrt.nn.conf.layers.VariationalAutoencoder;
import org.ndrt.nn.conf.layers.VariationalAutoencoder.Reconstruction;

/**
 * A variational autoencoder's compute (see {@link VariationalAutoencoder}) from dense sub-layers over
 * the layer's parameter views: encoder, q(z|x)'s mean and log-variance heads, decoder and pXZ (the
 * reconstruction distribution's pre-activation). As a network layer, forward gives the mean of q(z|x)
 * and backward runs through the mean head and the encoder. {@link #pretrainStep} is the unsupervised
 * step: the negative ELBO, -E[log p(x|z)] + KL(q(z|x) || N(0, I)) per example, and its gradient by
 * hand (reparameterised z = mean + exp(logVar / 2) eps). eps comes from the runtime's Philox stream
 * (key: the network seed + 1 + the layer index + the random stream * 2^32, as dropout's), so runs repeat.
 */
public final class VaeImpl extends LayerImpl {
  /** Keeps its reconstruction state in its buffers between passes. */
  @Override
  public boolean releasableBetweenPasses() {
    return false;
  }

  private static final double HALF_LOG_2PI = 0.5 * Math.log(2 * Math.PI);
  private final long nIn;
  private final long nZ;
  private final Reconstruction rec;
  private final int samples;
  private final long seed;
  private final DenseImpl[] enc;
  private final DenseImpl mean;
  private final DenseImpl logVar;
  private final DenseImpl[] dec;  // the decoder layers, then pXZ (identity: the distribution's pre-activation)
  private final DenseImpl[] all;
  private final String[] names;
  private long offset;
  private long pretrainSteps;
  private double pretrainScore = Double.NaN;
  private Tensor fixedNoise;
  private Tensor out;

  VaeImpl(VariationalAutoencoder c, long seed, DType dtype) {
    super(dtype);
    if (dtype != DType.F32 && dtype != DType.F64) {
      throw new UnsupportedOperationException("VariationalAutoencoder \"" + c.name() + "\" computes in f32 (or f64), not"
          + " under mixed precision (" + dtype + ")");
    }
    this.nIn = c.nIn();
    this.nZ = c.nOut();
    this.rec = c.reconstruction();
    this.samples = c.numSamples();
    this.seed = seed;
    List<DenseImpl> l = new ArrayList<>();
    List<String> n = new ArrayList<>();
    int[] es = c.encoderLayerSizes();
    int[] ds = c.decoderLayerSizes();
    enc = new DenseImpl[es.length];
    dec = new DenseImpl[ds.length + 1];
    long in = nIn;
    for (int i = 0; i < es.length; ++i) {
      enc[i] = dense(l, n, "e" + i, in, es[i], c.activation());
      in = es[i];
    }
    mean = dense(l, n, "pZXMean", in, nZ, c.pzxActivation());
    logVar = dense(l, n, "pZXLogStd2", in, nZ, c.pzxActivation());
    in = nZ;
    for (int i = 0; i < ds.length; ++i) {
      dec[i] = dense(l, n, "d" + i, in, ds[i], c.activation());
      in = ds[i];
    }
    dec[ds.length] = dense(l, n, "pXZ", in, nIn * rec.paramsPerInput(), Activation.IDENTITY);
    all = l.toArray(new DenseImpl[0]);
    names = n.toArray(new String[0]);
  }

  private DenseImpl dense(List<DenseImpl> l, List<String> n, String name, long in, long outSize, Activation a) {
    DenseImpl d = new DenseImpl(new DenseLayer.Builder().nIn(in).nOut(outSize).activation(a).build(), dtype);
    l.add(d);
    n.add(name);
    return d;
  }

  /** Deeplearning4j's parameter names and shapes (e0W, e0b, ..., pZXMeanW, ..., pXZW, pXZb); biases start at 0. */
  @Override
  public List<ParamSpec> params() {
    List<ParamSpec> s = new ArrayList<>();
    for (int k = 0; k < all.length; ++k) {
      s.add(ParamSpec.weight(names[k] + "W", all[k].nIn, all[k].nOut, all[k].nIn, all[k].nOut));
      s.add(ParamSpec.bias(names[k] + "b", 0, false, all[k].nOut));
    }
    return s;
  }

  @Override
  public void bind(Tensor[] params, Tensor[] grads) {
    super.bind(params, grads);
    for (int k = 0; k < all.length; ++k) {
      all[k].bind(new Tensor[] {p[2 * k], p[2 * k + 1]}, new Tensor[] {g[2 * k], g[2 * k + 1]});
    }
  }

  @Override
  public long randomOffset() {
    return offset;
  }

  @Override
  public void setRandomOffset(long offset) {
    if (offset < 0) {
      throw new IllegalArgumentException("VariationalAutoencoder: the random stream offset must be >= 0, got " + offset);
    }
    this.offset = offset;
  }

  /** The parameters by Deeplearning4j's names (e0W, ..., pXZb): the network's own views, in {@link #params()} order; do not close. */
  public java.util.Map<String, Tensor> paramTable() {
    java.util.Map<String, Tensor> m = new java.util.LinkedHashMap<>();
    for (int k = 0; k < all.length; ++k) {
      m.put(names[k] + "W", p[2 * k]);
      m.put(names[k] + "b", p[2 * k + 1]);
    }
    return m;
  }

  /** Pretraining steps taken (the updater's step count for this layer's pretraining; not saved with the model). */
  public long pretrainSteps() {
    return pretrainSteps;
  }

  /** Counts one pretraining update and returns its number (from 1). */
  public long nextPretrainStep() {
    return ++pretrainSteps;
  }

  /** The score of the last {@link #pretrainStep}: the negative ELBO per example (NaN before the first). */
  public double pretrainScore() {
    return pretrainScore;
  }

  /**
   * Tests: the eps of the next steps, [numSamples, N, nOut] in the layer's dtype (kept, not copied;
   * null: draw from the random stream again).
   */
  public void setFixedNoise(Tensor eps) {
    this.fixedNoise = eps;
  }

  // --------------------------------------------------------------------------- supervised

  /** The mean of q(z|x) (pzxActivation applied), [N, nOut]. */
  @Override
  public Tensor forward(Tensor x, boolean training) {
    out = mean.forward(encode(x, training), training);
    return out;
  }

  /** Through the mean head and the encoder; the other parameters get gradient 0. */
  @Override
  public Tensor backward(Tensor dy, boolean needDx) {
    Tensor d = mean.backward(dy, true);
    for (int k = enc.length - 1; k >= 0; --k) {
      d = enc[k].backward(d, k > 0 || needDx);
    }
    for (DenseImpl l : dec) {
      zeroGrads(l);
    }
    zeroGrads(logVar);
    return d;
  }

  private static void zeroGrads(DenseImpl l) {
    l.g[0].fill(0);
    l.g[1].fill(0);
  }

  /** The output of the last forward pass as a new f32 tensor (the network's output). */
  Tensor activate() {
    return out.dtype() == DType.F32 ? Ops.copy(out, null) : out.cast(DType.F32);
  }

  private Tensor encode(Tensor x, boolean training) {
    Tensor h = x;
    for (DenseImpl l : enc) {
      h = l.forward(h, training);
    }
    return h;
  }

  /** The reconstruction distribution's pre-activation for z, [N, nIn * paramsPerInput]. */
  private Tensor decode(Tensor z, boolean training) {
    Tensor h = z;
    for (DenseImpl l : dec) {
      h = l.forward(h, training);
    }
    return h;
  }

  // ---------------------------------------------------------------------------- pretraining

  /**
   * One unsupervised step's forward and backward on x ([N, nIn], as this layer sees it): writes the
   * gradient of the mean negative ELBO into every parameter's gradient and returns it. numSamples
   * draws of z per example estimate E[log p(x|z)]; KL(q || N(0, I)) is exact.
   */
  public double pretrainStep(Tensor x) {
    Tensor x2 = rows(x);
    long n = x2.shape()[0];
    Tensor mu = mean.forward(encode(x2, true), true);
    Tensor h = enc[enc.length - 1].y;
    Tensor lv = logVar.forward(h, true);
    Tensor std = std(lv);
    Tensor var = Ops.mul(std, std, buffer("var", dtype, n, nZ));
    // KL per element: (mu^2 + var - lv - 1) / 2.
    Tensor t = Ops.square(mu, buffer("t", dtype, n, nZ));
    Ops.add(t, var, t);
    Ops.sub(t, lv, t);
    double kl = 0.5 * (sum(t) - (double) n * nZ);
    Tensor dMu = Ops.mul(mu, scalar("invN", 1.0 / n), buffer("dMu", dtype, n, nZ));
    Tensor dLv = Ops.sub(var, scalar("one", 1), buffer("dLv", dtype, n, nZ));
    Ops.mul(dLv, scalar("halfInvN", 0.5 / n), dLv);
    double nll = 0;
    Tensor dScale = scalar("dScale", 1.0 / ((double) n * samples));
    Tensor tmp = buffer("tmp", dtype, n, nZ);
    for (int s = 0; s < samples; ++s) {
      Tensor eps = noise(s, n);
      Tensor z = sample(mu, std, eps);
      Tensor pre = decode(z, true);
      nll += sum(elementNll(x2, pre));
      Tensor dPre = nllBackward(x2, pre, dScale);
      Tensor dz = decoderBackward(dPre, s > 0);
      Ops.add(dMu, dz, dMu);
      Ops.mul(dz, eps, tmp);                  // dz/dlv = exp(lv / 2) eps / 2
      Ops.mul(tmp, std, tmp);
      Ops.mul(tmp, scalar("half", 0.5), tmp);
      Ops.add(dLv, tmp, dLv);
    }
    Tensor d1 = mean.backward(dMu, true);
    Tensor d2 = logVar.backward(dLv, true);
    Tensor d = Ops.add(d1, d2, buffer("dh", dtype, d1.shape()));
    for (int k = enc.length - 1; k >= 0; --k) {
      d = enc[k].backward(d, k > 0);
    }
    pretrainScore = (kl + nll / samples) / n;
    return pretrainScore;
  }

  /** Backward through pXZ and the decoder; with {@code accumulate} the parameter gradients add to what is there. */
  private Tensor decoderBackward(Tensor dPre, boolean accumulate) {
    if (accumulate) {
      for (int k = 0; k < dec.length; ++k) {
        DenseImpl l = dec[k];
        Tensor[] scratch = {buffer("sgW" + k, dtype, l.nIn, l.nOut), buffer("sgb" + k, dtype, l.nOut)};
        l.bind(l.p, scratch);
      }
    }
    Tensor d = dPre;
    for (int k = dec.length - 1; k >= 0; --k) {
      d = dec[k].backward(d, true);
    }
    if (accumulate) {
      int first = 2 * (enc.length + 2);
      for (int k = 0; k < dec.length; ++k) {
        Tensor[] real = {g[first + 2 * k], g[first + 2 * k + 1]};
        Ops.add(real[0], dec[k].g[0], real[0]);
        Ops.add(real[1], dec[k].g[1], real[1]);
        dec[k].bind(dec[k].p, real);
      }
    }
    return d;
  }

  // ------------------------------------------------------------- reconstruction and sampling

  /**
   * log p(x|z) per example, averaged over {@code numSamples} draws of z from q(z|x) (An and Cho's
   * reconstruction probability, in logs), as a new [N, 1] tensor in the layer's dtype; x as this layer sees it.
   */
  public Tensor reconstructionLogProbability(Tensor x, int numSamples) {
    if (numSamples <= 0) {
      throw new IllegalArgumentException("reconstructionLogProbability: numSamples must be positive, got " + numSamples);
    }
    Tensor x2 = rows(x);
    long n = x2.shape()[0];
    Tensor mu = mean.forward(encode(x2, false), false);
    Tensor lv = logVar.forward(enc[enc.length - 1].y, false);
    Tensor std = std(lv);
    Tensor acc = buffer("acc", dtype, n).fill(0);
    Tensor rowSum = buffer("rowSum", dtype, n);
    for (int s = 0; s < numSamples; ++s) {
      Tensor eps = buffer("eps", dtype, n, nZ);
      Ops.normal(0, 1, key(), offset, dtype, eps.shape(), eps);
      offset += eps.numel();
      Tensor pre = decode(sample(mu, std, eps), false);
      Ops.sum(elementNll(x2, pre), new long[] {1}, false, rowSum);
      Ops.add(acc, rowSum, acc);
    }
    try (Tensor r = Ops.mul(acc, scalar("negInvS", -1.0 / numSamples))) {
      return r.reshape(n, 1);
    }
  }

  /** The distribution's mean given z [N, nOut] (Bernoulli: the probabilities), a new [N, nIn] tensor. */
  public Tensor generateAtMean(Tensor z) {
    Tensor pre = decode(checkZ(z), false);
    if (rec.kind == Reconstruction.Kind.BERNOULLI) {
      return Ops.sigmoid(pre);
    }
    Tensor o = Activations.forward(rec.activation, pre, buffer("gout", dtype, pre.shape()));
    try (Tensor m = o.slice(1, 0, nIn)) {
      return m.contiguous();
    }
  }

  /** A draw from p(x|z) given z [N, nOut] (Bernoulli: 0/1 values), a new [N, nIn] tensor. */
  public Tensor generateRandom(Tensor z) {
    Tensor pre = decode(checkZ(z), false);
    long n = pre.shape()[0];
    if (rec.kind == Reconstruction.Kind.BERNOULLI) {
      Tensor p = Ops.sigmoid(pre, buffer("gp", dtype, n, nIn));
      Tensor u = Ops.uniform(0, 1, key(), offset, dtype, p.shape(), buffer("gu", dtype, n, nIn));
      offset += u.numel();
      try (Tensor b = Ops.lt(u, p)) {
        return b.cast(dtype);
      }
    }
    Tensor o = Activations.forward(rec.activation, pre, buffer("gout", dtype, pre.shape()));
    Tensor e = Ops.normal(0, 1, key(), offset, dtype, new long[] {n, nIn}, buffer("ge", dtype, n, nIn));
    offset += e.numel();
    try (Tensor m = o.slice(1, 0, nIn); Tensor lv = o.slice(1, nIn, 2 * nIn)) {
      Tensor sd = Ops.mul(lv, scalar("half", 0.5), buffer("gsd", dtype, n, nIn));
      Ops.exp(sd, sd);
      Ops.mul(sd, e, sd);
      return Ops.add(m, sd);
    }
  }

  /** q(z|x)'s mean before pzxActivation (Deeplearning4j's preOutput), a new [N, nOut] tensor. */
  public Tensor meanPreOutput(Tensor x) {
    Tensor h = encode(rows(x), false);
    return Ops.linear(h, mean.p[0], mean.p[1], false, 0, Activations.LEAKY_ALPHA, null);
  }

  /** q(z|x)'s mean (pzxActivation applied), a new [N, nOut] tensor in the layer's dtype. */
  public Tensor encodeMean(Tensor x, boolean training) {
    return Ops.copy(forward(rows(x), training), null);
  }

  // --------------------------------------------------------------------------------- pieces

  private Tensor rows(Tensor x) {
    long[] s = x.shape();
    long f = 1;
    for (int i = 1; i < s.length; ++i) {
      f *= s[i];
    }
    if (s.length < 2 || f != nIn) {
      throw new IllegalArgumentException("VariationalAutoencoder: input has shape " + java.util.Arrays.toString(s)
          + " but the layer takes [N, " + nIn + "]");
    }
    Tensor c = asCompute("xc", x);
    return s.length == 2 ? c : view("x2", c, s[0], nIn);
  }

  private Tensor checkZ(Tensor z) {
    long[] s = z.shape();
    if (s.length != 2 || s[1] != nZ) {
      throw new IllegalArgumentException("VariationalAutoencoder: z has shape " + java.util.Arrays.toString(s)
          + " but the latent space has " + nZ + " values per example: [N, " + nZ + "]");
    }
    return asCompute("zc", z);
  }

  private long key() {
    return seed + ((long) randomStream() << 32);
  }

  private Tensor std(Tensor lv) {
    Tensor std = Ops.mul(lv, scalar("half", 0.5), buffer("std", dtype, lv.shape()));
    return Ops.exp(std, std);
  }

  private Tensor sample(Tensor mu, Tensor std, Tensor eps) {
    Tensor z = Ops.mul(std, eps, buffer("z", dtype, mu.shape()));
    return Ops.add(z, mu, z);
  }

  /** Pretraining's eps for sample s: the fixed noise's slice, else the next draws of the stream. */
  private Tensor noise(int s, long n) {
    Tensor eps = buffer("eps", dtype, n, nZ);
    if (fixedNoise != null) {
      try (Tensor f = fixedNoise.slice(0, s, s + 1); Tensor v = f.reshape(n, nZ)) {
        return Ops.copy(v, eps);
      }
    }
    Ops.normal(0, 1, key(), offset, dtype, eps.shape(), eps);
    offset += eps.numel();
    return eps;
  }

  /** -log p(x_ij | z) per element, [N, nIn] (a buffer). */
  private Tensor elementNll(Tensor x2, Tensor pre) {
    Tensor e = buffer("nll", dtype, x2.shape());
    if (rec.kind == Reconstruction.Kind.BERNOULLI) {
      return Ops.bceWithLogits(pre, x2, 0, e);
    }
    gaussianParts(x2, pre);
    // (x - mu)^2 / var / 2 + lv / 2 + log(2 pi) / 2
    Ops.mul(buffer("sq", dtype, x2.shape()), scalar("half", 0.5), e);
    Tensor lvh = Ops.mul(buffer("glv", dtype, x2.shape()), scalar("half", 0.5), buffer("lvh", dtype, x2.shape()));
    Ops.add(e, lvh, e);
    return Ops.add(e, scalar("hl2pi", HALF_LOG_2PI), e);
  }

  /** Gaussian: mean "gmu", log-variance "glv", 1 / var "ivar", x - mean "diff", (x - mean)^2 / var "sq". */
  private void gaussianParts(Tensor x2, Tensor pre) {
    long[] s = x2.shape();
    Tensor o = Activations.forward(rec.activation, pre, buffer("gout", dtype, pre.shape()));
    try (Tensor m = o.slice(1, 0, nIn); Tensor l = o.slice(1, nIn, 2 * nIn)) {
      Tensor mu = Ops.copy(m, buffer("gmu", dtype, s));
      Tensor lv = Ops.copy(l, buffer("glv", dtype, s));
      Tensor ivar = Ops.neg(lv, buffer("ivar", dtype, s));
      Ops.exp(ivar, ivar);
      Tensor diff = Ops.sub(x2, mu, buffer("diff", dtype, s));
      Tensor sq = Ops.square(diff, buffer("sq", dtype, s));
      Ops.mul(sq, ivar, sq);
    }
  }

  /** d(sum of the element NLLs * scale)/d pre, after {@link #elementNll} on the same x and pre. */
  private Tensor nllBackward(Tensor x2, Tensor pre, Tensor scale) {
    Tensor dPre = buffer("dPre", dtype, pre.shape());
    if (rec.kind == Reconstruction.Kind.BERNOULLI) {
      return Ops.bceWithLogitsBp(pre, x2, scale, 2, dPre);
    }
    long[] s = x2.shape();
    // d/dmu = -(x - mu) / var; d/dlv = (1 - (x - mu)^2 / var) / 2
    Tensor dm = Ops.mul(buffer("diff", dtype, s), buffer("ivar", dtype, s), buffer("dgm", dtype, s));
    Ops.mul(dm, scale, dm);
    Ops.neg(dm, dm);
    Tensor dl = Ops.sub(scalar("one", 1), buffer("sq", dtype, s), buffer("dgl", dtype, s));
    Ops.mul(dl, scale, dl);
    Ops.mul(dl, scalar("half", 0.5), dl);
    Tensor dOut = Ops.concat(new Tensor[] {dm, dl}, 1, buffer("dgout", dtype, pre.shape()));
    Tensor o = buffer("gout", dtype, pre.shape());
    return Activations.backward(rec.activation, pre, rec.activation == Activation.IDENTITY ? pre : o, dOut, dPre);
  }

  private Tensor scalar(String key, double v) {
    return buffer("s:" + key, dtype).fill(v);
  }

  private double sum(Tensor t) {
    return Ops.sum(t, new long[0], false, buffer("total", dtype)).item();
  }

  @Override
  public void close() {
    for (DenseImpl l : all) {
      l.close();
    }
    super.close();
  }
}
