package org.ndrt.earlystopping;

/**
 * Stops when the best score has not improved by more than {@code minImprovement} for {@code patience}
 * consecutive scored epochs. With {@code evaluateEveryNEpochs(n)}, patience counts scored epochs,
 * not epochs.
 *
 * <p>An improvement is {@code best - score} when minimizing, {@code score - best} when maximizing. A
 * NaN score never improves; the first score that is not NaN is the starting best.
 */
public final class ScoreImprovementEpochTerminationCondition implements EpochTerminationCondition {
  private final int patience;
  private final double minImprovement;
  private double best;
  private int sinceBest;

  /**
   * Stops after {@code patience} scored epochs without any improvement.
   *
   * @param patience scored epochs without improvement that end training, at least 1
   */
  public ScoreImprovementEpochTerminationCondition(int patience) {
    this(patience, 0.0);
  }

  /**
   * @param patience scored epochs without improvement that end training, at least 1
   * @param minImprovement an improvement counts only if it is larger than this (0 or more)
   * @throws IllegalArgumentException if {@code patience < 1} or {@code minImprovement} is negative or
   *     not finite
   */
  public ScoreImprovementEpochTerminationCondition(int patience, double minImprovement) {
    if (patience < 1) {
      throw new IllegalArgumentException(
          "ScoreImprovementEpochTerminationCondition: patience must be >= 1, got " + patience);
    }
    if (!(minImprovement >= 0) || Double.isInfinite(minImprovement)) {
      throw new IllegalArgumentException(
          "ScoreImprovementEpochTerminationCondition: minImprovement must be finite and >= 0, got " + minImprovement);
    }
    this.patience = patience;
    this.minImprovement = minImprovement;
    initialize();
  }

  @Override
  public void initialize() {
    best = Double.NaN;
    sinceBest = 0;
  }

  @Override
  public boolean terminate(int epochNum, double score, boolean minimize) {
    if (Double.isNaN(best)) {
      // No usable score yet: a real one becomes the best, NaN counts as an epoch without improvement.
      if (!Double.isNaN(score)) {
        best = score;
        sinceBest = 0;
        return false;
      }
    } else if ((minimize ? best - score : score - best) > minImprovement) {
      best = score;
      sinceBest = 0;
      return false;
    }
    sinceBest++;
    return sinceBest >= patience;
  }

  @Override
  public String toString() {
    return "ScoreImprovementEpochTerminationCondition(patience=" + patience + ", minImprovement=" + minImprovement + ")";
  }
}
