package org.ndrt.nn;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.ndrt.DType;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.data.DataSet;
import org.ndrt.data.DataSetIterator;
import org.ndrt.eval.Evaluation;
import org.ndrt.nn.conf.BackpropType;
import org.ndrt.nn.conf.MultiLayerConfiguration;
import org.ndrt.nn.conf.layers.EmbeddingSequenceLayer;
import org.ndrt.nn.layers.LayerImpl;
import org.ndrt.nn.layers.Layers;
import org.ndrt.nn.listeners.TrainingListener;

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
 * <p>Sequences (recurrent layers, InputType.recurrent): features [N, size, T] with an optional
 * features mask [N, T] whose valid steps must be a prefix of each sequence (it becomes the ops'
 * lengths), labels [N, nOut, T] for an RnnOutputLayer with an optional labels mask; truncated BPTT
 * (BackpropType.TruncatedBPTT) fits each minibatch in segments, one update each, carrying the
 * recurrent state from one segment to the next; {@link #rnnTimeStep} runs sequences piece by piece
 * from a stored state.
 *
 * <p>Not thread-safe: one thread uses a network at a time (ParallelWrapper gives each worker its
 * own replica). The tensors live on the device of the thread that called {@link #init()}.
 */
public final class MultiLayerNetwork extends Model {
  private final MultiLayerConfiguration conf;
  private final DType dtype;
  private final boolean mixed;
  private final boolean indexInput;  // the first layer is an EmbeddingSequenceLayer: features are indices
  private LayerImpl[] layers;
  private InputStage input;
  private Tensor lengths;  // i64 [N]: the features mask's prefix lengths of the current minibatch (segment)

  public MultiLayerNetwork(MultiLayerConfiguration conf) {
    if (conf == null) {
      throw new IllegalArgumentException("MultiLayerNetwork: the configuration must not be null");
    }
    this.conf = conf;
    this.dtype = conf.dataType();
    this.mixed = dtype != DType.F32;
    this.indexInput = conf.layers().get(0) instanceof EmbeddingSequenceLayer;
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
      Layers.planChannelsLast(conf, layers);
      Layers.planConvPool(layers);
      Layers.planBatchNormFold(layers);
      input = new InputStage(conf.inputType(), dtype, indexInput);
      allocate(randomize);
    } catch (RuntimeException e) {
      release();
      throw e;
    }
  }

  /** Lays out the flat vectors, binds the layers' views and initialises the values. */
  private void allocate(boolean randomize) {
    flat = new FlatParameters(conf, layers, randomize, owned);
  }

  public MultiLayerConfiguration getConfiguration() {
    return conf;
  }

  @Override
  public MultiLayerConfiguration configuration() {
    return conf;
  }

  // ------------------------------------------------------------------------------------ training

  /** One epoch over the iterator (reset first when it has nothing left); closes each DataSet it takes. */
  public void fit(DataSetIterator it) {
    fitEpoch(it, null);
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

  /**
   * One iteration (forward, backward, update) on one minibatch; the DataSet stays the caller's. With
   * truncated BPTT: one update per segment of tBPTTForwardLength steps, the recurrent state carried
   * from segment to segment, the score the sum of the segments' scores; one iteration in all.
   */
  @Override
  public void fit(DataSet ds) {
    ensureInit();
    Tensor f = asSequences(ds.features());
    try {
      Tensor labels = checkLabels(f, ds.labels());
      if (conf.backpropType() == BackpropType.TruncatedBPTT) {
        score = fitTruncated(f, ds, labels);
      } else {
        setMasks(f, ds.featuresMask(), ds.labelsMask(), null);
        score = step(f, labels);
      }
    } finally {
      closeIfView(f, ds.features());
    }
    ++iteration;
    for (TrainingListener l : listeners) {
      l.iterationDone(this, iteration, epoch, score, ds.numExamples());
    }
  }

  /** Truncated BPTT over one minibatch: the segments in order, each one step; returns the summed score. */
  private double fitTruncated(Tensor f, DataSet ds, Tensor labels) {
    long steps = f.shape()[2];
    int len = conf.tbpttFwdLength();
    long[] full = ds.featuresMask() == null ? null : InputStage.prefixLengths(ds.featuresMask(), f);
    double total = 0;
    try {
      for (long t0 = 0; t0 < steps; t0 += len) {
        long t1 = Math.min(steps, t0 + len);
        for (LayerImpl l : layers) {
          l.setRnnState(t0 == 0 ? LayerImpl.RnnState.ZERO : LayerImpl.RnnState.PREVIOUS);
        }
        try (Tensor fs = f.slice(2, t0, t1);
             Tensor ls = labels.slice(2, t0, t1);
             Tensor fm = ds.featuresMask() == null ? null : ds.featuresMask().slice(1, t0, t1);
             Tensor lm = ds.labelsMask() == null ? null : ds.labelsMask().slice(1, t0, t1)) {
          long[] seg = null;
          if (full != null) {
            seg = new long[full.length];
            for (int b = 0; b < seg.length; ++b) {
              seg[b] = Math.max(0, Math.min(full[b] - t0, t1 - t0));
            }
          }
          setMasks(fs, fm, lm, seg);
          total += step(fs, ls);
        }
      }
    } finally {
      for (LayerImpl l : layers) {
        l.setRnnState(LayerImpl.RnnState.ZERO);
      }
      setMasks(null, null, null, null);  // the segments' mask views are closed
    }
    return total;
  }

  /** Forward, loss, backward and (unless skipped for overflow) the update on one minibatch; returns the score. */
  private double step(Tensor features, Tensor labels) {
    double sc = backprop(features, labels);
    flat.step(layers);
    return sc;
  }

  /** Forward, loss and backward in training mode: the gradients in {@code grads}; returns the score. */
  private double backprop(Tensor features, Tensor labels) {
    flat.castToCompute();
    List<TrainingListener> probes = activationListeners();
    if (probes.isEmpty()) {
      forward(features, true);
    } else {  // the same loop as forward(), each layer's output shown to the listeners that asked
      Tensor a = input.forward(features, true);
      for (int i = 0; i < layers.length; ++i) {
        a = layers[i].forward(a, true);
        for (TrainingListener l : probes) {
          l.onForwardPass(this, i, a);
        }
      }
    }
    LayerImpl out = layers[layers.length - 1];
    long n = conf.miniBatch() ? 1 : features.shape()[0];  // miniBatch(false): the sum, N times the mean
    double sc = Layers.loss(out, labels).item() * n + flat.reg.score();
    score = sc;  // what the backward hook sees (a distributed trainer averages it); fit sets the minibatch's after
    Tensor dy = Layers.backwardFromLoss(out, labels, flat.lossGradientScale(n), layers.length > 1);
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
    return sc;
  }

  /**
   * Deeplearning4j's computeGradientAndScore: forward (training mode) and backward on one minibatch
   * without an update; the gradients stay in {@link TrainerSupport#gradients}, the score (as fit's)
   * is returned and becomes {@link #score()}. Not under mixed precision (its gradients are scaled).
   */
  public double computeGradientAndScore(DataSet ds) {
    ensureInit();
    if (mixed) {
      throw new UnsupportedOperationException("computeGradientAndScore: not with dataType " + dtype + " (mixed precision)");
    }
    Tensor f = asSequences(ds.features());
    try {
      Tensor labels = checkLabels(f, ds.labels());
      setMasks(f, ds.featuresMask(), ds.labelsMask(), null);
      score = backprop(f, labels);
      return score;
    } finally {
      closeIfView(f, ds.features());
    }
  }

  /**
   * Hands the layers this minibatch's masks: the features mask's prefix lengths to the recurrent
   * layers ({@code segLengths} instead when given: a truncated-BPTT segment's), the labels mask (else
   * the features mask) to an RnnOutputLayer. Null masks clear what the previous minibatch set.
   */
  private void setMasks(Tensor features, Tensor featuresMask, Tensor labelsMask, long[] segLengths) {
    Tensor lens = null;
    if (featuresMask != null) {
      if (!conf.inputType().isRecurrent()) {
        throw new IllegalArgumentException("a features mask needs sequence input (InputType.recurrent), the network takes "
            + conf.inputType());
      }
      long[] l = segLengths != null ? segLengths : InputStage.prefixLengths(featuresMask, features);
      if (lengths == null || lengths.shape()[0] != l.length) {
        if (lengths != null) {
          lengths.close();
        }
        lengths = Tensor.zeros(DType.I64, l.length);
      }
      lens = lengths.copyFrom(l);
    }
    for (LayerImpl l : layers) {
      l.setSequenceLengths(lens);
      lens = l.sequenceLengthsOut(lens);  // a Convolution1DLayer's own, none after a GlobalPoolingLayer
    }
    LayerImpl out = layers[layers.length - 1];
    Layers.setOutputMask(out, labelsMask != null ? labelsMask : Layers.isSequenceOutput(out) ? featuresMask : null);
  }

  /** The output layer's pre-activation after running every layer. */
  private Tensor forward(Tensor features, boolean training) {
    Tensor a = input.forward(features, training);
    for (LayerImpl l : layers) {
      a = l.forward(a, training);
    }
    return a;
  }

  private Tensor checkLabels(Tensor features, Tensor labels) {
    long[] s = labels.shape();
    long nOut = conf.outputLayer().nOut();
    if (Layers.isSequenceOutput(layers[layers.length - 1])) {
      long[] f = features.shape();
      if (s.length != 3 || s[1] != nOut || f.length != 3 || s[2] != f[2]) {
        throw new IllegalArgumentException("labels have shape " + Arrays.toString(s) + " but the RnnOutputLayer needs [N, "
            + nOut + ", T] with the features' T (features " + Arrays.toString(f) + ")");
      }
      if (labels.dtype() != DType.F32) {
        throw new IllegalArgumentException("labels must be f32, got " + labels.dtype());
      }
      return labels;
    }
    if (s.length != 2 || s[1] != nOut) {
      throw new IllegalArgumentException("labels have shape " + Arrays.toString(s) + " but the output layer needs [N, "
          + nOut + "] (one-hot rows for a classifier)");
    }
    if (labels.dtype() != DType.F32) {
      throw new IllegalArgumentException("labels must be f32, got " + labels.dtype());
    }
    return labels;
  }

  /**
   * The features as [N, size, T]: an embedding network's indices given as [N, T] become a [N, 1, T]
   * view (of a contiguous copy when strided); anything else is {@code f} itself. Close the result
   * with {@link #closeIfView}.
   */
  private Tensor asSequences(Tensor f) {
    if (!indexInput || f.rank() != 2) {
      return f;
    }
    long[] s = f.shape();
    if (f.isContiguous()) {
      return f.reshape(s[0], 1, s[1]);
    }
    try (Tensor c = f.contiguous()) {
      return c.reshape(s[0], 1, s[1]);
    }
  }

  private static void closeIfView(Tensor view, Tensor original) {
    if (view != original) {
      view.close();
    }
  }

  // ----------------------------------------------------------------------------------- inference

  /**
   * Inference-mode output (softmax probabilities for a softmax output layer), f32; the caller closes
   * it. [N, nOut], or [N, nOut, T] for an RnnOutputLayer.
   */
  public Tensor output(Tensor features) {
    return output(features, false, null, null);
  }

  /** Deeplearning4j's {@code output(input, train)}: {@code train} runs the layers in training mode (dropout on). */
  public Tensor output(Tensor features, boolean train) {
    return output(features, train, null, null);
  }

  /** {@link #output(Tensor)} of sequences with a features mask [N, T] (outputs are 0 at the padded steps). */
  public Tensor output(Tensor features, Tensor featuresMask) {
    return output(features, false, featuresMask, null);
  }

  /**
   * Deeplearning4j's {@code output(input, train, featuresMask, labelsMask)}: {@code train} runs the
   * layers in training mode (dropout on, batch norm on the minibatch's statistics); an RnnOutputLayer's
   * outputs are 0 where the labels mask (else the features mask) is 0.
   */
  public Tensor output(Tensor features, boolean train, Tensor featuresMask, Tensor labelsMask) {
    ensureInit();
    Tensor f = asSequences(features);
    try {
      setMasks(f, featuresMask, labelsMask, null);
      flat.castToCompute();
      forward(f, train);
      return Layers.activate(layers[layers.length - 1]);
    } finally {
      closeIfView(f, features);
    }
  }

  /**
   * Deeplearning4j's feedForwardToLayer: the activations of layers 0 to {@code toLayer} for {@code
   * features} as new f32 tensors the caller closes (images NCHW, sequences [N, size, T], the output
   * layer's as {@link #output}); Deeplearning4j's list also starts with the input, which is the caller's.
   */
  public List<Tensor> feedForward(Tensor features, boolean train, int toLayer) {
    ensureInit();
    if (toLayer < 0 || toLayer >= layers.length) {
      throw new IllegalArgumentException("feedForward: layer " + toLayer + " is not in 0.." + (layers.length - 1));
    }
    Tensor f = asSequences(features);
    try {
      setMasks(f, null, null, null);
      flat.castToCompute();
      return Layers.activations(layers, input.forward(f, train), toLayer, train);
    } finally {
      closeIfView(f, features);
    }
  }

  /**
   * The output for the next piece of sequences, starting from the recurrent layers' state stored by
   * the previous call (zeros after {@link #rnnClearPreviousState()} or at first), as
   * Deeplearning4j's rnnTimeStep: input [N, size] (one step; gives [N, nOut]) or [N, size, T] (gives
   * [N, nOut, T], or [N, nOut] after LastTimeStep); stores the state after the last step. The stored
   * state is separate from fit's and output's, which start from zeros. Not with Bidirectional layers.
   * A network starting with an EmbeddingSequenceLayer takes indices [N, 1] (one step), [N, 1, T], or
   * [N, T] with T > 1 (T steps, as its fit and output take them).
   */
  public Tensor rnnTimeStep(Tensor input) {
    ensureInit();
    if (!conf.inputType().isRecurrent()) {
      throw new IllegalArgumentException("rnnTimeStep: the network takes " + conf.inputType() + ", not sequences");
    }
    long[] s = input.shape();
    boolean indexSteps = indexInput && s.length == 2 && s[1] != 1;  // [N, T] indices
    boolean single = s.length == 2 && !indexSteps;
    try (Tensor x3 = single ? stepAsSequence(input) : indexSteps ? asSequences(input) : input.share()) {
      for (LayerImpl l : layers) {
        l.setRnnState(LayerImpl.RnnState.STORED);
      }
      setMasks(x3, null, null, null);
      flat.castToCompute();
      forward(x3, false);
      Tensor out = Layers.activate(layers[layers.length - 1]);
      if (single && out.rank() == 3) {
        try (Tensor o = out) {
          return o.reshape(s[0], o.shape()[1]);
        }
      }
      return out;
    } finally {
      for (LayerImpl l : layers) {
        l.setRnnState(LayerImpl.RnnState.ZERO);
      }
    }
  }

  /** One step [N, size] as a sequence [N, size, 1] (a view, or a copy when the input is strided). */
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
    for (LayerImpl l : layers) {
      l.clearStoredState();
    }
  }

  Regularizer regularizer() {
    return flat.reg;
  }

  /** The score of one minibatch in inference mode, without changing the network. */
  @Override
  public double score(DataSet ds) {
    ensureInit();
    Tensor f = asSequences(ds.features());
    try {
      Tensor labels = checkLabels(f, ds.labels());
      setMasks(f, ds.featuresMask(), ds.labelsMask(), null);
      flat.castToCompute();
      forward(f, false);
      return Layers.loss(layers[layers.length - 1], labels).item() * (conf.miniBatch() ? 1 : f.shape()[0]) + flat.reg.score();
    } finally {
      closeIfView(f, ds.features());
    }
  }

  /** Accuracy, precision, recall, F1 and the confusion matrix over a whole pass of the iterator (reset first). */
  @Override
  public Evaluation evaluate(DataSetIterator it) {
    ensureInit();
    it.reset();
    Evaluation e = new Evaluation((int) conf.outputLayer().nOut());
    flat.castToCompute();
    while (it.hasNext()) {
      try (DataSet ds = it.next()) {
        Tensor f = asSequences(ds.features());
        try {
          checkLabels(f, ds.labels());
          setMasks(f, ds.featuresMask(), ds.labelsMask(), null);
          Tensor z = forward(f, false);
          if (Layers.isSequenceOutput(layers[layers.length - 1])) {
            SequenceEvaluation.evalSteps(e, ds, Layers.sequenceLogits(layers[layers.length - 1]));
          } else {
            e.eval(ds.labels(), z);
          }
        } finally {
          closeIfView(f, ds.features());
        }
      }
    }
    return e;
  }

  // ------------------------------------------------------------------------------------ state

  /**
   * A deep copy: configuration, parameters, updater state, counters and the layers' random streams
   * (RandomStreams), so the copy trains as the original would (listeners are not copied).
   */
  @Override
  public MultiLayerNetwork clone() {
    ensureInit();
    MultiLayerNetwork c = new MultiLayerNetwork(conf);
    c.init(false);
    c.copyStateFrom(this);
    return c;
  }

  /** The layers' compute side (RandomStreams reaches their random streams through it). */
  @Override
  LayerImpl[] layers() {
    ensureInit();
    return layers;
  }

  /**
   * Reads what {@link #save} wrote: outputs and further training are bit for bit the saved
   * network's. A zip from before the random stream offsets were saved loads with every stream at
   * offset 0, as it did then (see ModelSerializer).
   */
  public static MultiLayerNetwork load(File file) throws IOException {
    return ModelSerializer.load(file, MultiLayerNetwork.class);
  }

  @Override
  void releaseParts() {
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
    if (lengths != null) {
      lengths.close();
      lengths = null;
    }
    layers = null;
  }
}
