package org.deeplearning4j.nn.conf.distribution;

/** Deeplearning4j's UniformDistribution (org.ndrt.nn.conf.Distribution.uniform). */
public class UniformDistribution extends Distribution {
  private static final long serialVersionUID = 1L;
  private double lower;
  private double upper;

  protected UniformDistribution() {}

  public UniformDistribution(double lower, double upper) {
    this.lower = lower;
    this.upper = upper;
  }

  public double getLower() {
    return lower;
  }

  public double getUpper() {
    return upper;
  }

  @Override
  public org.ndrt.nn.conf.Distribution toNdrt() {
    return org.ndrt.nn.conf.Distribution.uniform(lower, upper);
  }

  @Override
  public String toString() {
    return "UniformDistribution(" + "lower=" + lower + ", " + "upper=" + upper + ")";
  }
}
