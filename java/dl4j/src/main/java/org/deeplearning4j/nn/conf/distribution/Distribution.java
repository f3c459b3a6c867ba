package org.deeplearning4j.nn.conf.distribution;

import java.io.Serializable;

/**
 * Deeplearning4j's weight distributions ({@code weightInit(Distribution)} / {@code dist(..)}): each is an
 * org.ndrt.nn.conf.Distribution, drawn by ndrt's generator from the network seed.
 */
public abstract class Distribution implements Serializable, Cloneable {
  private static final long serialVersionUID = 1L;

  /**
   * ndrt: org.ndrt.nn's distribution of the same definition.
   *
   * @throws UnsupportedOperationException for a distribution class ndrt does not know
   */
  public org.ndrt.nn.conf.Distribution toNdrt() {
    throw new UnsupportedOperationException("weight distribution " + getClass().getName() + " is not in ndrt's "
        + "Deeplearning4j drop-in (it has Uniform, Normal, Gaussian, TruncatedNormal, LogNormal, Binomial, Orthogonal "
        + "and Constant distributions)");
  }

  @Override
  public Distribution clone() {
    try {
      return (Distribution) super.clone();
    } catch (CloneNotSupportedException e) {
      throw new AssertionError(e);
    }
  }
}
