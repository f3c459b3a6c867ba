package org.ndrt.nn.layers;

import java.util.ArrayList;
import java.util.List;
import org.ndrt.DType;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.nn.conf.layers.CenterLossOutputLayer;

/**
 * CenterLossOutputLayer: OutputImpl's loss plus lambda / (2N) sum_i |f_i - c_{y_i}|^2 over the input
 * features f, its gradient lambda (f_i - c_{y_i}) / N added to dx; the centers (a STATE parameter,
 * outside the updater, as Deeplearning4j's NoOp updater for cL) move after the update by the step
 * {@link #backwardFromLoss} computed. Labels are one-hot rows, so L c gives each example its center.
 */
final class CenterLossImpl extends OutputImpl {
  private final double alpha;
  private final double lambda;
  private final boolean gradientCheck;
  private final boolean miniBatch;
  private Tensor diff;  // f - c_y [N, nIn] of the last loss
  private Tensor lab;   // the labels in the compute dtype
  private boolean pending;  // a center step waits for afterUpdate

  CenterLossImpl(CenterLossOutputLayer conf, boolean miniBatch, DType dtype) {
    super(conf, dtype);
    if (dtype != DType.F32 && dtype != DType.F64) {
      throw new UnsupportedOperationException("CenterLossOutputLayer: not under mixed precision (dataType " + dtype + ")");
    }
    this.alpha = conf.alpha();
    this.lambda = conf.lambda();
    this.gradientCheck = conf.gradientCheck();
    this.miniBatch = miniBatch;
  }

  @Override
  public List<ParamSpec> params() {
    List<ParamSpec> l = new ArrayList<>(super.params());
    l.add(ParamSpec.state("cL", 0, nOut, nIn));
    return l;
  }

  private Tensor scalar(String key, double v) {
    return buffer(key, dtype).fill(v);
  }

  @Override
  Tensor loss(Tensor labels) {
    Tensor l = super.loss(labels);
    long n = x2.shape()[0];
    lab = labels.dtype() == dtype ? labels : Ops.cast(labels, dtype, buffer("lab", dtype, labels.shape()));
    Tensor cy = Ops.matmul(lab, p[2], false, false, buffer("cy", dtype, n, nIn));
    diff = Ops.sub(x2, cy, buffer("diff", dtype, n, nIn));
    Tensor sq = Ops.square(diff, buffer("sq", dtype, n, nIn));
    Tensor s = Ops.sum(sq, new long[] {0, 1}, false, buffer("csum", dtype));
    Ops.mul(s, scalar("k", lambda / (2.0 * n)), s);
    return Ops.add(l, s, l);
  }

  @Override
  Tensor backwardFromLoss(Tensor labels, Tensor scale, boolean needDx) {
    Tensor dx = super.backwardFromLoss(labels, scale, needDx);
    long n = x2.shape()[0];
    Tensor dx2 = buffer("dx", dtype, x2.shape());  // linearBackward's: dx is it or a view of it
    Tensor t = Ops.mul(diff, scalar("gk", lambda / n), buffer("gt", dtype, n, nIn));
    Ops.mul(t, scale.dtype() == dtype ? scale : Ops.cast(scale, dtype, buffer("gs", dtype)), t);
    Ops.add(dx2, t, dx2);
    // The center step DL4J's NoOp updater applies: alpha sum_{y_i=j}(f_i - c_j) / (1 + n_j), / N per minibatch.
    Tensor step = Ops.matmul(lab, diff, true, false, buffer("dc", dtype, nOut, nIn));
    double k = alpha / (miniBatch ? n : 1);
    if (gradientCheck) {
      Ops.mul(step, scalar("ck", k * lambda), step);
    } else {
      Tensor count = Ops.sum(lab, new long[] {0}, false, buffer("cnt", dtype, nOut));
      Ops.add(count, scalar("one", 1), count);
      Tensor den = view("den", count, nOut, 1);
      Ops.div(step, den, step);
      Ops.mul(step, scalar("ck", k), step);
    }
    pending = true;
    return dx;
  }

  @Override
  public void afterUpdate() {
    if (pending) {
      Ops.add(p[2], buffer("dc", dtype, nOut, nIn), p[2]);
      pending = false;
    }
  }
}
