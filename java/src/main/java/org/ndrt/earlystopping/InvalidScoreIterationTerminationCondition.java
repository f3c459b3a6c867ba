package org.ndrt.earlystopping;

/** Stops when a minibatch score is NaN or infinite (the parameters are lost to divergence). */
public final class InvalidScoreIterationTerminationCondition implements IterationTerminationCondition {
  /** A condition with no settings. */
  public InvalidScoreIterationTerminationCondition() {}

  @Override
  public void initialize() {}

  @Override
  public boolean terminate(double lastMinibatchScore) {
    return !Double.isFinite(lastMinibatchScore);
  }

  @Override
  public String toString() {
    return "InvalidScoreIterationTerminationCondition()";
  }
}
