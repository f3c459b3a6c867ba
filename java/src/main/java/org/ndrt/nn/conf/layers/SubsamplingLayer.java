package org.ndrt.nn.conf.layers;

import java.util.Map;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.Json;

/** 2-D max or average pooling, NCHW; no parameters. */
public final class SubsamplingLayer extends WindowLayer {
  /** Pooling kinds. */
  public enum PoolingType { MAX, AVG }

  private final PoolingType type;

  private SubsamplingLayer(Builder b) {
    super(b);
    this.type = b.type;
  }

  public PoolingType poolingType() {
    return type;
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
    return windowOutput(in, in.channels);
  }

  @Override
  public Map<String, Object> toJson() {
    Map<String, Object> m = super.toJson();
    m.put("poolingType", type.name());
    putWindow(m, false);
    return m;
  }

  /** {@code new SubsamplingLayer.Builder(PoolingType.MAX).kernelSize(2, 2).stride(2, 2).build()}. */
  public static final class Builder extends WindowLayer.Builder<Builder> {
    private PoolingType type = PoolingType.MAX;

    public Builder(PoolingType type) {
      this();
      this.type = type;
    }

    /** Deeplearning4j's {@code new SubsamplingLayer.Builder(PoolingType.MAX, new int[] {2, 2})}: the kernel size (stride 2, 2). */
    public Builder(PoolingType type, int[] kernelSize) {
      this(type);
      kernelSize(pair(kernelSize, "kernelSize")[0], kernelSize[1]);
    }

    /** Deeplearning4j's {@code new SubsamplingLayer.Builder(PoolingType.MAX, new int[] {2, 2}, new int[] {2, 2})}: kernel and stride. */
    public Builder(PoolingType type, int[] kernelSize, int[] stride) {
      this(type, kernelSize);
      stride(pair(stride, "stride")[0], stride[1]);
    }

    private static int[] pair(int[] v, String what) {
      if (v == null || v.length != 2) {
        throw new IllegalArgumentException("SubsamplingLayer: " + what + " needs 2 values (height, width), got "
            + java.util.Arrays.toString(v));
      }
      return v;
    }

    public Builder() {
      super("SubsamplingLayer", new int[] {2, 2}, new int[] {2, 2});
    }

    @Override
    public SubsamplingLayer build() {
      return new SubsamplingLayer(this);
    }

    static Builder fromJson(Map<String, Object> m) {
      return new Builder(PoolingType.valueOf(Json.str(m, "poolingType"))).windowFromJson(m);
    }
  }
}
