package org.deeplearning4j.nn.conf.distribution;

/** Deeplearning4j's NormalDistribution (org.ndrt.nn.conf.Distribution.normal). */
public class NormalDistribution extends MeanStdDistribution {
  private static final long serialVersionUID = 1L;

  protected NormalDistribution() {}

  public NormalDistribution(double mean, double std) {
    super(mean, std);
  }

  @Override
  public org.ndrt.nn.conf.Distribution toNdrt() {
    return org.ndrt.nn.conf.Distribution.normal(getMean(), getStd());
  }
}
