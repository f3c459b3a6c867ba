package org.ndrt.nn.conf.layers;

/**
 * Deeplearning4j's {@code org.deeplearning4j.nn.conf.layers.PoolingType}, the pooling of a
 * {@link GlobalPoolingLayer}. PNORM is listed so that Deeplearning4j programs compile; the layer
 * refuses it when built. ({@link SubsamplingLayer} keeps its own nested {@code PoolingType}, MAX and
 * AVG, as Deeplearning4j's {@code SubsamplingLayer.PoolingType}.)
 */
public enum PoolingType {
  /** The largest value over the pooled steps. */
  MAX,
  /** The mean over the valid steps. */
  AVG,
  /** The sum over the valid steps. */
  SUM,
  /** Not supported here: a GlobalPoolingLayer with PNORM is refused at build time. */
  PNORM
}
