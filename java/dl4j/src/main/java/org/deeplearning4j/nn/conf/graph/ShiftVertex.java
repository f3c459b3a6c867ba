package org.deeplearning4j.nn.conf.graph;

/** Deeplearning4j's ShiftVertex: its input plus a constant. */
public class ShiftVertex extends GraphVertex {
  private static final long serialVersionUID = 1L;
  protected double shiftFactor;

  public ShiftVertex() {}

  public ShiftVertex(double shiftFactor) {
    this.shiftFactor = shiftFactor;
  }

  public double getShiftFactor() {
    return shiftFactor;
  }

  @Override
  public org.ndrt.nn.conf.graph.GraphVertex ndrtVertex() {
    return new org.ndrt.nn.conf.graph.ShiftVertex(shiftFactor);
  }
}
