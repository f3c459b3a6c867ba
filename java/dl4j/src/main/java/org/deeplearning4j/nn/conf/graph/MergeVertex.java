package org.deeplearning4j.nn.conf.graph;

/** Deeplearning4j's MergeVertex: its inputs concatenated along the feature axis (axis 1). */
public class MergeVertex extends GraphVertex {
  private static final long serialVersionUID = 1L;
  protected int mergeAxis = 1;

  public MergeVertex() {}

  public int getMergeAxis() {
    return mergeAxis;
  }

  /** Axis 1 only (features / channels): org.ndrt.nn merges there. */
  public void setMergeAxis(int mergeAxis) {
    this.mergeAxis = mergeAxis;
  }

  @Override
  public org.ndrt.nn.conf.graph.GraphVertex ndrtVertex() {
    if (mergeAxis != 1) {
      throw new UnsupportedOperationException("MergeVertex with mergeAxis " + mergeAxis + ": org.ndrt.nn merges along "
          + "axis 1 (features / channels) only");
    }
    return new org.ndrt.nn.conf.graph.MergeVertex();
  }
}
