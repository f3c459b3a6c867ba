package org.deeplearning4j.nn.conf.distribution;

/** Deeplearning4j's TruncatedNormalDistribution: Normal(mean, std) truncated at mean +- 2 std (ndrt: Distribution.truncatedNormal). */
public class TruncatedNormalDistribution extends Distribution {
  private static final long serialVersionUID = 1L;
  private double mean;
  private double std;

  protected TruncatedNormalDistribution() {}

  public TruncatedNormalDistribution(double mean, double std) {
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
  public org.ndrt.nn.conf.Distribution toNdrt() {
    return org.ndrt.nn.conf.Distribution.truncatedNormal(mean, std);
  }

  @Override
  public String toString() {
    return "TruncatedNormalDistribution(" + "mean=" + mean + ", " + "std=" + std + ")";
  }
}
