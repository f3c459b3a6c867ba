package org.deeplearning4j.nn.graph;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.graph.GraphVertex;
import org.deeplearning4j.nn.conf.graph.LayerVertex;
import org.deeplearning4j.optimize.api.TrainingListener;
import org.deeplearning4j.util.ModelSerializer;
import org.nd4j.evaluation.IEvaluation;
import org.nd4j.evaluation.classification.Evaluation;
import org.nd4j.evaluation.regression.RegressionEvaluation;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.api.DataSet;
import org.nd4j.linalg.dataset.api.MultiDataSet;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;
import org.nd4j.linalg.dataset.api.iterator.MultiDataSetIterator;
import org.ndrt.Tensor;
import org.ndrt.dl4j.GraphTranslator;
import org.ndrt.dl4j.LayerView;
import org.ndrt.dl4j.Listeners;
import org.ndrt.dl4j.Tensors;

/**
 * Deeplearning4j's ComputationGraph as an adapter over org.ndrt.nn.ComputationGraph: {@link #init()}
 * translates the configuration (org.ndrt.dl4j.GraphTranslator, refusing by name what org.ndrt.nn
 * lacks) and org.ndrt.nn trains, predicts, evaluates and saves. Arrays cross as tensor handles over
 * the same storage (f32; other dtypes are cast); inputs, outputs and labels in the configuration's
 * networkInputs / networkOutputs order.
 */
public class ComputationGraph implements Model, AutoCloseable {
  private final ComputationGraphConfiguration conf;
  private org.ndrt.nn.ComputationGraph net;
  private final List<TrainingListener> listeners = new ArrayList<>();

  public ComputationGraph(ComputationGraphConfiguration conf) {
    this.conf = conf;
  }

  /** ndrt: an adapter over an org.ndrt.nn graph made from {@code conf} (ModelSerializer's restore). */
  public ComputationGraph(ComputationGraphConfiguration conf, org.ndrt.nn.ComputationGraph net) {
    this.conf = conf;
    this.net = net;
  }

  /** Builds the graph: its org.ndrt.nn configuration and parameters (from the seed). */
  public void init() {
    if (net != null) {
      return;
    }
    net = new org.ndrt.nn.ComputationGraph(GraphTranslator.translate(conf));
    net.init();
    bridgeListeners();
  }

  /** {@link #init()}, then these parameters (copied). */
  public void init(INDArray parameters, boolean cloneParametersArray) {
    init();
    if (parameters != null) {
      setParams(parameters);
    }
  }

  private org.ndrt.nn.ComputationGraph net() {
    if (net == null) {
      throw new IllegalStateException("the graph is not initialised: call init() first");
    }
    return net;
  }

  /** ndrt: the org.ndrt.nn graph this adapts. */
  public org.ndrt.nn.ComputationGraph ndrtGraph() {
    return net();
  }

  public ComputationGraphConfiguration getConfiguration() {
    return conf;
  }

  public int getNumInputArrays() {
    return conf.getNetworkInputs().size();
  }

  public int getNumOutputArrays() {
    return conf.getNetworkOutputs().size();
  }

  // ------------------------------------------------------------------------------ listeners

  @Override
  public void setListeners(TrainingListener... ls) {
    listeners.clear();
    addListeners(ls);
  }

  @Override
  public void setListeners(Collection<TrainingListener> ls) {
    setListeners(ls.toArray(new TrainingListener[0]));
  }

  @Override
  public void addListeners(TrainingListener... ls) {
    for (TrainingListener l : ls) {
      listeners.add(l);
    }
    if (net != null) {
      bridgeListeners();
    }
  }

  public Collection<TrainingListener> getListeners() {
    return new ArrayList<>(listeners);
  }

  private void bridgeListeners() {
    net.setListeners(Listeners.bridge(listeners, this, () -> this));
  }

  // ------------------------------------------------------------------------------- training

  /** One iteration on one minibatch of a one-input, one-output graph. */
  public void fit(DataSet ds) {
    try (org.ndrt.data.DataSet d = Tensors.dataSet(ds)) {
      net().fit(d);
    }
  }

  /** One iteration on one minibatch: features per input, labels per output. */
  public void fit(MultiDataSet mds) {
    try (org.ndrt.data.MultiDataSet d = Tensors.multiDataSet(mds)) {
      net().fit(d);
    }
  }

  public void fit(INDArray[] inputs, INDArray[] labels) {
    fit(inputs, labels, null, null);
  }

  public void fit(INDArray[] inputs, INDArray[] labels, INDArray[] featureMaskArrays, INDArray[] labelMaskArrays) {
    fit(new org.nd4j.linalg.dataset.MultiDataSet(inputs, labels, featureMaskArrays, labelMaskArrays));
  }

  /** One epoch over the iterator (reset first when it is used up). */
  public void fit(DataSetIterator it) {
    net().fit(Tensors.iterator(it));
  }

  public void fit(DataSetIterator it, int numEpochs) {
    net().fit(Tensors.iterator(it), numEpochs);
  }

  public void fit(MultiDataSetIterator it) {
    net().fit(Tensors.iterator(it));
  }

  public void fit(MultiDataSetIterator it, int numEpochs) {
    net().fit(Tensors.iterator(it), numEpochs);
  }

  // ------------------------------------------------------------------------------ inference

  /** Inference-mode outputs, one per network output. */
  public INDArray[] output(INDArray... input) {
    return output(false, input);
  }

  public INDArray[] output(boolean train, INDArray... input) {
    return output(train, input, null, null);
  }

  public INDArray[] output(boolean train, INDArray[] input, INDArray[] inputMasks) {
    return output(train, input, inputMasks, null);
  }

  /** With features masks (one per input) and labels masks (one per output); null entries or arrays: none. */
  public INDArray[] output(boolean train, INDArray[] input, INDArray[] inputMasks, INDArray[] labelMasks) {
    Tensor[] in = Tensors.in(input);
    Tensor[] fm = Tensors.in(inputMasks);
    Tensor[] lm = Tensors.in(labelMasks);
    try {
      return Tensors.out(net().output(in, fm, lm, train));
    } finally {
      close(in);
      close(fm);
      close(lm);
    }
  }

  private static void close(Tensor[] ts) {
    if (ts != null) {
      for (Tensor t : ts) {
        if (t != null) {
          t.close();
        }
      }
    }
  }

  /** The one output of a single-output graph (IllegalStateException otherwise). */
  public INDArray outputSingle(INDArray... input) {
    return outputSingle(false, input);
  }

  public INDArray outputSingle(boolean train, INDArray... input) {
    if (getNumOutputArrays() != 1) {
      throw new IllegalStateException("outputSingle: the graph has " + getNumOutputArrays() + " outputs "
          + conf.getNetworkOutputs() + "; use output(...)");
    }
    return output(train, input)[0];
  }

  /** The outputs for the next steps from the state stored by the previous call (see org.ndrt.nn's rnnTimeStep). */
  public INDArray[] rnnTimeStep(INDArray... inputs) {
    Tensor[] in = Tensors.in(inputs);
    try {
      return Tensors.out(net().rnnTimeStep(in));
    } finally {
      close(in);
    }
  }

  public void rnnClearPreviousState() {
    net().rnnClearPreviousState();
  }

  // --------------------------------------------------------------------------------- scores

  /** The score of the last minibatch fitted: the output layers' losses plus the regularisation terms. */
  @Override
  public double score() {
    return net == null ? Double.NaN : net.score();
  }

  /** The score of one minibatch in inference mode. */
  public double score(DataSet ds) {
    return score(ds, false);
  }

  public double score(DataSet ds, boolean training) {
    refuseTraining(training);
    try (org.ndrt.data.DataSet d = Tensors.dataSet(ds)) {
      return net().score(d);
    }
  }

  public double score(MultiDataSet ds) {
    return score(ds, false);
  }

  public double score(MultiDataSet ds, boolean training) {
    refuseTraining(training);
    try (org.ndrt.data.MultiDataSet d = Tensors.multiDataSet(ds)) {
      return net().score(d);
    }
  }

  private static void refuseTraining(boolean training) {
    if (training) {
      throw new UnsupportedOperationException("ComputationGraph.score(ds, true): org.ndrt.nn scores in inference mode");
    }
  }

  // ----------------------------------------------------------------------------- evaluation

  @SuppressWarnings("unchecked")
  public <T extends Evaluation> T evaluate(DataSetIterator it) {
    return (T) doEvaluation(it, new Evaluation())[0];
  }

  @SuppressWarnings("unchecked")
  public <T extends Evaluation> T evaluate(DataSetIterator it, List<String> labelsList) {
    return (T) doEvaluation(it, new Evaluation(labelsList))[0];
  }

  @SuppressWarnings("unchecked")
  public <T extends Evaluation> T evaluate(MultiDataSetIterator it) {
    return (T) doEvaluation(it, new Evaluation())[0];
  }

  @SuppressWarnings("unchecked")
  public <T extends Evaluation> T evaluate(MultiDataSetIterator it, List<String> labelsList) {
    return (T) doEvaluation(it, new Evaluation(labelsList))[0];
  }

  @SuppressWarnings("unchecked")
  public <T extends RegressionEvaluation> T evaluateRegression(DataSetIterator it) {
    return (T) doEvaluation(it, new RegressionEvaluation())[0];
  }

  @SuppressWarnings("unchecked")
  public <T extends RegressionEvaluation> T evaluateRegression(MultiDataSetIterator it) {
    return (T) doEvaluation(it, new RegressionEvaluation())[0];
  }

  /** Each evaluation of the single output over a pass of the iterator (reset first). */
  @SafeVarargs
  @SuppressWarnings("varargs")
  public final <T extends IEvaluation<?>> T[] doEvaluation(DataSetIterator it, T... evaluations) {
    singleOutput("doEvaluation");
    if (it.resetSupported()) {
      it.reset();
    }
    while (it.hasNext()) {
      DataSet ds = it.next();
      INDArray out = output(false, new INDArray[] {ds.getFeatures()}, new INDArray[] {ds.getFeaturesMaskArray()},
          new INDArray[] {ds.getLabelsMaskArray()})[0];
      for (T e : evaluations) {
        e.eval(ds.getLabels(), out, ds.getLabelsMaskArray());
      }
    }
    return evaluations;
  }

  /** Each evaluation of the single output over a pass of the iterator (reset first). */
  @SafeVarargs
  @SuppressWarnings("varargs")
  public final <T extends IEvaluation<?>> T[] doEvaluation(MultiDataSetIterator it, T... evaluations) {
    singleOutput("doEvaluation");
    if (it.resetSupported()) {
      it.reset();
    }
    while (it.hasNext()) {
      MultiDataSet ds = it.next();
      INDArray out = output(false, ds.getFeatures(), ds.getFeaturesMaskArrays(), ds.getLabelsMaskArrays())[0];
      for (T e : evaluations) {
        e.eval(ds.getLabels(0), out, ds.getLabelsMaskArray(0));
      }
    }
    return evaluations;
  }

  private void singleOutput(String what) {
    if (getNumOutputArrays() != 1) {
      throw new UnsupportedOperationException(what + " of a graph with " + getNumOutputArrays() + " outputs: ndrt's "
          + "Deeplearning4j drop-in evaluates single-output graphs (evaluate(iterator, Map) is not in it)");
    }
  }

  // ---------------------------------------------------------------------------------- state

  /** The parameters, flat: a view of the graph's own (writing it changes the graph, as in Deeplearning4j). */
  @Override
  public INDArray params() {
    return Tensors.out(net().params().share());
  }

  public INDArray params(boolean backwardOnly) {
    return params();
  }

  /** Any shape of numParams() elements. */
  public void setParams(INDArray params) {
    try (Tensor t = Tensors.in(params.rank() == 1 ? params : params.reshape(params.length()))) {
      net().setParams(t);
    }
  }

  @Override
  public long numParams() {
    return net().numParams();
  }

  public long numParams(boolean backwards) {
    return numParams();
  }

  /** The layer vertex {@code name} (its configuration, index among the layers and kind). */
  public Layer getLayer(String name) {
    int i = 0;
    for (Map.Entry<String, GraphVertex> e : conf.getVertices().entrySet()) {
      if (e.getValue() instanceof LayerVertex) {
        if (e.getKey().equals(name)) {
          return LayerView.of(((LayerVertex) e.getValue()).getLayerConf(), i, () -> layerParams(name));
        }
        ++i;
      }
    }
    throw new IllegalArgumentException("getLayer(\"" + name + "\"): no layer of that name (vertices "
        + conf.getVertices().keySet() + ")");
  }

  public Layer getLayer(int index) {
    return getLayers()[index];
  }

  public Layer[] getLayers() {
    List<Layer> out = new ArrayList<>();
    for (Map.Entry<String, GraphVertex> e : conf.getVertices().entrySet()) {
      GraphVertex v = e.getValue();
      if (v instanceof LayerVertex) {
        String name = e.getKey();
        out.add(LayerView.of(((LayerVertex) v).getLayerConf(), out.size(), () -> layerParams(name)));
      }
    }
    return out.toArray(new Layer[0]);
  }

  /** The number of layer vertices (Deeplearning4j counts only those, not the other vertices). */
  public int getNumLayers() {
    int n = 0;
    for (GraphVertex v : conf.getVertices().values()) {
      n += v instanceof LayerVertex ? 1 : 0;
    }
    return n;
  }

  /** org.ndrt.nn's parameter count of the layer vertex {@code name} (its index among the graph's layers). */
  private long layerParams(String name) {
    org.ndrt.nn.conf.ComputationGraphConfiguration c = net().getConfiguration();
    List<org.ndrt.nn.conf.layers.Layer> layers = c.layers();
    org.ndrt.nn.conf.layers.Layer l = c.node(name).layer;
    for (int i = 0; i < layers.size(); ++i) {
      if (layers.get(i) == l) {
        return net.numParams(i);
      }
    }
    throw new IllegalStateException("numParams(): layer vertex \"" + name + "\" is not among org.ndrt.nn's layers");
  }

  public int getEpochCount() {
    return net().getEpochCount();
  }

  public int getIterationCount() {
    return (int) net().getIterationCount();
  }

  /** A table of the vertices: name, kind, inputs, nIn / nOut of the layers, and the parameter count. */
  public String summary() {
    StringBuilder sb = new StringBuilder(String.format("%-20s %-24s %8s %8s  %s%n", "name", "type", "nIn", "nOut", "inputs"));
    for (String in : conf.getNetworkInputs()) {
      sb.append(String.format("%-20s %-24s %8s %8s  %s%n", in, "InputVertex", "-", "-", "-"));
    }
    for (Map.Entry<String, GraphVertex> e : conf.getVertices().entrySet()) {
      GraphVertex v = e.getValue();
      String type = v.getClass().getSimpleName();
      String nIn = "-";
      String nOut = "-";
      if (v instanceof LayerVertex) {
        type = ((LayerVertex) v).getLayerConf().getLayer().getClass().getSimpleName();
        if (net != null) {
          org.ndrt.nn.conf.layers.Layer n = net.getConfiguration().node(e.getKey()).layer;
          nIn = Long.toString(n.nIn());
          nOut = Long.toString(n.nOut());
        }
      }
      sb.append(String.format("%-20s %-24s %8s %8s  %s%n", e.getKey(), type, nIn, nOut, conf.getVertexInputs().get(e.getKey())));
    }
    sb.append("Total parameters: ").append(net == null ? "(not initialised)" : Long.toString(net.numParams())).append('\n');
    return sb.toString();
  }

  /** Saves configuration, parameters and updater state (ModelSerializer.writeModel). */
  public void save(File f) throws IOException {
    save(f, true);
  }

  public void save(File f, boolean saveUpdater) throws IOException {
    ModelSerializer.writeModel(this, f, saveUpdater);
  }

  public static ComputationGraph load(File f, boolean loadUpdater) throws IOException {
    return ModelSerializer.restoreComputationGraph(f, loadUpdater);
  }

  /** A deep copy: configuration, parameters, updater state and counters (listeners shared). */
  @Override
  public ComputationGraph clone() {
    ComputationGraph g = new ComputationGraph(conf.clone(), net().clone());
    g.listeners.addAll(listeners);
    g.bridgeListeners();
    return g;
  }

  @Override
  public void close() {
    if (net != null) {
      net.close();
    }
  }
}
