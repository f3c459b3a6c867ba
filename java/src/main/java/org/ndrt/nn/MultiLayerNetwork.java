package org.ndrt.nn;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.DoublePredicate;
import org.ndrt.DType;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.data.DataSet;
import org.ndrt.data.DataSetIterator;
import org.ndrt.eval.Evaluation;
import org.ndrt.nn.conf.MultiLayerConfiguration;
import org.ndrt.nn.conf.WeightInit;
import org.ndrt.nn.layers.LayerImpl;
import org.ndrt.nn.layers.Layers;
import org.ndrt.nn.layers.ParamSpec;
import org.ndrt.nn.listeners.TrainingListener;
import org.ndrt.nn.updater.Adam;
import org.ndrt.nn.updater.Updater;

/**
 * A stack of layers trained by backpropagation, as Deeplearning4j's MultiLayerNetwork:
 * {@code new MultiLayerNetwork(conf)}, {@link #init()}, {@link #fit(DataSetIterator, int)},
 * {@link #output}, {@link #evaluate}, {@link #save} / {@link #load}.
 *
 * <p>Memory: every parameter lives in one flat f32 vector (layout: all weights, then the trained
 * parameters without L2, then non-trained state such as batch-norm running statistics), the
 * gradients and the updater state in flat vectors of their own, so the updater runs as two fused
 * ops per step and ParallelWrapper averages one vector. Activations and gradients go to buffers the
 * layers reuse, so a training step allocates nothing once the batch size is steady.
 *
 * <p>Mixed precision ({@code dataType(F16|BF16)}): each step casts the f32 master weights to the
 * compute dtype, runs the layers in it, computes the loss in f32 and backpropagates loss-scaled
 * gradients; they are cast back, unscaled and checked: a step with an overflow is skipped and the
 * scale halved, and the scale doubles after 1,000 clean steps.
 *
 * <p>Not thread-safe: one thread uses a network at a time (ParallelWrapper gives each worker its
 * own replica). The tensors live on the device of the thread that called {@link #init()}.
 */
public final class MultiLayerNetwork implements AutoCloseable {
  private final MultiLayerConfiguration conf;
  private final DType dtype;
  private final boolean mixed;
  private final List<TrainingListener> listeners = new CopyOnWriteArrayList<>();
  private final List<Tensor> owned = new ArrayList<>();  // vectors and views, closed with the network
  private LayerImpl[] layers;
  private InputStage input;
  private Tensor params;   // f32 [P]: weights | other trained | state
  private Tensor grads;    // f32 [T]: the trained part
  private Tensor state;    // f32 [slots * T]
  private Tensor computeParams;  // mixed precision: compute dtype [M], M = the parameters that compute in it
  private Tensor computeGrads;
  private Tensor masterM;
  private Tensor gradsM;
  private Tensor gradsT;
  private Tensor paramsA;
  private Tensor paramsB;
  private Tensor gradsA;
  private Tensor gradsB;
  private Tensor[] stateA;
  private Tensor[] stateB;
  private Tensor decayT;     // rank 0: 1 - lr * weightDecay
  private long numA;
  private long numB;
  private double score = Double.NaN;
  private int epoch;
  private long iteration;
  private long updaterStep;
  private LossScaler scaler;
  private boolean closed;
  private long[][] gradRanges;  // per layer: {offset, length, offset, length, ...} of its gradients in `grads`
  private TrainerSupport.BackwardHook backwardHook;  // null unless a distributed trainer is fitting

  public MultiLayerNetwork(MultiLayerConfiguration conf) {
    if (conf == null) {
      throw new IllegalArgumentException("MultiLayerNetwork: the configuration must not be null");
    }
    this.conf = conf;
    this.dtype = conf.dataType();
    this.mixed = dtype != DType.F32;
  }

  /** Allocates and initialises the parameters (seeded) and the updater state. */
  public void init() {
    init(true);
  }

  /** init(); without {@code randomize} the parameters stay zero (load and clone fill them). */
  void init(boolean randomize) {
    if (closed) {
      throw new IllegalStateException("MultiLayerNetwork: closed");
    }
    if (layers != null) {
      return;
    }
    int n = conf.layers().size();
    layers = new LayerImpl[n];
    try {
      for (int i = 0; i < n; ++i) {
        layers[i] = Layers.create(conf, i, dtype);
      }
      input = new InputStage(conf.inputType(), dtype);
      allocate(randomize);
    } catch (RuntimeException e) {
      release();
      throw e;
    }
  }

  /** Lays out the flat vectors, binds the layers' views and initialises the values. */
  private void allocate(boolean randomize) {
    List<ParamSpec>[] specs = specsOf();
    // Order: weights, trained parameters that compute in the compute dtype, f32-only trained, state.
    long[] sizes = new long[4];
    for (List<ParamSpec> l : specs) {
      for (ParamSpec s : l) {
        sizes[group(s)] += s.numel();
      }
    }
    numA = sizes[0];
    numB = sizes[1] + sizes[2];
    long m = sizes[0] + sizes[1];
    long t = numA + numB;
    long total = t + sizes[3];
    Updater u = conf.updater();
    params = own(Tensor.zeros(DType.F32, total));
    grads = own(Tensor.zeros(DType.F32, t));
    state = own(Tensor.zeros(DType.F32, u.stateSlots() * t));
    if (mixed) {
      computeParams = own(Tensor.zeros(dtype, m));
      computeGrads = own(Tensor.zeros(dtype, m));
      masterM = own(params.slice(0, 0, m));
      gradsM = own(grads.slice(0, 0, m));
    }
    gradsT = grads;
    paramsA = own(params.slice(0, 0, numA));
    paramsB = own(params.slice(0, numA, t));
    gradsA = own(grads.slice(0, 0, numA));
    gradsB = own(grads.slice(0, numA, t));
    stateA = new Tensor[u.stateSlots()];
    stateB = new Tensor[u.stateSlots()];
    for (int k = 0; k < stateA.length; ++k) {
      stateA[k] = own(state.slice(0, k * t, k * t + numA));
      stateB[k] = own(state.slice(0, k * t + numA, (k + 1) * t));
    }
    scaler = new LossScaler(mixed ? conf.lossScale() : 1);
    decayT = own(Tensor.scalar(1 - u.learningRate() * conf.weightDecay(), DType.F32));

    long[] next = {0, sizes[0], sizes[0] + sizes[1], t};
    long drawn = 0;  // random numbers drawn so far: each weight gets its own part of the seed's stream
    gradRanges = new long[layers.length][];
    for (int i = 0; i < layers.length; ++i) {
      List<ParamSpec> l = specs[i];
      Tensor[] pv = new Tensor[l.size()];
      Tensor[] gv = new Tensor[l.size()];
      long[] ranges = new long[0];
      for (int j = 0; j < l.size(); ++j) {
        ParamSpec s = l.get(j);
        int grp = group(s);
        long off = next[grp];
        next[grp] += s.numel();
        if (s.kind != ParamSpec.Kind.STATE) {
          ranges = Arrays.copyOf(ranges, ranges.length + 2);
          ranges[ranges.length - 2] = off;
          ranges[ranges.length - 1] = s.numel();
        }
        Tensor master = view(params, off, s.shape);
        if (randomize) {
          if (s.kind == ParamSpec.Kind.WEIGHT) {
            initWeight(master, s, conf.layers().get(i).weightInit(), drawn);
            drawn += s.numel();
          } else {
            master.fill(s.initValue);
          }
        }
        boolean compute = mixed && !s.f32Only;
        pv[j] = s.kind == ParamSpec.Kind.STATE ? master : compute ? view(computeParams, off, s.shape) : master;
        gv[j] = s.kind == ParamSpec.Kind.STATE ? null : compute ? view(computeGrads, off, s.shape) : view(grads, off, s.shape);
      }
      layers[i].bind(pv, gv);
      gradRanges[i] = ranges;
    }
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private List<ParamSpec>[] specsOf() {
    List<ParamSpec>[] specs = new List[layers.length];
    for (int i = 0; i < layers.length; ++i) {
      specs[i] = layers[i].params();
    }
    return specs;
  }

  private static int group(ParamSpec s) {
    switch (s.kind) {
      case WEIGHT: return 0;
      case BIAS: return s.f32Only ? 2 : 1;
      default: return 3;
    }
  }

  private void initWeight(Tensor w, ParamSpec s, WeightInit init, long offset) {
    double scale = init.scale(s.fanIn, s.fanOut);
    if (init == WeightInit.ZERO) {
      w.fill(0);
    } else if (init.isNormal()) {
      Ops.normal(0, scale, conf.seed(), offset, DType.F32, s.shape, w);
    } else {
      Ops.uniform(-scale, scale, conf.seed(), offset, DType.F32, s.shape, w);
    }
  }

  private Tensor view(Tensor flat, long off, long[] shape) {
    long n = 1;
    for (long d : shape) {
      n *= d;
    }
    try (Tensor s = flat.slice(0, off, off + n)) {
      return own(s.reshape(shape));
    }
  }

  private Tensor own(Tensor t) {
    owned.add(t);
    return t;
  }

  private void ensureInit() {
    if (closed) {
      throw new IllegalStateException("MultiLayerNetwork: closed");
    }
    if (layers == null) {
      throw new IllegalStateException("MultiLayerNetwork: call init() before using the network");
    }
  }

  public MultiLayerConfiguration getConfiguration() {
    return conf;
  }

  public void setListeners(TrainingListener... ls) {
    listeners.clear();
    addListeners(ls);
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

  /** One epoch over the iterator (reset first when it has nothing left); closes each DataSet it takes. */
  public void fit(DataSetIterator it) {
    fitEpoch(it, null);
  }

  /**
   * One epoch that may end early: after each minibatch {@code stopAfter} gets its score, and true
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
    for (TrainingListener l : listeners) {
      l.onEpochStart(this, epoch, iters, batch);
    }
    boolean stopped = false;
    while (!stopped && it.hasNext()) {
      try (DataSet ds = it.next()) {
        fit(ds);
      }
      stopped = stopAfter != null && stopAfter.test(score);
    }
    for (TrainingListener l : listeners) {
      l.onEpochEnd(this, epoch);
    }
    ++epoch;
    return stopped;
  }

  /** {@code epochs} epochs over the iterator. */
  public void fit(DataSetIterator it, int epochs) {
    if (epochs < 0) {
      throw new IllegalArgumentException("fit: epochs must be >= 0, got " + epochs);
    }
    for (int e = 0; e < epochs; ++e) {
      fit(it);
    }
  }

  /** One iteration (forward, backward, update) on one minibatch; the DataSet stays the caller's. */
  public void fit(DataSet ds) {
    ensureInit();
    Tensor labels = checkLabels(ds);
    castParamsToCompute();
    forward(ds.features(), true);
    LayerImpl out = layers[layers.length - 1];
    score = Layers.loss(out, labels).item();
    Tensor dy = Layers.backwardFromLoss(out, labels, scaler.scaleTensor(), layers.length > 1);
    TrainerSupport.BackwardHook hook = backwardHook;
    if (hook != null) {
      hook.layerDone(layers.length - 1);
    }
    for (int i = layers.length - 2; i >= 0; --i) {
      dy = layers[i].backward(dy, i > 0);
      if (hook != null) {
        hook.layerDone(i);
      }
    }
    if (hook != null) {
      hook.beforeUpdate();
    }
    if (!mixed || unscaleAndCheck()) {
      update();
    }
    ++iteration;
    for (TrainingListener l : listeners) {
      l.iterationDone(this, iteration, epoch, score, ds.numExamples());
    }
  }

  /** Mixed precision: the layers' compute-dtype parameters from the f32 master copy (no-op in f32). */
  private void castParamsToCompute() {
    if (mixed) {
      Ops.cast(masterM, dtype, computeParams);
    }
  }

  /** Mixed precision: gradients to f32, unscaled; false (step skipped, scale halved) on overflow. */
  private boolean unscaleAndCheck() {
    Ops.cast(computeGrads, DType.F32, gradsM);
    return scaler.unscaleAndCheck(gradsT);
  }

  private void update() {
    ++updaterStep;
    Updater u = conf.updater();
    double wd = conf.weightDecay();
    if (numA > 0) {
      if (wd > 0 && u instanceof Adam) {
        ((Adam) u).applyDecoupled(paramsA, gradsA, stateA, wd, updaterStep);
      } else {
        if (wd > 0) {
          Ops.mul(paramsA, decayT, paramsA);  // decoupled decay: w -= lr * wd * w
        }
        u.apply(paramsA, gradsA, stateA, conf.l2(), updaterStep);
      }
    }
    if (numB > 0) {
      u.apply(paramsB, gradsB, stateB, 0, updaterStep);
    }
  }

  /** The output layer's pre-activation after running every layer. */
  private Tensor forward(Tensor features, boolean training) {
    Tensor a = input.forward(features, training);
    for (LayerImpl l : layers) {
      a = l.forward(a, training);
    }
    return a;
  }

  private Tensor checkLabels(DataSet ds) {
    long[] s = ds.labels().shape();
    long nOut = conf.outputLayer().nOut();
    if (s.length != 2 || s[1] != nOut) {
      throw new IllegalArgumentException("labels have shape " + Arrays.toString(s) + " but the output layer needs [N, "
          + nOut + "] (one-hot rows for a classifier)");
    }
    if (ds.labels().dtype() != DType.F32) {
      throw new IllegalArgumentException("labels must be f32, got " + ds.labels().dtype());
    }
    return ds.labels();
  }

  // ----------------------------------------------------------------------------------- inference

  /** Inference-mode output (softmax probabilities for a softmax output layer), f32; the caller closes it. */
  public Tensor output(Tensor features) {
    ensureInit();
    castParamsToCompute();
    forward(features, false);
    return Layers.activate(layers[layers.length - 1]);
  }

  /** The score (mean loss over the minibatch, without the L2 term) of the last minibatch fitted. */
  public double score() {
    return score;
  }

  /** The score of one minibatch in inference mode, without changing the network. */
  public double score(DataSet ds) {
    ensureInit();
    Tensor labels = checkLabels(ds);
    castParamsToCompute();
    forward(ds.features(), false);
    return Layers.loss(layers[layers.length - 1], labels).item();
  }

  /** Accuracy, precision, recall, F1 and the confusion matrix over a whole pass of the iterator (reset first). */
  public Evaluation evaluate(DataSetIterator it) {
    ensureInit();
    it.reset();
    Evaluation e = new Evaluation((int) conf.outputLayer().nOut());
    castParamsToCompute();
    while (it.hasNext()) {
      try (DataSet ds = it.next()) {
        checkLabels(ds);
        e.eval(ds.labels(), forward(ds.features(), false));
      }
    }
    return e;
  }

  // ------------------------------------------------------------------------------------ state

  /** Epochs trained (each {@link #fit(DataSetIterator)} counts one), saved with the model. */
  public int getEpochCount() {
    return epoch;
  }

  /** Minibatches fitted since the network was created (skipped steps included; after ParallelWrapper: a replica's). */
  public long getIterationCount() {
    return iteration;
  }

  /**
   * Counts one more epoch: for trainers that drive the epochs themselves (ParallelWrapper trains
   * replicas and hands the averaged parameters back to this network).
   */
  public void incrementEpochCount() {
    ++epoch;
  }

  /** Sets the iteration count: ParallelWrapper gives this network the count of the replicas it averaged. */
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
    return updaterStep;
  }

  /** Sets {@link #getUpdaterStepCount()}. */
  public void setUpdaterStepCount(long steps) {
    if (steps < 0) {
      throw new IllegalArgumentException("setUpdaterStepCount: need a count >= 0, got " + steps);
    }
    updaterStep = steps;
  }

  /** The current loss scale (1 without mixed precision). */
  public double lossScale() {
    return scaler == null ? (mixed ? conf.lossScale() : 1) : scaler.scale();
  }

  /** Steps skipped because the scaled gradients overflowed (mixed precision). */
  public long skippedSteps() {
    return scaler == null ? 0 : scaler.skippedSteps;
  }

  public long numParams() {
    ensureInit();
    return params.numel();
  }

  /** The network's own flat f32 parameter vector (layer parameters are views of it): do not close. */
  public Tensor params() {
    ensureInit();
    return params;
  }

  /** Copies {@code flat} (numParams() elements, f32) into the parameters. */
  public void setParams(Tensor flat) {
    ensureInit();
    copyInto(flat, params, "setParams");
  }

  /** The network's own flat f32 updater state (momentum etc.; 0 elements for SGD): do not close. */
  public Tensor updaterState() {
    ensureInit();
    return state;
  }

  public void setUpdaterState(Tensor flat) {
    ensureInit();
    copyInto(flat, state, "setUpdaterState");
  }

  private static void copyInto(Tensor src, Tensor dst, String who) {
    if (src.numel() != dst.numel() || src.rank() != 1) {
      throw new IllegalArgumentException(who + ": need a vector of " + dst.numel() + " elements, got shape "
          + Arrays.toString(src.shape()));
    }
    Ops.copy(src, dst);
  }

  /**
   * A deep copy: configuration, parameters, updater state, counters and the layers' random streams
   * (RandomStreams), so the copy trains as the original would (listeners are not copied).
   */
  @Override
  public MultiLayerNetwork clone() {
    ensureInit();
    MultiLayerNetwork c = new MultiLayerNetwork(conf);
    c.init(false);
    Ops.copy(params, c.params);
    Ops.copy(state, c.state);
    c.restore(trainingState());
    c.score = score;
    return c;
  }

  /** TrainerSupport: the hook fit(DataSet) calls during backward (null: none). */
  void setBackwardHook(TrainerSupport.BackwardHook hook) {
    ensureInit();
    backwardHook = hook;
  }

  /** TrainerSupport: the flat f32 gradient vector (trained parameters only). */
  Tensor gradients() {
    ensureInit();
    return grads;
  }

  /** TrainerSupport: per layer, {offset, length} pairs of its gradients in {@link #gradients()}. */
  long[][] gradientRanges() {
    ensureInit();
    long[][] c = new long[gradRanges.length][];
    for (int i = 0; i < c.length; ++i) {
      c[i] = gradRanges[i].clone();
    }
    return c;
  }

  /** Whether the network computes in f16/bf16 (mixed precision). */
  boolean isMixedPrecision() {
    return mixed;
  }

  /** The layers' compute side (RandomStreams reaches their random streams through it). */
  LayerImpl[] layers() {
    ensureInit();
    return layers;
  }

  /** The training state outside the tensors: counters, loss scaling, the layers' random streams. */
  ModelSerializer.Saved trainingState() {
    ModelSerializer.Saved s = new ModelSerializer.Saved();
    s.epoch = epoch;
    s.iteration = iteration;
    s.updaterStep = updaterStep;
    s.lossScale = scaler.scale();
    s.cleanSteps = scaler.cleanSteps;
    s.skippedSteps = scaler.skippedSteps;
    s.randomOffsets = Arrays.stream(layers).mapToLong(LayerImpl::randomOffset).toArray();
    s.randomStream = layers[0].randomStream(); // the same in every layer (RandomStreams.setStream)
    return s;
  }

  /** Sets what {@link #trainingState()} gives; without random offsets (an old zip) every stream stays at 0. */
  void restore(ModelSerializer.Saved s) {
    epoch = (int) Math.min(s.epoch, Integer.MAX_VALUE);
    iteration = s.iteration;
    updaterStep = s.updaterStep;
    scaler.skippedSteps = s.skippedSteps;
    if (mixed) {
      scaler.set(s.lossScale);
      scaler.cleanSteps = (int) Math.min(s.cleanSteps, Integer.MAX_VALUE);
    }
    for (int i = 0; i < layers.length; ++i) {
      layers[i].setRandomStream(s.randomStream);
      if (s.randomOffsets != null) {
        layers[i].setRandomOffset(s.randomOffsets[i]);
      }
    }
  }

  /**
   * One zip: configuration.json, params.bin and updater.bin (raw f32), state.json (the training
   * state: counters, loss scaling, the layers' random streams), so that training goes on
   * after {@link #load} bit for bit as it would have without the save.
   */
  public void save(File file) throws IOException {
    ensureInit();
    ModelSerializer.save(this, file);
  }

  /**
   * Reads what {@link #save} wrote: outputs and further training are bit for bit the saved
   * network's. A zip from before the random stream offsets were saved loads with every stream at
   * offset 0, as it did then (see ModelSerializer).
   */
  public static MultiLayerNetwork load(File file) throws IOException {
    return ModelSerializer.load(file);
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
    if (layers != null) {
      for (LayerImpl l : layers) {
        if (l != null) {
          l.close();
        }
      }
    }
    if (input != null) {
      input.close();
    }
    if (scaler != null) {
      scaler.close();  // the object stays: lossScale() and skippedSteps() still answer
    }
    for (Tensor t : owned) {
      t.close();
    }
    owned.clear();
    layers = null;
  }
}
