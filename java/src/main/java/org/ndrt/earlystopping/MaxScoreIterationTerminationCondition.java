package org.ndrt.earlystopping;

/**
 * Stops when training diverges: a minibatch score above {@code maxScore}, NaN or infinite.
 */
public final class MaxScoreIterationTerminationCondition implements IterationTerminationCondition {
  private final double maxScore;

  /**
   * @param maxScore the largest acceptable minibatch score
   * @throws IllegalArgumentException if it is NaN
   */
  public MaxScoreIterationTerminationCondition(double maxScore) {
    if (Double.isNaN(maxScore)) {
      throw new IllegalArgumentException("MaxScoreIterationTerminationCondition: maxScore must not be NaN");
    }
    this.maxScore = maxScore;
  }

  @Override
  public void initialize() {}

  @Override
  public boolean terminate(double lastMinibatchScore) {
    return !Double.isFinite(lastMinibatchScore) || lastMinibatchScore > maxScore;
  }

  @Override
  public String toString() {
    return "MaxScoreIterationTerminationCondition(" + maxScore + ")";
  }
}
