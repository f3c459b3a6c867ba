package org.deeplearning4j.nn.conf.layers;

import org.deeplearning4j.nn.conf.RNNFormat;

/** A recurrent layer over sequences [N, nIn, T], as Deeplearning4j's BaseRecurrentLayer. */
public abstract class BaseRecurrentLayer extends FeedForwardLayer {
  private static final long serialVersionUID = 1L;

  protected RNNFormat rnnDataFormat = RNNFormat.NCW;

  protected BaseRecurrentLayer() {}

  protected BaseRecurrentLayer(Builder<?> b) {
    super(b);
    rnnDataFormat = b.rnnDataFormat;
  }

  protected void checkFormat() {
    if (rnnDataFormat != RNNFormat.NCW) {
      throw refuse("dataFormat(RNNFormat." + rnnDataFormat + ")");
    }
  }

  public abstract static class Builder<T extends Builder<T>> extends FeedForwardLayer.Builder<T> {
    protected RNNFormat rnnDataFormat = RNNFormat.NCW;

    public T dataFormat(RNNFormat format) {
      this.rnnDataFormat = format;
      return self();
    }
  }
}
