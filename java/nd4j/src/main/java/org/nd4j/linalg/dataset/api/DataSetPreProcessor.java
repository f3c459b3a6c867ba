package org.nd4j.linalg.dataset.api;

import java.io.Serializable;

/** Changes a minibatch in place before it is used (normalizers are preprocessors), as ND4J's. */
public interface DataSetPreProcessor extends Serializable {
  void preProcess(DataSet toPreProcess);
}
