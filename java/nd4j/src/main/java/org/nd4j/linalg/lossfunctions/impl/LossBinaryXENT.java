package org.nd4j.linalg.lossfunctions.impl;

import org.nd4j.linalg.activations.IActivation;
import org.nd4j.linalg.activations.impl.ActivationSoftmax;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.ops.transforms.Transforms;
import org.ndrt.nd4j.BaseLoss;

/**
 * Binary cross-entropy, -sum(y log(p) + (1 - y) log(1 - p)) per example with p clipped to
 * [eps, 1 - eps], as ND4J's LossBinaryXENT (with a softmax output: -sum(y log softmax), unclipped).
 */
public class LossBinaryXENT extends BaseLoss {
  private static final long serialVersionUID = 1L;
  public static final double DEFAULT_CLIPPING_EPSILON = 1e-5;
  private final double clipEps;

  public LossBinaryXENT() {
    this(DEFAULT_CLIPPING_EPSILON, null);
  }

  public LossBinaryXENT(INDArray weights) {
    this(DEFAULT_CLIPPING_EPSILON, weights);
  }

  public LossBinaryXENT(double clipEps) {
    this(clipEps, null);
  }

  public LossBinaryXENT(double clipEps, INDArray weights) {
    super(weights);
    if (clipEps < 0 || clipEps > 0.5) {
      throw new IllegalArgumentException("Invalid clipping epsilon: must be >= 0 and <= 0.5 (got " + clipEps + ")");
    }
    this.clipEps = clipEps;
  }

  public double getClipEps() {
    return clipEps;
  }

  @Override
  protected double sign() {
    return -1;
  }

  private INDArray clip(INDArray p) {
    return clipEps > 0 ? Transforms.min(Transforms.max(p, clipEps, false), 1.0 - clipEps, false) : p;
  }

  @Override
  protected INDArray elementScores(INDArray labels, INDArray output, IActivation activationFn, INDArray preOutput) {
    if (activationFn instanceof ActivationSoftmax) {
      return Transforms.log(Transforms.softmax(preOutput, true), false).muli(labels);
    }
    INDArray p = clip(output);
    INDArray s = Transforms.log(p, true).muli(labels);
    INDArray second = Transforms.log(p.rsubi(1), false).muli(labels.rsub(1));
    return s.addi(second);
  }

  @Override
  protected INDArray dLda(INDArray labels, INDArray output) {
    INDArray p = clip(output);
    INDArray numerator = p.sub(labels);
    INDArray denominator = p.mul(p.rsub(1));
    return numerator.divi(denominator);
  }

  @Override
  public String toString() {
    return describe("LossBinaryXENT");
  }
}
