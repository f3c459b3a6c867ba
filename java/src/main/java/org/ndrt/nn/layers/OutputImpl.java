package org.ndrt.nn.layers;

import org.ndrt.DType;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.LossFunction;
import org.ndrt.nn.conf.layers.OutputLayer;

/**
 * The output layer: forward gives the pre-activation z (logits); the loss and its gradient are
 * computed in f32 (z is cast under mixed precision), fused with the activation where the pair has a
 * fused op (softmax + cross-entropy, sigmoid + binary cross-entropy). A layer computing in f64
 * (gradient checks) computes its loss in f64 too.
 */
class OutputImpl extends DenseImpl {
  private final LossFunction loss;
  protected final DType lossType;
  private Tensor zf;
  private Tensor pred;

  OutputImpl(OutputLayer conf, DType dtype) {
    super(conf, dtype);
    this.loss = conf.lossFunction();
    this.lossType = dtype == DType.F64 ? DType.F64 : DType.F32;
  }

  @Override
  public Tensor forward(Tensor in, boolean training) {
    z = linear(in, 0, "z");
    return z;
  }

  /** The activated output (probabilities for softmax) as a new f32 tensor the caller closes. */
  Tensor activate() {
    Tensor f = asF32("zf", z);
    return act == Activation.IDENTITY ? Ops.copy(f, null) : Activations.forward(act, f, null);
  }

  /** The mean loss over the minibatch (a rank-0 f32 buffer) for one-hot / target rows {@code labels}. */
  Tensor loss(Tensor labels) {
    zf = lossType == DType.F64 ? z : asF32("zf", z);
    Tensor l = buffer("loss", lossType);
    switch (loss) {
      case NEGATIVELOGLIKELIHOOD:
      case MCXENT:
        return Ops.softmaxCrossEntropySoft(zf, labels, 1, l);
      case XENT:
        return Ops.bceWithLogits(zf, labels, 1, l);
      case MSE:
        pred = Activations.forward(act, zf, buffer("pred", lossType, zf.shape()));
        return Ops.mseLoss(pred, labels, 1, l);
      case L1:
        pred = Activations.forward(act, zf, buffer("pred", lossType, zf.shape()));
        return Ops.l1Loss(pred, labels, 1, l);
      default:
        throw new IllegalStateException("loss " + loss);
    }
  }

  /** Backward from the loss computed by {@link #loss}; {@code scale} is the rank-0 dL (the loss scale). */
  Tensor backwardFromLoss(Tensor labels, Tensor scale, boolean needDx) {
    Tensor dzf = buffer("dzf", lossType, zf.shape());
    if (scale.dtype() != lossType) {
      scale = Ops.cast(scale, lossType, buffer("scale", lossType));
    }
    switch (loss) {
      case NEGATIVELOGLIKELIHOOD:
      case MCXENT:
        Ops.softmaxCrossEntropySoftBp(zf, labels, scale, 1, dzf);
        break;
      case XENT:
        Ops.bceWithLogitsBp(zf, labels, scale, 1, dzf);
        break;
      case MSE:
      case L1: {
        Tensor dpred = buffer("dpred", lossType, zf.shape());
        if (loss == LossFunction.MSE) {
          Ops.mseLossBp(pred, labels, scale, 1, dpred);
        } else {
          Ops.l1LossBp(pred, labels, scale, 1, dpred);
        }
        dzf = Activations.backward(act, zf, pred, dpred, dzf);
        break;
      }
      default:
        throw new IllegalStateException("loss " + loss);
    }
    return linearBackward(z, asCompute("dz", dzf), 0);
  }

  @Override
  public Tensor backward(Tensor dy, boolean needDx) {
    throw new IllegalStateException("the output layer starts the backward pass from its loss");
  }
}
