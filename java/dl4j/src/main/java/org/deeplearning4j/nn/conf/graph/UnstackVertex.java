package org.deeplearning4j.nn.conf.graph;

/** Deeplearning4j's UnstackVertex: part {@code from} of {@code stackSize} equal parts of the batch axis. */
public class UnstackVertex extends GraphVertex {
  private static final long serialVersionUID = 1L;
  protected int from;
  protected int stackSize;

  private UnstackVertex() {}

  public UnstackVertex(int from, int stackSize) {
    this.from = from;
    this.stackSize = stackSize;
  }

  public int getFrom() {
    return from;
  }

  public int getStackSize() {
    return stackSize;
  }

  @Override
  public org.ndrt.nn.conf.graph.GraphVertex ndrtVertex() {
    return new org.ndrt.nn.conf.graph.UnstackVertex(from, stackSize);
  }
}
