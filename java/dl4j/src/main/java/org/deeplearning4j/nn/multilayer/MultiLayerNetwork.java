package org.deeplearning4j.nn.multilayer;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.FeedForwardLayer;
import org.deeplearning4j.optimize.api.TrainingListener;
import org.deeplearning4j.util.ModelSerializer;
import org.nd4j.evaluation.IEvaluation;
import org.nd4j.evaluation.classification.Evaluation;
import org.nd4j.evaluation.regression.RegressionEvaluation;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.api.DataSet;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;
import org.nd4j.linalg.factory.Nd4j;
import org.ndrt.Tensor;
import org.ndrt.dl4j.LayerView;
import org.ndrt.dl4j.Listeners;
import org.ndrt.dl4j.Tensors;
import org.ndrt.dl4j.Translator;

/**
 * Deeplearning4j's MultiLayerNetwork as an adapter over org.ndrt.nn.MultiLayerNetwork: {@link #init()}
 * translates the configuration (org.ndrt.dl4j.Translator, refusing by name what org.ndrt.nn lacks) and
 * org.ndrt.nn trains, predicts, evaluates and saves. Arrays cross as tensor handles over the same
 * storage (f32; other dtypes are cast), so the adapter adds nothing numerically.
 */
public class MultiLayerNetwork implements Model, AutoCloseable {
  private final MultiLayerConfiguration conf;
  private org.ndrt.nn.MultiLayerNetwork net;
  private int[] ndrtIndex;
  private final List<TrainingListener> listeners = new ArrayList<>();
  private final java.util.Map<Integer, Layer> vaeLayers = new java.util.HashMap<>();  // getLayer's, one per index
  private Model pretraining;  // the layer listeners see while it pretrains (as in Deeplearning4j)
  private INDArray input;   // setInput / feedForward's, as Deeplearning4j keeps it
  private INDArray labels;

  public MultiLayerNetwork(MultiLayerConfiguration conf) {
    this.conf = conf;
  }

  /** ndrt: an adapter over an org.ndrt.nn network made from {@code conf} (ModelSerializer's restore). */
  public MultiLayerNetwork(MultiLayerConfiguration conf, org.ndrt.nn.MultiLayerNetwork net) {
    this.conf = conf;
    this.ndrtIndex = Translator.translate(conf).ndrtIndex;
    this.net = net;
  }

  /** Builds the network: its org.ndrt.nn configuration and parameters (from the seed). */
  public void init() {
    if (net != null) {
      return;
    }
    Translator.Result r = Translator.translate(conf);
    ndrtIndex = r.ndrtIndex;
    net = new org.ndrt.nn.MultiLayerNetwork(r.conf);
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

  private org.ndrt.nn.MultiLayerNetwork net() {
    if (net == null) {
      throw new IllegalStateException("the network is not initialised: call init() first");
    }
    return net;
  }

  /** ndrt: the org.ndrt.nn network this adapts. */
  public org.ndrt.nn.MultiLayerNetwork ndrtNetwork() {
    return net();
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

  /** Each Deeplearning4j listener as an org.ndrt.nn listener that calls it with this adapter. */
  private void bridgeListeners() {
    net.setListeners(Listeners.bridge(listeners, this, () -> pretraining != null ? pretraining : this));
  }

  // ------------------------------------------------------------------------------- training

  /**
   * Layer-wise unsupervised training (org.ndrt.nn.Pretraining): each layer that pretrains (a
   * VariationalAutoencoder), first to last, one epoch each; other layers are skipped.
   */
  public void pretrain(DataSetIterator it) {
    pretrain(it, 1);
  }

  public void pretrain(DataSetIterator it, int epochs) {
    for (int i = 0; i < getnLayers(); ++i) {
      pretrainLayer(i, it, epochs);
    }
  }

  public void pretrainLayer(int layerIdx, DataSetIterator it) {
    pretrainLayer(layerIdx, it, 1);
  }

  /** Layer {@code layerIdx} alone, its input through the layers before it (inference mode); nothing for other layers. */
  public void pretrainLayer(int layerIdx, DataSetIterator it, int epochs) {
    Layer l = getLayer(layerIdx);
    pretraining = l instanceof Model ? (Model) l : null;
    try {
      org.ndrt.nn.Pretraining.pretrainLayer(net(), ndrtIndex[layerIdx], Tensors.iterator(it), epochs);
    } finally {
      pretraining = null;
    }
  }

  /** One pretraining step of layer {@code layerIdx} on these features (the network's input). */
  public void pretrainLayer(int layerIdx, INDArray features) {
    Layer l = getLayer(layerIdx);
    pretraining = l instanceof Model ? (Model) l : null;
    try (Tensor f = Tensors.in(features)) {
      org.ndrt.nn.Pretraining.pretrainStep(net(), ndrtIndex[layerIdx], f);
    } finally {
      pretraining = null;
    }
  }

  /** One epoch over the iterator (reset first when it is used up). */
  public void fit(DataSetIterator it) {
    net().fit(Tensors.iterator(it));
  }

  public void fit(DataSetIterator it, int epochs) {
    net().fit(Tensors.iterator(it), epochs);
  }

  /** One iteration on one minibatch. */
  public void fit(DataSet ds) {
    try (org.ndrt.data.DataSet d = Tensors.dataSet(ds)) {
      net().fit(d);
    }
  }

  public void fit(INDArray features, INDArray labels) {
    fit(features, labels, null, null);
  }

  public void fit(INDArray features, INDArray labels, INDArray featuresMask, INDArray labelsMask) {
    try (org.ndrt.data.DataSet d = new org.ndrt.data.DataSet(Tensors.in(features), Tensors.in(labels),
        Tensors.in(featuresMask), Tensors.in(labelsMask))) {
      net().fit(d);
    }
  }

  // ------------------------------------------------------------------------------ inference

  public INDArray output(INDArray input) {
    return output(input, false);
  }

  public INDArray output(INDArray input, boolean train) {
    return output(input, train, null, null);
  }

  public INDArray output(INDArray input, boolean train, INDArray featuresMask, INDArray labelsMask) {
    try (Tensor f = Tensors.in(input); Tensor fm = Tensors.in(featuresMask); Tensor lm = Tensors.in(labelsMask)) {
      return Tensors.out(net().output(f, train, fm, lm));
    }
  }

  /** The outputs of every minibatch, stacked. */
  public INDArray output(DataSetIterator it) {
    List<INDArray> out = new ArrayList<>();
    it.reset();
    while (it.hasNext()) {
      DataSet ds = it.next();
      out.add(output(ds.getFeatures(), false, ds.getFeaturesMaskArray(), ds.getLabelsMaskArray()));
    }
    return Nd4j.vstack(out);
  }

  /** The index of the largest output per example. */
  public int[] predict(INDArray input) {
    return output(input).argMax(1).toIntVector();
  }

  /** Every layer's activations for {@code input}, in inference mode: see {@link #feedForwardToLayer(int, INDArray, boolean)}. */
  public List<INDArray> feedForward(INDArray input) {
    return feedForward(input, false);
  }

  public List<INDArray> feedForward(INDArray input, boolean train) {
    return feedForwardToLayer(getnLayers() - 1, input, train);
  }

  /** {@link #feedForward(INDArray, boolean)} of the input set by {@link #setInput}. */
  public List<INDArray> feedForward(boolean train) {
    return feedForward(requireInput(), train);
  }

  public List<INDArray> feedForward() {
    return feedForward(false);
  }

  public List<INDArray> feedForwardToLayer(int layerNum, INDArray input) {
    return feedForwardToLayer(layerNum, input, false);
  }

  public List<INDArray> feedForwardToLayer(int layerNum, boolean train) {
    return feedForwardToLayer(layerNum, requireInput(), train);
  }

  /**
   * As Deeplearning4j's: the input (the caller's array, which becomes the network's input), then the
   * activations of layers 0 to {@code layerNum} (new arrays; org.ndrt.nn's feedForward computes them).
   */
  public List<INDArray> feedForwardToLayer(int layerNum, INDArray input, boolean train) {
    if (layerNum < 0 || layerNum >= getnLayers()) {
      throw new IllegalArgumentException("feedForwardToLayer: layer " + layerNum + " is not in 0.." + (getnLayers() - 1));
    }
    this.input = input;
    List<Tensor> acts;
    try (Tensor f = Tensors.in(input)) {
      acts = net().feedForward(f, train, ndrtIndex[layerNum]);
    }
    List<INDArray> out = new ArrayList<>();
    out.add(input);
    boolean[] kept = new boolean[acts.size()];
    for (int i = 0; i <= layerNum; ++i) {
      kept[ndrtIndex[i]] = true;
      out.add(Tensors.out(acts.get(ndrtIndex[i])));
    }
    for (int k = 0; k < kept.length; ++k) {
      if (!kept[k]) {
        acts.get(k).close();  // a dropout layer the translation inserted
      }
    }
    return out;
  }

  // ------------------------------------------------------------------ input, labels, gradients

  public void setInput(INDArray input) {
    this.input = input;
  }

  public INDArray getInput() {
    return input;
  }

  public void setLabels(INDArray labels) {
    this.labels = labels;
  }

  public INDArray getLabels() {
    return labels;
  }

  private INDArray requireInput() {
    if (input == null) {
      throw new IllegalStateException("no input: call setInput(..) first");
    }
    return input;
  }

  /**
   * Forward and backward (training mode) on the input and labels set by {@link #setInput} / {@link
   * #setLabels}, without an update; {@link #score()} is then their score (org.ndrt.nn computes both).
   */
  public void computeGradientAndScore() {
    if (labels == null) {
      throw new IllegalStateException("no labels: call setLabels(..) first");
    }
    try (org.ndrt.data.DataSet d = new org.ndrt.data.DataSet(Tensors.in(requireInput()), Tensors.in(labels), null, null)) {
      net().computeGradientAndScore(d);
    }
  }

  public INDArray rnnTimeStep(INDArray input) {
    try (Tensor t = Tensors.in(input)) {
      return Tensors.out(net().rnnTimeStep(t));
    }
  }

  public void rnnClearPreviousState() {
    net().rnnClearPreviousState();
  }

  /** The score (mean loss) of the last minibatch fitted. */
  @Override
  public double score() {
    return net == null ? Double.NaN : net.score();
  }

  /** The score of one minibatch in inference mode. */
  public double score(DataSet ds) {
    return score(ds, false);
  }

  public double score(DataSet ds, boolean training) {
    if (training) {
      throw new UnsupportedOperationException("MultiLayerNetwork.score(ds, true): org.ndrt.nn scores in inference mode");
    }
    try (org.ndrt.data.DataSet d = Tensors.dataSet(ds)) {
      return net().score(d);
    }
  }

  // ----------------------------------------------------------------------------- evaluation

  @SuppressWarnings("unchecked")
  public <T extends Evaluation> T evaluate(DataSetIterator it) {
    return (T) doEvaluation(it, new Evaluation())[0];
  }

  @SuppressWarnings("unchecked")
  public <T extends Evaluation> T evaluate(DataSetIterator it, List<String> labels) {
    return (T) doEvaluation(it, new Evaluation(labels))[0];
  }

  @SuppressWarnings("unchecked")
  public <T extends RegressionEvaluation> T evaluateRegression(DataSetIterator it) {
    return (T) doEvaluation(it, new RegressionEvaluation())[0];
  }

  /** Each evaluation over a whole pass of the iterator (reset first), from the network's outputs per minibatch. */
  @SafeVarargs
  @SuppressWarnings("varargs")
  public final <T extends IEvaluation<?>> T[] doEvaluation(DataSetIterator it, T... evaluations) {
    if (it.resetSupported()) {
      it.reset();
    }
    while (it.hasNext()) {
      DataSet ds = it.next();
      INDArray out = output(ds.getFeatures(), false, ds.getFeaturesMaskArray(), ds.getLabelsMaskArray());
      for (T e : evaluations) {
        e.eval(ds.getLabels(), out, ds.getLabelsMaskArray());
      }
    }
    return evaluations;
  }

  // ---------------------------------------------------------------------------------- state

  /** The parameters, flat: a view of the network's own (writing it changes the network, as in Deeplearning4j). */
  @Override
  public INDArray params() {
    return Tensors.out(net().params().share());
  }

  /** Any shape of numParams() elements: Deeplearning4j's params() are a [1, n] row. */
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

  public MultiLayerConfiguration getLayerWiseConfigurations() {
    return conf;
  }

  public int getnLayers() {
    return conf.getConfs().size();
  }

  /** Layer i: Deeplearning4j's VariationalAutoencoder layer for a VAE (after init), else its configuration and index. */
  public Layer getLayer(int i) {
    NeuralNetConfiguration c = conf.getConf(i);
    org.ndrt.nn.layers.VaeImpl vae = net == null ? null : org.ndrt.nn.Pretraining.variationalAutoencoder(net, ndrtIndex[i]);
    if (vae != null) {
      return vaeLayers.computeIfAbsent(i, k -> new org.deeplearning4j.nn.layers.variational.VariationalAutoencoder(c, k, vae));
    }
    return LayerView.of(c, i, () -> net().numParams(ndrtIndex[i]));
  }

  public Layer[] getLayers() {
    Layer[] out = new Layer[getnLayers()];
    for (int i = 0; i < out.length; ++i) {
      out[i] = getLayer(i);
    }
    return out;
  }

  public int getEpochCount() {
    return net().getEpochCount();
  }

  public long getIterationCount() {
    return net().getIterationCount();
  }

  /** A table of the layers: index, name, type, nIn, nOut, and the network's parameter count. */
  public String summary() {
    StringBuilder sb = new StringBuilder(String.format("%-4s %-16s %-24s %8s %8s%n", "#", "name", "type", "nIn", "nOut"));
    for (int i = 0; i < getnLayers(); ++i) {
      org.deeplearning4j.nn.conf.layers.Layer l = conf.getConf(i).getLayer();
      String nIn = "-";
      String nOut = "-";
      if (net != null) {
        org.ndrt.nn.conf.layers.Layer n = net.getConfiguration().layers().get(ndrtIndex[i]);
        nIn = Long.toString(n.nIn());
        nOut = Long.toString(n.nOut());
      } else if (l instanceof FeedForwardLayer) {
        nIn = Long.toString(((FeedForwardLayer) l).getNIn());
        nOut = Long.toString(((FeedForwardLayer) l).getNOut());
      }
      sb.append(String.format("%-4d %-16s %-24s %8s %8s%n", i, l.getLayerName() == null ? "layer" + i : l.getLayerName(),
          l.getClass().getSimpleName(), nIn, nOut));
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

  public static MultiLayerNetwork load(File f, boolean loadUpdater) throws IOException {
    return ModelSerializer.restoreMultiLayerNetwork(f, loadUpdater);
  }

  @Override
  public MultiLayerNetwork clone() {
    MultiLayerNetwork m = new MultiLayerNetwork(conf.clone(), net().clone());
    m.listeners.addAll(listeners);
    m.bridgeListeners();
    return m;
  }

  @Override
  public void close() {
    if (net != null) {
      net.close();
    }
  }
}
