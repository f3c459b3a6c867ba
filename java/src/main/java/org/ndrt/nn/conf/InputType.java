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
    CONVOLUTIONAL_FLAT
  }

  public final Kind kind;
  public final long height;
  public final long width;
  public final long channels;
  public final long size;

  private InputType(Kind kind, long height, long width, long channels, long size) {
    this.kind = kind;
    this.height = height;
    this.width = width;
    this.channels = channels;
    this.size = size;
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

  private static void check(long h, long w, long c) {
    if (h <= 0 || w <= 0 || c <= 0) {
      throw new IllegalArgumentException("InputType: height, width and channels must be positive, got "
          + h + "x" + w + "x" + c);
    }
  }

  /** True for the image kinds (what convolution and subsampling layers need). */
  public boolean isConvolutional() {
    return kind != Kind.FEED_FORWARD;
  }

  /** Elements per example. */
  public long flatSize() {
    return size;
  }

  /** The array shape for a batch of {@code n}, as the layers see it (flat images as NCHW). */
  public long[] batchShape(long n) {
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
    }
    return m;
  }

  static InputType fromJson(Map<String, Object> m) {
    Kind k = Kind.valueOf(Json.str(m, "kind"));
    if (k == Kind.FEED_FORWARD) {
      return feedForward(Json.integer(m, "size"));
    }
    long h = Json.integer(m, "height"), w = Json.integer(m, "width"), c = Json.integer(m, "channels");
    return k == Kind.CONVOLUTIONAL ? convolutional(h, w, c) : convolutionalFlat(h, w, c);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof InputType && ((InputType) o).kind == kind && ((InputType) o).height == height
        && ((InputType) o).width == width && ((InputType) o).channels == channels && ((InputType) o).size == size;
  }

  @Override
  public int hashCode() {
    return java.util.Objects.hash(kind, height, width, channels, size);
  }

  @Override
  public String toString() {
    return isConvolutional() ? kind + "(" + height + "x" + width + "x" + channels + ")" : "FEED_FORWARD(" + size + ")";
  }
}
