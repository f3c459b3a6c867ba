package org.deeplearning4j.nn.conf.preprocessor;

import org.deeplearning4j.nn.conf.InputPreProcessor;

/** Deeplearning4j's CnnToFeedForwardPreProcessor: configuration only (see {@link InputPreProcessor}). */
public class CnnToFeedForwardPreProcessor implements InputPreProcessor {
  private static final long serialVersionUID = 1L;
  private long[] shape = new long[0];

  public CnnToFeedForwardPreProcessor() {}

  /** Deeplearning4j's sizes (height, width, channels or similar), kept for the configuration. */
  public CnnToFeedForwardPreProcessor(long... shape) {
    this.shape = shape.clone();
  }
}
