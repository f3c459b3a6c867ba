package org.deeplearning4j.nn.conf.inputs;

import java.io.Serializable;
import org.deeplearning4j.nn.conf.CNN2DFormat;
import org.deeplearning4j.nn.conf.RNNFormat;

/**
 * What a network takes in, as Deeplearning4j's InputType: lets every layer's nIn be inferred and
 * flattening be inserted between convolutional and dense layers. {@link #toNdrt()} is
 * org.ndrt.nn.conf.InputType, which does that inference.
 */
public abstract class InputType implements Serializable, Cloneable {
  private static final long serialVersionUID = 1L;

  /** Deeplearning4j's kinds of input. */
  public enum Type { FF, RNN, CNN, CNN3D, CNNFlat }

  public abstract Type getType();

  /** org.ndrt.nn's input type of the same meaning. */
  public abstract org.ndrt.nn.conf.InputType toNdrt();

  /** Values per example. */
  public abstract long arrayElementsPerExample();

  public static InputType feedForward(long size) {
    return new InputTypeFeedForward(size);
  }

  public static InputType recurrent(long size) {
    return new InputTypeRecurrent(size, -1);
  }

  public static InputType recurrent(long size, long timeSeriesLength) {
    return new InputTypeRecurrent(size, timeSeriesLength);
  }

  /** Sequences in the given layout (NWC is refused when the network is initialised). */
  public static InputType recurrent(long size, RNNFormat format) {
    InputTypeRecurrent t = new InputTypeRecurrent(size, -1);
    t.format = format;
    return t;
  }

  /** Sequences of a known length in the given layout (NWC is refused when the network is initialised). */
  public static InputType recurrent(long size, long timeSeriesLength, RNNFormat format) {
    InputTypeRecurrent t = new InputTypeRecurrent(size, timeSeriesLength);
    t.format = format;
    return t;
  }

  public static InputType convolutional(long height, long width, long depth) {
    return new InputTypeConvolutional(height, width, depth);
  }

  /** Images in the given layout (NHWC is refused when the network is initialised). */
  public static InputType convolutional(long height, long width, long depth, CNN2DFormat format) {
    InputTypeConvolutional t = new InputTypeConvolutional(height, width, depth);
    t.format = format;
    return t;
  }

  /** Images given as rows of height * width * depth values (MNIST's iterator). */
  public static InputType convolutionalFlat(long height, long width, long depth) {
    return new InputTypeConvolutionalFlat(height, width, depth);
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "(" + toNdrt() + ")";
  }

  /** Vectors of {@code size}. */
  public static class InputTypeFeedForward extends InputType {
    private static final long serialVersionUID = 1L;
    private long size;

    protected InputTypeFeedForward() {}

    public InputTypeFeedForward(long size) {
      this.size = size;
    }

    public long getSize() {
      return size;
    }

    @Override
    public Type getType() {
      return Type.FF;
    }

    @Override
    public org.ndrt.nn.conf.InputType toNdrt() {
      return org.ndrt.nn.conf.InputType.feedForward(size);
    }

    @Override
    public long arrayElementsPerExample() {
      return size;
    }
  }

  /** Sequences [N, size, T]; timeSeriesLength -1 when unknown. */
  public static class InputTypeRecurrent extends InputType {
    private static final long serialVersionUID = 1L;
    private long size;
    private long timeSeriesLength;
    private RNNFormat format = RNNFormat.NCW;

    protected InputTypeRecurrent() {}

    public InputTypeRecurrent(long size, long timeSeriesLength) {
      this.size = size;
      this.timeSeriesLength = timeSeriesLength;
    }

    public long getSize() {
      return size;
    }

    public long getTimeSeriesLength() {
      return timeSeriesLength;
    }

    public RNNFormat getFormat() {
      return format;
    }

    @Override
    public Type getType() {
      return Type.RNN;
    }

    @Override
    public org.ndrt.nn.conf.InputType toNdrt() {
      if (format != RNNFormat.NCW) {
        throw new UnsupportedOperationException("InputType.recurrent(.., RNNFormat." + format + "): org.ndrt.nn takes "
            + "sequences as NCW ([N, size, T]) only");
      }
      return timeSeriesLength > 0 ? org.ndrt.nn.conf.InputType.recurrent(size, timeSeriesLength)
          : org.ndrt.nn.conf.InputType.recurrent(size);
    }

    @Override
    public long arrayElementsPerExample() {
      return timeSeriesLength > 0 ? size * timeSeriesLength : -1;
    }
  }

  /** Images [N, depth, height, width]. */
  public static class InputTypeConvolutional extends InputType {
    private static final long serialVersionUID = 1L;
    private long height;
    private long width;
    private long channels;
    private CNN2DFormat format = CNN2DFormat.NCHW;

    protected InputTypeConvolutional() {}

    public InputTypeConvolutional(long height, long width, long channels) {
      this.height = height;
      this.width = width;
      this.channels = channels;
    }

    public long getHeight() {
      return height;
    }

    public long getWidth() {
      return width;
    }

    public long getChannels() {
      return channels;
    }

    @Override
    public Type getType() {
      return Type.CNN;
    }

    @Override
    public org.ndrt.nn.conf.InputType toNdrt() {
      if (format != CNN2DFormat.NCHW) {
        throw new UnsupportedOperationException("InputType.convolutional(.., CNN2DFormat." + format + "): org.ndrt.nn "
            + "takes images as NCHW only");
      }
      return org.ndrt.nn.conf.InputType.convolutional(height, width, channels);
    }

    @Override
    public long arrayElementsPerExample() {
      return height * width * channels;
    }
  }

  /** Images given flat: rows of height * width * depth values. */
  public static class InputTypeConvolutionalFlat extends InputType {
    private static final long serialVersionUID = 1L;
    private long height;
    private long width;
    private long depth;

    protected InputTypeConvolutionalFlat() {}

    public InputTypeConvolutionalFlat(long height, long width, long depth) {
      this.height = height;
      this.width = width;
      this.depth = depth;
    }

    public long getHeight() {
      return height;
    }

    public long getWidth() {
      return width;
    }

    public long getDepth() {
      return depth;
    }

    @Override
    public Type getType() {
      return Type.CNNFlat;
    }

    @Override
    public org.ndrt.nn.conf.InputType toNdrt() {
      return org.ndrt.nn.conf.InputType.convolutionalFlat(height, width, depth);
    }

    @Override
    public long arrayElementsPerExample() {
      return height * width * depth;
    }
  }
}
