package org.deeplearning4j.nn.conf.layers;

import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.ndrt.dl4j.Mapping;

/** 2-D pooling, as Deeplearning4j's SubsamplingLayer (org.ndrt.nn.conf.layers.SubsamplingLayer: MAX and AVG). */
public class SubsamplingLayer extends NoParamLayer {
  private static final long serialVersionUID = 1L;

  /** Deeplearning4j's pooling kinds of this layer (org.ndrt.nn pools by MAX and AVG). */
  public enum PoolingType {
    MAX, AVG, SUM, PNORM;

    public org.deeplearning4j.nn.conf.layers.PoolingType toPoolingType() {
      return org.deeplearning4j.nn.conf.layers.PoolingType.valueOf(name());
    }
  }

  protected org.deeplearning4j.nn.conf.layers.PoolingType poolingType = org.deeplearning4j.nn.conf.layers.PoolingType.MAX;
  protected int[] kernelSize = {1, 1};
  protected int[] stride = {2, 2};
  protected int[] padding = {0, 0};
  protected int[] dilation = {1, 1};
  protected ConvolutionMode convolutionMode;

  protected SubsamplingLayer() {}

  protected SubsamplingLayer(Builder b) {
    super(b);
    poolingType = b.poolingType;
    kernelSize = b.kernelSize.clone();
    stride = b.stride.clone();
    padding = b.padding.clone();
    dilation = b.dilation.clone();
    convolutionMode = b.convolutionMode;
  }

  public org.deeplearning4j.nn.conf.layers.PoolingType getPoolingType() {
    return poolingType;
  }

  /** ndrt: the network-wide convolution mode for a layer that set none. */
  public void inheritConvolutionMode(ConvolutionMode m) {
    if (convolutionMode == null) {
      convolutionMode = m;
    }
  }

  @Override
  public org.ndrt.nn.conf.layers.Layer ndrtLayer() {
    org.ndrt.nn.conf.layers.SubsamplingLayer.PoolingType t;
    switch (poolingType) {
      case MAX: t = org.ndrt.nn.conf.layers.SubsamplingLayer.PoolingType.MAX; break;
      case AVG: t = org.ndrt.nn.conf.layers.SubsamplingLayer.PoolingType.AVG; break;
      default: throw refuse("PoolingType." + poolingType);
    }
    if (dilation[0] != 1 || dilation[1] != 1) {
      throw refuse("dilation");
    }
    org.ndrt.nn.conf.layers.SubsamplingLayer.Builder b = new org.ndrt.nn.conf.layers.SubsamplingLayer.Builder(t);
    if (layerName != null) {
      b.name(layerName);
    }
    return b.kernelSize(kernelSize[0], kernelSize[1]).stride(stride[0], stride[1]).padding(padding[0], padding[1])
        .convolutionMode(Mapping.convMode(convolutionMode, this)).build();
  }

  public static class Builder extends Layer.Builder<Builder> {
    protected org.deeplearning4j.nn.conf.layers.PoolingType poolingType = org.deeplearning4j.nn.conf.layers.PoolingType.MAX;
    protected int[] kernelSize = {1, 1};
    protected int[] stride = {2, 2};
    protected int[] padding = {0, 0};
    protected int[] dilation = {1, 1};
    protected ConvolutionMode convolutionMode;

    public Builder() {}

    public Builder(PoolingType poolingType) {
      poolingType(poolingType);
    }

    public Builder(org.deeplearning4j.nn.conf.layers.PoolingType poolingType) {
      poolingType(poolingType);
    }

    public Builder(PoolingType poolingType, int[] kernelSize) {
      this(poolingType);
      kernelSize(kernelSize);
    }

    public Builder(PoolingType poolingType, int[] kernelSize, int[] stride) {
      this(poolingType, kernelSize);
      stride(stride);
    }

    public Builder(PoolingType poolingType, int[] kernelSize, int[] stride, int[] padding) {
      this(poolingType, kernelSize, stride);
      padding(padding);
    }

    public Builder(org.deeplearning4j.nn.conf.layers.PoolingType poolingType, int[] kernelSize) {
      this(poolingType);
      kernelSize(kernelSize);
    }

    public Builder(org.deeplearning4j.nn.conf.layers.PoolingType poolingType, int[] kernelSize, int[] stride,
        int[] padding) {
      this(poolingType, kernelSize);
      stride(stride);
      padding(padding);
    }

    public Builder(int... kernelSize) {
      kernelSize(kernelSize);
    }

    public Builder(int[] kernelSize, int[] stride) {
      kernelSize(kernelSize);
      stride(stride);
    }

    public Builder(int[] kernelSize, int[] stride, int[] padding) {
      this(kernelSize, stride);
      padding(padding);
    }

    public Builder poolingType(PoolingType poolingType) {
      this.poolingType = poolingType.toPoolingType();
      return this;
    }

    public Builder poolingType(org.deeplearning4j.nn.conf.layers.PoolingType poolingType) {
      this.poolingType = poolingType;
      return this;
    }

    public Builder kernelSize(int... kernelSize) {
      this.kernelSize = ConvolutionLayer.pair("kernelSize", kernelSize);
      return this;
    }

    public Builder stride(int... stride) {
      this.stride = ConvolutionLayer.pair("stride", stride);
      return this;
    }

    public Builder padding(int... padding) {
      this.padding = ConvolutionLayer.pair("padding", padding);
      return this;
    }

    public Builder dilation(int... dilation) {
      this.dilation = ConvolutionLayer.pair("dilation", dilation);
      return this;
    }

    public Builder convolutionMode(ConvolutionMode convolutionMode) {
      this.convolutionMode = convolutionMode;
      return this;
    }

    @Override
    public SubsamplingLayer build() {
      return new SubsamplingLayer(this);
    }
  }
}
