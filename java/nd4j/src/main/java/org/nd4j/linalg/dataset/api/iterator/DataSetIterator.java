package org.nd4j.linalg.dataset.api.iterator;

import java.io.Serializable;
import java.util.Iterator;
import java.util.List;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.api.DataSetPreProcessor;

/** Minibatches of a data set, as ND4J's DataSetIterator (what Deeplearning4j's fit/evaluate take). */
public interface DataSetIterator extends Iterator<DataSet>, Serializable {
  DataSet next(int num);

  int inputColumns();

  int totalOutcomes();

  boolean resetSupported();

  boolean asyncSupported();

  void reset();

  int batch();

  void setPreProcessor(DataSetPreProcessor preProcessor);

  DataSetPreProcessor getPreProcessor();

  List<String> getLabels();
}
