package org.deeplearning4j.nn.conf.graph;

import org.deeplearning4j.nn.conf.InputPreProcessor;
import org.ndrt.dl4j.GraphTranslator;

/**
 * Deeplearning4j's PreprocessorVertex: one input preprocessor as a vertex. CnnToFeedForwardPreProcessor
 * and FeedForwardToCnnPreProcessor run (org.ndrt.nn's PreprocessorVertex); others are refused by name.
 */
public class PreprocessorVertex extends GraphVertex {
  private static final long serialVersionUID = 1L;
  protected InputPreProcessor preProcessor;

  public PreprocessorVertex() {}

  public PreprocessorVertex(InputPreProcessor preProcessor) {
    this.preProcessor = preProcessor;
  }

  public InputPreProcessor getPreProcessor() {
    return preProcessor;
  }

  @Override
  public org.ndrt.nn.conf.graph.GraphVertex ndrtVertex() {
    return GraphTranslator.preProcessor(preProcessor, "PreprocessorVertex");
  }
}
