package org.nd4j.linalg.dataset.api.preprocessor;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.api.preprocessor.serializer.NormalizerType;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.ops.transforms.Transforms;
import org.ndrt.nd4j.BaseNormalizer;

/**
 * Zero mean, unit variance per feature, as ND4J's NormalizerStandardize: (x - mean) / std with the
 * population std, at least 1e-5 (Nd4j.EPS_THRESHOLD).
 */
public class NormalizerStandardize extends BaseNormalizer {
  private static final long serialVersionUID = 1L;
  private INDArray mean, std, labelMean, labelStd;

  public NormalizerStandardize() {}

  public NormalizerStandardize(INDArray featureMean, INDArray featureStd) {
    setFeatureStats(featureMean, featureStd);
  }

  public NormalizerStandardize(INDArray featureMean, INDArray featureStd, INDArray labelMean, INDArray labelStd) {
    setFeatureStats(featureMean, featureStd);
    setLabelStats(labelMean, labelStd);
    fitLabel(true);
  }

  public void setFeatureStats(INDArray featureMean, INDArray featureStd) {
    this.mean = featureMean;
    this.std = Transforms.max(featureStd, Nd4j.EPS_THRESHOLD, true);
  }

  public void setLabelStats(INDArray labelMean, INDArray labelStd) {
    this.labelMean = labelMean;
    this.labelStd = Transforms.max(labelStd, Nd4j.EPS_THRESHOLD, true);
  }

  public INDArray getMean() {
    return mean;
  }

  public INDArray getStd() {
    return std;
  }

  public INDArray getLabelMean() {
    return labelMean;
  }

  public INDArray getLabelStd() {
    return labelStd;
  }

  @Override
  protected void fitted() {
    setFeatureStats(featureStats.row(featureStats.mean), featureStats.row(sqrtVar(featureStats)));
    if (labelStats != null) {
      setLabelStats(labelStats.row(labelStats.mean), labelStats.row(sqrtVar(labelStats)));
    }
  }

  private static double[] sqrtVar(Stats s) {
    double[] sd = new double[s.m2.length];
    for (int i = 0; i < sd.length; i++) {
      sd[i] = Math.sqrt(s.m2[i] / s.count);
    }
    return sd;
  }

  @Override
  protected boolean hasStats(boolean features) {
    return features ? mean != null : labelMean != null;
  }

  @Override
  protected void forward(INDArray a, boolean features) {
    a.subi(along1(features ? mean : labelMean, a));
    a.divi(along1(features ? std : labelStd, a));
  }

  @Override
  protected void backward(INDArray a, boolean features) {
    a.muli(along1(features ? std : labelStd, a));
    a.addi(along1(features ? mean : labelMean, a));
  }

  @Override
  public NormalizerType getType() {
    return NormalizerType.STANDARDIZE;
  }

  public void load(java.io.File... files) {
    throw new UnsupportedOperationException("NormalizerStandardize.load: Nd4j.readBinary is not in ndrt yet");
  }

  public void save(java.io.File... files) {
    throw new UnsupportedOperationException("NormalizerStandardize.save: Nd4j.saveBinary is not in ndrt yet");
  }
}
