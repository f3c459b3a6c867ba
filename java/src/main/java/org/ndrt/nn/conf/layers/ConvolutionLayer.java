package org.ndrt.nn.conf.layers;

import java.util.Map;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.Json;

/** 2-D convolution, NCHW: weights [nOut, nIn, kH, kW], bias [nOut]. Default activation: identity. */
public final class ConvolutionLayer extends Layer {
  private final int[] kernel;
  private final int[] stride;
  private final int[] padding;
  private final int[] dilation;
  private final ConvMode mode;

  private ConvolutionLayer(Builder b) {
    super(b);
    this.kernel = b.kernel.clone();
    this.stride = b.stride.clone();
    this.padding = b.padding.clone();
    this.dilation = b.dilation.clone();
    this.mode = b.mode;
  }

  public int[] kernel() {
    return kernel.clone();
  }

  public int[] stride() {
    return stride.clone();
  }

  public int[] padding() {
    return padding.clone();
  }

  public int[] dilation() {
    return dilation.clone();
  }

  public ConvMode convolutionMode() {
    return mode;
  }

  @Override
  protected Activation defaultActivation(Activation networkDefault) {
    return networkDefault == null ? Activation.IDENTITY : networkDefault;
  }

  @Override
  public boolean hasParams() {
    return true;
  }

  @Override
  public InputType impliedInput() {
    throw error("a convolution needs the image size: call setInputType(InputType.convolutional(h, w, c)) "
        + "or convolutionalFlat(h, w, c) on the list builder");
  }

  @Override
  public InputType inferOutput(InputType in) {
    if (!in.isConvolutional()) {
      throw error("needs convolutional input, got " + in
          + " (set the input type with setInputType(InputType.convolutionalFlat(h, w, c)))");
    }
    resolveNIn(in.channels);
    if (nOut <= 0) {
      throw error("nOut (the number of filters) is not set");
    }
    String who = "ConvolutionLayer \"" + name + "\"";
    long h = ConvMode.outSize(who + " height", in.height, kernel[0], stride[0], padding[0], dilation[0], mode);
    long w = ConvMode.outSize(who + " width", in.width, kernel[1], stride[1], padding[1], dilation[1], mode);
    return InputType.convolutional(h, w, nOut);
  }

  @Override
  public Map<String, Object> toJson() {
    Map<String, Object> m = super.toJson();
    m.put("kernel", Json.list(kernel));
    m.put("stride", Json.list(stride));
    m.put("padding", Json.list(padding));
    m.put("dilation", Json.list(dilation));
    m.put("convolutionMode", mode.name());
    return m;
  }

  /** {@code new ConvolutionLayer.Builder(5, 5).nOut(20).stride(1, 1).build()}. */
  public static final class Builder extends Layer.Builder<Builder> {
    private int[] kernel = {5, 5};
    private int[] stride = {1, 1};
    private int[] padding = {0, 0};
    private int[] dilation = {1, 1};
    private ConvMode mode = ConvMode.Truncate;

    public Builder(int kH, int kW) {
      kernelSize(kH, kW);
    }

    public Builder() {}

    public Builder kernelSize(int kH, int kW) {
      positive("ConvolutionLayer kernel size", kH, kW);
      kernel = new int[] {kH, kW};
      return this;
    }

    public Builder stride(int sH, int sW) {
      positive("ConvolutionLayer stride", sH, sW);
      stride = new int[] {sH, sW};
      return this;
    }

    public Builder padding(int pH, int pW) {
      if (pH < 0 || pW < 0) {
        throw new IllegalArgumentException("ConvolutionLayer padding must not be negative, got " + pH + ", " + pW);
      }
      padding = new int[] {pH, pW};
      return this;
    }

    public Builder dilation(int dH, int dW) {
      positive("ConvolutionLayer dilation", dH, dW);
      dilation = new int[] {dH, dW};
      return this;
    }

    public Builder convolutionMode(ConvMode mode) {
      this.mode = mode;
      return this;
    }

    @Override
    public ConvolutionLayer build() {
      return new ConvolutionLayer(this);
    }

    static Builder fromJson(Map<String, Object> m) {
      int[] k = Json.pair(m, "kernel"), s = Json.pair(m, "stride"), p = Json.pair(m, "padding"), d = Json.pair(m, "dilation");
      return new Builder(k[0], k[1]).stride(s[0], s[1]).padding(p[0], p[1]).dilation(d[0], d[1])
          .convolutionMode(ConvMode.valueOf(Json.str(m, "convolutionMode")));
    }
  }
}
