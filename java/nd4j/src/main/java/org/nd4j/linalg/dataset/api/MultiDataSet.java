package org.nd4j.linalg.dataset.api;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.util.List;
import org.nd4j.linalg.api.ndarray.INDArray;

/** Several feature and label arrays (with masks) of the same examples, as ND4J's api.MultiDataSet. */
public interface MultiDataSet extends Serializable {
  int numFeatureArrays();
  int numLabelsArrays();
  INDArray[] getFeatures();
  INDArray getFeatures(int index);
  void setFeatures(INDArray[] features);
  void setFeatures(int idx, INDArray features);
  INDArray[] getLabels();
  INDArray getLabels(int index);
  void setLabels(INDArray[] labels);
  void setLabels(int idx, INDArray labels);
  boolean hasMaskArrays();
  INDArray[] getFeaturesMaskArrays();
  INDArray getFeaturesMaskArray(int index);
  void setFeaturesMaskArrays(INDArray[] maskArrays);
  void setFeaturesMaskArray(int idx, INDArray maskArray);
  INDArray[] getLabelsMaskArrays();
  INDArray getLabelsMaskArray(int index);
  void setLabelsMaskArray(INDArray[] labelsMaskArrays);
  void setLabelsMaskArray(int idx, INDArray labelsMaskArray);
  void save(OutputStream to) throws IOException;
  void save(File to) throws IOException;
  void load(InputStream from) throws IOException;
  void load(File from) throws IOException;
  List<MultiDataSet> asList();
  MultiDataSet copy();
  void setExampleMetaData(List<? extends Serializable> exampleMetaData);
  <T extends Serializable> List<T> getExampleMetaData(Class<T> metaDataType);
  List<Serializable> getExampleMetaData();
  long getMemoryFootprint();
  void migrate();
  void detach();
  boolean isEmpty();
  void shuffle();
}
