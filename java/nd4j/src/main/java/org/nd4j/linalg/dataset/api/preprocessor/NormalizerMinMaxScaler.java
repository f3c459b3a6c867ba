package org.nd4j.linalg.dataset.api.preprocessor;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.api.preprocessor.serializer.NormalizerType;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.ops.transforms.Transforms;
import org.ndrt.nd4j.BaseNormalizer;

/**
 * Each feature scaled from [min, max] (as fitted) to [minRange, maxRange], as ND4J's
 * NormalizerMinMaxScaler; a feature whose max - min is under 1e-5 gets max = min + 1e-5.
 */
public class NormalizerMinMaxScaler extends BaseNormalizer {
  private static final long serialVersionUID = 1L;
  private final double minRange;
  private final double maxRange;
  private INDArray min, max, range, labelMin, labelMax, labelRange;

  public NormalizerMinMaxScaler() {
    this(0.0, 1.0);
  }

  public NormalizerMinMaxScaler(double minRange, double maxRange) {
    this.minRange = minRange;
    this.maxRange = Math.max(maxRange, minRange + Nd4j.EPS_THRESHOLD);
  }

  /** ND4J's MinMaxStats: a zero range is padded to 1e-5 (on the upper bound). */
  private static INDArray[] bounds(INDArray lower, INDArray upper) {
    INDArray diff = upper.sub(lower);
    INDArray padding = Transforms.max(diff, Nd4j.EPS_THRESHOLD, true).subi(diff);
    INDArray up = upper.add(padding);
    return new INDArray[] {lower, up, up.sub(lower)};
  }

  public void setFeatureStats(INDArray featureMin, INDArray featureMax) {
    INDArray[] b = bounds(featureMin, featureMax);
    min = b[0];
    max = b[1];
    range = b[2];
  }

  public void setLabelStats(INDArray labelMin, INDArray labelMax) {
    INDArray[] b = bounds(labelMin, labelMax);
    this.labelMin = b[0];
    this.labelMax = b[1];
    labelRange = b[2];
  }

  public double getTargetMin() {
    return minRange;
  }

  public double getTargetMax() {
    return maxRange;
  }

  public INDArray getMin() {
    return min;
  }

  public INDArray getMax() {
    return max;
  }

  public INDArray getLabelMin() {
    return labelMin;
  }

  public INDArray getLabelMax() {
    return labelMax;
  }

  @Override
  protected void fitted() {
    setFeatureStats(featureStats.row(featureStats.min), featureStats.row(featureStats.max));
    if (labelStats != null) {
      setLabelStats(labelStats.row(labelStats.min), labelStats.row(labelStats.max));
    }
  }

  @Override
  protected boolean hasStats(boolean features) {
    return features ? min != null : labelMin != null;
  }

  @Override
  protected void forward(INDArray a, boolean features) {
    a.subi(along1(features ? min : labelMin, a));
    a.divi(along1(features ? range : labelRange, a));
    a.muli(maxRange - minRange);
    a.addi(minRange);
  }

  @Override
  protected void backward(INDArray a, boolean features) {
    a.subi(minRange);
    a.divi(maxRange - minRange);
    a.muli(along1(features ? range : labelRange, a));
    a.addi(along1(features ? min : labelMin, a));
  }

  @Override
  public NormalizerType getType() {
    return NormalizerType.MIN_MAX;
  }

  public void load(java.io.File... statistics) {
    throw new UnsupportedOperationException("NormalizerMinMaxScaler.load: Nd4j.readBinary is not in ndrt yet");
  }

  public void save(java.io.File... files) {
    throw new UnsupportedOperationException("NormalizerMinMaxScaler.save: Nd4j.saveBinary is not in ndrt yet");
  }
}
