package org.ndrt.nn.conf.graph;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.ndrt.nn.conf.InputType;

/** Stacks inputs of one type along the batch axis: k inputs of N examples give k N (UnstackVertex undoes it). */
public final class StackVertex extends GraphVertex {
  @Override
  public InputType inferOutput(List<InputType> in, Function<String, InputType> types) {
    return sameTypes(in, "StackVertex");
  }

  @Override
  protected void fieldsToJson(Map<String, Object> m) {}
}
