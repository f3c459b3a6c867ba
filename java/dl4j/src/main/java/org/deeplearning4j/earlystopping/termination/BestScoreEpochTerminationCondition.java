package org.deeplearning4j.earlystopping.termination;

import org.ndrt.dl4j.NdrtBacked;

/** Deeplearning4j's BestScoreEpochTerminationCondition: org.ndrt.earlystopping's, which holds the logic (one implementation). */
public class BestScoreEpochTerminationCondition implements EpochTerminationCondition, NdrtBacked<org.ndrt.earlystopping.EpochTerminationCondition> {
  private final org.ndrt.earlystopping.BestScoreEpochTerminationCondition ndrt;

  /** Stops once the score reaches {@code bestExpectedScore} (at most, or at least when maximizing). */
  public BestScoreEpochTerminationCondition(double bestExpectedScore) {
    ndrt = new org.ndrt.earlystopping.BestScoreEpochTerminationCondition(bestExpectedScore);
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
