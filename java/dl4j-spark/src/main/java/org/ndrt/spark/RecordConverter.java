package org.ndrt.spark;

import java.io.Serializable;
import org.ndrt.data.MultiDataSet;

/**
 * How a Spark task reads the records of an RDD as org.ndrt minibatch material: the number of examples a
 * record holds (counted without converting it) and the record as a MultiDataSet (one features and one
 * labels array for a DataSet), which the caller closes. The Deeplearning4j drop-in gives one for ND4J's
 * DataSet and one for its MultiDataSet.
 */
public interface RecordConverter<T> extends Serializable {
  int numExamples(T record);

  MultiDataSet convert(T record);
}
