package org.deeplearning4j.optimize.solvers.accumulation.encoding.threshold;

import org.deeplearning4j.optimize.solvers.accumulation.encoding.ThresholdAlgorithm;

/** Deeplearning4j's adaptive threshold (kept for the API: ndrt shares exact gradients, see ThresholdAlgorithm). */
public class AdaptiveThresholdAlgorithm implements ThresholdAlgorithm {
  private static final long serialVersionUID = 1L;
  private final double initialThreshold;

  public AdaptiveThresholdAlgorithm() {
    this(1e-3);
  }

  public AdaptiveThresholdAlgorithm(double initialThreshold) {
    if (!(initialThreshold > 0)) {
      throw new IllegalArgumentException("AdaptiveThresholdAlgorithm: the threshold must be > 0, got " + initialThreshold);
    }
    this.initialThreshold = initialThreshold;
  }

  public double getInitialThreshold() {
    return initialThreshold;
  }

  @Override
  public String toString() {
    return "AdaptiveThresholdAlgorithm(" + initialThreshold + ")";
  }
}
