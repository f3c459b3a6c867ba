package org.deeplearning4j.nn.conf.graph.rnn;

import org.deeplearning4j.nn.conf.graph.GraphVertex;

/**
 * Deeplearning4j's DuplicateToTimeSeriesVertex: rows [N, size] repeated at every step of the sequences
 * of network input {@code inputName}: [N, size, T] with that input's T.
 */
public class DuplicateToTimeSeriesVertex extends GraphVertex {
  private static final long serialVersionUID = 1L;
  protected String inputName;

  private DuplicateToTimeSeriesVertex() {}

  public DuplicateToTimeSeriesVertex(String inputName) {
    this.inputName = inputName;
  }

  public String getInputName() {
    return inputName;
  }

  @Override
  public org.ndrt.nn.conf.graph.GraphVertex ndrtVertex() {
    return new org.ndrt.nn.conf.graph.DuplicateToTimeSeriesVertex(inputName);
  }
}
