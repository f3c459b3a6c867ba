package org.ndrt.nn.conf.graph;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.ndrt.nn.conf.InputType;

/**
 * One element-wise operation over inputs of one type: Add, Subtract (exactly two: first - second),
 * Product, Average, Max (the gradient goes to the first input holding the maximum).
 */
public final class ElementWiseVertex extends GraphVertex {
  /** Deeplearning4j's {@code ElementWiseVertex.Op}. */
  public enum Op {
    Add,
    Subtract,
    Product,
    Average,
    Max
  }

  private final Op op;

  public ElementWiseVertex(Op op) {
    if (op == null) {
      throw new IllegalArgumentException("ElementWiseVertex: op must not be null");
    }
    this.op = op;
  }

  public Op op() {
    return op;
  }

  @Override
  public int minInputs() {
    return op == Op.Subtract ? 2 : 1;
  }

  @Override
  public int maxInputs() {
    return op == Op.Subtract ? 2 : Integer.MAX_VALUE;
  }

  @Override
  public InputType inferOutput(List<InputType> in, Function<String, InputType> types) {
    return sameTypes(in, "ElementWiseVertex(" + op + ")");
  }

  @Override
  protected void fieldsToJson(Map<String, Object> m) {
    m.put("op", op.name());
  }
}
