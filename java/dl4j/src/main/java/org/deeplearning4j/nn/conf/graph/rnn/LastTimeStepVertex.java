package org.deeplearning4j.nn.conf.graph.rnn;

import org.deeplearning4j.nn.conf.graph.GraphVertex;

/**
 * Deeplearning4j's LastTimeStepVertex: sequences [N, size, T] to their last step [N, size], under the
 * features mask of network input {@code maskArrayInputName} (null: none) each sequence's last unmasked step.
 */
public class LastTimeStepVertex extends GraphVertex {
  private static final long serialVersionUID = 1L;
  protected String maskArrayInputName;

  private LastTimeStepVertex() {}

  public LastTimeStepVertex(String maskArrayInputName) {
    this.maskArrayInputName = maskArrayInputName;
  }

  public String getMaskArrayInputName() {
    return maskArrayInputName;
  }

  @Override
  public org.ndrt.nn.conf.graph.GraphVertex ndrtVertex() {
    return new org.ndrt.nn.conf.graph.LastTimeStepVertex(maskArrayInputName);
  }
}
