package org.deeplearning4j.nn.conf.layers;

import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.RNNFormat;
import org.ndrt.dl4j.Mapping;

/**
 * A 1-D convolution over sequences [N, nIn, T], as Deeplearning4j's Convolution1DLayer
 * (org.ndrt.nn.conf.layers.Convolution1DLayer).
 */
public class Convolution1DLayer extends FeedForwardLayer {
  private static final long serialVersionUID = 1L;

  protected int kernelSize = 2;
  protected int stride = 1;
  protected int padding;
  protected int dilation = 1;
  protected ConvolutionMode convolutionMode;
  protected boolean hasBias = true;
  protected RNNFormat rnnDataFormat = RNNFormat.NCW;

  protected Convolution1DLayer() {}

  protected Convolution1DLayer(Builder b) {
    super(b);
    kernelSize = b.kernelSize;
    stride = b.stride;
    padding = b.padding;
    dilation = b.dilation;
    convolutionMode = b.convolutionMode;
    hasBias = b.hasBias;
    rnnDataFormat = b.rnnDataFormat;
  }

  /** ndrt: the network-wide convolution mode for a layer that set none. */
  public void inheritConvolutionMode(ConvolutionMode m) {
    if (convolutionMode == null) {
      convolutionMode = m;
    }
  }

  @Override
  public org.ndrt.nn.conf.layers.Layer ndrtLayer() {
    if (rnnDataFormat != RNNFormat.NCW) {
      throw refuse("rnnDataFormat(RNNFormat." + rnnDataFormat + ")");
    }
    return sized(new org.ndrt.nn.conf.layers.Convolution1DLayer.Builder(kernelSize, stride, padding), true)
        .dilation(dilation).hasBias(hasBias).convolutionMode(Mapping.convMode(convolutionMode, this)).build();
  }

  public static class Builder extends FeedForwardLayer.Builder<Builder> {
    protected int kernelSize = 2;
    protected int stride = 1;
    protected int padding;
    protected int dilation = 1;
    protected ConvolutionMode convolutionMode;
    protected boolean hasBias = true;
    protected RNNFormat rnnDataFormat = RNNFormat.NCW;

    public Builder() {}

    public Builder(int kernelSize) {
      this.kernelSize = kernelSize;
    }

    public Builder(int kernelSize, int stride) {
      this(kernelSize);
      this.stride = stride;
    }

    public Builder(int kernelSize, int stride, int padding) {
      this(kernelSize, stride);
      this.padding = padding;
    }

    public Builder kernelSize(int kernelSize) {
      this.kernelSize = kernelSize;
      return this;
    }

    public Builder stride(int stride) {
      this.stride = stride;
      return this;
    }

    public Builder padding(int padding) {
      this.padding = padding;
      return this;
    }

    public Builder dilation(int dilation) {
      this.dilation = dilation;
      return this;
    }

    public Builder convolutionMode(ConvolutionMode convolutionMode) {
      this.convolutionMode = convolutionMode;
      return this;
    }

    public Builder hasBias(boolean hasBias) {
      this.hasBias = hasBias;
      return this;
    }

    public Builder rnnDataFormat(RNNFormat format) {
      this.rnnDataFormat = format;
      return this;
    }

    @Override
    public Convolution1DLayer build() {
      return new Convolution1DLayer(this);
    }
  }
}
