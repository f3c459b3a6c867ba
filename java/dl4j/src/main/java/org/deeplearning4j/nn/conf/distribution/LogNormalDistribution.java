package org.deeplearning4j.nn.conf.distribution;

/** Deeplearning4j's LogNormalDistribution: exp(Normal(mean, std)) (ndrt: Distribution.logNormal). */
public class LogNormalDistribution extends MeanStdDistribution {
  private static final long serialVersionUID = 1L;

  protected LogNormalDistribution() {}

  public LogNormalDistribution(double mean, double std) {
    super(mean, std);
  }

  @Override
  public org.ndrt.nn.conf.Distribution toNdrt() {
    return org.ndrt.nn.conf.Distribution.logNormal(getMean(), getStd());
  }
}
