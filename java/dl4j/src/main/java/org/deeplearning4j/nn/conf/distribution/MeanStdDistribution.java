package org.deeplearning4j.nn.conf.distribution;

/**
 * What Deeplearning4j's mean / standard-deviation distributions (Normal, Gaussian, LogNormal,
 * TruncatedNormal) share: the two fields (read and written by name in the configuration JSON),
 * their getters and toString; each subclass names its org.ndrt distribution.
 */
abstract class MeanStdDistribution extends Distribution {
  private static final long serialVersionUID = 1L;
  private double mean;
  private double std;

  MeanStdDistribution() {}

  MeanStdDistribution(double mean, double std) {
    this.mean = mean;
    this.std = std;
  }

  public double getMean() {
    return mean;
  }

  public double getStd() {
    return std;
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "(mean=" + mean + ", std=" + std + ")";
  }
}
