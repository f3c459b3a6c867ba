package org.deeplearning4j.nn.conf.layers;

/** A layer without parameters (pooling, dropout), as Deeplearning4j's NoParamLayer. */
public abstract class NoParamLayer extends Layer {
  private static final long serialVersionUID = 1L;

  protected NoParamLayer() {}

  protected NoParamLayer(Builder<?> b) {
    super(b);
  }
}
