package org.deeplearning4j.nn.conf.preprocessor;

import org.deeplearning4j.nn.conf.InputPreProcessor;

/** Deeplearning4j's RnnToFeedForwardPreProcessor: configuration only (see {@link InputPreProcessor}). */
public class RnnToFeedForwardPreProcessor implements InputPreProcessor {
  private static final long serialVersionUID = 1L;
  private long[] shape = new long[0];

  public RnnToFeedForwardPreProcessor() {}

  /** Deeplearning4j's sizes (height, width, channels or similar), kept for the configuration. */
  public RnnToFeedForwardPreProcessor(long... shape) {
    this.shape = shape.clone();
  }
}
