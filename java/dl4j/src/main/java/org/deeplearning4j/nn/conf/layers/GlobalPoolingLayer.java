package org.deeplearning4j.nn.conf.layers;

import org.ndrt.dl4j.Mapping;

/**
 * Pooling over all time steps or all spatial positions, as Deeplearning4j's GlobalPoolingLayer
 * (org.ndrt.nn.conf.layers.GlobalPoolingLayer: MAX, AVG, SUM).
 */
public class GlobalPoolingLayer extends NoParamLayer {
  private static final long serialVersionUID = 1L;

  protected PoolingType poolingType = PoolingType.MAX;
  protected boolean collapseDimensions = true;
  protected int pnorm = 2;

  protected GlobalPoolingLayer() {}

  protected GlobalPoolingLayer(Builder b) {
    super(b);
    poolingType = b.poolingType;
    collapseDimensions = b.collapseDimensions;
    pnorm = b.pnorm;
  }

  public PoolingType getPoolingType() {
    return poolingType;
  }

  @Override
  public org.ndrt.nn.conf.layers.Layer ndrtLayer() {
    org.ndrt.nn.conf.layers.GlobalPoolingLayer.Builder b =
        new org.ndrt.nn.conf.layers.GlobalPoolingLayer.Builder(Mapping.pooling(poolingType, this))
            .collapseDimensions(collapseDimensions);
    if (layerName != null) {
      b.name(layerName);
    }
    return b.build();
  }

  public static class Builder extends Layer.Builder<Builder> {
    protected PoolingType poolingType = PoolingType.MAX;
    protected boolean collapseDimensions = true;
    protected int pnorm = 2;

    public Builder() {}

    public Builder(PoolingType poolingType) {
      this.poolingType = poolingType;
    }

    public Builder poolingType(PoolingType poolingType) {
      this.poolingType = poolingType;
      return this;
    }

    public Builder collapseDimensions(boolean collapse) {
      this.collapseDimensions = collapse;
      return this;
    }

    public Builder pnorm(int pnorm) {
      this.pnorm = pnorm;
      return this;
    }

    @Override
    public GlobalPoolingLayer build() {
      return new GlobalPoolingLayer(this);
    }
  }
}
