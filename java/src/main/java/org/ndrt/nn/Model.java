package org.ndrt.nn;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.DoublePredicate;
import org.ndrt.Tensor;
import org.ndrt.data.DataSet;
import org.ndrt.data.DataSetIterator;
import org.ndrt.eval.Evaluation;
import org.ndrt.nn.conf.NetworkConfiguration;
import org.ndrt.nn.layers.LayerImpl;
import org.ndrt.nn.listeners.TrainingListener;

/**
 * A trainable network, whatever its shape: {@link MultiLayerNetwork} (a stack) or {@link
 * ComputationGraph} (a graph); Deeplearning4j's {@code Model}. What they share lives here once:
 * the flat parameter, gradient and updater vectors (FlatParameters), the counters, the listeners,
 * the training state saved with a model and the hooks trainers use; listeners, ParallelWrapper,
 * the distributed trainer and early stopping work on a Model.
 */
public abstract class Model implements AutoCloseable {
  final List<TrainingListener> listeners = new CopyOnWriteArrayList<>();
  final List<Tensor> owned = new ArrayList<>();  // vectors and views, closed with the network
  FlatParameters flat;
  double score = Double.NaN;
  int epoch;
  long iteration;
  boolean closed;
  TrainerSupport.BackwardHook backwardHook;  // null unless a distributed trainer is fitting

  Model() {}

  /** The configuration: the network-wide settings and the layers in parameter order. */
  public abstract NetworkConfiguration configuration();

  /** The configuration as JSON. */
  public String configurationJson() {
    return configuration().toJson();
  }

  /** Allocates and initialises the parameters (seeded) and the updater state. */
  public abstract void init();

  /** init(); without {@code randomize} the parameters stay zero (load and clone fill them). */
  abstract void init(boolean randomize);

  /** One iteration on one minibatch (a graph: one input and one output); the DataSet stays the caller's. */
  public abstract void fit(DataSet ds);

  /**
   * One epoch over the iterator (reset first when it has nothing left; each DataSet taken is closed)
   * that may end early: after each minibatch {@code stopAfter} (may be null) gets its score, and true
   * ends the epoch there (early stopping's iteration conditions). The listeners see the epoch start
   * and end either way, and the epoch count advances.
   *
   * @return true when {@code stopAfter} ended the epoch early
   */
  public boolean fitEpoch(DataSetIterator it, DoublePredicate stopAfter) {
    ensureInit();
    if (!it.hasNext()) {
      it.reset();
    }
    int batch = it.batchSize();
    long examples = it.numExamples();
    long iters = batch > 0 && examples > 0 ? (examples + batch - 1) / batch : -1;
    return runEpoch(it, iters, batch, ds -> {
      try (DataSet d = ds) {
        fit(d);
      }
    }, stopAfter);
  }

  /**
   * The epoch loop: listeners told of its start ({@code iters} minibatches of {@code batch}, -1 when
   * unknown) and end, each minibatch of {@code it} given to {@code fitAndClose}, {@code stopAfter}
   * asked after each; the epoch count advances.
   */
  final <T> boolean runEpoch(Iterator<T> it, long iters, int batch, Consumer<T> fitAndClose, DoublePredicate stopAfter) {
    for (TrainingListener l : listeners) {
      l.onEpochStart(this, epoch, iters, batch);
    }
    boolean stopped = false;
    while (!stopped && it.hasNext()) {
      fitAndClose.accept(it.next());
      stopped = stopAfter != null && stopAfter.test(score);
    }
    for (TrainingListener l : listeners) {
      l.onEpochEnd(this, epoch);
    }
    ++epoch;
    return stopped;
  }

  /** The score of one minibatch in inference mode, without changing the network. */
  public abstract double score(DataSet ds);

  /** Accuracy and the other classification metrics over a pass of the iterator (a graph: its first output). */
  public abstract Evaluation evaluate(DataSetIterator it);

  /** A deep copy: configuration, parameters, updater state, counters and random streams (not the listeners). */
  @Override
  public abstract Model clone();

  /**
   * One zip: configuration.json, params.bin and updater.bin (raw f32), state.json (the training
   * state: counters, loss scaling, the layers' random streams), so that training goes on after
   * {@link #load} bit for bit as it would have without the save.
   */
  public void save(File file) throws IOException {
    ensureInit();
    ModelSerializer.save(this, file);
  }

  /** Reads what {@link #save} wrote, a MultiLayerNetwork or a ComputationGraph as the zip holds. */
  public static Model load(File file) throws IOException {
    return ModelSerializer.loadAny(file);
  }

  /** The layers' compute side in the order of configuration().layers(). */
  abstract LayerImpl[] layers();

  void ensureInit() {
    if (closed) {
      throw new IllegalStateException(getClass().getSimpleName() + ": closed");
    }
    if (flat == null) {
      throw new IllegalStateException(getClass().getSimpleName() + ": call init() before using the network");
    }
  }

  // ------------------------------------------------------------------------------------ listeners

  public void setListeners(TrainingListener... ls) {
    listeners.clear();
    addListeners(ls);
  }

  /** The listeners of a collection (Deeplearning4j's {@code setListeners(Collection)}). */
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

  /** The listeners that asked for this minibatch's activations ({@link TrainingListener#wantsActivations}); usually none. */
  final List<TrainingListener> activationListeners() {
    List<TrainingListener> want = null;
    for (TrainingListener l : listeners) {
      if (l.wantsActivations(this)) {
        if (want == null) {
          want = new ArrayList<>(1);
        }
        want.add(l);
      }
    }
    return want == null ? List.of() : want;
  }

  // ------------------------------------------------------------------------------------ state

  /** The score of the last minibatch fitted: the loss (a graph: the summed losses) plus the regularisation terms. */
  public double score() {
    return score;
  }

  /** Epochs trained (each epoch of fit counts one), saved with the model. */
  public int getEpochCount() {
    return epoch;
  }

  /** Minibatches fitted since the network was created (skipped steps included; after ParallelWrapper: a replica's). */
  public long getIterationCount() {
    return iteration;
  }

  /** Counts one more epoch: for trainers that drive the epochs themselves (ParallelWrapper). */
  public void incrementEpochCount() {
    ++epoch;
  }

  /** Sets the iteration count: ParallelWrapper gives the network the count of the replicas it averaged. */
  public void setIterationCount(long iterations) {
    if (iterations < 0) {
      throw new IllegalArgumentException("setIterationCount: need a count >= 0, got " + iterations);
    }
    iteration = iterations;
  }

  /**
   * Updates applied so far (the iteration count less the steps skipped for overflow); the next one
   * is step count + 1 of Adam's bias correction. It belongs with {@link #updaterState()}: whoever
   * sets the state sets it too (ParallelWrapper when it averages the state).
   */
  public long getUpdaterStepCount() {
    ensureInit();
    return flat.updaterStep;
  }

  /** Sets {@link #getUpdaterStepCount()}. */
  public void setUpdaterStepCount(long steps) {
    ensureInit();
    if (steps < 0) {
      throw new IllegalArgumentException("setUpdaterStepCount: need a count >= 0, got " + steps);
    }
    flat.updaterStep = steps;
  }

  /** The current loss scale (1 without mixed precision). */
  public double lossScale() {
    return flat == null ? (isMixedPrecision() ? configuration().lossScale() : 1) : flat.scaler.scale();
  }

  /** Steps skipped because the scaled gradients overflowed (mixed precision). */
  public long skippedSteps() {
    return flat == null ? 0 : flat.scaler.skippedSteps;
  }

  public long numParams() {
    ensureInit();
    return flat.params.numel();
  }

  /**
   * The parameter count of layer {@code layer} (an index into configuration().layers()): every tensor
   * its ParamSpecs name, running statistics included, as Deeplearning4j's Layer.numParams() counts.
   */
  public long numParams(int layer) {
    ensureInit();
    LayerImpl[] ls = layers();
    if (layer < 0 || layer >= ls.length) {
      throw new IllegalArgumentException("numParams(" + layer + "): the network has " + ls.length + " layers");
    }
    long n = 0;
    for (org.ndrt.nn.layers.ParamSpec p : ls[layer].params()) {
      n += p.numel();
    }
    return n;
  }

  /** The network's own flat f32 parameter vector (layer parameters are views of it): do not close. */
  public Tensor params() {
    ensureInit();
    return flat.params;
  }

  /** Copies {@code v} (numParams() elements, f32) into the parameters. */
  public void setParams(Tensor v) {
    ensureInit();
    FlatParameters.copyInto(v, flat.params, "setParams");
  }

  /** The network's own flat f32 updater state (momentum etc.; 0 elements for SGD): do not close. */
  public Tensor updaterState() {
    ensureInit();
    return flat.state;
  }

  public void setUpdaterState(Tensor v) {
    ensureInit();
    FlatParameters.copyInto(v, flat.state, "setUpdaterState");
  }

  /** TrainerSupport: the hook fit calls during backward (null: none). */
  void setBackwardHook(TrainerSupport.BackwardHook hook) {
    ensureInit();
    backwardHook = hook;
  }

  /** TrainerSupport: the flat f32 gradient vector (trained parameters only). */
  Tensor gradients() {
    ensureInit();
    return flat.grads;
  }

  /** TrainerSupport: per layer, {offset, length} pairs of its gradients in {@link #gradients()}. */
  long[][] gradientRanges() {
    ensureInit();
    long[][] c = new long[flat.gradRanges.length][];
    for (int i = 0; i < c.length; ++i) {
      c[i] = flat.gradRanges[i].clone();
    }
    return c;
  }

  /** Whether the network computes in f16/bf16 (mixed precision). */
  boolean isMixedPrecision() {
    return configuration().dataType() != org.ndrt.DType.F32;
  }

  /** The training state outside the tensors: counters, loss scaling, the layers' random streams. */
  ModelSerializer.Saved trainingState() {
    ModelSerializer.Saved s = flat.trainingState(layers());
    s.epoch = epoch;
    s.iteration = iteration;
    return s;
  }

  /** Sets what {@link #trainingState()} gives; without random offsets (an old zip) every stream stays at 0. */
  void restore(ModelSerializer.Saved s) {
    epoch = (int) Math.min(s.epoch, Integer.MAX_VALUE);
    iteration = s.iteration;
    flat.restore(s, layers());
  }

  /** Copies parameters, updater state and training state of {@code from} (same configuration) into this one. */
  void copyStateFrom(Model from) {
    org.ndrt.Ops.copy(from.flat.params, flat.params);
    org.ndrt.Ops.copy(from.flat.state, flat.state);
    restore(from.trainingState());
    score = from.score;
  }

  /** Releases every tensor of the network; it cannot be used afterwards. */
  @Override
  public void close() {
    if (!closed) {
      closed = true;
      release();
    }
  }

  /** Closes the network's own parts (layers, runner), then the shared vectors. */
  abstract void releaseParts();

  void release() {
    releaseParts();
    if (flat != null) {
      flat.scaler.close();  // the object stays: lossScale() and skippedSteps() still answer
    }
    for (Tensor t : owned) {
      t.close();
    }
    owned.clear();
  }
}
