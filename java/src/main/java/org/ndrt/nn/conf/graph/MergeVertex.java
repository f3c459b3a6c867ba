package org.ndrt.nn.conf.graph;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.ndrt.nn.conf.InputType;

/**
 * Concatenates its inputs along the feature axis (feed-forward size, image channels, sequence size);
 * they must agree in everything else (kind, image height and width).
 */
public final class MergeVertex extends GraphVertex {
  @Override
  public InputType inferOutput(List<InputType> in, Function<String, InputType> types) {
    InputType first = image(in.get(0));
    long total = 0;
    for (InputType t0 : in) {
      InputType t = image(t0);
      boolean fits = t.kind == first.kind && (!t.isConvolutional() || (t.height == first.height && t.width == first.width));
      if (!fits) {
        throw new IllegalArgumentException("MergeVertex concatenates along the feature axis: its inputs must be of one kind"
            + (first.isConvolutional() ? " and one image size" : "") + ", got " + in);
      }
      total += features(t);
    }
    if (first.isRecurrent()) {
      long steps = first.timeSeriesLength;
      for (InputType t : in) {
        steps = steps == 0 ? t.timeSeriesLength : steps;
      }
      return InputType.recurrent(total, steps);
    }
    return withFeatures(first, total);
  }

  @Override
  protected void fieldsToJson(Map<String, Object> m) {}
}
