package org.nd4j.linalg.lossfunctions.impl;

import org.nd4j.linalg.activations.IActivation;
import org.nd4j.linalg.activations.impl.ActivationSoftmax;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.indexing.BooleanIndexing;
import org.nd4j.linalg.indexing.conditions.Conditions;
import org.nd4j.linalg.ops.transforms.Transforms;
import org.ndrt.nd4j.BaseLoss;

/**
 * Multi-class cross-entropy, -sum(labels * log(output)) per example, as ND4J's LossMCXENT: a softmax
 * output is clipped to [eps, 1 - eps] for the score, and its gradient is output - labels.
 */
public class LossMCXENT extends BaseLoss {
  private static final long serialVersionUID = 1L;
  private static final double DEFAULT_SOFTMAX_CLIPPING_EPSILON = 1e-10;
  protected final double softmaxClipEps;

  public LossMCXENT() {
    this(null);
  }

  public LossMCXENT(INDArray weights) {
    this(DEFAULT_SOFTMAX_CLIPPING_EPSILON, weights);
  }

  public LossMCXENT(double softmaxClipEps, INDArray weights) {
    super(weights);
    if (softmaxClipEps < 0 || softmaxClipEps > 0.5) {
      throw new IllegalArgumentException("Invalid clipping epsilon value: epsilon should be >= 0 (but near zero)."
          + " Got: " + softmaxClipEps);
    }
    this.softmaxClipEps = softmaxClipEps;
  }

  public double getSoftmaxClipEps() {
    return softmaxClipEps;
  }

  @Override
  protected double sign() {
    return -1;
  }

  @Override
  protected INDArray elementScores(INDArray labels, INDArray output, IActivation activationFn, INDArray preOutput) {
    if (activationFn instanceof ActivationSoftmax && softmaxClipEps > 0) {
      BooleanIndexing.replaceWhere(output, softmaxClipEps, Conditions.lessThan(softmaxClipEps));
      BooleanIndexing.replaceWhere(output, 1.0 - softmaxClipEps, Conditions.greaterThan(1.0 - softmaxClipEps));
    }
    return Transforms.log(output, false).muli(labels);
  }

  @Override
  protected INDArray dLda(INDArray labels, INDArray output) {
    return output.rdivi(labels).negi();
  }

  @Override
  public INDArray computeGradient(INDArray labels, INDArray preOutput, IActivation activationFn, INDArray mask) {
    if (!(activationFn instanceof ActivationSoftmax)) {
      return super.computeGradient(labels, preOutput, activationFn, mask);
    }
    checkShapes(labels, preOutput);
    checkWeights(preOutput);
    if (mask != null && !mask.isColumnVectorOrScalar()) {
      throw new UnsupportedOperationException("Per output masking for MCXENT + softmax: not supported");
    }
    INDArray y = labels.castTo(preOutput.dataType());
    INDArray output = activationFn.getActivation(preOutput.dup(), true);
    INDArray grad;
    if (weights != null) {
      // d/dz of -sum(w y log softmax(z)) = softmax(z) * sum(w y) - w y
      INDArray wy = y.mulRowVector(weights.castTo(y.dataType()));
      grad = output.muliColumnVector(wy.sum(true, 1)).subi(wy);
    } else {
      grad = output.subi(y);
    }
    return finishGradient(grad, labels, mask);
  }

  @Override
  public String toString() {
    return weights == null ? "LossMCXENT()" : "LossMCXENT(weights=" + weights + ")";
  }
}
