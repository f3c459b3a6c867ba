package org.nd4j.linalg.dataset.api.preprocessor;

import org.nd4j.linalg.dataset.api.preprocessor.serializer.NormalizerType;

/** Fit statistics on data, then transform data with them and revert it, as ND4J's Normalizer. */
public interface Normalizer<T> {
  void fit(T dataSet);

  void transform(T toPreProcess);

  void revert(T toRevert);

  NormalizerType getType();
}
