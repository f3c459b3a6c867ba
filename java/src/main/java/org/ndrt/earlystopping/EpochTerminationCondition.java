package org.ndrt.earlystopping;

/**
 * Decides, after an epoch, whether training stops. Conditions may keep state (the best score so far,
 * ...): {@link #initialize()} resets it at the start of every {@link EarlyStoppingTrainer#fit()}.
 */
public interface EpochTerminationCondition {
  /** Resets the condition's state; called once at the start of each training run. */
  void initialize();

  /**
   * Called once per checked epoch.
   *
   * @param epochNum the epoch that just ended, counted from 0
   * @param score that epoch's score from the {@link ScoreCalculator}, or NaN for a condition whose
   *     {@link #needsScore()} is false
   * @param minimize whether lower scores are better (the score calculator's {@link
   *     ScoreCalculator#minimizeScore()}; true when there is none)
   * @return true to stop training
   */
  boolean terminate(int epochNum, double score, boolean minimize);

  /**
   * Whether this condition looks at the score. Conditions that do (the default) are called only on
   * the epochs that are scored ({@link EarlyStoppingConfiguration#getEvaluateEveryNEpochs()}) and
   * need a score calculator in the configuration; the others (such as {@link
   * MaxEpochsTerminationCondition}) are called after every epoch, with NaN as the score.
   *
   * @return true if {@link #terminate} uses its score argument
   */
  default boolean needsScore() {
    return true;
  }
}
