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
public final class ComputationGraph implements Model {
  private final ComputationGraphConfiguration conf;
  private final DType dtype;
  private final List<TrainingListener> listeners = new CopyOnWriteArrayList<>();
  private final List<Tensor> owned = new ArrayList<>();
  private GraphRunner runner;
  private LayerImpl[] layers;
  private FlatParameters flat;
  private double score = Double.NaN;
  private int epoch;
  private long iteration;
  private boolean closed;

  public ComputationGraph(ComputationGraphConfiguration conf) {
    if (conf == null) {
      throw new IllegalArgumentException("ComputationGraph: the configuration must not be null");
    }
    this.conf = conf;
    this.dtype = conf.dataType();
  }

  /** Allocates and initialises the parameters (seeded) and the updater state. */
  public void init() {
    init(true);
  }

  /** init(); without {@code randomize} the parameters stay zero (load and clone fill them). */
  void init(boolean randomize) {
    if (closed) {
      throw new IllegalStateException("ComputationGraph: closed");
    }
    if (runner != null) {
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

  private void ensureInit() {
    if (closed) {
      throw new IllegalStateException("ComputationGraph: closed");
    }
    if (runner == null) {
      throw new IllegalStateException("ComputationGraph: call init() before using the network");
    }
  }

  public ComputationGraphConfiguration getConfiguration() {
    return conf;
  }

  @Override
  public String configurationJson() {
    return conf.toJson();
  }

  public void setListeners(TrainingListener... ls) {
    listeners.clear();
    addListeners(ls);
  }

  public void setListeners(Collection<? extends TrainingListener> ls) {
    if (ls == null) {
      throw new IllegalArgumentException("listeners must not be null");
    }
    setListeners(ls.toArray(new TrainingListener[0]));
  }

  public void addListeners(TrainingListener... ls) {
    for (TrainingListener l : ls) {
      if (l == null) {
        throw new IllegalArgumentException("listener must not be null");
      }
      listeners.add(l);
    }
  }

  public List<TrainingListener> getListeners() {
    return listeners;
  }

  // ------------------------------------------------------------------------------------ training

  /** One iteration (forward, backward, update) on one minibatch; the arrays stay the caller's. */
  public void fit(MultiDataSet mds) {
    ensureInit();
    fit(mds.features(), mds.labels(), mds.featuresMasks(), mds.labelsMasks());
  }

  /** {@link #fit(MultiDataSet)} for a graph with one input and one output. */
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
    long n = conf.miniBatch() ? 1 : features[0].shape()[0];
    double sc = runner.loss(labels) * n + flat.reg.score();
    runner.backward(labels, flat.lossGradientScale(n));
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
    fitEpoch(it, null);
  }

  public void fit(DataSetIterator it, int epochs) {
    for (int e = 0; e < checkEpochs(epochs); ++e) {
      fit(it);
    }
  }

  /** One epoch over the iterator (reset first when it has nothing left); closes each MultiDataSet it takes. */
  public void fit(MultiDataSetIterator it) {
    fitEpoch(it, null);
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
    ensureInit();
    boolean multi = it instanceof MultiDataSetIterator;
    if (!multi && !(it instanceof DataSetIterator)) {
      throw new IllegalArgumentException("fitEpoch: need a DataSetIterator or a MultiDataSetIterator, got " + it);
    }
    if (!it.hasNext()) {
      if (multi) {
        ((MultiDataSetIterator) it).reset();
      } else {
        ((DataSetIterator) it).reset();
      }
    }
    long iters = -1;
    int batch = -1;
    if (!multi) {
      DataSetIterator d = (DataSetIterator) it;
      batch = d.batchSize();
      iters = batch > 0 && d.numExamples() > 0 ? (d.numExamples() + batch - 1) / batch : -1;
    }
    for (TrainingListener l : listeners) {
      l.onEpochStart(this, epoch, iters, batch);
    }
    boolean stopped = false;
    while (!stopped && it.hasNext()) {
      Object next = it.next();
      if (multi) {
        try (MultiDataSet m = (MultiDataSet) next) {
          fit(m);
        }
      } else {
        try (DataSet d = (DataSet) next) {
          fit(d);
        }
      }
      stopped = stopAfter != null && stopAfter.test(score);
    }
    for (TrainingListener l : listeners) {
      l.onEpochEnd(this, epoch);
    }
    ++epoch;
    return stopped;
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

  /** The score of the last minibatch fitted: the summed losses plus the regularisation terms. */
  @Override
  public double score() {
    return score;
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
  public double score(DataSet ds) {
    return score(MultiDataSet.of(ds));  // the same arrays: not closed here
  }

  /** Accuracy, precision, recall, F1 and the confusion matrix of the first output over a pass of the iterator. */
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

  @Override
  public int getEpochCount() {
    return epoch;
  }

  @Override
  public long getIterationCount() {
    return iteration;
  }

  /** Counts one more epoch (for trainers that drive the epochs themselves). */
  public void incrementEpochCount() {
    ++epoch;
  }

  public void setIterationCount(long iterations) {
    if (iterations < 0) {
      throw new IllegalArgumentException("setIterationCount: need a count >= 0, got " + iterations);
    }
    iteration = iterations;
  }

  /** Updates applied so far (Adam's bias correction counts them); belongs with {@link #updaterState()}. */
  public long getUpdaterStepCount() {
    return flat.updaterStep;
  }

  public void setUpdaterStepCount(long steps) {
    if (steps < 0) {
      throw new IllegalArgumentException("setUpdaterStepCount: need a count >= 0, got " + steps);
    }
    flat.updaterStep = steps;
  }

  @Override
  public long numParams() {
    ensureInit();
    return flat.params.numel();
  }

  /** The network's own flat f32 parameter vector (layer parameters are views of it): do not close. */
  @Override
  public Tensor params() {
    ensureInit();
    return flat.params;
  }

  /** Copies {@code v} (numParams() elements, f32) into the parameters. */
  public void setParams(Tensor v) {
    ensureInit();
    FlatParameters.copyInto(v, flat.params, "setParams");
  }

  /** The network's own flat f32 updater state: do not close. */
  @Override
  public Tensor updaterState() {
    ensureInit();
    return flat.state;
  }

  public void setUpdaterState(Tensor v) {
    ensureInit();
    FlatParameters.copyInto(v, flat.state, "setUpdaterState");
  }

  /** The flat f32 gradient vector of the last backward pass (trained parameters only): do not close. */
  Tensor gradients() {
    ensureInit();
    return flat.grads;
  }

  /** A deep copy: configuration, parameters, updater state, counters and random streams (not the listeners). */
  @Override
  public ComputationGraph clone() {
    ensureInit();
    ComputationGraph c = new ComputationGraph(conf);
    c.init(false);
    Ops.copy(flat.params, c.flat.params);
    Ops.copy(flat.state, c.flat.state);
    c.restore(trainingState());
    c.score = score;
    return c;
  }

  ModelSerializer.Saved trainingState() {
    ModelSerializer.Saved s = flat.trainingState(layers);
    s.epoch = epoch;
    s.iteration = iteration;
    return s;
  }

  void restore(ModelSerializer.Saved s) {
    epoch = (int) Math.min(s.epoch, Integer.MAX_VALUE);
    iteration = s.iteration;
    flat.restore(s, layers);
  }

  /**
   * One zip as MultiLayerNetwork's (configuration.json, params.bin, updater.bin, state.json): after
   * {@link #load} outputs and further training are bit for bit the saved network's.
   */
  public void save(File file) throws IOException {
    ensureInit();
    ModelSerializer.save(this, file);
  }

  /** Reads what {@link #save} wrote. */
  public static ComputationGraph load(File file) throws IOException {
    return ModelSerializer.loadGraph(file);
  }

  /** Releases every tensor of the network; it cannot be used afterwards. */
  @Override
  public void close() {
    if (!closed) {
      closed = true;
      release();
    }
  }

  private void release() {
    if (runner != null) {
      runner.close();
    }
    if (flat != null) {
      flat.scaler.close();
    }
    for (Tensor t : owned) {
      t.close();
    }
    owned.clear();
    runner = null;
  }
}
