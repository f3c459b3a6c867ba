package org.ndrt.nn.conf;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The shape of what flows into a layer, without the batch dimension. Given for the network's input
 * (NeuralNetConfiguration.ListBuilder#setInputType), it lets every layer's nIn and spatial size be
 * inferred at build time. Convolutional data is NCHW.
 */
public final class InputType {
  /** What the array holds. */
  public enum Kind {
    /** [N, size] rows. */
    FEED_FORWARD,
    /** [N, channels, height, width]. */
    CONVOLUTIONAL,
    /** Images given as flat rows [N, channels * height * width], seen as [N, channels, height, width]. */
    CONVOLUTIONAL_FLAT,
    /**
     * Sequences [N, size, timeSteps] (Deeplearning4j's NCW layout: features, then time); the
     * recurrent layers see them as [N, timeSteps, size] views.
     */
    RECURRENT
  }

  public final Kind kind;
  public final long height;
  public final long width;
  public final long channels;
  public final long size;
  /** RECURRENT: the number of time steps, or 0 when it is not fixed (any length is taken). */
  public final long timeSeriesLength;

  private InputType(Kind kind, long height, long width, long channels, long size) {
    this(kind, height, width, channels, size, 0);
  }

  private InputType(Kind kind, long height, long width, long channels, long size, long timeSeriesLength) {
    this.kind = kind;
    this.height = height;
    this.width = width;
    this.channels = channels;
    this.size = size;
    this.timeSeriesLength = timeSeriesLength;
  }

  public static InputType feedForward(long size) {
    if (size <= 0) {
      throw new IllegalArgumentException("InputType.feedForward: size must be positive, got " + size);
    }
    return new InputType(Kind.FEED_FORWARD, 0, 0, 0, size);
  }

  public static InputType convolutional(long height, long width, long channels) {
    check(height, width, channels);
    return new InputType(Kind.CONVOLUTIONAL, height, width, channels, height * width * channels);
  }

  /** Flat rows (e.g. MNIST's 784 pixels) for a convolutional network: {@code convolutionalFlat(28, 28, 1)}. */
  public static InputType convolutionalFlat(long height, long width, long channels) {
    check(height, width, channels);
    return new InputType(Kind.CONVOLUTIONAL_FLAT, height, width, channels, height * width * channels);
  }

  /** Sequences of {@code size} features per step, any number of steps: [N, size, T]. */
  public static InputType recurrent(long size) {
    return recurrent(size, 0);
  }

  /**
   * Sequences of {@code size} features per step and {@code timeSeriesLength} steps ([N, size,
   * timeSeriesLength]); 0 leaves the length open.
   */
  public static InputType recurrent(long size, long timeSeriesLength) {
    if (size <= 0 || timeSeriesLength < 0) {
      throw new IllegalArgumentException("InputType.recurrent: size must be positive and timeSeriesLength >= 0 (0: any), got "
          + size + ", " + timeSeriesLength);
    }
    return new InputType(Kind.RECURRENT, 0, 0, 0, size, timeSeriesLength);
  }

  private static void check(long h, long w, long c) {
    if (h <= 0 || w <= 0 || c <= 0) {
      throw new IllegalArgumentException("InputType: height, width and channels must be positive, got "
          + h + "x" + w + "x" + c);
    }
  }

  /** True for the image kinds (what convolution and subsampling layers need). */
  public boolean isConvolutional() {
    return kind == Kind.CONVOLUTIONAL || kind == Kind.CONVOLUTIONAL_FLAT;
  }

  /** True for sequences (what the recurrent layers need). */
  public boolean isRecurrent() {
    return kind == Kind.RECURRENT;
  }

  /** Elements per example (per time step for sequences). */
  public long flatSize() {
    return size;
  }

  /**
   * The array shape for a batch of {@code n}, as the layers see it (flat images as NCHW); sequences
   * as [n, size, T], T = timeSeriesLength (0 when open).
   */
  public long[] batchShape(long n) {
    if (isRecurrent()) {
      return new long[] {n, size, timeSeriesLength};
    }
    return isConvolutional() ? new long[] {n, channels, height, width} : new long[] {n, size};
  }

  Map<String, Object> toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("kind", kind.name());
    if (isConvolutional()) {
      m.put("height", height);
      m.put("width", width);
      m.put("channels", channels);
    } else {
      m.put("size", size);
      if (isRecurrent()) {
        m.put("timeSeriesLength", timeSeriesLength);
      }
    }
    return m;
  }

  static InputType fromJson(Map<String, Object> m) {
    Kind k = Kind.valueOf(Json.str(m, "kind"));
    if (k == Kind.FEED_FORWARD) {
      return feedForward(Json.integer(m, "size"));
    }
    if (k == Kind.RECURRENT) {
      return recurrent(Json.integer(m, "size"), Json.integer(m, "timeSeriesLength", 0));
    }
    long h = Json.integer(m, "height"), w = Json.integer(m, "width"), c = Json.integer(m, "channels");
    return k == Kind.CONVOLUTIONAL ? convolutional(h, w, c) : convolutionalFlat(h, w, c);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof InputType && ((InputType) o).kind == kind && ((InputType) o).height == height
        && ((InputType) o).width == width && ((InputType) o).channels == channels && ((InputType) o).size == size
        && ((InputType) o).timeSeriesLength == timeSeriesLength;
  }

  @Override
  public int hashCode() {
    return java.util.Objects.hash(kind, height, width, channels, size, timeSeriesLength);
  }

  @Override
  public String toString() {
    if (isRecurrent()) {
      return "RECURRENT(" + size + (timeSeriesLength > 0 ? ", " + timeSeriesLength + " steps" : "") + ")";
    }
    return isConvolutional() ? kind + "(" + height + "x" + width + "x" + channels + ")" : "FEED_FORWARD(" + size + ")";
  }
}
