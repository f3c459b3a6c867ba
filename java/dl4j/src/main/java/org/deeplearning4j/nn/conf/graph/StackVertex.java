package org.deeplearning4j.nn.conf.graph;

/** Deeplearning4j's StackVertex: inputs of one shape stacked along the batch axis. */
public class StackVertex extends GraphVertex {
  private static final long serialVersionUID = 1L;

  public StackVertex() {}

  @Override
  public org.ndrt.nn.conf.graph.GraphVertex ndrtVertex() {
    return new org.ndrt.nn.conf.graph.StackVertex();
  }
}
