package org.ndrt.nn.conf.layers;

import java.util.Map;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.Json;

/** 2-D max or average pooling, NCHW; no parameters. */
public final class SubsamplingLayer extends Layer {
  /** Pooling kinds. */
  public enum PoolingType { MAX, AVG }

  private final PoolingType type;
  private final int[] kernel;
  private final int[] stride;
  private final int[] padding;
  private final ConvMode mode;

  private SubsamplingLayer(Builder b) {
    super(b);
    this.type = b.type;
    this.kernel = b.kernel.clone();
    this.stride = b.stride.clone();
    this.padding = b.padding.clone();
    this.mode = b.mode;
  }

  public PoolingType poolingType() {
    return type;
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

  @Override
  public boolean hasParams() {
    return false;
  }

  @Override
  public InputType impliedInput() {
    throw error("pooling needs the image size: call setInputType(...) on the list builder");
  }

  @Override
  public InputType inferOutput(InputType in) {
    if (!in.isConvolutional()) {
      throw error("needs convolutional input, got " + in);
    }
    nIn = in.channels;
    nOut = in.channels;
    String who = "SubsamplingLayer \"" + name + "\"";
    long h = ConvMode.outSize(who + " height", in.height, kernel[0], stride[0], padding[0], 1, mode);
    long w = ConvMode.outSize(who + " width", in.width, kernel[1], stride[1], padding[1], 1, mode);
    return InputType.convolutional(h, w, in.channels);
  }

  @Override
  public Map<String, Object> toJson() {
    Map<String, Object> m = super.toJson();
    m.put("poolingType", type.name());
    m.put("kernel", Json.list(kernel));
    m.put("stride", Json.list(stride));
    m.put("padding", Json.list(padding));
    m.put("convolutionMode", mode.name());
    return m;
  }

  /** {@code new SubsamplingLayer.Builder(PoolingType.MAX).kernelSize(2, 2).stride(2, 2).build()}. */
  public static final class Builder extends Layer.Builder<Builder> {
    private PoolingType type = PoolingType.MAX;
    private int[] kernel = {2, 2};
    private int[] stride = {2, 2};
    private int[] padding = {0, 0};
    private ConvMode mode = ConvMode.Truncate;

    public Builder(PoolingType type) {
      this.type = type;
    }

    public Builder() {}

    public Builder kernelSize(int kH, int kW) {
      positive("SubsamplingLayer kernel size", kH, kW);
      kernel = new int[] {kH, kW};
      return this;
    }

    public Builder stride(int sH, int sW) {
      positive("SubsamplingLayer stride", sH, sW);
      stride = new int[] {sH, sW};
      return this;
    }

    public Builder padding(int pH, int pW) {
      if (pH < 0 || pW < 0) {
        throw new IllegalArgumentException("SubsamplingLayer padding must not be negative, got " + pH + ", " + pW);
      }
      padding = new int[] {pH, pW};
      return this;
    }

    public Builder convolutionMode(ConvMode mode) {
      this.mode = mode;
      return this;
    }

    @Override
    public SubsamplingLayer build() {
      return new SubsamplingLayer(this);
    }

    static Builder fromJson(Map<String, Object> m) {
      int[] k = Json.pair(m, "kernel"), s = Json.pair(m, "stride"), p = Json.pair(m, "padding");
      return new Builder(PoolingType.valueOf(Json.str(m, "poolingType"))).kernelSize(k[0], k[1]).stride(s[0], s[1])
          .padding(p[0], p[1]).convolutionMode(ConvMode.valueOf(Json.str(m, "convolutionMode")));
    }
  }
}
