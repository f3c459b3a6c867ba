package org.ndrt.nn.conf.graph;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.ndrt.nn.conf.InputType;

/** Features {@code from} to {@code to} (both included) of its one input, along the feature axis: a view. */
public final class SubsetVertex extends GraphVertex {
  private final int from;
  private final int to;

  public SubsetVertex(int from, int to) {
    if (from < 0 || to < from) {
      throw new IllegalArgumentException("SubsetVertex: need 0 <= from <= to, got from " + from + ", to " + to);
    }
    this.from = from;
    this.to = to;
  }

  public int from() {
    return from;
  }

  public int to() {
    return to;
  }

  @Override
  public int maxInputs() {
    return 1;
  }

  @Override
  public InputType inferOutput(List<InputType> in, Function<String, InputType> types) {
    InputType t = image(in.get(0));
    if (to >= features(t)) {
      throw new IllegalArgumentException("SubsetVertex(" + from + ", " + to + "): its input " + t + " has only "
          + features(t) + " features");
    }
    return withFeatures(t, to - from + 1);
  }

  @Override
  protected void fieldsToJson(Map<String, Object> m) {
    m.put("from", from);
    m.put("to", to);
  }
}
