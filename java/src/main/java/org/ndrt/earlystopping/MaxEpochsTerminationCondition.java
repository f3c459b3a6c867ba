package org.ndrt.earlystopping;

/** Stops once {@code maxEpochs} epochs have been trained. Checked after every epoch, scored or not. */
public final class MaxEpochsTerminationCondition implements EpochTerminationCondition {
  private final int maxEpochs;

  /**
   * @param maxEpochs epochs to train, at least 1
   * @throws IllegalArgumentException if {@code maxEpochs < 1}
   */
  public MaxEpochsTerminationCondition(int maxEpochs) {
    if (maxEpochs < 1) {
      throw new IllegalArgumentException("MaxEpochsTerminationCondition: maxEpochs must be >= 1, got " + maxEpochs);
    }
    this.maxEpochs = maxEpochs;
  }

  /** @return the number of epochs after which training stops */
  public int getMaxEpochs() {
    return maxEpochs;
  }

  @Override
  public void initialize() {}

  @Override
  public boolean terminate(int epochNum, double score, boolean minimize) {
    return epochNum + 1 >= maxEpochs;
  }

  @Override
  public boolean needsScore() {
    return false;
  }

  @Override
  public String toString() {
    return "MaxEpochsTerminationCondition(" + maxEpochs + ")";
  }
}
