package org.deeplearning4j.nn.conf.graph;

/** Deeplearning4j's ScaleVertex: its input times a constant. */
public class ScaleVertex extends GraphVertex {
  private static final long serialVersionUID = 1L;
  protected double scaleFactor;

  private ScaleVertex() {}

  public ScaleVertex(double scaleFactor) {
    this.scaleFactor = scaleFactor;
  }

  public double getScaleFactor() {
    return scaleFactor;
  }

  @Override
  public org.ndrt.nn.conf.graph.GraphVertex ndrtVertex() {
    return new org.ndrt.nn.conf.graph.ScaleVertex(scaleFactor);
  }
}
