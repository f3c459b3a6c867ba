package org.deeplearning4j.earlystopping.termination;

import java.io.Serializable;

/**
 * Deeplearning4j's epoch termination condition: checked after each scored epoch. The drop-in's own
 * conditions are org.ndrt.earlystopping's under Deeplearning4j's names; a user's implementation is
 * checked on scored epochs, as Deeplearning4j does.
 */
public interface EpochTerminationCondition extends Serializable {
  void initialize();

  /**
   * @param epochNum the epoch just finished, from 0
   * @param score its score
   * @param minimize whether lower scores are better
   * @return true to stop training
   */
  boolean terminate(int epochNum, double score, boolean minimize);
}
