package org.ndrt.earlystopping;

/**
 * Stops as soon as a scored epoch reaches a target: a score at or below it when minimizing, at or
 * above it when maximizing (e.g. {@code new BestScoreEpochTerminationCondition(0.99)} with an
 * accuracy calculator).
 */
public final class BestScoreEpochTerminationCondition implements EpochTerminationCondition {
  private final double bestExpectedScore;

  /**
   * @param bestExpectedScore the target score
   * @throws IllegalArgumentException if it is NaN
   */
  public BestScoreEpochTerminationCondition(double bestExpectedScore) {
    if (Double.isNaN(bestExpectedScore)) {
      throw new IllegalArgumentException("BestScoreEpochTerminationCondition: the target score must not be NaN");
    }
    this.bestExpectedScore = bestExpectedScore;
  }

  @Override
  public void initialize() {}

  @Override
  public boolean terminate(int epochNum, double score, boolean minimize) {
    return minimize ? score <= bestExpectedScore : score >= bestExpectedScore;
  }

  @Override
  public String toString() {
    return "BestScoreEpochTerminationCondition(" + bestExpectedScore + ")";
  }
}
