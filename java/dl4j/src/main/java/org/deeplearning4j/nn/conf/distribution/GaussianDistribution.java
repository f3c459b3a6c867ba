package org.deeplearning4j.nn.conf.distribution;

/** Deeplearning4j's GaussianDistribution (org.ndrt.nn.conf.Distribution.normal). */
public class GaussianDistribution extends MeanStdDistribution {
  private static final long serialVersionUID = 1L;

  protected GaussianDistribution() {}

  public GaussianDistribution(double mean, double std) {
    super(mean, std);
  }

  @Override
  public org.ndrt.nn.conf.Distribution toNdrt() {
    return org.ndrt.nn.conf.Distribution.normal(getMean(), getStd());
  }
}
