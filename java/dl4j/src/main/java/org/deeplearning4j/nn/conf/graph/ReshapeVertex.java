package org.deeplearning4j.nn.conf.graph;

import java.util.Arrays;

/**
 * Deeplearning4j's ReshapeVertex: its input reshaped in 'c' order to {@code newShape} (batch entry
 * first, -1 or the batch size). Order 'f' and a mask shape are refused.
 */
public class ReshapeVertex extends GraphVertex {
  private static final long serialVersionUID = 1L;
  protected String reshapeOrder = "c";  // a String: the drop-in's copy format has no char
  protected int[] newShape;
  protected int[] maskShape;

  private ReshapeVertex() {}

  public ReshapeVertex(int... newShape) {
    this('c', newShape, null);
  }

  public ReshapeVertex(char reshapeOrder, int[] newShape, int[] maskShape) {
    this.reshapeOrder = String.valueOf(reshapeOrder);
    this.newShape = newShape == null ? null : newShape.clone();
    this.maskShape = maskShape == null ? null : maskShape.clone();
  }

  public char getReshapeOrder() {
    return reshapeOrder.charAt(0);
  }

  public int[] getNewShape() {
    return newShape == null ? null : newShape.clone();
  }

  public int[] getMaskShape() {
    return maskShape == null ? null : maskShape.clone();
  }

  @Override
  public org.ndrt.nn.conf.graph.GraphVertex ndrtVertex() {
    if (!reshapeOrder.equals("c")) {
      throw new UnsupportedOperationException("ReshapeVertex with order '" + reshapeOrder + "': org.ndrt.nn reshapes in "
          + "'c' order only");
    }
    if (maskShape != null) {
      throw new UnsupportedOperationException("ReshapeVertex with maskShape " + Arrays.toString(maskShape) + ": org.ndrt.nn's "
          + "ReshapeVertex takes no mask");
    }
    long[] s = newShape == null ? null : Arrays.stream(newShape).asLongStream().toArray();
    return new org.ndrt.nn.conf.graph.ReshapeVertex(s);
  }
}
