package org.deeplearning4j.nn.conf.layers;

import org.deeplearning4j.nn.conf.RNNFormat;
import org.nd4j.linalg.lossfunctions.ILossFunction;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/**
 * The output layer of sequences [N, nIn, T] to [N, nOut, T], as Deeplearning4j's RnnOutputLayer
 * (org.ndrt.nn.conf.layers.RnnOutputLayer).
 */
public class RnnOutputLayer extends BaseOutputLayer {
  private static final long serialVersionUID = 1L;

  // null until given, read from JSON or set by the input type (NCW), as Deeplearning4j's (its JSON says so).
  protected RNNFormat rnnDataFormat;

  protected RnnOutputLayer() {}

  protected RnnOutputLayer(Builder b) {
    super(b);
    rnnDataFormat = b.rnnDataFormat;
  }

  @Override
  public org.ndrt.nn.conf.layers.Layer ndrtLayer() {
    if (rnnDataFormat != null && rnnDataFormat != RNNFormat.NCW) {
      throw refuse("dataFormat(RNNFormat." + rnnDataFormat + ")");
    }
    return sized(new org.ndrt.nn.conf.layers.RnnOutputLayer.Builder(ndrtLoss()), true).build();
  }

  public static class Builder extends BaseOutputLayer.Builder<Builder> {
    protected RNNFormat rnnDataFormat;

    public Builder() {}

    public Builder(LossFunctions.LossFunction lossFunction) {
      super(lossFunction);
    }

    public Builder(ILossFunction lossFunction) {
      super(lossFunction);
    }

    public Builder dataFormat(RNNFormat format) {
      this.rnnDataFormat = format;
      return this;
    }

    @Override
    public RnnOutputLayer build() {
      return new RnnOutputLayer(this);
    }
  }
}
