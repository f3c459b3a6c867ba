package org.deeplearning4j.nn.conf.layers;

import java.io.Serializable;

/**
 * A layer's configuration, as Deeplearning4j's: hyper-parameters only. {@link #ndrtLayer()} gives the
 * org.ndrt.nn layer configuration of the same meaning, which is what the network trains; a setting
 * org.ndrt.nn does not have is refused there (UnsupportedOperationException naming it), so programs
 * compile and running says what is missing.
 */
public abstract class Layer implements Serializable, Cloneable {
  private static final long serialVersionUID = 1L;

  protected String layerName;
  /** Deeplearning4j's dropOut: the probability to KEEP an input value in training; NaN: not set. */
  protected double dropOut = Double.NaN;

  protected Layer() {}

  protected Layer(Builder<?> b) {
    this.layerName = b.layerName;
    this.dropOut = b.dropOut;
  }

  public String getLayerName() {
    return layerName;
  }

  public void setLayerName(String name) {
    this.layerName = name;
  }

  /** The probability to keep an input value in training (NaN: no dropout set). */
  public double getDropOut() {
    return dropOut;
  }

  public void setDropOut(double dropOut) {
    this.dropOut = dropOut;
  }

  /**
   * ndrt: the org.ndrt.nn layer configuration of the same meaning (the drop-in's network trains it).
   * Dropout is not part of it: the network puts an org.ndrt.nn DropoutLayer before the layer (what
   * Deeplearning4j's dropOut does: inverted dropout of the layer's input).
   *
   * @throws UnsupportedOperationException naming the layer or setting org.ndrt.nn does not have
   */
  public abstract org.ndrt.nn.conf.layers.Layer ndrtLayer();

  /** A refusal naming this layer and what org.ndrt.nn lacks. */
  protected UnsupportedOperationException refuse(String what) {
    return new UnsupportedOperationException(getClass().getSimpleName() + (layerName != null ? " \"" + layerName + "\"" : "")
        + ": " + what + " is not in ndrt's Deeplearning4j drop-in (org.ndrt.nn does not have it)");
  }

  @Override
  public Layer clone() {
    try {
      return (Layer) super.clone();
    } catch (CloneNotSupportedException e) {
      throw new AssertionError(e);
    }
  }

  @Override
  public String toString() {
    return org.ndrt.dl4j.ConfJson.write(this);
  }

  @Override
  public boolean equals(Object o) {
    return o != null && o.getClass() == getClass() && toString().equals(o.toString());
  }

  @Override
  public int hashCode() {
    return toString().hashCode();
  }

  /** Deeplearning4j's layer builder root. */
  public abstract static class Builder<T extends Builder<T>> {
    protected String layerName;
    protected double dropOut = Double.NaN;

    @SuppressWarnings("unchecked")
    protected T self() {
      return (T) this;
    }

    public T name(String layerName) {
      this.layerName = layerName;
      return self();
    }

    /**
     * The probability to keep each input value in training (Deeplearning4j's meaning; 0 or 1: no dropout).
     */
    public T dropOut(double inputRetainProbability) {
      if (!(inputRetainProbability >= 0 && inputRetainProbability <= 1)) {
        throw new IllegalArgumentException("dropOut: the retain probability must be in [0, 1], got " + inputRetainProbability);
      }
      this.dropOut = inputRetainProbability;
      return self();
    }

    public abstract Layer build();
  }
}
