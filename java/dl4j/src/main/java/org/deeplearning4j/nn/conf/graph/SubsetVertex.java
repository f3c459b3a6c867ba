package org.deeplearning4j.nn.conf.graph;

/** Deeplearning4j's SubsetVertex: features {@code from} to {@code to} (both included) of its input. */
public class SubsetVertex extends GraphVertex {
  private static final long serialVersionUID = 1L;
  protected int from;
  protected int to;

  private SubsetVertex() {}

  public SubsetVertex(int from, int to) {
    this.from = from;
    this.to = to;
  }

  public int getFrom() {
    return from;
  }

  public int getTo() {
    return to;
  }

  @Override
  public org.ndrt.nn.conf.graph.GraphVertex ndrtVertex() {
    return new org.ndrt.nn.conf.graph.SubsetVertex(from, to);
  }
}
