package org.deeplearning4j.nn.conf.distribution;

/** Deeplearning4j's ConstantDistribution (org.ndrt.nn.conf.Distribution.constant). */
public class ConstantDistribution extends Distribution {
  private static final long serialVersionUID = 1L;
  private double value;

  protected ConstantDistribution() {}

  public ConstantDistribution(double value) {
    this.value = value;
  }

  public double getValue() {
    return value;
  }

  @Override
  public org.ndrt.nn.conf.Distribution toNdrt() {
    return org.ndrt.nn.conf.Distribution.constant(value);
  }

  @Override
  public String toString() {
    return "ConstantDistribution(" + "value=" + value + ")";
  }
}
