package org.ndrt.nn.conf.graph;

import java.util.Map;

/**
 * Each example of its one input divided by its L2 norm over every non-batch axis, the norm taken
 * as at least {@code eps} (Deeplearning4j's default dimensions; default eps 1e-8).
 */
public final class L2NormalizeVertex extends SameShapeVertex {
  /** Deeplearning4j's default eps. */
  public static final double DEFAULT_EPS = 1e-8;
  private final double eps;

  public L2NormalizeVertex() {
    this(DEFAULT_EPS);
  }

  public L2NormalizeVertex(double eps) {
    if (!(eps > 0) || !Double.isFinite(eps)) {
      throw new IllegalArgumentException("L2NormalizeVertex: eps must be positive and finite, got " + eps);
    }
    this.eps = eps;
  }

  public double eps() {
    return eps;
  }

  @Override
  protected void fieldsToJson(Map<String, Object> m) {
    m.put("eps", eps);
  }
}
