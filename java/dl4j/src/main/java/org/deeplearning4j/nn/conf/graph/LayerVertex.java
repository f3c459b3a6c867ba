package org.deeplearning4j.nn.conf.graph;

import org.deeplearning4j.nn.conf.InputPreProcessor;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;

/**
 * Deeplearning4j's LayerVertex: a layer of a graph (its configuration with the network-wide settings
 * filled in) and an optional preprocessor before it. GraphBuilder.addLayer makes these.
 */
public class LayerVertex extends GraphVertex {
  private static final long serialVersionUID = 1L;
  protected NeuralNetConfiguration layerConf;
  protected InputPreProcessor preProcessor;
  protected boolean outputVertex;

  public LayerVertex() {}

  public LayerVertex(NeuralNetConfiguration layerConf, InputPreProcessor preProcessor) {
    this.layerConf = layerConf;
    this.preProcessor = preProcessor;
  }

  public NeuralNetConfiguration getLayerConf() {
    return layerConf;
  }

  public void setLayerConf(NeuralNetConfiguration layerConf) {
    this.layerConf = layerConf;
  }

  public InputPreProcessor getPreProcessor() {
    return preProcessor;
  }

  public void setPreProcessor(InputPreProcessor preProcessor) {
    this.preProcessor = preProcessor;
  }

  public boolean isOutputVertex() {
    return outputVertex;
  }

  public void setOutputVertex(boolean outputVertex) {
    this.outputVertex = outputVertex;
  }

  @Override
  public int minVertexInputs() {
    return 1;
  }

  @Override
  public int maxVertexInputs() {
    return 1;
  }

  /** A layer is not an org.ndrt.nn vertex: the graph's translation (org.ndrt.dl4j.GraphTranslator) adds it as a layer. */
  @Override
  public org.ndrt.nn.conf.graph.GraphVertex ndrtVertex() {
    throw new UnsupportedOperationException("LayerVertex: a layer, not an org.ndrt.nn vertex (see GraphTranslator)");
  }
}
