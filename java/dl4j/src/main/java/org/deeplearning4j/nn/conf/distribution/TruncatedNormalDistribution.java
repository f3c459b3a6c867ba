package org.deeplearning4j.nn.conf.distribution;

/** Deeplearning4j's TruncatedNormalDistribution: Normal(mean, std) truncated at mean +- 2 std (ndrt: Distribution.truncatedNormal). */
public class TruncatedNormalDistribution extends MeanStdDistribution {
  private static final long serialVersionUID = 1L;

  protected TruncatedNormalDistribution() {}

  public TruncatedNormalDistribution(double mean, double std) {
    super(mean, std);
  }

  @Override
  public org.ndrt.nn.conf.Distribution toNdrt() {
    return org.ndrt.nn.conf.Distribution.truncatedNormal(getMean(), getStd());
  }
}
