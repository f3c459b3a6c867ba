package org.nd4j.evaluation;

import java.io.Serializable;
import java.util.List;
import org.nd4j.linalg.api.ndarray.INDArray;

/** An evaluation fed minibatches of labels and predictions, as ND4J's IEvaluation. */
@SuppressWarnings("rawtypes") // ND4J's signature
public interface IEvaluation<T extends IEvaluation> extends Serializable {
  void eval(INDArray labels, INDArray networkPredictions);

  void eval(INDArray labels, INDArray networkPredictions, List<? extends Serializable> recordMetaData);

  void eval(INDArray labels, INDArray networkPredictions, INDArray maskArray, List<? extends Serializable> recordMetaData);

  void eval(INDArray labels, INDArray networkPredictions, INDArray maskArray);

  void evalTimeSeries(INDArray labels, INDArray predicted);

  void evalTimeSeries(INDArray labels, INDArray predicted, INDArray labelsMaskArray);

  void merge(T other);

  void reset();

  String stats();

  String toJson();

  String toYaml();

  double getValue(IMetric metric);

  T newInstance();
}
