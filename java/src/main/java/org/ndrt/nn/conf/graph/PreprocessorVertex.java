package org.ndrt.nn.conf.graph;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.Json;

/**
 * One of Deeplearning4j's input preprocessors as a vertex: images to rows (CnnToFeedForward, a view
 * [N, C H W] in C, H, W order) or rows to images (FeedForwardToCnn with height, width, channels).
 * Other preprocessors are not supported.
 */
public final class PreprocessorVertex extends GraphVertex {
  /** Which reshaping. */
  public enum Kind {
    CNN_TO_FEED_FORWARD,
    FEED_FORWARD_TO_CNN
  }

  private final Kind kind;
  private final long height;
  private final long width;
  private final long channels;

  private PreprocessorVertex(Kind kind, long height, long width, long channels) {
    this.kind = kind;
    this.height = height;
    this.width = width;
    this.channels = channels;
  }

  /** Images [N, C, H, W] to rows [N, C H W]. */
  public static PreprocessorVertex cnnToFeedForward() {
    return new PreprocessorVertex(Kind.CNN_TO_FEED_FORWARD, 0, 0, 0);
  }

  /** Rows [N, C H W] to images [N, C, H, W]. */
  public static PreprocessorVertex feedForwardToCnn(long height, long width, long channels) {
    InputType.convolutional(height, width, channels);  // checks the sizes
    return new PreprocessorVertex(Kind.FEED_FORWARD_TO_CNN, height, width, channels);
  }

  public Kind kind() {
    return kind;
  }

  @Override
  public int maxInputs() {
    return 1;
  }

  @Override
  public InputType inferOutput(List<InputType> in, Function<String, InputType> types) {
    InputType t = in.get(0);
    if (kind == Kind.CNN_TO_FEED_FORWARD) {
      if (!t.isConvolutional()) {
        throw new IllegalArgumentException("PreprocessorVertex(CnnToFeedForward) takes images, got " + t);
      }
      return InputType.feedForward(t.flatSize());
    }
    if (t.isRecurrent() || t.flatSize() != height * width * channels) {
      throw new IllegalArgumentException("PreprocessorVertex(FeedForwardToCnn " + height + "x" + width + "x" + channels
          + ") takes rows of " + height * width * channels + ", got " + t);
    }
    return InputType.convolutional(height, width, channels);
  }

  @Override
  protected void fieldsToJson(Map<String, Object> m) {
    m.put("kind", kind.name());
    if (kind == Kind.FEED_FORWARD_TO_CNN) {
      m.put("height", height);
      m.put("width", width);
      m.put("channels", channels);
    }
  }

  static PreprocessorVertex read(Map<String, Object> m) {
    Kind k = Kind.valueOf(Json.str(m, "kind"));
    return k == Kind.CNN_TO_FEED_FORWARD ? cnnToFeedForward()
        : feedForwardToCnn(Json.integer(m, "height"), Json.integer(m, "width"), Json.integer(m, "channels"));
  }
}
