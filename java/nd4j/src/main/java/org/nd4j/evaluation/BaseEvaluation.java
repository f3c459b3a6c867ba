package org.nd4j.evaluation;

import java.io.Serializable;
import java.util.List;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.ndrt.nd4j.DataSets;

/**
 * What ND4J's evaluations share: the eval overloads funnel into {@link #eval(INDArray, INDArray,
 * INDArray)}, and time series / images become 2-D rows with masked steps dropped.
 */
@SuppressWarnings("rawtypes") // ND4J's signature
public abstract class BaseEvaluation<T extends BaseEvaluation> implements IEvaluation<T> {
  private static final long serialVersionUID = 1L;

  /**
   * {labels, predictions, per-output mask or null} as 2-D rows ([N, C]; [N*T, C] for [N, C, T]; masked
   * rows dropped), or null when every row is masked.
   */
  public static INDArray[] reshapeAndExtractNotMasked(INDArray labels, INDArray predictions, INDArray mask) {
    boolean perOutput = mask != null && mask.equalShapes(labels) && !(labels.rank() == 2 && mask.isColumnVector());
    INDArray l = DataSets.to2d(labels, perOutput ? null : mask);
    INDArray p = DataSets.to2d(predictions, perOutput ? null : mask);
    if (l == null) {
      return null;
    }
    INDArray m = perOutput ? DataSets.to2d(mask, null) : null;
    return new INDArray[] {l, p, m};
  }

  @Override
  public void eval(INDArray labels, INDArray networkPredictions) {
    eval(labels, networkPredictions, (INDArray) null);
  }

  @Override
  public void eval(INDArray labels, INDArray networkPredictions, List<? extends Serializable> recordMetaData) {
    eval(labels, networkPredictions, null, recordMetaData);
  }

  @Override
  public void eval(INDArray labels, INDArray networkPredictions, INDArray maskArray,
      List<? extends Serializable> recordMetaData) {
    eval(labels, networkPredictions, maskArray);
  }

  @Override
  public void evalTimeSeries(INDArray labels, INDArray predicted) {
    eval(labels, predicted, (INDArray) null);
  }

  @Override
  public void evalTimeSeries(INDArray labels, INDArray predicted, INDArray labelsMaskArray) {
    eval(labels, predicted, labelsMaskArray);
  }

  @Override
  public String toJson() {
    throw new UnsupportedOperationException(getClass().getSimpleName() + ".toJson is not in ndrt yet");
  }

  @Override
  public String toYaml() {
    throw new UnsupportedOperationException(getClass().getSimpleName() + ".toYaml is not in ndrt yet");
  }

  @Override
  public String toString() {
    return stats();
  }
}
