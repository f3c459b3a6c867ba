package org.deeplearning4j.nn.conf.distribution;

/** Deeplearning4j's NormalDistribution (org.ndrt.nn.conf.Distribution.normal). */
public class NormalDistribution extends Distribution {
  private static final long serialVersionUID = 1L;
  private double mean;
  private double std;

  protected NormalDistribution() {}

  public NormalDistribution(double mean, double std) {
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
    return org.ndrt.nn.conf.Distribution.normal(mean, std);
  }

  @Override
  public String toString() {
    return "NormalDistribution(" + "mean=" + mean + ", " + "std=" + std + ")";
  }
}
