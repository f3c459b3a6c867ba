package org.deeplearning4j.nn.conf.distribution;

/** Deeplearning4j's BinomialDistribution: successes in numberOfTrials trials (ndrt: Distribution.binomial). */
public class BinomialDistribution extends Distribution {
  private static final long serialVersionUID = 1L;
  private int numberOfTrials;
  private double probabilityOfSuccess;

  protected BinomialDistribution() {}

  public BinomialDistribution(int numberOfTrials, double probabilityOfSuccess) {
    this.numberOfTrials = numberOfTrials;
    this.probabilityOfSuccess = probabilityOfSuccess;
  }

  public int getNumberOfTrials() {
    return numberOfTrials;
  }

  public double getProbabilityOfSuccess() {
    return probabilityOfSuccess;
  }

  @Override
  public org.ndrt.nn.conf.Distribution toNdrt() {
    return org.ndrt.nn.conf.Distribution.binomial(numberOfTrials, probabilityOfSuccess);
  }

  @Override
  public String toString() {
    return "BinomialDistribution(numberOfTrials=" + numberOfTrials + ", probabilityOfSuccess=" + probabilityOfSuccess
        + ")";
  }
}
