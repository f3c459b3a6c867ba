package org.ndrt.dl4j;

import static org.ndrt.dl4j.Dl4jJsonValues.CLASS;
import static org.ndrt.dl4j.Dl4jJsonValues.obj;
import static org.ndrt.dl4j.Dl4jJsonValues.set;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.api.OptimizationAlgorithm;
import org.deeplearning4j.nn.conf.BackpropType;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.graph.GraphVertex;
import org.deeplearning4j.nn.conf.graph.LayerVertex;
import org.deeplearning4j.nn.conf.graph.PreprocessorVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.BaseLayer;
import org.deeplearning4j.nn.conf.layers.DropoutLayer;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.learning.config.Sgd;
import org.ndrt.nn.conf.Json;

/**
 * ComputationGraphConfiguration as JSON in Deeplearning4j 1.0.0-M2.1's layout: "vertices" (name ->
 * {"@class": vertex class, fields}, a layer as a LayerVertex with its "layerConf" in {@link Dl4jJson}'s
 * NeuralNetConfiguration form), "vertexInputs", "networkInputs", "networkOutputs",
 * "defaultConfiguration", "topologicalOrder(Str)". The drop-in adds "networkInputTypes" (the types
 * given to setInputTypes, Deeplearning4j ignores unknown keys). Vertices keep their order (the order
 * of the parameters). Reads what it writes; Deeplearning4j's own text is read where its layers,
 * vertices and preprocessors are the drop-in's (its implied preprocessors are then explicit).
 */
public final class Dl4jGraphJson {
  private static final String GRAPH = "org.deeplearning4j.nn.conf.graph.";

  private Dl4jGraphJson() {}

  public static String write(ComputationGraphConfiguration c) {
    Map<String, Object> m = obj(null);
    m.put("backpropType", c.getBackpropType().name());
    m.put("cacheMode", "NONE");
    m.put("dataType", c.getDataType().name());
    NeuralNetConfiguration d = c.getDefaultConfiguration();
    Map<String, Object> dm = obj(null);
    dm.put("dataType", c.getDataType().name());
    dm.put("miniBatch", d.isMiniBatch());
    dm.put("optimizationAlgo", d.getOptimizationAlgo().name());
    dm.put("seed", d.getSeed());
    m.put("defaultConfiguration", dm);
    m.put("epochCount", c.getEpochCount());
    m.put("inferenceWorkspaceMode", "ENABLED");
    m.put("iterationCount", c.getIterationCount());
    m.put("networkInputs", new ArrayList<Object>(c.getNetworkInputs()));
    if (c.getNetworkInputTypes() != null) {
      List<Object> ts = new ArrayList<>();
      for (InputType t : c.getNetworkInputTypes()) {
        ts.add(Json.parse(ConfJson.write(t)));
      }
      m.put("networkInputTypes", ts);
    }
    m.put("networkOutputs", new ArrayList<Object>(c.getNetworkOutputs()));
    m.put("tbpttBackLength", c.getTbpttBackLength());
    m.put("tbpttFwdLength", c.getTbpttFwdLength());
    if (c.getTopologicalOrder() != null) {
      List<Object> order = new ArrayList<>();
      for (int i : c.getTopologicalOrder()) {
        order.add(i);
      }
      m.put("topologicalOrder", order);
      m.put("topologicalOrderStr", new ArrayList<Object>(c.getTopologicalOrderStr()));
    }
    m.put("trainingWorkspaceMode", "ENABLED");
    m.put("validateOutputLayerConfig", true);
    Map<String, Object> inputs = new LinkedHashMap<>();
    for (Map.Entry<String, List<String>> e : c.getVertexInputs().entrySet()) {
      inputs.put(e.getKey(), new ArrayList<Object>(e.getValue()));
    }
    m.put("vertexInputs", inputs);
    Map<String, Object> vs = new LinkedHashMap<>();
    for (Map.Entry<String, GraphVertex> e : c.getVertices().entrySet()) {
      vs.put(e.getKey(), vertex(e.getValue()));
    }
    m.put("vertices", vs);
    return Json.write(m);
  }

  private static Map<String, Object> vertex(GraphVertex v) {
    if (v instanceof LayerVertex) {
      LayerVertex lv = (LayerVertex) v;
      Map<String, Object> m = obj(LayerVertex.class.getName());
      m.put("layerConf", Json.parse(Dl4jJson.write(lv.getLayerConf())));
      m.put("outputVertex", lv.isOutputVertex());
      m.put("preProcessor", lv.getPreProcessor() == null ? null : Dl4jJson.preProcessor(lv.getPreProcessor()));
      return m;
    }
    if (v instanceof PreprocessorVertex) {
      Map<String, Object> m = obj(PreprocessorVertex.class.getName());
      PreprocessorVertex p = (PreprocessorVertex) v;
      m.put("preProcessor", p.getPreProcessor() == null ? null : Dl4jJson.preProcessor(p.getPreProcessor()));
      return m;
    }
    Map<String, Object> m = obj(null);
    m.putAll(Json.obj(Json.parse(ConfJson.write(v)), "a vertex"));  // fields under Deeplearning4j's names
    return m;
  }

  public static ComputationGraphConfiguration read(String json) {
    Map<String, Object> m = Json.obj(Json.parse(json), "the graph configuration");
    ComputationGraphConfiguration c = new ComputationGraphConfiguration();
    set(c, "networkInputs", strings(m.get("networkInputs"), "networkInputs"));
    set(c, "networkOutputs", strings(m.get("networkOutputs"), "networkOutputs"));
    Object ts = m.get("networkInputTypes");
    if (ts != null) {
      List<InputType> types = new ArrayList<>();
      for (Object t : list(ts, "networkInputTypes")) {
        types.add(ConfJson.read(Json.write(t), InputType.class));
      }
      set(c, "networkInputTypes", types);
    }
    Map<String, List<String>> inputs = new LinkedHashMap<>();
    for (Map.Entry<String, Object> e : Json.obj(m.get("vertexInputs"), "vertexInputs").entrySet()) {
      inputs.put(e.getKey(), strings(e.getValue(), "vertexInputs of \"" + e.getKey() + "\""));
    }
    set(c, "vertexInputs", inputs);
    Map<String, GraphVertex> vertices = new LinkedHashMap<>();
    IUpdater u = new Sgd();
    double l2 = 0;
    double wd = 0;
    boolean found = false;
    for (Map.Entry<String, Object> e : Json.obj(m.get("vertices"), "vertices").entrySet()) {
      GraphVertex v = readVertex(e.getKey(), Json.obj(e.getValue(), "vertex \"" + e.getKey() + "\""));
      vertices.put(e.getKey(), v);
      if (!found && v instanceof LayerVertex && ((LayerVertex) v).getLayerConf().getLayer() instanceof BaseLayer
          && !(((LayerVertex) v).getLayerConf().getLayer() instanceof DropoutLayer)) {
        // The network-wide updater, l2 and weight decay org.ndrt.nn uses: the first layer with parameters'.
        BaseLayer b = (BaseLayer) ((LayerVertex) v).getLayerConf().getLayer();
        u = b.getIUpdater() != null ? b.getIUpdater() : u;
        l2 = b.getL2();
        wd = b.getWeightDecay();
        found = true;
      }
    }
    set(c, "vertices", vertices);
    DataType dt = DataType.valueOf(Json.str(m, "dataType", "FLOAT"));
    Map<String, Object> dm = m.get("defaultConfiguration") == null ? new LinkedHashMap<>()
        : Json.obj(m.get("defaultConfiguration"), "defaultConfiguration");
    NeuralNetConfiguration d = Dl4jJsonValues.make(NeuralNetConfiguration.class);
    set(d, "seed", Json.integer(dm, "seed", 0));
    set(d, "optimizationAlgo", OptimizationAlgorithm.valueOf(Json.str(dm, "optimizationAlgo",
        OptimizationAlgorithm.STOCHASTIC_GRADIENT_DESCENT.name())));
    set(d, "miniBatch", Json.bool(dm, "miniBatch", true));
    set(c, "defaultConfiguration", d);
    set(c, "backpropType", BackpropType.valueOf(Json.str(m, "backpropType", "Standard")));
    set(c, "tbpttFwdLength", (int) Json.integer(m, "tbpttFwdLength", 20));
    set(c, "tbpttBackLength", (int) Json.integer(m, "tbpttBackLength", 20));
    set(c, "dataType", dt);
    set(c, "epochCount", (int) Json.integer(m, "epochCount", 0));
    set(c, "iterationCount", (int) Json.integer(m, "iterationCount", 0));
    set(c, "iUpdater", u);
    set(c, "l2", l2);
    set(c, "weightDecay", wd);
    return c;
  }

  private static GraphVertex readVertex(String name, Map<String, Object> m) {
    String cls = Json.str(m, CLASS);
    Class<?> k = Dl4jJsonValues.known(cls, GraphVertex.class);
    if (!cls.startsWith(GRAPH)) {
      throw Dl4jJsonValues.unknown(cls, "graph vertex");
    }
    if (k == LayerVertex.class) {
      NeuralNetConfiguration nc = Dl4jJson.readConf(Json.write(Json.obj(m.get("layerConf"), "the layerConf of \"" + name
          + "\"")));
      nc.getLayer().setLayerName(name);
      LayerVertex v = new LayerVertex(nc, m.get("preProcessor") == null ? null
          : Dl4jJson.readPreProcessor(Json.obj(m.get("preProcessor"), "a preprocessor")));
      v.setOutputVertex(Json.bool(m, "outputVertex", false));
      return v;
    }
    if (k == PreprocessorVertex.class) {
      return new PreprocessorVertex(m.get("preProcessor") == null ? null
          : Dl4jJson.readPreProcessor(Json.obj(m.get("preProcessor"), "a preprocessor")));
    }
    return ConfJson.read(Json.write(m), GraphVertex.class);
  }

  private static List<?> list(Object o, String what) {
    if (!(o instanceof List)) {
      throw new IllegalArgumentException("graph configuration JSON: \"" + what + "\" must be an array");
    }
    return (List<?>) o;
  }

  private static List<String> strings(Object o, String what) {
    List<String> out = new ArrayList<>();
    for (Object s : list(o, what)) {
      if (!(s instanceof String)) {
        throw new IllegalArgumentException("graph configuration JSON: \"" + what + "\" must hold names");
      }
      out.add((String) s);
    }
    return out;
  }
}
