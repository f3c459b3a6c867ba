package org.ndrt.nn.conf.graph;

import java.util.List;
import java.util.function.Function;
import org.ndrt.nn.conf.InputType;

/** A vertex of one input whose output has the input's type (scale, shift, L2 normalise, unstack). */
public abstract class SameShapeVertex extends GraphVertex {
  @Override
  public final int maxInputs() {
    return 1;
  }

  @Override
  public final InputType inferOutput(List<InputType> in, Function<String, InputType> types) {
    return image(in.get(0));
  }
}
