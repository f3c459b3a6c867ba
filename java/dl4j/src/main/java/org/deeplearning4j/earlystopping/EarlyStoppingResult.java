package org.deeplearning4j.earlystopping;

import java.io.Serializable;
import java.util.Map;
import org.deeplearning4j.nn.api.Model;

/** Deeplearning4j's early-stopping result: why training stopped, the scores per epoch, the best model. */
public class EarlyStoppingResult<T extends Model> implements Serializable {
  /** Why training stopped (Deeplearning4j's names). */
  public enum TerminationReason {
    Error, IterationTerminationCondition, EpochTerminationCondition
  }

  private final TerminationReason terminationReason;
  private final String terminationDetails;
  private final Map<Integer, Double> scoreVsEpoch;
  private final int bestModelEpoch;
  private final double bestModelScore;
  private final int totalEpochs;
  private final transient T bestModel;

  public EarlyStoppingResult(TerminationReason terminationReason, String terminationDetails,
      Map<Integer, Double> scoreVsEpoch, int bestModelEpoch, double bestModelScore, int totalEpochs, T bestModel) {
    this.terminationReason = terminationReason;
    this.terminationDetails = terminationDetails;
    this.scoreVsEpoch = scoreVsEpoch;
    this.bestModelEpoch = bestModelEpoch;
    this.bestModelScore = bestModelScore;
    this.totalEpochs = totalEpochs;
    this.bestModel = bestModel;
  }

  public TerminationReason getTerminationReason() {
    return terminationReason;
  }

  public String getTerminationDetails() {
    return terminationDetails;
  }

  /** Score of each scored epoch, epochs from 0. */
  public Map<Integer, Double> getScoreVsEpoch() {
    return scoreVsEpoch;
  }

  public int getBestModelEpoch() {
    return bestModelEpoch;
  }

  public double getBestModelScore() {
    return bestModelScore;
  }

  public int getTotalEpochs() {
    return totalEpochs;
  }

  /** The best model, from the saver (null if no epoch was scored). */
  public T getBestModel() {
    return bestModel;
  }

  @Override
  public String toString() {
    return "EarlyStoppingResult(terminationReason=" + terminationReason + ",details=" + terminationDetails
        + ",bestModelEpoch=" + bestModelEpoch + ",bestModelScore=" + bestModelScore + ",totalEpochs="
        + totalEpochs + ")";
  }
}
