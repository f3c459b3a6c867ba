package org.deeplearning4j.nn.conf.preprocessor;

import org.deeplearning4j.nn.conf.InputPreProcessor;

/** Deeplearning4j's RnnToCnnPreProcessor: configuration only (see {@link InputPreProcessor}). */
public class RnnToCnnPreProcessor implements InputPreProcessor {
  private static final long serialVersionUID = 1L;
  private long[] shape = new long[0];

  public RnnToCnnPreProcessor() {}

  /** Deeplearning4j's sizes (height, width, channels or similar), kept for the configuration. */
  public RnnToCnnPreProcessor(long... shape) {
    this.shape = shape.clone();
  }
}
