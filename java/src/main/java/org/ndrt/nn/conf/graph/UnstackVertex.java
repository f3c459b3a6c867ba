package org.ndrt.nn.conf.graph;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.ndrt.nn.conf.InputType;

/** Part {@code from} of {@code stackSize} equal parts of its input's batch axis (a view). */
public final class UnstackVertex extends GraphVertex {
  private final int from;
  private final int stackSize;

  public UnstackVertex(int from, int stackSize) {
    if (stackSize <= 0 || from < 0 || from >= stackSize) {
      throw new IllegalArgumentException("UnstackVertex: need 0 <= from < stackSize, got from " + from + ", stackSize "
          + stackSize);
    }
    this.from = from;
    this.stackSize = stackSize;
  }

  public int from() {
    return from;
  }

  public int stackSize() {
    return stackSize;
  }

  @Override
  public int maxInputs() {
    return 1;
  }

  @Override
  public InputType inferOutput(List<InputType> in, Function<String, InputType> types) {
    return image(in.get(0));
  }

  @Override
  protected void fieldsToJson(Map<String, Object> m) {
    m.put("from", from);
    m.put("stackSize", stackSize);
  }
}
