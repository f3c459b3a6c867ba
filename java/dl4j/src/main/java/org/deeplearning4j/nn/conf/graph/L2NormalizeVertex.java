package org.deeplearning4j.nn.conf.graph;

/**
 * Deeplearning4j's L2NormalizeVertex: each example divided by its L2 norm over every non-batch axis
 * (the default dimensions; others are refused), at least {@code eps} (default 1e-8).
 */
public class L2NormalizeVertex extends GraphVertex {
  private static final long serialVersionUID = 1L;
  /** Deeplearning4j's default eps. */
  public static final double DEFAULT_EPS = 1e-8;
  protected int[] dimension;
  protected double eps = DEFAULT_EPS;

  public L2NormalizeVertex() {}

  public L2NormalizeVertex(int[] dimension, double eps) {
    this.dimension = dimension == null ? null : dimension.clone();
    this.eps = eps;
  }

  public int[] getDimension() {
    return dimension == null ? null : dimension.clone();
  }

  public double getEps() {
    return eps;
  }

  @Override
  public org.ndrt.nn.conf.graph.GraphVertex ndrtVertex() {
    if (dimension != null && dimension.length > 0) {
      throw new UnsupportedOperationException("L2NormalizeVertex with dimension " + java.util.Arrays.toString(dimension)
          + ": org.ndrt.nn normalises over every non-batch axis only (dimension null)");
    }
    return new org.ndrt.nn.conf.graph.L2NormalizeVertex(eps);
  }
}
