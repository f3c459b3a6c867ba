package org.ndrt.nn.conf.graph;

import java.util.Map;

/** Its one input plus a constant. */
public final class ShiftVertex extends SameShapeVertex {
  private final double shift;

  public ShiftVertex(double shift) {
    if (!Double.isFinite(shift)) {
      throw new IllegalArgumentException("ShiftVertex: the shift must be finite, got " + shift);
    }
    this.shift = shift;
  }

  public double shift() {
    return shift;
  }

  @Override
  protected void fieldsToJson(Map<String, Object> m) {
    m.put("shift", shift);
  }
}
