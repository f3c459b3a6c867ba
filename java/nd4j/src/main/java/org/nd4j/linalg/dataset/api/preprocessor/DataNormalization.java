package org.nd4j.linalg.dataset.api.preprocessor;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.api.DataSet;
import org.nd4j.linalg.dataset.api.DataSetPreProcessor;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;

/** A normalizer of DataSets: fit on a data set or an iterator, then a preprocessor, as ND4J's. */
public interface DataNormalization extends Normalizer<DataSet>, DataSetPreProcessor {
  void fit(DataSetIterator iterator);

  @Override
  void preProcess(DataSet toPreProcess);

  void transform(INDArray features);

  void transform(INDArray features, INDArray featuresMask);

  void transformLabel(INDArray labels);

  void transformLabel(INDArray labels, INDArray labelsMask);

  void revertFeatures(INDArray features);

  void revertFeatures(INDArray features, INDArray featuresMask);

  void revertLabels(INDArray labels);

  void revertLabels(INDArray labels, INDArray labelsMask);

  void fitLabel(boolean fitLabels);

  boolean isFitLabel();
}
