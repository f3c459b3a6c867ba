package org.deeplearning4j.earlystopping.termination;

import java.io.Serializable;

/** Deeplearning4j's iteration termination condition: checked after each minibatch with its score. */
public interface IterationTerminationCondition extends Serializable {
  void initialize();

  boolean terminate(double lastMiniBatchScore);
}
