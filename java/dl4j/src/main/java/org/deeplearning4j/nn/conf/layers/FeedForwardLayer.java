package org.deeplearning4j.nn.conf.layers;

/** A layer with nIn inputs and nOut outputs, as Deeplearning4j's FeedForwardLayer (nIn 0: inferred). */
public abstract class FeedForwardLayer extends BaseLayer {
  private static final long serialVersionUID = 1L;

  protected long nIn;
  protected long nOut;

  protected FeedForwardLayer() {}

  protected FeedForwardLayer(Builder<?> b) {
    super(b);
    nIn = b.nIn;
    nOut = b.nOut;
  }

  public long getNIn() {
    return nIn;
  }

  public long getNOut() {
    return nOut;
  }

  public void setNIn(long nIn) {
    this.nIn = nIn;
  }

  public void setNOut(long nOut) {
    this.nOut = nOut;
  }

  /** {@link BaseLayer#base} plus nIn (when given) and nOut (when given). */
  protected <B extends org.ndrt.nn.conf.layers.Layer.Builder<B>> B sized(B b, boolean withActivation) {
    base(b, withActivation);
    if (nIn > 0) {
      b.nIn(nIn);
    }
    if (nOut > 0) {
      b.nOut(nOut);
    }
    return b;
  }

  /** Deeplearning4j's FeedForwardLayer builder. */
  public abstract static class Builder<T extends Builder<T>> extends BaseLayer.Builder<T> {
    protected long nIn;
    protected long nOut;

    public T nIn(int nIn) {
      return nIn((long) nIn);
    }

    public T nIn(long nIn) {
      this.nIn = nIn;
      return self();
    }

    public T nOut(int nOut) {
      return nOut((long) nOut);
    }

    public T nOut(long nOut) {
      this.nOut = nOut;
      return self();
    }

    /** Same as {@link #nOut(int)}. */
    public T units(int units) {
      return nOut(units);
    }
  }
}
