package org.deeplearning4j.nn.conf.layers;

import org.nd4j.linalg.lossfunctions.ILossFunction;
import org.nd4j.linalg.lossfunctions.LossFunctions;
import org.ndrt.dl4j.Mapping;

/** An output layer with a loss, as Deeplearning4j's BaseOutputLayer. */
public abstract class BaseOutputLayer extends FeedForwardLayer {
  private static final long serialVersionUID = 1L;

  protected LossFunctions.LossFunction lossFunction;
  protected ILossFunction lossFn;
  protected boolean hasBias = true;

  protected BaseOutputLayer() {}

  protected BaseOutputLayer(Builder<?> b) {
    super(b);
    lossFunction = b.lossFunction;
    lossFn = b.lossFn;
    hasBias = b.hasBias;
  }

  /** The loss function (ND4J's object for it). */
  public ILossFunction getLossFn() {
    return lossFn != null ? lossFn : lossFunction == null ? null : lossFunction.getILossFunction();
  }

  public boolean hasBias() {
    return hasBias;
  }

  /** org.ndrt.nn's loss of the same meaning. */
  protected org.ndrt.nn.conf.LossFunction ndrtLoss() {
    if (!hasBias) {
      throw refuse("hasBias(false)");
    }
    try {
      return Mapping.loss(lossFunction, lossFn);
    } catch (UnsupportedOperationException e) {
      throw refuse(e.getMessage());
    }
  }

  public abstract static class Builder<T extends Builder<T>> extends FeedForwardLayer.Builder<T> {
    protected LossFunctions.LossFunction lossFunction = LossFunctions.LossFunction.MCXENT;
    protected ILossFunction lossFn;
    protected boolean hasBias = true;

    public Builder() {}

    public Builder(LossFunctions.LossFunction lossFunction) {
      this.lossFunction = lossFunction;
    }

    public Builder(ILossFunction lossFunction) {
      this.lossFn = lossFunction;
      this.lossFunction = null;
    }

    public T lossFunction(LossFunctions.LossFunction lossFunction) {
      this.lossFunction = lossFunction;
      this.lossFn = null;
      return self();
    }

    public T lossFunction(ILossFunction lossFunction) {
      this.lossFn = lossFunction;
      this.lossFunction = null;
      return self();
    }

    public T hasBias(boolean hasBias) {
      this.hasBias = hasBias;
      return self();
    }
  }
}
