package org.deeplearning4j.earlystopping.termination;

import org.ndrt.dl4j.NdrtBacked;

/** Deeplearning4j's MaxEpochsTerminationCondition: org.ndrt.earlystopping's, which holds the logic (one implementation). */
public class MaxEpochsTerminationCondition implements EpochTerminationCondition, NdrtBacked<org.ndrt.earlystopping.EpochTerminationCondition> {
  private final org.ndrt.earlystopping.MaxEpochsTerminationCondition ndrt;

  public MaxEpochsTerminationCondition(int maxEpochs) {
    ndrt = new org.ndrt.earlystopping.MaxEpochsTerminationCondition(maxEpochs);
  }

  public int getMaxEpochs() {
    return ndrt.getMaxEpochs();
  }

  @Override
  public void initialize() {
    ndrt.initialize();
  }

  @Override
  public boolean terminate(int epochNum, double score, boolean minimize) {
    return ndrt.terminate(epochNum, score, minimize);
  }

  /** ndrt: the org.ndrt.earlystopping condition this names (the trainer runs it directly). */
  @Override
  public org.ndrt.earlystopping.EpochTerminationCondition ndrt() {
    return ndrt;
  }

  @Override
  public String toString() {
    return ndrt.toString();
  }
}
