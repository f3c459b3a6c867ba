package org.ndrt.earlystopping;

/**
 * Decides, after each minibatch, whether training stops at once (mid-epoch). Checked by the {@link
 * EpochFitter}; {@link #initialize()} is called at the start of every {@link EarlyStoppingTrainer#fit()}.
 */
public interface IterationTerminationCondition {
  /** Resets the condition's state (a start time, ...); called once at the start of each training run. */
  void initialize();

  /**
   * @param lastMinibatchScore the score of the minibatch just fitted ({@code Model.score()})
   * @return true to stop training
   */
  boolean terminate(double lastMinibatchScore);
}
