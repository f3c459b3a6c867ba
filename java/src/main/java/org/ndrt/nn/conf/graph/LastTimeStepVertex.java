package org.ndrt.nn.conf.graph;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.ndrt.nn.conf.InputType;

/**
 * Sequences [N, size, T] to their last valid step [N, size]: the last step, or under the features
 * mask of graph input {@code maskInput} (null: none) each sequence's last unmasked step.
 */
public final class LastTimeStepVertex extends GraphVertex {
  private final String maskInput;

  public LastTimeStepVertex(String maskInput) {
    this.maskInput = maskInput;
  }

  /** The graph input whose features mask applies (null: none). */
  public String maskInput() {
    return maskInput;
  }

  @Override
  public int maxInputs() {
    return 1;
  }

  @Override
  public InputType inferOutput(List<InputType> in, Function<String, InputType> types) {
    InputType t = in.get(0);
    if (!t.isRecurrent()) {
      throw new IllegalArgumentException("LastTimeStepVertex takes sequences, got " + t);
    }
    return InputType.feedForward(t.size);
  }

  @Override
  protected void fieldsToJson(Map<String, Object> m) {
    m.put("maskInput", maskInput);
  }
}
