package org.ndrt.nn.conf.graph;

import java.util.Map;

/** Its one input times a constant. */
public final class ScaleVertex extends SameShapeVertex {
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
  protected void fieldsToJson(Map<String, Object> m) {
    m.put("scale", scale);
  }
}
