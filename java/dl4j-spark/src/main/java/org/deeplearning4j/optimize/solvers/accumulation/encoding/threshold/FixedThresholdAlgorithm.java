package org.deeplearning4j.optimize.solvers.accumulation.encoding.threshold;

import org.deeplearning4j.optimize.solvers.accumulation.encoding.ThresholdAlgorithm;

/** Deeplearning4j's fixed threshold (kept for the API: ndrt shares exact gradients, see ThresholdAlgorithm). */
public class FixedThresholdAlgorithm implements ThresholdAlgorithm {
  private static final long serialVersionUID = 1L;
  private final double threshold;

  public FixedThresholdAlgorithm(double threshold) {
    if (!(threshold > 0)) {
      throw new IllegalArgumentException("FixedThresholdAlgorithm: the threshold must be > 0, got " + threshold);
    }
    this.threshold = threshold;
  }

  public double getThreshold() {
    return threshold;
  }

  @Override
  public String toString() {
    return "FixedThresholdAlgorithm(" + threshold + ")";
  }
}
