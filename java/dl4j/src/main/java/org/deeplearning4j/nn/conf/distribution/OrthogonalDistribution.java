package org.deeplearning4j.nn.conf.distribution;

/** Deeplearning4j's OrthogonalDistribution: a random orthogonal matrix times gain (ndrt: Distribution.orthogonal). */
public class OrthogonalDistribution extends Distribution {
  private static final long serialVersionUID = 1L;
  private double gain;

  protected OrthogonalDistribution() {}

  public OrthogonalDistribution(double gain) {
    this.gain = gain;
  }

  public double getGain() {
    return gain;
  }

  @Override
  public org.ndrt.nn.conf.Distribution toNdrt() {
    return org.ndrt.nn.conf.Distribution.orthogonal(gain);
  }

  @Override
  public String toString() {
    return "OrthogonalDistribution(" + "gain=" + gain + ")";
  }
}
