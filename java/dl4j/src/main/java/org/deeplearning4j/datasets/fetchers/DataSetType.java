package org.deeplearning4j.datasets.fetchers;

/** Which part of a data set an iterator reads (Deeplearning4j's DataSetType). */
public enum DataSetType {
  TRAIN,
  TEST,
  VALIDATION
}
