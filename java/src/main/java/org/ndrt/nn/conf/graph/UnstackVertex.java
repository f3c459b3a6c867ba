package org.ndrt.nn.conf.graph;

import java.util.Map;

/** Part {@code from} of {@code stackSize} equal parts of its input's batch axis (a view). */
public final class UnstackVertex extends SameShapeVertex {
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
  protected void fieldsToJson(Map<String, Object> m) {
    m.put("from", from);
    m.put("stackSize", stackSize);
  }
}
