package org.deeplearning4j.nn.conf.graph;

/** Deeplearning4j's ElementWiseVertex: Add, Subtract (two inputs), Product, Average or Max of inputs of one shape. */
public class ElementWiseVertex extends GraphVertex {
  private static final long serialVersionUID = 1L;

  /** Deeplearning4j's operations. */
  public enum Op { Add, Subtract, Product, Average, Max }

  protected Op op;

  private ElementWiseVertex() {}

  public ElementWiseVertex(Op op) {
    this.op = op;
  }

  public Op getOp() {
    return op;
  }

  @Override
  public org.ndrt.nn.conf.graph.GraphVertex ndrtVertex() {
    return new org.ndrt.nn.conf.graph.ElementWiseVertex(op == null ? null
        : org.ndrt.nn.conf.graph.ElementWiseVertex.Op.valueOf(op.name()));
  }
}
