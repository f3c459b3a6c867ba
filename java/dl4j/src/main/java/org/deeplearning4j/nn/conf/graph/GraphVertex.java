package org.deeplearning4j.nn.conf.graph;

import java.io.Serializable;
import org.ndrt.dl4j.ConfJson;

/**
 * Deeplearning4j's parameter-free graph vertex configuration (and {@link LayerVertex}, a layer in a
 * graph). Configuration only: {@link #ndrtVertex()} is the org.ndrt.nn vertex of the same meaning,
 * which org.ndrt.nn.ComputationGraph computes. Fields carry Deeplearning4j's names (its JSON keys).
 */
public abstract class GraphVertex implements Cloneable, Serializable {
  private static final long serialVersionUID = 1L;

  /** ndrt: the org.ndrt.nn vertex (UnsupportedOperationException naming what org.ndrt.nn lacks). */
  public abstract org.ndrt.nn.conf.graph.GraphVertex ndrtVertex();

  public int minVertexInputs() {
    return ndrtVertex().minInputs();
  }

  public int maxVertexInputs() {
    return ndrtVertex().maxInputs();
  }

  /** Parameter-free, as every vertex but a layer's. */
  public long numParams(boolean backprop) {
    return 0;
  }

  @Override
  public GraphVertex clone() {
    return ConfJson.read(ConfJson.write(this), GraphVertex.class);
  }

  @Override
  public boolean equals(Object o) {
    return o != null && o.getClass() == getClass() && ConfJson.write(o).equals(ConfJson.write(this));
  }

  @Override
  public int hashCode() {
    return ConfJson.write(this).hashCode();
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + ConfJson.write(this);
  }
}
