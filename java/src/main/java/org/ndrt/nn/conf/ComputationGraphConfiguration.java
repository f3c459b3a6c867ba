package org.ndrt.nn.conf;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.ndrt.DType;
import org.ndrt.nn.conf.graph.DuplicateToTimeSeriesVertex;
import org.ndrt.nn.conf.graph.GraphVertex;
import org.ndrt.nn.conf.graph.LastTimeStepVertex;
import org.ndrt.nn.conf.graph.MergeVertex;
import org.ndrt.nn.conf.layers.EmbeddingSequenceLayer;
import org.ndrt.nn.conf.layers.Layer;
import org.ndrt.nn.conf.layers.OutputLayer;
import org.ndrt.nn.updater.Updater;

/**
 * A checked graph of layers and vertices, as Deeplearning4j's ComputationGraphConfiguration: named
 * inputs, vertices (a layer, or a {@link GraphVertex}) each naming the inputs or vertices it takes,
 * and named outputs. Built by {@link GraphBuilder#build()} (from {@code new
 * NeuralNetConfiguration.Builder()...graphBuilder()}) or read back with {@link #fromJson}: the
 * builder orders the vertices topologically, infers every type and nIn, and refuses cycles, unknown
 * names and types that do not fit, naming the vertex. A layer given several inputs takes them merged
 * (as a {@link MergeVertex} would).
 */
public final class ComputationGraphConfiguration implements NetworkConfiguration {
  /** The JSON format's name and version. */
  public static final String FORMAT = "ndrt-graph/1";

  /** One vertex: a layer or a parameter-free vertex, and the names of what it takes, in order. */
  public static final class Node {
    public final String name;
    /** The layer, or null for a {@link GraphVertex}. */
    public final Layer layer;
    /** The vertex, or null for a layer. */
    public final GraphVertex vertex;
    public final List<String> inputs;

    Node(String name, Layer layer, GraphVertex vertex, List<String> inputs) {
      this.name = name;
      this.layer = layer;
      this.vertex = vertex;
      this.inputs = Collections.unmodifiableList(new ArrayList<>(inputs));
    }
  }

  private final NeuralNetConfiguration.Builder settings;
  private final List<String> inputs;
  private final List<InputType> givenInputTypes;  // null: implied by the layers
  private final Map<String, Node> nodes;
  private final List<String> outputs;
  private final List<String> order = new ArrayList<>();
  private final Map<String, InputType> types = new HashMap<>();
  private final List<Layer> layers = new ArrayList<>();

  private ComputationGraphConfiguration(GraphBuilder b) {
    this.settings = b.global;
    this.inputs = Collections.unmodifiableList(new ArrayList<>(b.inputs));
    this.givenInputTypes = b.inputTypes == null ? null : Collections.unmodifiableList(new ArrayList<>(b.inputTypes));
    this.nodes = Collections.unmodifiableMap(new LinkedHashMap<>(b.nodes));
    this.outputs = Collections.unmodifiableList(new ArrayList<>(b.outputs));
    if (b.backpropType != BackpropType.Standard) {
      throw new IllegalArgumentException("ComputationGraph: " + b.backpropType + " is not supported (Standard backprop only)");
    }
    checkNames();
    sortTopologically();
    inferTypes();
    checkOutputs();
  }

  private void checkNames() {
    if (inputs.isEmpty()) {
      throw new IllegalArgumentException("the graph has no inputs: call addInputs(...)");
    }
    if (outputs.isEmpty()) {
      throw new IllegalArgumentException("the graph has no outputs: call setOutputs(...)");
    }
    Map<Layer, String> seen = new IdentityHashMap<>();
    for (Node n : nodes.values()) {
      int k = n.inputs.size();
      int min = n.layer != null ? 1 : n.vertex.minInputs();
      int max = n.layer != null ? Integer.MAX_VALUE : n.vertex.maxInputs();
      if (k < min || k > max) {
        throw new IllegalArgumentException("vertex \"" + n.name + "\" (" + kindOf(n) + ") takes " + (min == max ? "" + min
            : max == Integer.MAX_VALUE ? "at least " + min : min + " to " + max) + " input" + (max == 1 ? "" : "s") + ", got "
            + k + " " + n.inputs);
      }
      for (String in : n.inputs) {
        if (!inputs.contains(in) && !nodes.containsKey(in)) {
          throw new IllegalArgumentException("vertex \"" + n.name + "\": its input \"" + in + "\" is not an input or vertex"
              + " of the graph (inputs " + inputs + ", vertices " + nodes.keySet() + ")");
        }
      }
      String other = n.layer == null ? null : seen.put(n.layer, n.name);
      if (other != null) {
        throw new IllegalArgumentException("vertex \"" + n.name + "\": its layer object is also vertex \"" + other
            + "\"; give each vertex a layer of its own");
      }
      if (n.vertex instanceof DuplicateToTimeSeriesVertex) {
        String ref = ((DuplicateToTimeSeriesVertex) n.vertex).input();
        if (!inputs.contains(ref) && !nodes.containsKey(ref)) {
          throw new IllegalArgumentException("vertex \"" + n.name + "\": the sequences it takes its length from, \"" + ref
              + "\", are not an input or vertex of the graph (inputs " + inputs + ", vertices " + nodes.keySet() + ")");
        }
      }
      if (n.vertex instanceof LastTimeStepVertex) {
        String mask = ((LastTimeStepVertex) n.vertex).maskInput();
        if (mask != null && !inputs.contains(mask)) {
          throw new IllegalArgumentException("vertex \"" + n.name + "\": its mask input \"" + mask + "\" is not an input of"
              + " the graph (inputs " + inputs + ")");
        }
      }
    }
    for (String o : outputs) {
      if (!nodes.containsKey(o)) {
        throw new IllegalArgumentException("output \"" + o + "\" is not a vertex of the graph (vertices " + nodes.keySet()
            + ")");
      }
    }
  }

  private static String kindOf(Node n) {
    return n.layer != null ? n.layer.getClass().getSimpleName() : n.vertex.getClass().getSimpleName();
  }

  /** The vertices a vertex needs computed before it: its inputs and the one it takes a length from. */
  private List<String> dependencies(Node n) {
    List<String> d = new ArrayList<>(n.inputs);
    if (n.vertex instanceof DuplicateToTimeSeriesVertex) {
      d.add(((DuplicateToTimeSeriesVertex) n.vertex).input());
    }
    return d;
  }

  /** Kahn's algorithm, ties in the order the vertices were added; a cycle is refused naming its vertices. */
  private void sortTopologically() {
    Map<String, Integer> waiting = new HashMap<>();
    Map<String, List<String>> users = new HashMap<>();
    for (Node n : nodes.values()) {
      Set<String> deps = new LinkedHashSet<>(dependencies(n));
      deps.removeAll(inputs);
      waiting.put(n.name, deps.size());
      for (String d : deps) {
        users.computeIfAbsent(d, k -> new ArrayList<>()).add(n.name);
      }
    }
    Deque<String> ready = new ArrayDeque<>();
    for (Node n : nodes.values()) {
      if (waiting.get(n.name) == 0) {
        ready.add(n.name);
      }
    }
    while (!ready.isEmpty()) {
      String v = ready.poll();
      order.add(v);
      for (String u : users.getOrDefault(v, List.of())) {
        if (waiting.merge(u, -1, Integer::sum) == 0) {
          ready.add(u);
        }
      }
    }
    if (order.size() != nodes.size()) {
      // Left over: vertices on a cycle and those downstream of one; drop the latter (no user left over) until none is.
      Set<String> left = new LinkedHashSet<>(nodes.keySet());
      left.removeAll(order);
      for (boolean dropped = true; dropped; ) {
        dropped = left.removeIf(v -> users.getOrDefault(v, List.of()).stream().noneMatch(left::contains));
      }
      StringBuilder names = new StringBuilder();
      for (String v : left) {
        names.append(names.length() > 0 ? ", " : "").append('"').append(v).append('"');
      }
      throw new IllegalArgumentException("the graph has a cycle through vertices " + names + " (a vertex may only take"
          + " inputs and vertices that do not depend on it)");
    }
  }

  private void inferTypes() {
    if (givenInputTypes != null && givenInputTypes.size() != inputs.size()) {
      throw new IllegalArgumentException("setInputTypes: " + givenInputTypes.size() + " types for " + inputs.size()
          + " inputs " + inputs);
    }
    for (int i = 0; i < inputs.size(); ++i) {
      types.put(inputs.get(i), givenInputTypes != null ? givenInputTypes.get(i) : impliedType(inputs.get(i)));
    }
    for (String v : order) {
      Node n = nodes.get(v);
      List<InputType> in = new ArrayList<>();
      for (String s : n.inputs) {
        in.add(types.get(s));
      }
      try {
        InputType out;
        if (n.layer != null) {
          n.layer.applyDefaults(v, settings.activation, settings.weightInit);
          if (n.layer instanceof EmbeddingSequenceLayer && !(n.inputs.size() == 1 && inputs.contains(n.inputs.get(0)))) {
            throw new IllegalArgumentException("an EmbeddingSequenceLayer takes indices: its one input must be a graph input");
          }
          InputType t = in.size() == 1 ? in.get(0) : new MergeVertex().inferOutput(in, types::get);
          out = n.layer.inferOutput(t);
          layers.add(n.layer);
        } else {
          out = n.vertex.inferOutput(in, types::get);
        }
        types.put(v, out);
      } catch (IllegalArgumentException | IllegalStateException e) {
        throw new IllegalArgumentException("vertex \"" + v + "\" (" + kindOf(n) + ", inputs " + n.inputs + " of types " + in
            + "): " + e.getMessage(), e);
      }
    }
  }

  /** An input's type without setInputTypes: from the nIn of the first layer that takes it directly. */
  private InputType impliedType(String input) {
    for (Node n : nodes.values()) {
      if (n.layer != null && n.inputs.equals(List.of(input))) {
        return n.layer.impliedInput();
      }
    }
    throw new IllegalArgumentException("input \"" + input + "\": no input types are set and no layer takes it alone to imply"
        + " one; call setInputTypes(...)");
  }

  private void checkOutputs() {
    for (Node n : nodes.values()) {
      if (n.layer instanceof OutputLayer && !outputs.contains(n.name)) {
        throw new IllegalArgumentException("vertex \"" + n.name + "\" is an " + kindOf(n) + " but not one of the graph's"
            + " outputs " + outputs + " (its labels would never be given)");
      }
      if (n.layer instanceof OutputLayer && !consumers(n.name).isEmpty()) {
        throw new IllegalArgumentException("vertex \"" + n.name + "\" is an " + kindOf(n) + " (it ends in a loss) but vertices "
            + consumers(n.name) + " take it as an input; take the layer before it instead");
      }
    }
  }

  // ------------------------------------------------------------------------------------ settings

  @Override
  public long seed() {
    return settings.seed;
  }

  public WeightInit weightInit() {
    return settings.weightInit;
  }

  @Override
  public Updater updater() {
    return settings.updater;
  }

  @Override
  public double l2() {
    return settings.l2;
  }

  @Override
  public double weightDecay() {
    return settings.weightDecay;
  }

  @Override
  public DType dataType() {
    return settings.dataType;
  }

  @Override
  public double lossScale() {
    return settings.lossScale;
  }

  @Override
  public boolean miniBatch() {
    return settings.miniBatch;
  }

  /** The layers in topological order (the order of the flat parameter vectors). */
  @Override
  public List<Layer> layers() {
    return Collections.unmodifiableList(layers);
  }

  // ------------------------------------------------------------------------------------ structure

  /** The graph's input names, in the order fit and output take the arrays. */
  public List<String> inputs() {
    return inputs;
  }

  /** The graph's output names, in the order the labels and outputs come. */
  public List<String> outputs() {
    return outputs;
  }

  /** Every vertex name in an order where each comes after all it depends on. */
  public List<String> topologicalOrder() {
    return Collections.unmodifiableList(order);
  }

  /** The vertex {@code name} (IllegalArgumentException when there is none). */
  public Node node(String name) {
    Node n = nodes.get(name);
    if (n == null) {
      throw new IllegalArgumentException("no vertex \"" + name + "\" in the graph (vertices " + nodes.keySet() + ")");
    }
    return n;
  }

  /** What input or vertex {@code name} gives (graph inputs: as set, or implied). */
  public InputType typeOf(String name) {
    InputType t = types.get(name);
    if (t == null) {
      throw new IllegalArgumentException("no input or vertex \"" + name + "\" in the graph");
    }
    return t;
  }

  /** The vertices that take {@code name} as an input, in topological order. */
  public List<String> consumers(String name) {
    List<String> c = new ArrayList<>();
    for (String v : order) {
      if (nodes.get(v).inputs.contains(name)) {
        c.add(v);
      }
    }
    return c;
  }

  // ------------------------------------------------------------------------------------ JSON

  @Override
  public String toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("format", FORMAT);
    NeuralNetConfiguration.settingsToJson(m, settings.seed, settings.weightInit, settings.activation, settings.updater,
        settings.l2, settings.weightDecay, settings.dataType, settings.lossScale);
    if (!settings.miniBatch) {
      m.put("miniBatch", false);
    }
    m.put("inputs", new ArrayList<Object>(inputs));
    if (givenInputTypes != null) {
      List<Object> ts = new ArrayList<>();
      for (InputType t : givenInputTypes) {
        ts.add(t.toJson());
      }
      m.put("inputTypes", ts);
    }
    List<Object> vs = new ArrayList<>();
    for (Node n : nodes.values()) {
      Map<String, Object> v = new LinkedHashMap<>();
      v.put("name", n.name);
      v.put("inputs", new ArrayList<Object>(n.inputs));
      if (n.layer != null) {
        v.put("layer", n.layer.toJson());
      } else {
        v.put("vertex", n.vertex.toJson());
      }
      vs.add(v);
    }
    m.put("vertices", vs);
    m.put("outputs", new ArrayList<Object>(outputs));
    return Json.write(m);
  }

  /** Reads {@link #toJson()}'s text; the graph is checked again as at build time. */
  public static ComputationGraphConfiguration fromJson(String json) {
    Map<String, Object> m = Json.obj(Json.parse(json), "the configuration");
    String format = Json.str(m, "format", null);
    if (!FORMAT.equals(format)) {
      throw new IllegalArgumentException("graph configuration JSON: format is " + format + ", expected " + FORMAT);
    }
    GraphBuilder b = NeuralNetConfiguration.settingsFromJson(m).graphBuilder();
    b.addInputs(strings(m.get("inputs"), "inputs"));
    Object ts = m.get("inputTypes");
    if (ts != null) {
      List<InputType> types = new ArrayList<>();
      for (Object t : list(ts, "inputTypes")) {
        types.add(InputType.fromJson(Json.obj(t, "an input type")));
      }
      b.setInputTypes(types.toArray(new InputType[0]));
    }
    for (Object o : list(m.get("vertices"), "vertices")) {
      Map<String, Object> v = Json.obj(o, "a vertex");
      String[] in = strings(v.get("inputs"), "a vertex's inputs");
      if (v.get("layer") != null) {
        b.addLayer(Json.str(v, "name"), Layer.fromJson(Json.obj(v.get("layer"), "a layer")), in);
      } else {
        b.addVertex(Json.str(v, "name"), GraphVertex.fromJson(Json.obj(v.get("vertex"), "a vertex")), in);
      }
    }
    b.setOutputs(strings(m.get("outputs"), "outputs"));
    return b.build();
  }

  private static List<?> list(Object o, String what) {
    if (!(o instanceof List)) {
      throw new IllegalArgumentException("graph configuration JSON: \"" + what + "\" must be an array");
    }
    return (List<?>) o;
  }

  private static String[] strings(Object o, String what) {
    List<?> l = list(o, what);
    String[] s = new String[l.size()];
    for (int i = 0; i < s.length; ++i) {
      if (!(l.get(i) instanceof String)) {
        throw new IllegalArgumentException("graph configuration JSON: \"" + what + "\" must hold names");
      }
      s[i] = (String) l.get(i);
    }
    return s;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ComputationGraphConfiguration && ((ComputationGraphConfiguration) o).toJson().equals(toJson());
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
   * Deeplearning4j's GraphBuilder: {@code addInputs("a", "b")}, {@code addLayer("d", layer, "a")},
   * {@code addVertex("m", new MergeVertex(), "d", "b")}, {@code setOutputs("out")}, optionally
   * {@code setInputTypes(...)} (then every nIn is inferred), {@link #build()}.
   */
  public static final class GraphBuilder {
    final NeuralNetConfiguration.Builder global;
    final List<String> inputs = new ArrayList<>();
    final Map<String, Node> nodes = new LinkedHashMap<>();
    final List<String> outputs = new ArrayList<>();
    List<InputType> inputTypes;
    BackpropType backpropType = BackpropType.Standard;

    GraphBuilder(NeuralNetConfiguration.Builder global) {
      this.global = global;
    }

    /** Names the graph's inputs (in the order fit and output take the arrays). */
    public GraphBuilder addInputs(String... names) {
      for (String n : names) {
        checkNew(n, "input");
        inputs.add(n);
      }
      return this;
    }

    public GraphBuilder addInputs(Collection<String> names) {
      return addInputs(names.toArray(new String[0]));
    }

    /** A layer vertex taking the named inputs or vertices (several: merged along the feature axis). */
    public GraphBuilder addLayer(String name, Layer layer, String... layerInputs) {
      checkNew(name, "vertex");
      if (layer == null) {
        throw new IllegalArgumentException("addLayer(\"" + name + "\"): the layer must not be null");
      }
      nodes.put(name, new Node(name, layer, null, Arrays.asList(checkInputs(name, layerInputs))));
      return this;
    }

    /** {@link #addLayer} under its other name. */
    public GraphBuilder layer(String name, Layer layer, String... layerInputs) {
      return addLayer(name, layer, layerInputs);
    }

    /** A parameter-free vertex taking the named inputs or vertices. */
    public GraphBuilder addVertex(String name, GraphVertex vertex, String... vertexInputs) {
      checkNew(name, "vertex");
      if (vertex == null) {
        throw new IllegalArgumentException("addVertex(\"" + name + "\"): the vertex must not be null");
      }
      nodes.put(name, new Node(name, null, vertex, Arrays.asList(checkInputs(name, vertexInputs))));
      return this;
    }

    /** The vertices whose outputs the graph gives (output layers: the ones with labels), in order. */
    public GraphBuilder setOutputs(String... names) {
      outputs.clear();
      for (String n : names) {
        if (n == null || outputs.contains(n)) {
          throw new IllegalArgumentException("setOutputs: " + (n == null ? "a null name" : "\"" + n + "\" twice"));
        }
        outputs.add(n);
      }
      return this;
    }

    /** The types of the inputs, one per input in order: then each layer's nIn is inferred. */
    public GraphBuilder setInputTypes(InputType... types) {
      for (InputType t : types) {
        if (t == null) {
          throw new IllegalArgumentException("setInputTypes: a null type");
        }
      }
      this.inputTypes = new ArrayList<>(Arrays.asList(types));
      return this;
    }

    /** Standard only for graphs (TruncatedBPTT is refused at build). */
    public GraphBuilder backpropType(BackpropType type) {
      if (type == null) {
        throw new IllegalArgumentException("backpropType must not be null");
      }
      this.backpropType = type;
      return this;
    }

    /** The checked configuration. */
    public ComputationGraphConfiguration build() {
      return new ComputationGraphConfiguration(this);
    }

    private void checkNew(String name, String what) {
      if (name == null || name.isEmpty()) {
        throw new IllegalArgumentException("a graph " + what + " needs a name");
      }
      if (inputs.contains(name) || nodes.containsKey(name)) {
        throw new IllegalArgumentException("the graph already has an input or vertex \"" + name + "\"");
      }
    }

    private static String[] checkInputs(String name, String[] in) {
      if (in == null || in.length == 0) {
        throw new IllegalArgumentException("vertex \"" + name + "\" names no inputs");
      }
      for (String s : in) {
        if (s == null) {
          throw new IllegalArgumentException("vertex \"" + name + "\": a null input name");
        }
      }
      return in.clone();
    }
  }
}
