package org.deeplearning4j.nn.conf.preprocessor;

import org.deeplearning4j.nn.conf.InputPreProcessor;

/** Deeplearning4j's FeedForwardToRnnPreProcessor: configuration only (see {@link InputPreProcessor}). */
public class FeedForwardToRnnPreProcessor implements InputPreProcessor {
  private static final long serialVersionUID = 1L;
  private long[] shape = new long[0];

  public FeedForwardToRnnPreProcessor() {}

  /** Deeplearning4j's sizes (height, width, channels or similar), kept for the configuration. */
  public FeedForwardToRnnPreProcessor(long... shape) {
    this.shape = shape.clone();
  }
}
