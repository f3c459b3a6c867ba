package org.ndrt.nn.conf.graph;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.ndrt.nn.conf.InputType;

/** Its one input times a constant. */
public final class ScaleVertex extends GraphVertex {
  private final double scale;

  public ScaleVertex(double scale) {
    if (!Double.isFinite(scale)) {
      throw new IllegalArgumentException("ScaleVertex: the scale must be finite, got " + scale);
    }
    this.scale = scale;
  }

  public double scale() {
    return scale;
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
    m.put("scale", scale);
  }
}
