package org.ndrt.nn.conf.graph;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.ndrt.nn.conf.InputType;

/**
 * Rows [N, size] repeated at every step of the sequences of graph input or vertex {@code input}:
 * [N, size, T] with that one's T (a broadcast view; its backward sums over the steps).
 */
public final class DuplicateToTimeSeriesVertex extends GraphVertex {
  private final String input;

  public DuplicateToTimeSeriesVertex(String input) {
    if (input == null || input.isEmpty()) {
      throw new IllegalArgumentException("DuplicateToTimeSeriesVertex: name the input or vertex whose length it takes");
    }
    this.input = input;
  }

  /** The graph input or vertex whose sequence length the output takes. */
  public String input() {
    return input;
  }

  @Override
  public int maxInputs() {
    return 1;
  }

  @Override
  public InputType inferOutput(List<InputType> in, Function<String, InputType> types) {
    InputType t = in.get(0);
    if (t.isRecurrent() || t.isConvolutional()) {
      throw new IllegalArgumentException("DuplicateToTimeSeriesVertex takes rows [N, size], got " + t);
    }
    InputType ref = types.apply(input);
    if (ref == null) {
      throw new IllegalArgumentException("DuplicateToTimeSeriesVertex: \"" + input + "\" is not an input or vertex of the graph");
    }
    if (!ref.isRecurrent()) {
      throw new IllegalArgumentException("DuplicateToTimeSeriesVertex: \"" + input + "\" gives " + ref + ", not sequences");
    }
    return InputType.recurrent(t.size, ref.timeSeriesLength);
  }

  @Override
  protected void fieldsToJson(Map<String, Object> m) {
    m.put("input", input);
  }
}
