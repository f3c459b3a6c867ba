package org.ndrt.nn.conf.layers;

import java.util.Map;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.Json;

/**
 * 2-D convolution, NCHW: weights [nOut, nIn, kH, kW], bias [nOut] unless {@code hasBias(false)} (e.g.
 * before a batch normalisation, whose beta makes a bias redundant). Default activation: identity.
 */
public final class ConvolutionLayer extends WindowLayer {
  private final boolean hasBias;

  private ConvolutionLayer(Builder b) {
    super(b);
    this.hasBias = b.hasBias;
  }

  /** Whether the layer adds a bias (true unless the builder said hasBias(false)). */
  public boolean hasBias() {
    return hasBias;
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
    if (!hasBias) {
      m.put("hasBias", false);  // only when off: earlier files stay byte for byte the same
    }
    return m;
  }

  /** {@code new ConvolutionLayer.Builder(5, 5).nOut(20).stride(1, 1).build()}. */
  public static final class Builder extends WindowLayer.Builder<Builder> {
    private boolean hasBias = true;

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

    /** Deeplearning4j's {@code hasBias}: false leaves the bias out (default true). */
    public Builder hasBias(boolean hasBias) {
      this.hasBias = hasBias;
      return this;
    }

    @Override
    public ConvolutionLayer build() {
      return new ConvolutionLayer(this);
    }

    static Builder fromJson(Map<String, Object> m) {
      int[] d = Json.pair(m, "dilation");
      return new Builder().windowFromJson(m).dilation(d[0], d[1]).hasBias(Json.bool(m, "hasBias", true));
    }
  }
}
