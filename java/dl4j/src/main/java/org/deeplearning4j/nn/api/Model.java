package org.deeplearning4j.nn.api;

import java.util.Collection;
import org.deeplearning4j.optimize.api.TrainingListener;
import org.nd4j.linalg.api.ndarray.INDArray;

/** Deeplearning4j's trainable model (what listeners receive): the part the drop-in's network offers. */
public interface Model {
  double score();

  INDArray params();

  long numParams();

  void setListeners(TrainingListener... listeners);

  void setListeners(Collection<TrainingListener> listeners);

  void addListeners(TrainingListener... listeners);

  void close();
}
