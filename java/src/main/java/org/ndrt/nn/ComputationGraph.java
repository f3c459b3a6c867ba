package org.ndrt.nn;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.DoublePredicate;
import org.ndrt.DType;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.data.DataSet;
import org.ndrt.data.DataSetIterator;
import org.ndrt.data.MultiDataSet;
import org.ndrt.data.MultiDataSetIterator;
import org.ndrt.eval.Evaluation;
import org.ndrt.nn.conf.ComputationGraphConfiguration;
import org.ndrt.nn.conf.layers.OutputLayer;
import org.ndrt.nn.layers.LayerImpl;
import org.ndrt.nn.layers.Layers;
import org.ndrt.nn.listeners.TrainingListener;

/**
 * A network as a graph of layers and vertices, as Deeplearning4j's ComputationGraph: several
 * inputs and outputs, merges, skip connections. {@code new ComputationGraph(conf)}, {@link #init()},
 * {@link #fit(MultiDataSet)} (or a DataSet / iterator for one input and one output), {@link
 * #output}, {@link #outputSingle}, {@link #evaluate}, {@link #save} / {@link #load}.
 *
 * <p>Training is MultiLayerNetwork's: the same flat parameter, gradient and updater vectors
 * (FlatParameters, in the order of the configuration's layers()), regularisation, gradient
 * normalisation and mixed precision. The score is the sum of the output layers' losses (each as
 * its layer computes it: a minibatch mean unless miniBatch(false)) plus the regularisation terms.
 *
 * <p>Not thread-safe: one thread uses a network at a time. The tensors live on the device of the
 * thread that called {@link #init()}.
 */
public final class ComputationGraph extends Model {
  private final ComputationGraphConfiguration conf;
  private final DType dtype;
  private GraphRunner runner;
  private LayerImpl[] layers;

  public ComputationGraph(ComputationGraphConfiguration conf) {
    if (conf == null) {
      throw new IllegalArgumentException("ComputationGraph: the configuration must not be null");
    }
    this.conf = conf;
    this.dtype = conf.dataType();
  }

  /** Allocates and initialises the parameters (seeded) and the updater state. */
  @Override
  public void init() {
    init(true);
  }

  /** init(); without {@code randomize} the parameters stay zero (load and clone fill them). */
  @Override
  void init(boolean randomize) {
    if (closed) {
      throw new IllegalStateException("ComputationGraph: closed");
    }
    if (flat != null) {
      return;
    }
    try {
      runner = new GraphRunner(conf, dtype);
      layers = runner.layers();
      flat = new FlatParameters(conf, layers, randomize, owned);
    } catch (RuntimeException e) {
      release();
      throw e;
    }
  }

  public ComputationGraphConfiguration getConfiguration() {
    return conf;
  }

  @Override
  public ComputationGraphConfiguration configuration() {
    return conf;
  }

  @Override
  LayerImpl[] layers() {
    ensureInit();
    return layers;
  }

  // ------------------------------------------------------------------------------------ training

  /** One iteration (forward, backward, update) on one minibatch; the arrays stay the caller's. */
  public void fit(MultiDataSet mds) {
    ensureInit();
    fit(mds.features(), mds.labels(), mds.featuresMasks(), mds.labelsMasks());
  }

  /** {@link #fit(MultiDataSet)} for a graph with one input and one output. */
  @Override
  public void fit(DataSet ds) {
    ensureInit();
    fit(new Tensor[] {ds.features()}, new Tensor[] {ds.labels()}, new Tensor[] {ds.featuresMask()},
        new Tensor[] {ds.labelsMask()});
  }

  /** One iteration on {@code features} (one per input) and {@code labels} (one per output); masks may be null. */
  public void fit(Tensor[] features, Tensor[] labels, Tensor[] featuresMasks, Tensor[] labelsMasks) {
    ensureInit();
    score = backprop(features, labels, featuresMasks, labelsMasks);
    flat.step(layers);
    ++iteration;
    int n = (int) features[0].shape()[0];
    for (TrainingListener l : listeners) {
      l.iterationDone(this, iteration, epoch, score, n);
    }
  }

  /** Forward, loss and backward in training mode: the gradients in the flat vector; returns the score. */
  private double backprop(Tensor[] features, Tensor[] labels, Tensor[] featuresMasks, Tensor[] labelsMasks) {
    flat.castToCompute();
    runner.setMasks(features, featuresMasks, labelsMasks);
    runner.forward(features, true);
    for (TrainingListener l : activationListeners()) {
      for (int i = 0; i < layers.length; ++i) {
        l.onForwardPass(this, i, runner.layerActivation(i));
      }
    }
    long n = conf.miniBatch() ? 1 : features[0].shape()[0];
    double sc = runner.loss(labels) * n + flat.reg.score();
    score = sc;  // what a distributed trainer's backward hook sees; fit sets the minibatch's after
    runner.backward(labels, flat.lossGradientScale(n), backwardHook);
    return sc;
  }

  /**
   * Deeplearning4j's computeGradientAndScore: forward (training mode) and backward on one minibatch
   * without an update; returns the score, which becomes {@link #score()}. Not under mixed precision.
   */
  public double computeGradientAndScore(MultiDataSet mds) {
    ensureInit();
    if (dtype != DType.F32) {
      throw new UnsupportedOperationException("computeGradientAndScore: not with dataType " + dtype + " (mixed precision)");
    }
    score = backprop(mds.features(), mds.labels(), mds.featuresMasks(), mds.labelsMasks());
    return score;
  }

  /** One epoch over the iterator (reset first when it has nothing left); closes each DataSet it takes. */
  public void fit(DataSetIterator it) {
    fitEpoch((Iterator<?>) it, null);
  }

  public void fit(DataSetIterator it, int epochs) {
    for (int e = 0; e < checkEpochs(epochs); ++e) {
      fit(it);
    }
  }

  /** One epoch over the iterator (reset first when it has nothing left); closes each MultiDataSet it takes. */
  public void fit(MultiDataSetIterator it) {
    fitEpoch((Iterator<?>) it, null);
  }

  public void fit(MultiDataSetIterator it, int epochs) {
    for (int e = 0; e < checkEpochs(epochs); ++e) {
      fit(it);
    }
  }

  private static int checkEpochs(int epochs) {
    if (epochs < 0) {
      throw new IllegalArgumentException("fit: epochs must be >= 0, got " + epochs);
    }
    return epochs;
  }

  /**
   * One epoch over a DataSetIterator or MultiDataSetIterator that may end early: after each
   * minibatch {@code stopAfter} (may be null) gets its score, and true ends the epoch there.
   *
   * @return true when {@code stopAfter} ended the epoch early
   */
  public boolean fitEpoch(Iterator<?> it, DoublePredicate stopAfter) {
    if (it instanceof DataSetIterator) {
      return fitEpoch((DataSetIterator) it, stopAfter);
    }
    if (!(it instanceof MultiDataSetIterator)) {
      throw new IllegalArgumentException("fitEpoch: need a DataSetIterator or a MultiDataSetIterator, got " + it);
    }
    ensureInit();
    MultiDataSetIterator m = (MultiDataSetIterator) it;
    if (!m.hasNext()) {
      m.reset();
    }
    return runEpoch(m, -1, -1, mds -> {
      try (MultiDataSet d = mds) {
        fit(d);
      }
    }, stopAfter);
  }

  // ----------------------------------------------------------------------------------- inference

  /** Inference-mode outputs, one per graph output (new f32 tensors the caller closes). */
  public Tensor[] output(Tensor... inputs) {
    return output(false, inputs);
  }

  /** Deeplearning4j's {@code output(train, inputs...)}: {@code train} runs the layers in training mode. */
  public Tensor[] output(boolean train, Tensor... inputs) {
    return output(inputs, null, null, train);
  }

  /**
   * The outputs for {@code inputs} with features masks (one per input, null entries or null: none)
   * and labels masks (one per output: an RnnOutputLayer's outputs are 0 at masked steps).
   */
  public Tensor[] output(Tensor[] inputs, Tensor[] featuresMasks, Tensor[] labelsMasks, boolean train) {
    ensureInit();
    flat.castToCompute();
    runner.setMasks(inputs, featuresMasks, labelsMasks);
    runner.forward(inputs, train);
    return activations();
  }

  private Tensor[] activations() {
    Tensor[] out = new Tensor[runner.numOutputs()];
    try {
      for (int k = 0; k < out.length; ++k) {
        out[k] = runner.outputActivation(k);
      }
      return out;
    } catch (RuntimeException e) {
      for (Tensor t : out) {
        if (t != null) {
          t.close();
        }
      }
      throw e;
    }
  }

  /** The one output of a single-output graph (IllegalStateException otherwise). */
  public Tensor outputSingle(Tensor... inputs) {
    return outputSingle(false, inputs);
  }

  public Tensor outputSingle(boolean train, Tensor... inputs) {
    if (conf.outputs().size() != 1) {
      throw new IllegalStateException("outputSingle: the graph has " + conf.outputs().size() + " outputs "
          + conf.outputs() + "; use output(...)");
    }
    return output(train, inputs)[0];
  }

  /**
   * The outputs for the next piece of sequences from the recurrent layers' state stored by the
   * previous call (zeros at first or after {@link #rnnClearPreviousState()}), as Deeplearning4j's
   * rnnTimeStep: a sequence input [N, F] is one step (sequence outputs then [N, F']), [N, F, T] T
   * steps; the state after the last step is stored.
   */
  public Tensor[] rnnTimeStep(Tensor... inputs) {
    ensureInit();
    Tensor[] in = new Tensor[inputs.length];
    boolean single = false;
    try {
      for (int i = 0; i < inputs.length; ++i) {
        boolean step = i < conf.inputs().size() && conf.typeOf(conf.inputs().get(i)).isRecurrent() && inputs[i].rank() == 2;
        single |= step;
        in[i] = step ? stepAsSequence(inputs[i]) : inputs[i].share();
      }
      runner.setRnnState(LayerImpl.RnnState.STORED);
      Tensor[] out = output(in, null, null, false);
      if (single) {
        for (int k = 0; k < out.length; ++k) {
          if (out[k].rank() == 3 && out[k].shape()[2] == 1) {
            try (Tensor o = out[k]) {
              out[k] = o.reshape(o.shape()[0], o.shape()[1]);
            }
          }
        }
      }
      return out;
    } finally {
      if (runner != null) {
        runner.setRnnState(LayerImpl.RnnState.ZERO);
      }
      for (Tensor t : in) {
        if (t != null) {
          t.close();
        }
      }
    }
  }

  private static Tensor stepAsSequence(Tensor input) {
    long[] s = input.shape();
    if (input.isContiguous()) {
      return input.reshape(s[0], s[1], 1);
    }
    try (Tensor c = input.contiguous()) {
      return c.reshape(s[0], s[1], 1);
    }
  }

  /** Forgets the state rnnTimeStep stored: the next call starts new sequences. */
  public void rnnClearPreviousState() {
    ensureInit();
    runner.clearStoredState();
  }

  /** The score of one minibatch in inference mode, without changing the network. */
  public double score(MultiDataSet mds) {
    ensureInit();
    flat.castToCompute();
    Tensor[] f = mds.features();
    runner.setMasks(f, mds.featuresMasks(), mds.labelsMasks());
    runner.forward(f, false);
    return runner.loss(mds.labels()) * (conf.miniBatch() ? 1 : f[0].shape()[0]) + flat.reg.score();
  }

  /** {@link #score(MultiDataSet)} of a single-input, single-output DataSet. */
  @Override
  public double score(DataSet ds) {
    return score(MultiDataSet.of(ds));  // the same arrays: not closed here
  }

  /** Accuracy, precision, recall, F1 and the confusion matrix of the first output over a pass of the iterator. */
  @Override
  public Evaluation evaluate(DataSetIterator it) {
    ensureInit();
    it.reset();
    Evaluation e = newEvaluation();
    while (it.hasNext()) {
      try (DataSet ds = it.next()) {
        evaluate(e, MultiDataSet.of(ds));
      }
    }
    return e;
  }

  /** {@link #evaluate(DataSetIterator)} over MultiDataSets: the first output against the first labels. */
  public Evaluation evaluate(MultiDataSetIterator it) {
    ensureInit();
    it.reset();
    Evaluation e = newEvaluation();
    while (it.hasNext()) {
      try (MultiDataSet mds = it.next()) {
        evaluate(e, mds);
      }
    }
    return e;
  }

  private Evaluation newEvaluation() {
    if (!runner.hasLoss(0)) {
      throw new IllegalStateException("evaluate: output \"" + runner.outputName(0) + "\" is not an output layer");
    }
    return new Evaluation((int) ((OutputLayer) conf.node(runner.outputName(0)).layer).nOut());
  }

  private void evaluate(Evaluation e, MultiDataSet mds) {
    flat.castToCompute();
    Tensor[] f = mds.features();
    runner.setMasks(f, mds.featuresMasks(), mds.labelsMasks());
    runner.forward(f, false);
    LayerImpl out = runner.output(0);
    if (Layers.isSequenceOutput(out)) {
      DataSet ds = new DataSet(f[0], mds.labels(0), mds.featuresMasks()[0], mds.labelsMasks()[0]);  // views the caller's arrays
      SequenceEvaluation.evalSteps(e, ds, Layers.sequenceLogits(out));
    } else {
      e.eval(mds.labels(0), runner.outputRaw(0));
    }
  }

  // ------------------------------------------------------------------------------------ state

  /** A deep copy: configuration, parameters, updater state, counters and random streams (not the listeners). */
  @Override
  public ComputationGraph clone() {
    ensureInit();
    ComputationGraph c = new ComputationGraph(conf);
    c.init(false);
    c.copyStateFrom(this);
    return c;
  }

  /** Reads what {@link #save} wrote. */
  public static ComputationGraph load(File file) throws IOException {
    return ModelSerializer.load(file, ComputationGraph.class);
  }

  @Override
  void releaseParts() {
    if (runner != null) {
      runner.close();
    }
    runner = null;
  }
}
