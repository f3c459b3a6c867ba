package org.ndrt.nn.conf.graph;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.Json;

/**
 * A parameter-free vertex of a ComputationGraph (merge, element-wise, subset, ...): configuration
 * only, as Deeplearning4j's {@code org.deeplearning4j.nn.conf.graph} classes. The compute side is
 * {@code org.ndrt.nn.graph.Vertices}. Types follow Deeplearning4j's conventions: the feature axis is 1
 * (feed-forward [N, size], images [N, C, H, W], sequences [N, size, T]).
 */
public abstract class GraphVertex {
  /** The fewest inputs the vertex takes. */
  public int minInputs() {
    return 1;
  }

  /** The most inputs the vertex takes. */
  public int maxInputs() {
    return Integer.MAX_VALUE;
  }

  /**
   * The type this vertex puts out for {@code in} (one per input, in order); IllegalArgumentException
   * saying what does not fit (the graph's builder adds the vertex's name). {@code types} gives the
   * type of any vertex or input by name (for vertices that refer to another one).
   */
  public abstract InputType inferOutput(List<InputType> in, java.util.function.Function<String, InputType> types);

  /** The JSON fields of this vertex after its "type". */
  protected abstract void fieldsToJson(Map<String, Object> m);

  /** {"type": simple class name, fields...}. */
  public final Map<String, Object> toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("type", getClass().getSimpleName());
    fieldsToJson(m);
    return m;
  }

  /** Reads {@link #toJson()}'s map. */
  public static GraphVertex fromJson(Map<String, Object> m) {
    String type = Json.str(m, "type");
    switch (type) {
      case "MergeVertex": return new MergeVertex();
      case "ElementWiseVertex": return new ElementWiseVertex(ElementWiseVertex.Op.valueOf(Json.str(m, "op")));
      case "SubsetVertex": return new SubsetVertex((int) Json.integer(m, "from"), (int) Json.integer(m, "to"));
      case "StackVertex": return new StackVertex();
      case "UnstackVertex": return new UnstackVertex((int) Json.integer(m, "from"), (int) Json.integer(m, "stackSize"));
      case "ScaleVertex": return new ScaleVertex(Json.num(m, "scale"));
      case "ShiftVertex": return new ShiftVertex(Json.num(m, "shift"));
      case "L2NormalizeVertex": return new L2NormalizeVertex(Json.num(m, "eps"));
      case "PreprocessorVertex": return PreprocessorVertex.read(m);
      case "ReshapeVertex": {
        int[] s = Json.ints(m, "shape");
        long[] l = new long[s.length];
        for (int i = 0; i < s.length; ++i) {
          l[i] = s[i];
        }
        return new ReshapeVertex(l);
      }
      case "LastTimeStepVertex": return new LastTimeStepVertex(Json.str(m, "maskInput"));
      case "DuplicateToTimeSeriesVertex": return new DuplicateToTimeSeriesVertex(Json.str(m, "input"));
      default: throw new IllegalArgumentException("graph vertex JSON: unknown type \"" + type + "\"");
    }
  }

  /** The size of the feature axis (feed-forward size, image channels, sequence size). */
  static long features(InputType t) {
    return t.isConvolutional() ? t.channels : t.size;
  }

  /** The type {@code t} with {@code n} features (same kind, image size or sequence length). */
  static InputType withFeatures(InputType t, long n) {
    if (t.isConvolutional()) {
      return InputType.convolutional(t.height, t.width, n);
    }
    return t.isRecurrent() ? InputType.recurrent(n, t.timeSeriesLength) : InputType.feedForward(n);
  }

  /** IllegalArgumentException unless every input has the same type (flat images count as images). */
  static InputType sameTypes(List<InputType> in, String what) {
    InputType first = image(in.get(0));
    for (int i = 1; i < in.size(); ++i) {
      if (!image(in.get(i)).equals(first)) {
        throw new IllegalArgumentException(what + " needs inputs of one type, got " + in);
      }
    }
    return first;
  }

  /** Flat images as images (the graph's input stage gives them as [N, C, H, W]). */
  static InputType image(InputType t) {
    return t.kind == InputType.Kind.CONVOLUTIONAL_FLAT ? InputType.convolutional(t.height, t.width, t.channels) : t;
  }

  @Override
  public boolean equals(Object o) {
    return o != null && o.getClass() == getClass() && ((GraphVertex) o).toJson().equals(toJson());
  }

  @Override
  public int hashCode() {
    return toJson().hashCode();
  }

  @Override
  public String toString() {
    return Json.write(toJson());
  }
}
