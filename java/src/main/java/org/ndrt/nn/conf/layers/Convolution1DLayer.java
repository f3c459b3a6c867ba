package org.ndrt.nn.conf.layers;

import java.util.Map;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.Json;
import org.ndrt.nn.conf.WeightInit;

/**
 * Deeplearning4j's {@code Convolution1DLayer}: a 1-D convolution over the time axis of sequences.
 * Takes [N, nIn, T] (InputType.recurrent, nIn inferred), gives [N, nOut, T'] with T' = ceil(T /
 * stride) in {@link ConvMode#Same} mode and (T + 2 padding - dilation (kernel - 1) - 1) / stride + 1
 * in {@link ConvMode#Truncate} mode (the default); the output type's length is unknown (0) when the
 * input's is. Weights "W" [nOut, nIn, kernel] (Deeplearning4j's [nOut, nIn, kernel, 1] without the
 * unit axis) drawn with fanIn = nIn kernel and fanOut = nOut kernel, as a ConvolutionLayer's, and
 * with {@code hasBias(true)} (the default) a bias "b" [nOut] starting at 0. Default activation:
 * IDENTITY unless the network sets one; SOFTMAX is refused (it would run over the time axis). Runs
 * as the runtime's conv1d_bias (conv1d without bias) forward and conv1d_bp_data / _bp_weights /
 * _bp_bias backward.
 *
 * <p>Features masks (sequences padded at the end; the network turns the mask into lengths):
 * <ul>
 *   <li>The layer multiplies its input by the mask before convolving, so the values at padded steps
 *   never reach an output (Deeplearning4j leaves them to the data, where they are usually zeros): a
 *   valid output step equals the one of the unpadded sequence processed alone, and padded input
 *   steps get a zero gradient.
 *   <li>The mask the following layers see is Deeplearning4j's: with stride 1 in Same mode the
 *   input's mask unchanged; otherwise the mask reduced by max pooling over each output step's window
 *   (an output step is valid when its window covers at least one valid input step), kept as a prefix
 *   of valid steps: everything up to the last valid output step counts as valid (different from
 *   Deeplearning4j only where a window inside that prefix sees padding alone, which needs padding
 *   wider than the kernel's span or a dilation longer than the sequence).
 *   <li>The outputs at padded steps are not zeroed (the layers after it that use the mask ignore
 *   them: recurrent layers, GlobalPoolingLayer, RnnOutputLayer, another Convolution1DLayer).
 * </ul>
 * A layer that changes the length (stride above 1, or Truncate with a kernel above 1) cannot be
 * followed by an RnnOutputLayer, whose labels have the input's T steps. Like the recurrent layers'
 * inputs, sequences are seen as [N, T, nIn] views inside the network. No Causal or Strict mode
 * (ConvMode has Truncate and Same), no groups; truncated BPTT and rnnTimeStep run the convolution on
 * each piece alone.
 */
public final class Convolution1DLayer extends Layer {
  private final int kernel;
  private final int stride;
  private final int padding;
  private final int dilation;
  private final ConvMode mode;
  private final boolean hasBias;

  private Convolution1DLayer(Builder b) {
    super(b);
    this.kernel = b.kernel;
    this.stride = b.stride;
    this.padding = b.padding;
    this.dilation = b.dilation;
    this.mode = b.mode;
    this.hasBias = b.hasBias;
  }

  public int kernelSize() {
    return kernel;
  }

  public int stride() {
    return stride;
  }

  /** The padding on both sides (not used in Same mode, which computes its own). */
  public int padding() {
    return padding;
  }

  public int dilation() {
    return dilation;
  }

  public ConvMode convolutionMode() {
    return mode;
  }

  public boolean hasBias() {
    return hasBias;
  }

  @Override
  protected Activation defaultActivation(Activation networkDefault) {
    return networkDefault == null ? Activation.IDENTITY : networkDefault;
  }

  @Override
  public void applyDefaults(String defaultName, Activation act, WeightInit init) {
    super.applyDefaults(defaultName, act, init);
    if (activation == Activation.SOFTMAX) {
      throw error("SOFTMAX is not supported (it would normalise over the time axis): use it in the output layer");
    }
  }

  @Override
  public boolean hasParams() {
    return true;
  }

  @Override
  public InputType impliedInput() {
    return impliedRecurrentInput();
  }

  @Override
  public InputType inferOutput(InputType in) {
    resolveRecurrentNIn(in, "");
    if (nOut <= 0) {
      throw error("nOut (the number of filters) is not set");
    }
    return InputType.recurrent(nOut, in.timeSeriesLength > 0 ? outputLength(in.timeSeriesLength) : 0);
  }

  /** The output's number of steps for an input of {@code steps}; an IllegalArgumentException when nothing fits. */
  public long outputLength(long steps) {
    return ConvMode.outSize(getClass().getSimpleName() + " \"" + name + "\" time axis", steps, kernel, stride, padding,
        dilation, mode);
  }

  /** The padding before the first step: {@link #padding()}, or in Same mode half of what it needs (the odd one after). */
  public long leftPadding(long steps) {
    if (mode != ConvMode.Same) {
      return padding;
    }
    long out = outputLength(steps);
    long total = Math.max(0, (out - 1) * stride + (long) dilation * (kernel - 1) + 1 - steps);
    return total / 2;
  }

  /**
   * The valid output steps (a prefix) of a sequence of {@code steps} steps whose first {@code valid}
   * are valid: {@code valid} with stride 1 in Same mode, else one past the last output step whose
   * window covers a valid input step (0 when none does). See the class comment.
   */
  public long validOutputLength(long valid, long steps) {
    if (mode == ConvMode.Same && stride == 1) {
      return valid;
    }
    long out = outputLength(steps);
    long left = leftPadding(steps);
    for (long o = out - 1; o >= 0; --o) {
      for (int j = 0; j < kernel; ++j) {
        long at = o * stride - left + (long) j * dilation;
        if (at >= 0 && at < valid) {
          return o + 1;
        }
      }
    }
    return 0;
  }

  @Override
  public Map<String, Object> toJson() {
    Map<String, Object> m = super.toJson();
    m.put("kernelSize", (long) kernel);
    m.put("stride", (long) stride);
    m.put("padding", (long) padding);
    m.put("dilation", (long) dilation);
    m.put("convolutionMode", mode.name());
    m.put("hasBias", hasBias);
    return m;
  }

  /**
   * {@code new Convolution1DLayer.Builder().kernelSize(3).stride(1).nOut(16).convolutionMode(ConvMode.Same)
   * .activation(Activation.RELU).build()}; the kernel size has no default.
   */
  public static final class Builder extends Layer.Builder<Builder> {
    private int kernel;
    private int stride = 1;
    private int padding;
    private int dilation = 1;
    private ConvMode mode = ConvMode.Truncate;
    private boolean hasBias = true;

    public Builder() {}

    public Builder(int kernelSize) {
      kernelSize(kernelSize);
    }

    public Builder(int kernelSize, int stride) {
      this(kernelSize);
      stride(stride);
    }

    public Builder(int kernelSize, int stride, int padding) {
      this(kernelSize, stride);
      padding(padding);
    }

    public Builder kernelSize(int k) {
      positive("Convolution1DLayer kernel size", k);
      kernel = k;
      return this;
    }

    public Builder stride(int s) {
      positive("Convolution1DLayer stride", s);
      stride = s;
      return this;
    }

    /** Zeros on both ends of each sequence (Truncate mode; Same mode computes its own). */
    public Builder padding(int p) {
      if (p < 0) {
        throw new IllegalArgumentException("Convolution1DLayer padding must not be negative, got " + p);
      }
      padding = p;
      return this;
    }

    public Builder dilation(int d) {
      positive("Convolution1DLayer dilation", d);
      dilation = d;
      return this;
    }

    public Builder convolutionMode(ConvMode mode) {
      if (mode == null) {
        throw new IllegalArgumentException("Convolution1DLayer convolutionMode must not be null");
      }
      this.mode = mode;
      return this;
    }

    /** True (the default): a bias "b" [nOut]; false: none. */
    public Builder hasBias(boolean hasBias) {
      this.hasBias = hasBias;
      return this;
    }

    @Override
    public Convolution1DLayer build() {
      if (kernel <= 0) {
        throw new IllegalArgumentException("Convolution1DLayer: the kernel size is not set (kernelSize(k) or Builder(k))");
      }
      return new Convolution1DLayer(this);
    }

    static Builder fromJson(Map<String, Object> m) {
      return new Builder()
          .kernelSize(Math.toIntExact(Json.integer(m, "kernelSize")))
          .stride(Math.toIntExact(Json.integer(m, "stride", 1)))
          .padding(Math.toIntExact(Json.integer(m, "padding", 0)))
          .dilation(Math.toIntExact(Json.integer(m, "dilation", 1)))
          .convolutionMode(ConvMode.valueOf(Json.str(m, "convolutionMode", ConvMode.Truncate.name())))
          .hasBias(Json.bool(m, "hasBias", true));
    }
  }
}
