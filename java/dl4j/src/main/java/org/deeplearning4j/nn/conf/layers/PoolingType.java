package org.deeplearning4j.nn.conf.layers;

/** Pooling kinds (GlobalPoolingLayer, SubsamplingLayer). PNORM is refused at initialisation. */
public enum PoolingType {
  MAX, AVG, SUM, PNORM
}
