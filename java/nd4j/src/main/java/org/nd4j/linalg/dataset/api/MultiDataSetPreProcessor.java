package org.nd4j.linalg.dataset.api;

/** Changes a multi-input/output minibatch in place before it is used, as ND4J's. */
public interface MultiDataSetPreProcessor {
  void preProcess(MultiDataSet multiDataSet);
}
