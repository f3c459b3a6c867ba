package org.ndrt.nn.conf.layers;

import java.util.Map;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.Json;

/** 2-D convolution, NCHW: weights [nOut, nIn, kH, kW], bias [nOut]. Default activation: identity. */
public final class ConvolutionLayer extends WindowLayer {
  private ConvolutionLayer(Builder b) {
    super(b);
  }

  public int[] dilation() {
    return dilation.clone();
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
    return windowOutput(in, nOut);
  }

  @Override
  public Map<String, Object> toJson() {
    Map<String, Object> m = super.toJson();
    putWindow(m, true);
    return m;
  }

  /** {@code new ConvolutionLayer.Builder(5, 5).nOut(20).stride(1, 1).build()}. */
  public static final class Builder extends WindowLayer.Builder<Builder> {
    public Builder(int kH, int kW) {
      this();
      kernelSize(kH, kW);
    }

    public Builder() {
      super("ConvolutionLayer", new int[] {5, 5}, new int[] {1, 1});
    }

    public Builder dilation(int dH, int dW) {
      return setDilation(dH, dW);
    }

    @Override
    public ConvolutionLayer build() {
      return new ConvolutionLayer(this);
    }

    static Builder fromJson(Map<String, Object> m) {
      int[] d = Json.pair(m, "dilation");
      return new Builder().windowFromJson(m).dilation(d[0], d[1]);
    }
  }
}
