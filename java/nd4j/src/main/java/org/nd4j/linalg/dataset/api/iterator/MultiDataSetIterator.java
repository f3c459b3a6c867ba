package org.nd4j.linalg.dataset.api.iterator;

import java.io.Serializable;
import java.util.Iterator;
import org.nd4j.linalg.dataset.api.MultiDataSet;
import org.nd4j.linalg.dataset.api.MultiDataSetPreProcessor;

/** Minibatches of several inputs and outputs, as ND4J's MultiDataSetIterator. */
public interface MultiDataSetIterator extends Iterator<MultiDataSet>, Serializable {
  MultiDataSet next(int num);

  void setPreProcessor(MultiDataSetPreProcessor preProcessor);

  MultiDataSetPreProcessor getPreProcessor();

  boolean resetSupported();

  boolean asyncSupported();

  void reset();
}
