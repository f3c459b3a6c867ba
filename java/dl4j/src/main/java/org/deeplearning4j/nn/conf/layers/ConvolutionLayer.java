package org.deeplearning4j.nn.conf.layers;

import org.deeplearning4j.nn.conf.CNN2DFormat;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.ndrt.dl4j.Mapping;

/** A 2-D convolution, as Deeplearning4j's ConvolutionLayer (org.ndrt.nn.conf.layers.ConvolutionLayer). */
public class ConvolutionLayer extends FeedForwardLayer {
  private static final long serialVersionUID = 1L;

  /** Deeplearning4j's cuDNN algorithm choice: accepted and ignored (ndrt picks its own kernels). */
  public enum AlgoMode { NO_WORKSPACE, PREFER_FASTEST, USER_SPECIFIED }

  protected int[] kernelSize = {5, 5};
  protected int[] stride = {1, 1};
  protected int[] padding = {0, 0};
  protected int[] dilation = {1, 1};
  protected ConvolutionMode convolutionMode;
  protected boolean hasBias = true;
  protected CNN2DFormat dataFormat = CNN2DFormat.NCHW;

  protected ConvolutionLayer() {}

  protected ConvolutionLayer(Builder b) {
    super(b);
    kernelSize = b.kernelSize.clone();
    stride = b.stride.clone();
    padding = b.padding.clone();
    dilation = b.dilation.clone();
    convolutionMode = b.convolutionMode;
    hasBias = b.hasBias;
    dataFormat = b.dataFormat;
  }

  public int[] getKernelSize() {
    return kernelSize.clone();
  }

  public int[] getStride() {
    return stride.clone();
  }

  public int[] getPadding() {
    return padding.clone();
  }

  public ConvolutionMode getConvolutionMode() {
    return convolutionMode;
  }

  /** ndrt: the network-wide convolution mode for a layer that set none. */
  public void inheritConvolutionMode(ConvolutionMode m) {
    if (convolutionMode == null) {
      convolutionMode = m;
    }
  }

  @Override
  public org.ndrt.nn.conf.layers.Layer ndrtLayer() {
    if (dataFormat != CNN2DFormat.NCHW) {
      throw refuse("dataFormat(CNN2DFormat." + dataFormat + ")");
    }
    return sized(new org.ndrt.nn.conf.layers.ConvolutionLayer.Builder(kernelSize[0], kernelSize[1]), true)
        .stride(stride[0], stride[1]).padding(padding[0], padding[1]).dilation(dilation[0], dilation[1])
        .convolutionMode(Mapping.convMode(convolutionMode, this)).hasBias(hasBias).build();
  }

  static int[] pair(String what, int... v) {
    if (v.length == 1) {
      return new int[] {v[0], v[0]};
    }
    if (v.length != 2) {
      throw new IllegalArgumentException(what + " takes 1 or 2 values (height, width), got " + v.length);
    }
    return v.clone();
  }

  public static class Builder extends FeedForwardLayer.Builder<Builder> {
    protected int[] kernelSize = {5, 5};
    protected int[] stride = {1, 1};
    protected int[] padding = {0, 0};
    protected int[] dilation = {1, 1};
    protected ConvolutionMode convolutionMode;
    protected boolean hasBias = true;
    protected CNN2DFormat dataFormat = CNN2DFormat.NCHW;

    public Builder() {}

    public Builder(int... kernelSize) {
      kernelSize(kernelSize);
    }

    public Builder(int[] kernelSize, int[] stride) {
      kernelSize(kernelSize);
      stride(stride);
    }

    public Builder(int[] kernelSize, int[] stride, int[] padding) {
      kernelSize(kernelSize);
      stride(stride);
      padding(padding);
    }

    public Builder kernelSize(int... kernelSize) {
      this.kernelSize = pair("kernelSize", kernelSize);
      return this;
    }

    public Builder stride(int... stride) {
      this.stride = pair("stride", stride);
      return this;
    }

    public Builder padding(int... padding) {
      this.padding = pair("padding", padding);
      return this;
    }

    public Builder dilation(int... dilation) {
      this.dilation = pair("dilation", dilation);
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

    public Builder dataFormat(CNN2DFormat format) {
      this.dataFormat = format;
      return this;
    }

    /** Accepted and ignored: ndrt chooses its own convolution kernels. */
    public Builder cudnnAlgoMode(AlgoMode mode) {
      return this;
    }

    @Override
    public ConvolutionLayer build() {
      return new ConvolutionLayer(this);
    }
  }
}
