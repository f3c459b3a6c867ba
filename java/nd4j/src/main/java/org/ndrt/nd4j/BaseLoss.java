package org.ndrt.nd4j;

import java.util.Arrays;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.activations.IActivation;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.lossfunctions.ILossFunction;

/**
 * What ND4J's loss functions share, once: the activation applied to a copy of the pre-output, a
 * per-element score array (class weights and mask applied), its sum per example or over the
 * minibatch, and dL/dz as dL/da through the activation's backward. Subclasses give the per-element
 * score and dL/da; every step is INDArray arithmetic, so runtime ops.
 */
public abstract class BaseLoss implements ILossFunction {
  private static final long serialVersionUID = 1L;
  protected final INDArray weights;

  protected BaseLoss(INDArray weights) {
    if (weights != null && !weights.isRowVectorOrScalar() && !weights.isVector()) {
      throw new IllegalArgumentException("Weights array must be a row vector");
    }
    this.weights = weights;
  }

  public INDArray getWeights() {
    return weights;
  }

  /** The per-element score of {@code output} = activation(preOutput) against {@code labels}. */
  protected abstract INDArray elementScores(INDArray labels, INDArray output, IActivation activationFn,
      INDArray preOutput);

  /** dL/da per element (before weights, mask and {@link #divisor}). */
  protected abstract INDArray dLda(INDArray labels, INDArray output);

  /** +1, or -1 where the per-element score is a log-likelihood (the cross-entropies). */
  protected double sign() {
    return 1;
  }

  /** What the per-example sum is divided by: 1, or the number of outputs for the mean losses. */
  protected double divisor(INDArray labels) {
    return 1;
  }

  protected static void checkShapes(INDArray labels, INDArray preOutput) {
    if (!labels.equalShapes(preOutput)) {
      throw new IllegalStateException("Labels and preOutput must have equal shapes: got shapes "
          + Arrays.toString(labels.shape()) + " vs " + Arrays.toString(preOutput.shape()));
    }
  }

  protected void checkWeights(INDArray preOutput) {
    if (weights != null && weights.length() != preOutput.size(1)) {
      throw new IllegalStateException("Weights vector (length " + weights.length()
          + ") does not match output.size(1)=" + preOutput.size(1));
    }
  }

  /** ND4J's LossUtil.applyMask: a column vector masks examples, an array of the score's shape outputs. */
  protected static void applyMask(INDArray to, INDArray mask) {
    if (mask.isColumnVectorOrScalar()) {
      to.muliColumnVector(mask.castTo(to.dataType()));
    } else if (Arrays.equals(to.shape(), mask.shape())) {
      to.muli(mask.castTo(to.dataType()));
    } else {
      throw new IllegalStateException("Invalid mask array: per-example masking should be a column vector, "
          + "per output masking arrays should be the same shape as the labels array. Mask shape: "
          + Arrays.toString(mask.shape()) + ", output shape: " + Arrays.toString(to.shape()));
    }
  }

  /** The weighted, masked per-element scores (before the sign). */
  protected INDArray scoreArray(INDArray labels, INDArray preOutput, IActivation activationFn, INDArray mask) {
    checkShapes(labels, preOutput);
    checkWeights(preOutput);
    INDArray y = labels.castTo(preOutput.dataType());
    INDArray output = activationFn.getActivation(preOutput.dup(), true);
    INDArray s = elementScores(y, output, activationFn, preOutput);
    if (weights != null) {
      s.muliRowVector(weights.castTo(s.dataType()));
    }
    if (mask != null) {
      applyMask(s, mask);
    }
    return s;
  }

  @Override
  public double computeScore(INDArray labels, INDArray preOutput, IActivation activationFn, INDArray mask,
      boolean average) {
    INDArray s = scoreArray(labels, preOutput, activationFn, mask);
    double score = sign() * s.sumNumber().doubleValue() / divisor(labels);
    return average ? score / s.size(0) : score;
  }

  @Override
  public INDArray computeScoreArray(INDArray labels, INDArray preOutput, IActivation activationFn, INDArray mask) {
    INDArray s = scoreArray(labels, preOutput, activationFn, mask);
    return s.sum(true, 1).muli(sign() / divisor(labels));
  }

  @Override
  public INDArray computeGradient(INDArray labels, INDArray preOutput, IActivation activationFn, INDArray mask) {
    checkShapes(labels, preOutput);
    checkWeights(preOutput);
    INDArray y = labels.castTo(preOutput.dataType());
    INDArray output = activationFn.getActivation(preOutput.dup(), true);
    INDArray d = dLda(y, output);
    if (weights != null) {
      d.muliRowVector(weights.castTo(d.dataType()));
    }
    if (mask != null && !mask.isColumnVectorOrScalar()) {
      applyMask(d, mask); // per-output masks: softmax's backward mixes outputs, so mask dL/da too
    }
    INDArray grad = activationFn.backprop(preOutput.dup(), d).getFirst();
    return finishGradient(grad, labels, mask);
  }

  protected INDArray finishGradient(INDArray grad, INDArray labels, INDArray mask) {
    if (mask != null) {
      applyMask(grad, mask);
    }
    double div = divisor(labels);
    return div == 1 ? grad : grad.divi(div);
  }

  @Override
  public Pair<Double, INDArray> computeGradientAndScore(INDArray labels, INDArray preOutput, IActivation activationFn,
      INDArray mask, boolean average) {
    return new Pair<>(computeScore(labels, preOutput, activationFn, mask, average),
        computeGradient(labels, preOutput, activationFn, mask));
  }

  @Override
  public String name() {
    return toString();
  }

  @Override
  public boolean equals(Object o) {
    return o != null && o.getClass() == getClass() && o.toString().equals(toString());
  }

  @Override
  public int hashCode() {
    return toString().hashCode();
  }

  /** ND4J's toString form: {@code Name()} or {@code Name(weights=...)}. */
  protected String describe(String name) {
    return weights == null ? name + "()" : name + "(weights=" + weights + ")";
  }
}
