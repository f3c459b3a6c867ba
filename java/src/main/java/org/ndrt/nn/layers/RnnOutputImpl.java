package org.ndrt.nn.layers;

import java.util.Arrays;
import org.ndrt.DType;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.LossFunction;
import org.ndrt.nn.conf.layers.RnnOutputLayer;

/**
 * The output layer at every time step: the input [N, T, nIn] as rows [N T, nIn] through the linear
 * op (z [N T, nOut]), the loss per row (reduction none) weighted by w = mask / N and summed, so
 * masked steps add nothing and the score is Deeplearning4j's (sum over valid steps / N). Labels come
 * in Deeplearning4j's [N, nOut, T] and are transposed to rows here. Computes the loss in f32, or in
 * f64 when the layer computes in f64.
 */
final class RnnOutputImpl extends DenseImpl {
  /** Keeps the loss weights cached per shape in its buffers between passes. */
  @Override
  public boolean releasableBetweenPasses() {
    return false;
  }

  private final LossFunction loss;
  private final DType lossType;
  private Tensor mask;       // [N, T] weights of the steps (label mask, else features mask), or null
  private long n;
  private long t;
  private Tensor zl;         // z in the loss dtype
  private Tensor labRows;    // labels as rows [N T, nOut] in the loss dtype
  private Tensor w;          // [N T]: mask / N
  private Tensor wc;         // [N T, 1]: w / nOut (the losses averaged over the outputs)
  private Tensor pred;
  private long weightsFor = -1;  // (n, t) the unmasked weights were computed for, as n * 2^32 + t

  RnnOutputImpl(RnnOutputLayer conf, DType dtype) {
    super(conf, dtype);
    this.loss = conf.lossFunction();
    this.lossType = dtype == DType.F64 ? DType.F64 : DType.F32;
  }

  /** The weights of the steps for the next loss/output ([N, T], 1 = valid), or null for all valid. */
  void setMask(Tensor mask) {
    if (mask != null || this.mask != null) {
      weightsFor = -1;
    }
    this.mask = mask;
  }

  @Override
  public Tensor forward(Tensor in, boolean training) {
    long[] s = in.shape();
    if (s.length != 3) {
      throw new IllegalArgumentException("RnnOutputLayer: input has shape " + Arrays.toString(s) + ", expected [N, T, "
          + nIn + "]");
    }
    n = s[0];
    t = s[1];
    Tensor x = in.isContiguous() ? in : Ops.copy(in, buffer("xc", dtype, s));
    z = linear(view("rows", x, n * t, nIn), 0, "z");
    return z;
  }

  /** The labels [N, nOut, T] as rows [N T, nOut] in the loss dtype. */
  private Tensor labelRows(Tensor labels) {
    long[] s = labels.shape();
    if (s.length != 3 || s[0] != n || s[1] != nOut || s[2] != t) {
      throw new IllegalArgumentException("labels have shape " + Arrays.toString(s) + " but the RnnOutputLayer needs [" + n
          + ", " + nOut + ", " + t + "] ([N, nOut, T], as the features' N and T)");
    }
    Tensor lab = buffer("lab", lossType, n, t, nOut);
    try (Tensor v = labels.permute(0, 2, 1)) {
      if (labels.dtype() == lossType) {
        Ops.copy(v, lab);
      } else {
        Ops.cast(v, lossType, lab);
      }
    }
    return view("labRows", lab, n * t, nOut);
  }

  /** w = mask / N per row [N T] and wc = w / nOut [N T, 1], from the mask (or all ones). */
  private void weights() {
    long key = (n << 32) + t;
    if (mask == null && weightsFor == key) {
      return;
    }
    double[] m = new double[Math.toIntExact(n * t)];
    if (mask != null) {
      long[] ms = mask.shape();
      if (ms.length != 2 || ms[0] != n || ms[1] != t) {
        throw new IllegalArgumentException("the labels mask has shape " + Arrays.toString(ms) + ", expected [" + n + ", " + t
            + "] ([N, T], 1 = a valid step)");
      }
      double[] v = mask.toDoubleArray();
      for (int i = 0; i < m.length; ++i) {
        m[i] = v[i] / n;
      }
    } else {
      Arrays.fill(m, 1.0 / n);
    }
    double[] mc = new double[m.length];
    for (int i = 0; i < m.length; ++i) {
      mc[i] = m[i] / nOut;
    }
    w = buffer("w", lossType, n * t);
    wc = buffer("wc", lossType, n * t, 1);
    if (lossType == DType.F64) {
      w.copyFrom(m);
      wc.copyFrom(mc);
    } else {
      w.copyFrom(toFloats(m));
      wc.copyFrom(toFloats(mc));
    }
    weightsFor = mask == null ? key : -1;
  }

  private static float[] toFloats(double[] d) {
    float[] f = new float[d.length];
    for (int i = 0; i < d.length; ++i) {
      f[i] = (float) d[i];
    }
    return f;
  }

  /** z in the loss dtype. */
  private Tensor zLoss() {
    if (z.dtype() == lossType) {
      return z;
    }
    Tensor b = buffer("zl", lossType, z.shape());
    return Ops.cast(z, lossType, b);
  }

  /** The loss (rank 0, loss dtype): sum over the valid steps of the per-step loss, / N. */
  Tensor loss(Tensor labels) {
    labRows = labelRows(labels);
    weights();
    zl = zLoss();
    Tensor out = buffer("loss", lossType);
    long rows = n * t;
    switch (loss) {
      case NEGATIVELOGLIKELIHOOD:
      case MCXENT: {
        Tensor l = Ops.softmaxCrossEntropySoft(zl, labRows, 0, buffer("lrow", lossType, rows));
        Ops.mul(l, w, l);
        return Ops.sum(l, new long[0], false, out);
      }
      case XENT:
      case MSE:
      case L1: {
        Tensor l = buffer("lel", lossType, rows, nOut);
        if (loss == LossFunction.XENT) {
          Ops.bceWithLogits(zl, labRows, 0, l);
        } else {
          pred = Activations.forward(act, zl, buffer("pred", lossType, rows, nOut));
          if (loss == LossFunction.MSE) {
            Ops.mseLoss(pred, labRows, 0, l);
          } else {
            Ops.l1Loss(pred, labRows, 0, l);
          }
        }
        Ops.mul(l, wc, l);
        return Ops.sum(l, new long[0], false, out);
      }
      default:
        throw new IllegalStateException("loss " + loss);
    }
  }

  /** Backward from {@link #loss}; {@code scale} is dL (rank 0). */
  Tensor backwardFromLoss(Tensor scale, boolean needDx) {
    Tensor sc = scale.dtype() == lossType ? scale : Ops.cast(scale, lossType, buffer("scale", lossType));
    long rows = n * t;
    Tensor dzl = buffer("dzl", lossType, rows, nOut);
    switch (loss) {
      case NEGATIVELOGLIKELIHOOD:
      case MCXENT: {
        Tensor dl = Ops.mul(w, sc, buffer("dl", lossType, rows));
        Ops.softmaxCrossEntropySoftBp(zl, labRows, dl, 0, dzl);
        break;
      }
      case XENT:
      case MSE:
      case L1: {
        Tensor dl = buffer("dle", lossType, rows, nOut);
        try (Tensor wcE = wc.expand(rows, nOut)) {
          Ops.mul(wcE, sc, dl);
        }
        if (loss == LossFunction.XENT) {
          Ops.bceWithLogitsBp(zl, labRows, dl, 0, dzl);
        } else {
          Tensor dpred = buffer("dpred", lossType, rows, nOut);
          if (loss == LossFunction.MSE) {
            Ops.mseLossBp(pred, labRows, dl, 0, dpred);
          } else {
            Ops.l1LossBp(pred, labRows, dl, 0, dpred);
          }
          dzl = Activations.backward(act, zl, pred, dpred, dzl);
        }
        break;
      }
      default:
        throw new IllegalStateException("loss " + loss);
    }
    Tensor dz = dzl.dtype() == dtype ? dzl : Ops.cast(dzl, dtype, buffer("dz", dtype, dzl.shape()));
    Tensor dx = linearBackward(z, dz, 0);
    return needDx ? view("dx3", dx, n, t, nIn) : null;
  }

  /**
   * The activated output as a new f32 tensor [N, nOut, T] the caller closes; 0 at steps the mask
   * marks invalid.
   */
  Tensor activate() {
    Tensor f = asF32("zf", z);
    Tensor a = act == Activation.IDENTITY ? f : Activations.forward(act, f, buffer("act", DType.F32, f.shape()));
    if (mask != null) {
      float[] m = mask.toFloatArray();
      if (m.length != n * t) {
        throw new IllegalArgumentException("the mask has shape " + Arrays.toString(mask.shape()) + ", expected [" + n
            + ", " + t + "]");
      }
      Tensor mr = buffer("maskRows", DType.F32, n * t, 1).copyFrom(m);
      a = Ops.mul(a, mr, buffer("masked", DType.F32, f.shape()));
    }
    try (Tensor a3 = a.reshape(n, t, nOut)) {
      return Ops.transposeCopy(a3, new long[] {0, 2, 1});
    }
  }

  /** The pre-activation rows [N T, nOut] of the last forward pass and its (N, T). */
  Tensor logits() {
    return z;
  }

  long steps() {
    return t;
  }

  @Override
  public Tensor backward(Tensor dy, boolean needDx) {
    throw new IllegalStateException("the output layer starts the backward pass from its loss");
  }
}
