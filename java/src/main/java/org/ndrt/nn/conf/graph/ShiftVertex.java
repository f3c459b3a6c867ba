package org.ndrt.nn.conf.graph;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.ndrt.nn.conf.InputType;

/** Its one input plus a constant. */
public final class ShiftVertex extends GraphVertex {
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
  public int maxInputs() {
    return 1;
  }

  @Override
  public InputType inferOutput(List<InputType> in, Function<String, InputType> types) {
    return image(in.get(0));
  }

  @Override
  protected void fieldsToJson(Map<String, Object> m) {
    m.put("shift", shift);
  }
}
