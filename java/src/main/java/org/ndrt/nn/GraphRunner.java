package org.ndrt.nn;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.ndrt.DType;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.nn.conf.ComputationGraphConfiguration;
import org.ndrt.nn.conf.ComputationGraphConfiguration.Node;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.graph.DuplicateToTimeSeriesVertex;
import org.ndrt.nn.conf.graph.LastTimeStepVertex;
import org.ndrt.nn.conf.layers.EmbeddingSequenceLayer;
import org.ndrt.nn.conf.layers.Layer;
import org.ndrt.nn.conf.layers.OutputLayer;
import org.ndrt.nn.graph.VertexImpl;
import org.ndrt.nn.graph.Vertices;
import org.ndrt.nn.layers.ChannelsLast;
import org.ndrt.nn.layers.LayerImpl;
import org.ndrt.nn.layers.Layers;

/**
 * Runs a ComputationGraph's vertices: forward in topological order, backward in reverse, summing
 * the gradients of a vertex that feeds several others. Slots hold the tensors flowing along the
 * edges: slot i (below the number of inputs) is graph input i (after its input stage), then one per vertex in
 * topological order. Each vertex writes into buffers it owns and reuses from one minibatch to the
 * next (as the layers of a MultiLayerNetwork do), so a training step allocates nothing once the
 * batch size is steady; a gradient that arrives from one consumer is used where it lies (no copy),
 * from several it is summed into a buffer of the slot. Parameters are bound by the owner ({@link
 * #layers()} in the order of the configuration's layers()), so the same runner computes in f32
 * inside a ComputationGraph and in f64 under a gradient check.
 *
 * <p>An inference pass (forward with training false) frees each activation as soon as no later
 * vertex reads it: the producer's buffers go back to the memory pool, where the vertices after it
 * find them, so the pass holds a few activations at a time rather than all of them. The graph's
 * outputs and what an output layer reads (its loss may) stay. A training pass keeps every
 * activation for the backward pass and reuses the buffers from one minibatch to the next.
 */
final class GraphRunner implements AutoCloseable {
  private final ComputationGraphConfiguration conf;
  private final int numInputs;
  private final String[] names;       // per slot
  private final LayerImpl[] impls;    // per vertex (slot - numInputs)
  private final LayerImpl[] merges;   // per vertex: the merge before a layer given several inputs, else null
  private final int[][] inputSlots;   // per vertex: the slots it takes (a DuplicateToTimeSeriesVertex: + its reference)
  private final boolean[] isLayer;
  private final int[] layerIndex;     // per vertex: its index among the layers, or -1
  private final int[] maskInput;      // per vertex: a LastTimeStepVertex's mask input slot, else -1
  private final InputStage[] stages;
  private final LayerImpl[] layers;   // the layer vertices, topological order
  private final int[] outputSlots;
  private final Tensor[] act;         // per slot, this pass
  private final Tensor[] lens;        // per slot: i64 [N] valid lengths, or null
  private final Tensor[] grad;        // per slot, this backward pass
  private final boolean[] gradOwned;  // grad[s] is the slot's own sum buffer
  private final Tensor[] gradSum;     // per slot: the buffer gradients are summed into
  private final Tensor[] inputLengths;
  private final int[] lastReader;     // per slot: the last vertex whose forward reads it (-1: none)
  private final int[][] readers;      // per slot: the vertices that read it
  private final boolean[] kept;       // per slot: never freed by an inference pass (an output, an output layer's input)
  private final Map<String, Integer> slotOf = new HashMap<>();
  private final DType labelsDtype;    // f32, f64 when the runner computes in f64 (gradient checks)

  GraphRunner(ComputationGraphConfiguration conf, DType dtype) {
    this.conf = conf;
    this.labelsDtype = dtype == DType.F64 ? DType.F64 : DType.F32;
    List<String> order = conf.topologicalOrder();
    numInputs = conf.inputs().size();
    int slots = numInputs + order.size();
    names = new String[slots];
    impls = new LayerImpl[order.size()];
    merges = new LayerImpl[order.size()];
    inputSlots = new int[order.size()][];
    isLayer = new boolean[order.size()];
    layerIndex = new int[order.size()];
    maskInput = new int[order.size()];
    stages = new InputStage[numInputs];
    act = new Tensor[slots];
    lens = new Tensor[slots];
    grad = new Tensor[slots];
    gradOwned = new boolean[slots];
    gradSum = new Tensor[slots];
    inputLengths = new Tensor[numInputs];
    for (int i = 0; i < numInputs; ++i) {
      names[i] = conf.inputs().get(i);
      slotOf.put(names[i], i);
    }
    for (int v = 0; v < order.size(); ++v) {
      names[numInputs + v] = order.get(v);
      slotOf.put(order.get(v), numInputs + v);
    }
    List<LayerImpl> ls = new ArrayList<>();
    try {
      for (int i = 0; i < numInputs; ++i) {
        boolean indices = takesIndices(names[i]);
        stages[i] = new InputStage(stageType(conf.typeOf(names[i]), indices), dtype, indices);
      }
      for (int v = 0; v < order.size(); ++v) {
        Node n = conf.node(order.get(v));
        int[] in = n.inputs.stream().mapToInt(slotOf::get).toArray();
        maskInput[v] = -1;
        layerIndex[v] = -1;
        if (n.layer != null) {
          InputType t = conf.typeOf(n.inputs.get(0));
          if (in.length > 1) {
            merges[v] = Vertices.merge(dtype);
            t = new org.ndrt.nn.conf.graph.MergeVertex().inferOutput(typesOf(n.inputs), conf::typeOf);
          }
          layerIndex[v] = ls.size();
          impls[v] = Layers.create(n.layer, t, conf.seed(), ls.size(), conf.miniBatch(), dtype);
          isLayer[v] = true;
          ls.add(impls[v]);
        } else {
          impls[v] = Vertices.create(n.vertex, conf.typeOf(n.name), dtype);
          if (n.vertex instanceof DuplicateToTimeSeriesVertex) {
            in = Arrays.copyOf(in, 2);
            in[1] = slotOf.get(((DuplicateToTimeSeriesVertex) n.vertex).input());
          } else if (n.vertex instanceof LastTimeStepVertex && ((LastTimeStepVertex) n.vertex).maskInput() != null) {
            maskInput[v] = slotOf.get(((LastTimeStepVertex) n.vertex).maskInput());
          }
        }
        inputSlots[v] = in;
      }
      planChannelsLast();
      planConvPool();
    } catch (RuntimeException e) {
      close();
      throw e;
    }
    layers = ls.toArray(new LayerImpl[0]);
    outputSlots = conf.outputs().stream().mapToInt(slotOf::get).toArray();
    lastReader = new int[slots];
    readers = new int[slots][];
    kept = new boolean[slots];
    planRelease();
  }

  /** Who reads each slot last, and which slots an inference pass keeps (see the class comment). */
  private void planRelease() {
    Arrays.fill(lastReader, -1);
    List<List<Integer>> r = new ArrayList<>();
    for (int s = 0; s < act.length; ++s) {
      r.add(new ArrayList<>());
    }
    for (int v = 0; v < impls.length; ++v) {
      for (int s : inputSlots[v]) {
        lastReader[s] = v;
        if (!r.get(s).contains(v)) {
          r.get(s).add(v);
        }
      }
    }
    for (int s = 0; s < act.length; ++s) {
      readers[s] = r.get(s).stream().mapToInt(Integer::intValue).toArray();
    }
    for (int out : outputSlots) {
      kept[out] = true;
      if (out >= numInputs) {
        for (int s : inputSlots[out - numInputs]) {
          kept[s] = true;
        }
      }
    }
  }

  /** Whether {@code t} is one of this pass's activations (a vertex may pass on a view it cached). */
  private boolean isActivation(Tensor t) {
    for (Tensor a : act) {
      if (a == t) {
        return true;
      }
    }
    return false;
  }

  /**
   * After vertex {@code v}'s forward in an inference pass: frees the activations it was the last to
   * read. A vertex may pass its input on as its output (a folded batch norm, dropout in inference):
   * the slots holding one tensor are freed together, once every one of them is spent.
   */
  private void releaseSpent(int v, Tensor merged) {
    if (merges[v] != null) {  // the merged input: read by v only
      impls[v].releaseViewsOf(merged, this::isActivation);
      merges[v].releaseActivations();
    }
    for (int s : inputSlots[v]) {
      if (lastReader[s] != v || act[s] == null) {
        continue;
      }
      Tensor t = act[s];
      boolean spent = true;
      for (int u = 0; u <= numInputs + v && spent; ++u) {
        spent = act[u] != t || !kept[u] && lastReader[u] <= v;
      }
      if (!spent) {
        continue;
      }
      for (int u = 0; u <= numInputs + v; ++u) {
        if (act[u] != t) {
          continue;
        }
        for (int c : readers[u]) {
          impls[c].releaseViewsOf(t, this::isActivation);
        }
        LayerImpl owner = u < numInputs ? stages[u] : impls[u - numInputs];
        owner.releaseActivations();  // a no-op for layers that keep state in their buffers
        act[u] = null;
      }
    }
  }

  private List<InputType> typesOf(List<String> names) {
    List<InputType> t = new ArrayList<>();
    for (String s : names) {
      t.add(conf.typeOf(s));
    }
    return t;
  }

  /** An embedding's input: recurrent(vocabulary) names nIn, the features are indices [N, 1, T]. */
  private static InputType stageType(InputType t, boolean indices) {
    return indices ? InputType.recurrent(1, t.timeSeriesLength) : t;
  }

  private boolean takesIndices(String input) {
    for (String c : conf.consumers(input)) {
      Layer l = conf.node(c).layer;
      if (l instanceof EmbeddingSequenceLayer) {
        return true;
      }
    }
    return false;
  }

  /** Which activations stay channels-last (see ChannelsLast); a layer fed through a merge takes NCHW. */
  private void planChannelsLast() {
    int n = impls.length;
    ChannelsLast.Role[] roles = new ChannelsLast.Role[n];
    int[][] from = new int[n][];
    boolean[] image = new boolean[n];
    boolean[] isOutput = new boolean[n];
    for (int v = 0; v < n; ++v) {
      roles[v] = merges[v] != null ? ChannelsLast.Role.NCHW_ONLY : impls[v].channelsLastRole();
      from[v] = Arrays.stream(inputSlots[v]).map(s -> s < numInputs ? -1 : s - numInputs).toArray();
      image[v] = conf.typeOf(names[numInputs + v]).isConvolutional();
      isOutput[v] = conf.outputs().contains(names[numInputs + v]);
    }
    ChannelsLast.plan(impls, roles, from, image, isOutput);
  }

  /**
   * Fuses a convolution with the 2x2 max pooling that alone takes its output (see Layers.planConvPool),
   * or folds the batch norm that alone takes it into it for inference (Layers.planBatchNormFold).
   */
  private void planConvPool() {
    for (int v = 0; v < impls.length; ++v) {
      int[] in = inputSlots[v];
      if (!isLayer[v] || in.length != 1 || in[0] < numInputs) {
        continue;
      }
      int u = in[0] - numInputs;
      if (isLayer[u] && conf.consumers(names[in[0]]).size() == 1 && !conf.outputs().contains(names[in[0]])) {
        Layers.planConvPool(new LayerImpl[] {impls[u], impls[v]});
        Layers.planBatchNormFold(new LayerImpl[] {impls[u], impls[v]});
      }
    }
  }

  /** The layer vertices in topological order (the order of the configuration's layers()). */
  LayerImpl[] layers() {
    return layers;
  }

  /** Layer {@code k}'s output (an index into layers()) from the last forward pass. */
  Tensor layerActivation(int k) {
    for (int v = 0; v < impls.length; ++v) {
      if (isLayer[v] && layerIndex[v] == k) {
        return act[numInputs + v];
      }
    }
    throw new IllegalArgumentException("layerActivation(" + k + "): the graph has " + layers.length + " layers");
  }

  /** Every vertex's implementation in topological order (layers and parameter-free vertices). */
  LayerImpl[] vertices() {
    return impls;
  }

  /** The implementation of output {@code k}. */
  LayerImpl output(int k) {
    return impls[outputSlots[k] - numInputs];
  }

  int numOutputs() {
    return outputSlots.length;
  }

  /** True when output {@code k} is an output layer (it has a loss). */
  boolean hasLoss(int k) {
    return conf.node(names[outputSlots[k]]).layer instanceof OutputLayer;
  }

  String outputName(int k) {
    return names[outputSlots[k]];
  }

  /**
   * Hands the vertices this minibatch's masks: each features mask's prefix lengths flow from its
   * input along the edges (a layer may change or drop them); a LastTimeStepVertex takes its mask
   * input's; an RnnOutputLayer output gets its labels mask, else the features mask whose lengths
   * reach it. Null arrays or entries: none.
   */
  void setMasks(Tensor[] features, Tensor[] featuresMasks, Tensor[] labelsMasks) {
    Tensor anyMask = null;
    for (int i = 0; i < numInputs; ++i) {
      Tensor m = featuresMasks == null ? null : featuresMasks[i];
      lens[i] = null;
      if (m != null) {
        if (!conf.typeOf(names[i]).isRecurrent()) {
          throw new IllegalArgumentException("a features mask for input \"" + names[i] + "\" needs sequence input, it takes "
              + conf.typeOf(names[i]));
        }
        long[] l = InputStage.prefixLengths(m, features[i]);
        if (inputLengths[i] == null || inputLengths[i].shape()[0] != l.length) {
          if (inputLengths[i] != null) {
            inputLengths[i].close();
          }
          inputLengths[i] = Tensor.zeros(DType.I64, l.length);
        }
        lens[i] = inputLengths[i].copyFrom(l);
        anyMask = anyMask == null ? m : anyMask;
      }
    }
    for (int v = 0; v < impls.length; ++v) {
      int s = numInputs + v;
      Tensor in = null;
      for (int from : inputSlots[v]) {
        in = in != null ? in : lens[from];
      }
      if (maskInput[v] >= 0) {
        impls[v].setSequenceLengths(lens[maskInput[v]]);
        lens[s] = null;
      } else if (isLayer[v]) {
        impls[v].setSequenceLengths(in);
        lens[s] = impls[v].sequenceLengthsOut(in);
      } else if (conf.node(names[s]).vertex instanceof DuplicateToTimeSeriesVertex) {
        lens[s] = lens[inputSlots[v][1]];
      } else {
        lens[s] = conf.typeOf(names[s]).isRecurrent() ? in : null;
      }
    }
    for (int k = 0; k < outputSlots.length; ++k) {
      LayerImpl out = output(k);
      if (!hasLoss(k)) {
        continue;
      }
      Tensor lm = labelsMasks == null ? null : labelsMasks[k];
      int in = inputSlots[outputSlots[k] - numInputs][0];
      Layers.setOutputMask(out, lm != null ? lm : Layers.isSequenceOutput(out) && lens[in] != null ? anyMask : null);
    }
  }

  /** Runs every vertex on {@code features} (one per graph input, Deeplearning4j's layouts); sets the activations. */
  void forward(Tensor[] features, boolean training) {
    if (features == null || features.length != numInputs) {
      throw new IllegalArgumentException("the graph takes " + numInputs + " input arrays " + conf.inputs() + ", got "
          + (features == null ? "null" : features.length));
    }
    for (int i = 0; i < numInputs; ++i) {
      if (features[i] == null) {
        throw new IllegalArgumentException("input \"" + names[i] + "\": the array is null");
      }
      try {
        act[i] = stages[i].forward(features[i], training);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("input \"" + names[i] + "\": " + e.getMessage(), e);
      }
    }
    for (int v = 0; v < impls.length; ++v) {
      int[] in = inputSlots[v];
      Tensor x = null;  // a layer's input (merged when it takes several)
      try {
        if (impls[v] instanceof VertexImpl) {
          Tensor[] xs = new Tensor[in.length];
          for (int j = 0; j < in.length; ++j) {
            xs[j] = act[in[j]];
          }
          act[numInputs + v] = ((VertexImpl) impls[v]).forward(xs, training);
        } else {
          x = act[in[0]];
          if (merges[v] != null) {
            Tensor[] xs = new Tensor[in.length];
            for (int j = 0; j < in.length; ++j) {
              xs[j] = act[in[j]];
            }
            x = ((VertexImpl) merges[v]).forward(xs, training);
          }
          act[numInputs + v] = impls[v].forward(x, training);
        }
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("vertex \"" + names[numInputs + v] + "\": " + e.getMessage(), e);
      }
      if (!training) {
        releaseSpent(v, x);
      }
    }
  }

  /** What output {@code k}'s vertex returned in the last forward pass (an output layer's: its pre-activation). */
  Tensor outputRaw(int k) {
    return act[outputSlots[k]];
  }

  /**
   * Output {@code k} after a forward pass as a new f32 tensor in Deeplearning4j's layout: an output
   * layer's activated output, any other vertex's activations (sequences [N, F, T]).
   */
  Tensor outputActivation(int k) {
    LayerImpl out = output(k);
    return hasLoss(k) ? Layers.activate(out) : out.activation(act[outputSlots[k]]);
  }

  /** The summed loss of the output layers for {@code labels} after a forward pass (each as its layer computes it). */
  double loss(Tensor[] labels) {
    checkLabels(labels);
    double sum = 0;
    for (int k = 0; k < outputSlots.length; ++k) {
      sum += Layers.loss(output(k), labels[k]).item();
    }
    return sum;
  }

  private void checkLabels(Tensor[] labels) {
    if (labels == null || labels.length != outputSlots.length) {
      throw new IllegalArgumentException("the graph has " + outputSlots.length + " outputs " + conf.outputs() + ", got "
          + (labels == null ? "no" : "" + labels.length) + " labels arrays");
    }
    for (int k = 0; k < outputSlots.length; ++k) {
      if (!hasLoss(k)) {
        throw new IllegalArgumentException("output \"" + outputName(k) + "\" is a "
            + conf.node(outputName(k)).layer.getClass().getSimpleName() + " without a loss: training and scoring need an"
            + " output layer at every output");
      }
      long[] s = labels[k].shape();
      OutputLayer o = (OutputLayer) conf.node(outputName(k)).layer;
      boolean seq = Layers.isSequenceOutput(output(k));
      if (s.length != (seq ? 3 : 2) || s[1] != o.nOut() || labels[k].dtype() != labelsDtype) {
        throw new IllegalArgumentException("output \"" + outputName(k) + "\": labels have shape " + Arrays.toString(s) + " ("
            + labels[k].dtype() + ") but it needs " + labelsDtype + " [N, " + o.nOut() + (seq ? ", T]" : "]"));
      }
    }
  }

  /**
   * Backward from the output layers' losses (dL = {@code scale} at each) to every layer: parameter
   * gradients into the bound gradient views, a gradient summed where a vertex feeds several.
   */
  void backward(Tensor[] labels, Tensor scale, TrainerSupport.BackwardHook hook) {
    Arrays.fill(grad, null);
    Arrays.fill(gradOwned, false);
    for (int v = impls.length - 1; v >= 0; --v) {
      int s = numInputs + v;
      int[] in = inputSlots[v];
      boolean needDx = false;
      for (int from : in) {
        needDx |= from >= numInputs;
      }
      int k = outputIndex(s);
      Tensor[] dx;
      if (k >= 0 && hasLoss(k)) {
        dx = backwardLayer(v, Layers.backwardFromLoss(impls[v], labels[k], scale, needDx || merges[v] != null));
      } else if (grad[s] == null) {
        layerDone(v, hook);
        continue;  // nothing downstream has a loss
      } else if (impls[v] instanceof VertexImpl) {
        dx = ((VertexImpl) impls[v]).backward(grad[s]);
      } else {
        dx = backwardLayer(v, impls[v].backward(grad[s], needDx || merges[v] != null));
      }
      for (int j = 0; j < in.length; ++j) {
        if (in[j] >= numInputs && dx[j] != null) {
          accumulate(in[j], dx[j]);
        }
      }
      layerDone(v, hook);
    }
    if (hook != null) {
      hook.beforeUpdate();
    }
  }

  /**
   * Tells a distributed trainer that a layer's gradients are complete. Vertices go in reverse
   * topological order, so the layers do in descending index, as in a MultiLayerNetwork.
   */
  private void layerDone(int v, TrainerSupport.BackwardHook hook) {
    if (hook != null && isLayer[v]) {
      hook.layerDone(layerIndex[v]);
    }
  }

  /** A layer's input gradient per input slot (split by its merge when it has several). */
  private Tensor[] backwardLayer(int v, Tensor dx) {
    if (merges[v] != null) {
      return ((VertexImpl) merges[v]).backward(dx);
    }
    return new Tensor[] {dx};
  }

  private int outputIndex(int slot) {
    for (int k = 0; k < outputSlots.length; ++k) {
      if (outputSlots[k] == slot) {
        return k;
      }
    }
    return -1;
  }

  private void accumulate(int s, Tensor dx) {
    if (grad[s] == null) {
      grad[s] = dx;  // used where it lies
      return;
    }
    if (!gradOwned[s]) {
      long[] shape = grad[s].shape();
      if (gradSum[s] == null || !Arrays.equals(gradSum[s].shape(), shape) || gradSum[s].dtype() != grad[s].dtype()) {
        if (gradSum[s] != null) {
          gradSum[s].close();
        }
        gradSum[s] = Tensor.empty(grad[s].dtype(), shape);
      }
      grad[s] = Ops.add(grad[s], dx, gradSum[s]);
      gradOwned[s] = true;
      return;
    }
    Ops.add(grad[s], dx, grad[s]);
  }

  /** Where the recurrent layers take their initial state from (rnnTimeStep: STORED). */
  void setRnnState(LayerImpl.RnnState mode) {
    for (LayerImpl l : impls) {
      l.setRnnState(mode);
    }
  }

  void clearStoredState() {
    for (LayerImpl l : impls) {
      l.clearStoredState();
    }
  }

  @Override
  public void close() {
    for (LayerImpl[] group : new LayerImpl[][] {impls, merges, stages}) {
      for (LayerImpl l : group) {
        if (l != null) {
          l.close();
        }
      }
    }
    for (Tensor[] group : new Tensor[][] {gradSum, inputLengths}) {
      for (int i = 0; i < group.length; ++i) {
        if (group[i] != null) {
          group[i].close();
          group[i] = null;
        }
      }
    }
  }
}
