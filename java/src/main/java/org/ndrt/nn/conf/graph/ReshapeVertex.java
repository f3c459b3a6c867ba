package org.ndrt.nn.conf.graph;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.Json;

/**
 * Its one input reshaped in 'c' order to {@code shape} (Deeplearning4j's layout: sequences
 * [N, size, T]); the first entry is the batch (give -1, or the batch size the graph will see). Rank
 * 2 gives rows, 3 sequences, 4 images [N, C, H, W]; the element count per example must not change.
 */
public final class ReshapeVertex extends GraphVertex {
  private final long[] shape;

  public ReshapeVertex(long... shape) {
    if (shape == null || shape.length < 2 || shape.length > 4) {
      throw new IllegalArgumentException("ReshapeVertex: need a shape of rank 2, 3 or 4 (batch first), got "
          + Arrays.toString(shape));
    }
    for (int i = 1; i < shape.length; ++i) {
      if (shape[i] <= 0) {
        throw new IllegalArgumentException("ReshapeVertex: the non-batch sizes must be positive, got " + Arrays.toString(shape));
      }
    }
    this.shape = shape.clone();
  }

  /** The shape given (batch entry first). */
  public long[] shape() {
    return shape.clone();
  }

  @Override
  public int maxInputs() {
    return 1;
  }

  @Override
  public InputType inferOutput(List<InputType> in, Function<String, InputType> types) {
    InputType t = in.get(0);
    long per = 1;
    for (int i = 1; i < shape.length; ++i) {
      per *= shape[i];
    }
    long have = t.isRecurrent() ? t.size * t.timeSeriesLength : t.flatSize();
    if (t.isRecurrent() && t.timeSeriesLength == 0) {
      throw new IllegalArgumentException("ReshapeVertex: its input " + t + " has no fixed length; give the sequence length"
          + " in the input type");
    }
    if (per != have) {
      throw new IllegalArgumentException("ReshapeVertex to " + Arrays.toString(shape) + " (" + per + " per example): its"
          + " input " + t + " has " + have);
    }
    switch (shape.length) {
      case 2: return InputType.feedForward(shape[1]);
      case 3: return InputType.recurrent(shape[1], shape[2]);
      default: return InputType.convolutional(shape[2], shape[3], shape[1]);
    }
  }

  @Override
  protected void fieldsToJson(Map<String, Object> m) {
    int[] s = new int[shape.length];
    for (int i = 0; i < s.length; ++i) {
      s[i] = Math.toIntExact(shape[i]);
    }
    m.put("shape", Json.list(s));
  }
}
