package org.deeplearning4j.nn.conf.distribution;

import java.io.Serializable;

/**
 * Deeplearning4j's weight distributions ({@code weightInit(Distribution)} / {@code dist(..)}). They are
 * configuration only: org.ndrt.nn draws weights by its named schemes, so a network whose layers use a
 * distribution is refused at initialisation, naming it.
 */
public abstract class Distribution implements Serializable, Cloneable {
  private static final long serialVersionUID = 1L;

  @Override
  public Distribution clone() {
    try {
      return (Distribution) super.clone();
    } catch (CloneNotSupportedException e) {
      throw new AssertionError(e);
    }
  }
}
