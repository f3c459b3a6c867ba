package org.deeplearning4j.nn.conf;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.conf.graph.GraphVertex;
import org.deeplearning4j.nn.conf.graph.LayerVertex;
import org.deeplearning4j.nn.conf.graph.MergeVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.learning.config.IUpdater;
import org.ndrt.dl4j.Dl4jGraphJson;
import org.ndrt.dl4j.GraphTranslator;

/**
 * Deeplearning4j's graph configuration: named network inputs, vertices (a {@link LayerVertex} per
 * layer, with the network-wide settings filled in, or a parameter-free vertex) each with its inputs,
 * and named outputs. What the graph trains is org.ndrt.nn's configuration made from it
 * (org.ndrt.dl4j.GraphTranslator); {@link GraphBuilder#build()} checks the graph there, so a bad graph
 * is an IllegalArgumentException naming the vertex. {@link #toJson()} writes Deeplearning4j's layout
 * (vertices, vertexInputs, networkInputs / networkOutputs) with the drop-in's layer JSON.
 */
public class ComputationGraphConfiguration implements Serializable, Cloneable {
  private static final long serialVersionUID = 1L;

  protected Map<String, GraphVertex> vertices = new LinkedHashMap<>();
  protected Map<String, List<String>> vertexInputs = new LinkedHashMap<>();
  protected List<String> networkInputs = new ArrayList<>();
  protected List<String> networkOutputs = new ArrayList<>();
  /** ndrt: the input types given to the builder (Deeplearning4j does not keep them; null: none given). */
  protected List<InputType> networkInputTypes;
  protected BackpropType backpropType = BackpropType.Standard;
  protected int tbpttFwdLength = 20;
  protected int tbpttBackLength = 20;
  /** The network-wide settings (its layer is null), as Deeplearning4j keeps them. */
  protected NeuralNetConfiguration defaultConfiguration;
  protected IUpdater iUpdater;
  protected double l2;
  protected double weightDecay;
  protected DataType dataType = DataType.FLOAT;
  protected int epochCount;
  protected int iterationCount;
  protected int[] topologicalOrder;
  protected List<String> topologicalOrderStr;

  public ComputationGraphConfiguration() {}

  public Map<String, GraphVertex> getVertices() {
    return vertices;
  }

  public Map<String, List<String>> getVertexInputs() {
    return vertexInputs;
  }

  public List<String> getNetworkInputs() {
    return networkInputs;
  }

  public List<String> getNetworkOutputs() {
    return networkOutputs;
  }

  /** ndrt: the input types given to setInputTypes (null: none). */
  public List<InputType> getNetworkInputTypes() {
    return networkInputTypes;
  }

  public BackpropType getBackpropType() {
    return backpropType;
  }

  public int getTbpttFwdLength() {
    return tbpttFwdLength;
  }

  public int getTbpttBackLength() {
    return tbpttBackLength;
  }

  public NeuralNetConfiguration getDefaultConfiguration() {
    return defaultConfiguration;
  }

  /** The network-wide updater (each layer's own is its LayerVertex's). */
  public IUpdater getIUpdater() {
    return iUpdater;
  }

  public double getL2() {
    return l2;
  }

  public double getWeightDecay() {
    return weightDecay;
  }

  public DataType getDataType() {
    return dataType;
  }

  public int getEpochCount() {
    return epochCount;
  }

  public void setEpochCount(int epochCount) {
    this.epochCount = epochCount;
  }

  public int getIterationCount() {
    return iterationCount;
  }

  public void setIterationCount(int iterationCount) {
    this.iterationCount = iterationCount;
  }

  /** Vertex indices (network inputs first, then the vertices as added) in an order that computes each after its inputs. */
  public int[] getTopologicalOrder() {
    return topologicalOrder == null ? null : topologicalOrder.clone();
  }

  /** The names of {@link #getTopologicalOrder()}. */
  public List<String> getTopologicalOrderStr() {
    return topologicalOrderStr;
  }

  /** ndrt: the org.ndrt.nn configuration this one trains as (refusing by name what org.ndrt.nn lacks). */
  public org.ndrt.nn.conf.ComputationGraphConfiguration toNdrt() {
    return GraphTranslator.translate(this);
  }

  /** Checks the graph again (IllegalArgumentException naming the vertex). */
  public void validate() {
    GraphTranslator.check(this);
  }

  /** The order of org.ndrt.nn's configuration (its inserted dropout / preprocessor vertices left out). */
  void setOrder(org.ndrt.nn.conf.ComputationGraphConfiguration n) {
    List<String> all = new ArrayList<>(networkInputs);
    all.addAll(vertices.keySet());
    List<String> order = new ArrayList<>(networkInputs);
    for (String v : n.topologicalOrder()) {
      if (vertices.containsKey(v)) {
        order.add(v);
      }
    }
    topologicalOrderStr = order;
    topologicalOrder = order.stream().mapToInt(all::indexOf).toArray();
  }

  /** This configuration as JSON: Deeplearning4j's layout, each layer as the drop-in's layer JSON. */
  public String toJson() {
    return Dl4jGraphJson.write(this);
  }

  /** Reads {@link #toJson()}'s text; the graph is checked as at build time. */
  public static ComputationGraphConfiguration fromJson(String json) {
    ComputationGraphConfiguration c = Dl4jGraphJson.read(json);
    c.checked();
    return c;
  }

  public String toYaml() {
    throw new UnsupportedOperationException("ComputationGraphConfiguration.toYaml: ndrt's Deeplearning4j drop-in writes "
        + "JSON only (toJson)");
  }

  public static ComputationGraphConfiguration fromYaml(String yaml) {
    throw new UnsupportedOperationException("ComputationGraphConfiguration.fromYaml: ndrt's Deeplearning4j drop-in reads "
        + "JSON only (fromJson)");
  }

  /** The graph checked through org.ndrt.nn (IllegalArgumentException naming the vertex), nIn and order filled in. */
  void checked() {
    org.ndrt.nn.conf.ComputationGraphConfiguration n = GraphTranslator.check(this);
    if (n != null) {
      GraphTranslator.fillNIn(this, n);
      setOrder(n);
    }
  }

  @Override
  public ComputationGraphConfiguration clone() {
    return fromJson(toJson());
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ComputationGraphConfiguration && toJson().equals(((ComputationGraphConfiguration) o).toJson());
  }

  @Override
  public int hashCode() {
    return toJson().hashCode();
  }

  @Override
  public String toString() {
    return toJson();
  }

  /**
   * Deeplearning4j's GraphBuilder ({@code new NeuralNetConfiguration.Builder()...graphBuilder()}): each
   * layer takes the network-wide settings when added; a layer given several inputs gets a MergeVertex
   * "name-merge" before it, as in Deeplearning4j.
   */
  public static class GraphBuilder {
    protected Map<String, GraphVertex> vertices = new LinkedHashMap<>();
    protected Map<String, List<String>> vertexInputs = new LinkedHashMap<>();
    protected List<String> networkInputs = new ArrayList<>();
    protected List<InputType> networkInputTypes = new ArrayList<>();
    protected List<String> networkOutputs = new ArrayList<>();
    protected BackpropType backpropType = BackpropType.Standard;
    protected int tbpttFwdLength = 20;
    protected int tbpttBackLength = 20;
    protected NeuralNetConfiguration.Builder globalConfiguration;
    protected String lastAdded;
    // Deeplearning4j's map of preprocessors by layer name, applied at build(); setInputPreProcessors replaces it.
    protected Map<String, InputPreProcessor> inputPreProcessors = new LinkedHashMap<>();

    public GraphBuilder(NeuralNetConfiguration.Builder globalConfiguration) {
      this.globalConfiguration = globalConfiguration;
    }

    public GraphBuilder addInputs(String... inputNames) {
      Collections.addAll(networkInputs, inputNames);
      return this;
    }

    public GraphBuilder addInputs(Collection<String> inputNames) {
      networkInputs.addAll(inputNames);
      return this;
    }

    /** One type per input, in order: then each layer's nIn is inferred (org.ndrt.nn's shape inference). */
    public GraphBuilder setInputTypes(InputType... inputTypes) {
      networkInputTypes = new ArrayList<>(Arrays.asList(inputTypes));
      return this;
    }

    public GraphBuilder addLayer(String layerName, Layer layer, String... layerInputs) {
      return addLayer(layerName, layer, null, layerInputs);
    }

    public GraphBuilder layer(String layerName, Layer layer, String... layerInputs) {
      return addLayer(layerName, layer, null, layerInputs);
    }

    public GraphBuilder layer(int layerName, Layer layer, String... layerInputs) {
      return addLayer(String.valueOf(layerName), layer, null, layerInputs);
    }

    public GraphBuilder layer(String layerName, Layer layer, InputPreProcessor preProcessor, String... layerInputs) {
      return addLayer(layerName, layer, preProcessor, layerInputs);
    }

    /**
     * A layer with the network-wide settings filled in (a copy: later changes to {@code layer} do not
     * reach the graph) and an optional preprocessor before it (CnnToFeedForward / FeedForwardToCnn).
     */
    public GraphBuilder addLayer(String layerName, Layer layer, InputPreProcessor preProcessor, String... layerInputs) {
      if (layer == null) {
        throw new IllegalArgumentException("addLayer(\"" + layerName + "\"): the layer must not be null");
      }
      layer.setLayerName(layerName);
      Layer resolved = globalConfiguration.resolve(layer);
      NeuralNetConfiguration.Builder g = globalConfiguration;
      vertices.put(layerName, new LayerVertex(new NeuralNetConfiguration(resolved, g.seed, g.optimizationAlgo, g.miniBatch),
          preProcessor));
      if (layerInputs != null && layerInputs.length > 1) {
        String merge = layerName + "-merge";
        addVertex(merge, new MergeVertex(), layerInputs);
        vertexInputs.put(layerName, new ArrayList<>(List.of(merge)));
      } else if (layerInputs != null) {
        vertexInputs.put(layerName, new ArrayList<>(Arrays.asList(layerInputs)));
      }
      lastAdded = layerName;
      return this;
    }

    /** A layer taking the vertex added last. */
    public GraphBuilder appendLayer(String layerName, Layer layer) {
      return appendLayer(layerName, layer, null);
    }

    public GraphBuilder appendLayer(String layerName, Layer layer, InputPreProcessor preProcessor) {
      return addLayer(layerName, layer, preProcessor, requireLast(layerName));
    }

    public GraphBuilder addVertex(String vertexName, GraphVertex vertex, String... vertexInputs) {
      if (vertex == null) {
        throw new IllegalArgumentException("addVertex(\"" + vertexName + "\"): the vertex must not be null");
      }
      vertices.put(vertexName, vertex);
      if (vertexInputs != null) {
        this.vertexInputs.put(vertexName, new ArrayList<>(Arrays.asList(vertexInputs)));
      }
      lastAdded = vertexName;
      return this;
    }

    public GraphBuilder appendVertex(String vertexName, GraphVertex vertex) {
      return addVertex(vertexName, vertex, requireLast(vertexName));
    }

    private String requireLast(String name) {
      if (lastAdded == null) {
        throw new IllegalStateException("append \"" + name + "\": no layer or vertex was added before it");
      }
      return lastAdded;
    }

    /** The preprocessor before layer {@code layer} (which must have been added). */
    public GraphBuilder inputPreProcessor(String layer, InputPreProcessor processor) {
      GraphVertex v = vertices.get(layer);
      if (!(v instanceof LayerVertex)) {
        throw new IllegalArgumentException("inputPreProcessor(\"" + layer + "\"): no layer of that name was added");
      }
      ((LayerVertex) v).setPreProcessor(processor);
      return this;
    }

    /**
     * Replaces the map of preprocessors by layer name (as Deeplearning4j's setter does: a second call
     * drops the first call's entries); build() puts each before its layer, over one given at addLayer.
     */
    public void setInputPreProcessors(Map<String, InputPreProcessor> inputPreProcessors) {
      this.inputPreProcessors = new LinkedHashMap<>(inputPreProcessors);
    }

    public Map<String, InputPreProcessor> getInputPreProcessors() {
      return inputPreProcessors;
    }

    public GraphBuilder removeVertex(String vertexName) {
      return removeVertex(vertexName, true);
    }

    /** Removes a vertex and, with {@code removeConnections}, its name from the other vertices' inputs and the outputs. */
    public GraphBuilder removeVertex(String vertexName, boolean removeConnections) {
      vertices.remove(vertexName);
      vertexInputs.remove(vertexName);
      if (removeConnections) {
        for (List<String> in : vertexInputs.values()) {
          in.remove(vertexName);
        }
        networkOutputs.remove(vertexName);
      }
      return this;
    }

    public GraphBuilder setOutputs(String... outputNames) {
      networkOutputs = new ArrayList<>(Arrays.asList(outputNames));
      return this;
    }

    /** Standard (TruncatedBPTT is refused when the graph is initialised). */
    public GraphBuilder backpropType(BackpropType type) {
      this.backpropType = type;
      return this;
    }

    public GraphBuilder tBPTTForwardLength(int length) {
      this.tbpttFwdLength = length;
      return this;
    }

    public GraphBuilder tBPTTBackwardLength(int length) {
      this.tbpttBackLength = length;
      return this;
    }

    public GraphBuilder tBPTTLength(int length) {
      return tBPTTForwardLength(length).tBPTTBackwardLength(length);
    }

    /** Accepted: org.ndrt.nn checks that every output layer is an output. */
    public GraphBuilder allowDisconnected(boolean allow) {
      return this;
    }

    /** Accepted: org.ndrt.nn checks the outputs itself. */
    public GraphBuilder allowNoOutput(boolean allow) {
      return this;
    }

    /** Accepted: org.ndrt.nn checks the output layers' loss and activation itself. */
    public GraphBuilder validateOutputLayerConfig(boolean validate) {
      return this;
    }

    /** Accepted: ndrt's graphs have no truncated backpropagation to check. */
    public GraphBuilder validateTbpttConfig(boolean validate) {
      return this;
    }

    public Map<String, GraphVertex> getVertices() {
      return vertices;
    }

    public Map<String, List<String>> getVertexInputs() {
      return vertexInputs;
    }

    public List<String> getNetworkInputs() {
      return networkInputs;
    }

    public List<InputType> getNetworkInputTypes() {
      return networkInputTypes;
    }

    public List<String> getNetworkOutputs() {
      return networkOutputs;
    }

    /**
     * The configuration, checked through org.ndrt.nn (an IllegalArgumentException naming the vertex
     * for a cycle, an unknown input, a wrong number of inputs or types that do not fit); each nIn not
     * given is set from the inferred types. Settings org.ndrt.nn lacks are refused at init.
     */
    public ComputationGraphConfiguration build() {
      for (String name : inputPreProcessors.keySet()) {
        if (!(vertices.get(name) instanceof LayerVertex)) {
          throw new IllegalArgumentException("setInputPreProcessors: \"" + name + "\" is not a layer of the graph");
        }
      }
      NeuralNetConfiguration.Builder g = globalConfiguration;
      ComputationGraphConfiguration c = new ComputationGraphConfiguration();
      for (Map.Entry<String, GraphVertex> e : vertices.entrySet()) {
        GraphVertex v = e.getValue() instanceof LayerVertex ? e.getValue() : e.getValue().clone();
        if (v instanceof LayerVertex) {
          LayerVertex lv = (LayerVertex) v;
          InputPreProcessor pre = inputPreProcessors.getOrDefault(e.getKey(), lv.getPreProcessor());
          v = new LayerVertex(new NeuralNetConfiguration(lv.getLayerConf().getLayer().clone(), g.seed, g.optimizationAlgo,
              g.miniBatch), pre);
          ((LayerVertex) v).setOutputVertex(networkOutputs.contains(e.getKey()));
        }
        c.vertices.put(e.getKey(), v);
      }
      for (Map.Entry<String, List<String>> e : vertexInputs.entrySet()) {
        c.vertexInputs.put(e.getKey(), new ArrayList<>(e.getValue()));
      }
      c.networkInputs = new ArrayList<>(networkInputs);
      c.networkOutputs = new ArrayList<>(networkOutputs);
      c.networkInputTypes = networkInputTypes.isEmpty() ? null : new ArrayList<>(networkInputTypes);
      c.backpropType = backpropType;
      c.tbpttFwdLength = tbpttFwdLength;
      c.tbpttBackLength = tbpttBackLength;
      c.defaultConfiguration = new NeuralNetConfiguration(null, g.seed, g.optimizationAlgo, g.miniBatch);
      c.iUpdater = g.iUpdater;
      c.l2 = g.regularized(g.l2);
      c.weightDecay = g.weightDecay;
      c.dataType = g.dataType;
      c.checked();
      return c;
    }
  }
}
