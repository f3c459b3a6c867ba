package org.deeplearning4j.nn.conf.distribution;

/** Deeplearning4j's LogNormalDistribution: exp(Normal(mean, std)) (ndrt: Distribution.logNormal). */
public class LogNormalDistribution extends Distribution {
  private static final long serialVersionUID = 1L;
  private double mean;
  private double std;

  protected LogNormalDistribution() {}

  public LogNormalDistribution(double mean, double std) {
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
    return org.ndrt.nn.conf.Distribution.logNormal(mean, std);
  }

  @Override
  public String toString() {
    return "LogNormalDistribution(" + "mean=" + mean + ", " + "std=" + std + ")";
  }
}
