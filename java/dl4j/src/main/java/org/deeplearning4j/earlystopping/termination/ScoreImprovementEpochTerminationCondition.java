package org.deeplearning4j.earlystopping.termination;

import org.ndrt.dl4j.NdrtBacked;

/** Deeplearning4j's ScoreImprovementEpochTerminationCondition: org.ndrt.earlystopping's, which holds the logic (one implementation). */
public class ScoreImprovementEpochTerminationCondition implements EpochTerminationCondition, NdrtBacked<org.ndrt.earlystopping.EpochTerminationCondition> {
  private final org.ndrt.earlystopping.ScoreImprovementEpochTerminationCondition ndrt;

  /** Stops after {@code maxEpochsWithNoImprovement} scored epochs without a better score. */
  public ScoreImprovementEpochTerminationCondition(int maxEpochsWithNoImprovement) {
    ndrt = new org.ndrt.earlystopping.ScoreImprovementEpochTerminationCondition(maxEpochsWithNoImprovement);
  }

  /** As above, an improvement counting only when it is more than {@code minImprovement}. */
  public ScoreImprovementEpochTerminationCondition(int maxEpochsWithNoImprovement, double minImprovement) {
    ndrt = new org.ndrt.earlystopping.ScoreImprovementEpochTerminationCondition(maxEpochsWithNoImprovement,
        minImprovement);
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
