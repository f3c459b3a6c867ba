package org.ndrt.nn.conf.layers;

import java.util.Map;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.Json;

/**
 * A layer that slides a 2-D window over NCHW input (convolution, subsampling): kernel, stride,
 * padding, dilation and convolution mode, with their checks, output size and JSON fields.
 */
public abstract class WindowLayer extends Layer {
  private final String kind;
  protected final int[] kernel;
  protected final int[] stride;
  protected final int[] padding;
  protected final int[] dilation;
  protected final ConvMode mode;

  protected WindowLayer(Builder<?> b) {
    super(b);
    this.kind = b.kind;
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

  public ConvMode convolutionMode() {
    return mode;
  }

  /** Output image of the window over {@code in}, with {@code channels} channels. */
  protected InputType windowOutput(InputType in, long channels) {
    String who = kind + " \"" + name + "\"";
    long h = ConvMode.outSize(who + " height", in.height, kernel[0], stride[0], padding[0], dilation[0], mode);
    long w = ConvMode.outSize(who + " width", in.width, kernel[1], stride[1], padding[1], dilation[1], mode);
    return InputType.convolutional(h, w, channels);
  }

  /** kernel, stride, padding (and dilation when asked) and convolutionMode into {@code m}. */
  protected void putWindow(Map<String, Object> m, boolean withDilation) {
    m.put("kernel", Json.list(kernel));
    m.put("stride", Json.list(stride));
    m.put("padding", Json.list(padding));
    if (withDilation) {
      m.put("dilation", Json.list(dilation));
    }
    m.put("convolutionMode", mode.name());
  }

  /** The window's settings; {@code kind} names the layer in error messages. */
  public abstract static class Builder<B extends Builder<B>> extends Layer.Builder<B> {
    private final String kind;
    private int[] kernel;
    private int[] stride;
    private int[] padding = {0, 0};
    private int[] dilation = {1, 1};
    private ConvMode mode = ConvMode.Truncate;

    protected Builder(String kind, int[] kernel, int[] stride) {
      this.kind = kind;
      this.kernel = kernel;
      this.stride = stride;
    }

    public B kernelSize(int kH, int kW) {
      positive(kind + " kernel size", kH, kW);
      kernel = new int[] {kH, kW};
      return self();
    }

    public B stride(int sH, int sW) {
      positive(kind + " stride", sH, sW);
      stride = new int[] {sH, sW};
      return self();
    }

    public B padding(int pH, int pW) {
      if (pH < 0 || pW < 0) {
        throw new IllegalArgumentException(kind + " padding must not be negative, got " + pH + ", " + pW);
      }
      padding = new int[] {pH, pW};
      return self();
    }

    public B convolutionMode(ConvMode mode) {
      this.mode = mode;
      return self();
    }

    /** For layers that offer dilation (a public {@code dilation(dH, dW)} calls this). */
    protected B setDilation(int dH, int dW) {
      positive(kind + " dilation", dH, dW);
      dilation = new int[] {dH, dW};
      return self();
    }

    /** The window fields of a JSON object, as {@link #putWindow} wrote them. */
    protected B windowFromJson(Map<String, Object> m) {
      int[] k = Json.pair(m, "kernel"), s = Json.pair(m, "stride"), p = Json.pair(m, "padding");
      return kernelSize(k[0], k[1]).stride(s[0], s[1]).padding(p[0], p[1])
          .convolutionMode(ConvMode.valueOf(Json.str(m, "convolutionMode")));
    }
  }
}
