package org.deeplearning4j.nn.layers.variational;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.deeplearning4j.optimize.api.TrainingListener;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.dl4j.Tensors;
import org.ndrt.nn.layers.VaeImpl;

/**
 * Deeplearning4j's variational autoencoder layer (what MultiLayerNetwork.getLayer(i) gives for a
 * VariationalAutoencoder) over org.ndrt.nn's VaeImpl, which computes everything: q(z|x)'s mean
 * (activate, preOutput), reconstruction (log) probabilities, generation from z. Arrays are the
 * layer's inputs (the activations of the layer before it; for layer 0, the features). During
 * pretraining, listeners get this layer as their model (as in Deeplearning4j), with its score and
 * pretraining iteration count.
 */
public class VariationalAutoencoder implements Layer, Model {
  private final NeuralNetConfiguration conf;
  private final int index;
  private final VaeImpl vae;
  private INDArray input;

  /** ndrt: the layer {@code index} of a drop-in network, over its org.ndrt.nn layer. */
  public VariationalAutoencoder(NeuralNetConfiguration conf, int index, VaeImpl vae) {
    this.conf = conf;
    this.index = index;
    this.vae = vae;
  }

  @Override
  public NeuralNetConfiguration conf() {
    return conf;
  }

  @Override
  public int getIndex() {
    return index;
  }

  @Override
  public Layer.Type type() {
    return Layer.Type.FEED_FORWARD;
  }

  public boolean isPretrainLayer() {
    return true;
  }

  // ------------------------------------------------------------------------------ q(z|x)

  public void setInput(INDArray input, LayerWorkspaceMgr mgr) {
    this.input = input;
  }

  public INDArray input() {
    return input;
  }

  private INDArray requireInput() {
    if (input == null) {
      throw new IllegalStateException("VariationalAutoencoder: no input set (call setInput(input, workspaceMgr) first)");
    }
    return input;
  }

  /** The mean of q(z|x) (pzxActivationFunction applied), [N, nOut]. */
  public INDArray activate(INDArray input, boolean training, LayerWorkspaceMgr mgr) {
    setInput(input, mgr);
    return activate(training, mgr);
  }

  public INDArray activate(boolean training, LayerWorkspaceMgr mgr) {
    try (Tensor x = Tensors.in(requireInput())) {
      return Tensors.out(vae.encodeMean(x, training));
    }
  }

  /** The mean of q(z|x) before pzxActivationFunction (the same for IDENTITY, the usual choice). */
  public INDArray preOutput(boolean training, LayerWorkspaceMgr mgr) {
    try (Tensor x = Tensors.in(requireInput())) {
      return Tensors.out(vae.meanPreOutput(x));
    }
  }

  // ---------------------------------------------------------------------- p(x|z) and scores

  /** log p(x|z) per example, averaged over numSamples draws of z from q(z|x): [N, 1] (An and Cho). */
  public INDArray reconstructionLogProbability(INDArray data, int numSamples) {
    try (Tensor x = Tensors.in(data)) {
      return Tensors.out(vae.reconstructionLogProbability(x, numSamples));
    }
  }

  /** exp of {@link #reconstructionLogProbability}. */
  public INDArray reconstructionProbability(INDArray data, int numSamples) {
    try (Tensor x = Tensors.in(data); Tensor lp = vae.reconstructionLogProbability(x, numSamples)) {
      return Tensors.out(Ops.exp(lp));
    }
  }

  /** The reconstruction distribution's mean given z [N, nOut] (Bernoulli: the probabilities). */
  public INDArray generateAtMeanGivenZ(INDArray latentSpaceValues) {
    try (Tensor z = Tensors.in(latentSpaceValues)) {
      return Tensors.out(vae.generateAtMean(z));
    }
  }

  /** A draw from the reconstruction distribution given z [N, nOut]. */
  public INDArray generateRandomGivenZ(INDArray latentSpaceValues, LayerWorkspaceMgr mgr) {
    try (Tensor z = Tensors.in(latentSpaceValues)) {
      return Tensors.out(vae.generateRandom(z));
    }
  }

  /** False: org.ndrt.nn's VAE has reconstruction distributions only (a LossFunctionWrapper is refused). */
  public boolean hasLossFunction() {
    return false;
  }

  public INDArray reconstructionError(INDArray data) {
    throw new IllegalStateException("Cannot use reconstructionError method unless the variational autoencoder is "
        + "configured with a standard loss function (via LossFunctionWrapper); use reconstructionProbability");
  }

  // ---------------------------------------------------------------------------- the model

  /** The score of the last pretraining step: the negative ELBO per example (without l2). */
  @Override
  public double score() {
    return vae.pretrainScore();
  }

  /** Pretraining iterations of this layer. */
  public int getIterationCount() {
    return (int) Math.min(Integer.MAX_VALUE, vae.pretrainSteps());
  }

  /** The parameters by Deeplearning4j's names: views of the network's (writing them changes the network). */
  public Map<String, INDArray> paramTable() {
    Map<String, INDArray> m = new LinkedHashMap<>();
    for (Map.Entry<String, Tensor> e : vae.paramTable().entrySet()) {
      m.put(e.getKey(), Tensors.out(e.getValue().share()));
    }
    return m;
  }

  public INDArray getParam(String name) {
    Tensor t = vae.paramTable().get(name);
    if (t == null) {
      throw new IllegalArgumentException("VariationalAutoencoder: no parameter \"" + name + "\" (it has "
          + vae.paramTable().keySet() + ")");
    }
    return Tensors.out(t.share());
  }

  /** The parameters flattened in paramTable order, as a row [1, numParams] (a copy: the network lays them out its own way). */
  @Override
  public INDArray params() {
    List<INDArray> rows = new ArrayList<>();
    for (INDArray a : paramTable().values()) {
      rows.add(a.reshape(1, a.length()));
    }
    return Nd4j.hstack(rows);
  }

  @Override
  public long numParams() {
    long n = 0;
    for (Tensor t : vae.paramTable().values()) {
      n += t.numel();
    }
    return n;
  }

  public long numParams(boolean backwards) {
    return numParams();
  }

  private static UnsupportedOperationException layerListeners() {
    return new UnsupportedOperationException("VariationalAutoencoder.setListeners: ndrt's layers take their listeners "
        + "from the network (MultiLayerNetwork.setListeners; they see this layer as the model while it pretrains)");
  }

  @Override
  public void setListeners(TrainingListener... listeners) {
    throw layerListeners();
  }

  @Override
  public void setListeners(Collection<TrainingListener> listeners) {
    throw layerListeners();
  }

  @Override
  public void addListeners(TrainingListener... listeners) {
    throw layerListeners();
  }

  /** Nothing to release: the network owns the layer. */
  @Override
  public void close() {}
}
