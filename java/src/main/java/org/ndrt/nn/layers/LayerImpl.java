package org.ndrt.nn.layers;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.ndrt.DType;
import org.ndrt.Tensor;

/**
 * The compute side of a layer (internal to the network): forward and backward through runtime ops
 * into buffers the layer owns and reuses from one minibatch to the next (allocated again only when
 * the batch size changes), so a training step allocates nothing.
 *
 * <p>Parameters live in the network's flat vectors: {@link #bind} hands the layer views of them, in
 * {@link #params()} order. forward() returns a buffer of this layer, valid until its next forward;
 * backward() writes the parameter gradients into the bound gradient views and returns the gradient
 * of the input (or null when not needed).
 */
public abstract class LayerImpl implements AutoCloseable {
  /** The compute dtype (F32, or F16/BF16 under mixed precision). */
  protected final DType dtype;
  protected Tensor[] p = new Tensor[0];
  protected Tensor[] g = new Tensor[0];
  private final Map<String, Tensor> buffers = new HashMap<>();
  private int randomStream;

  protected LayerImpl(DType dtype) {
    this.dtype = dtype;
  }

  /** The parameter arrays this layer needs, in binding order (empty when it has none). */
  public List<ParamSpec> params() {
    return List.of();
  }

  /** Views of the flat parameter and gradient vectors (STATE parameters have no gradient: null). */
  public void bind(Tensor[] params, Tensor[] grads) {
    this.p = params.clone();
    this.g = grads.clone();
  }

  /**
   * Where this layer's random stream stands: the numbers drawn from it so far (0 for a layer that
   * draws none). Training state outside the parameters: saved with the model and copied by clone.
   */
  public long randomOffset() {
    return 0;
  }

  /** Puts the random stream back at {@code offset} (a loaded model, a clone); see {@link #randomOffset()}. */
  public void setRandomOffset(long offset) {
    if (offset != 0) {
      throw new IllegalArgumentException(getClass().getSimpleName() + " draws no random numbers: its random stream offset"
          + " must be 0, got " + offset);
    }
  }

  /**
   * Which of the layer's independent random streams it draws from: 0 (the network's own) unless
   * set; ParallelWrapper gives worker w's replica stream w. Training state, as the offset.
   */
  public int randomStream() {
    return randomStream;
  }

  /** Draws from stream {@code stream} (>= 0) from now on; see {@link #randomStream()}. */
  public void setRandomStream(int stream) {
    if (stream < 0) {
      throw new IllegalArgumentException("the random stream must be >= 0, got " + stream);
    }
    this.randomStream = stream;
  }

  /** Where a recurrent layer's initial state comes from in its next forward passes. */
  public enum RnnState {
    /** Zeros (every ordinary forward pass). */
    ZERO,
    /** The final state of the layer's previous forward pass (truncated BPTT's later segments). */
    PREVIOUS,
    /** The state stored by the previous rnnTimeStep call (zeros after a clear); stores the new one. */
    STORED
  }

  /**
   * Recurrent layers: each sequence's valid length for the next forward passes (i64 [N]: a features
   * mask's prefix lengths), or null when every step is valid. Other layers ignore it.
   */
  public void setSequenceLengths(Tensor lengths) {}

  /**
   * The valid lengths the next layer gets when this one got {@code lengths} (null: every step valid):
   * the same for layers that keep the time axis (the default); a Convolution1D layer that changes it
   * returns a tensor of its own, filled by its forward pass; a layer that pools the time axis away
   * returns null.
   */
  public Tensor sequenceLengthsOut(Tensor lengths) {
    return lengths;
  }

  /** Recurrent layers: where the next forward passes take their initial state from (ZERO unless set). */
  public void setRnnState(RnnState mode) {}

  /** Recurrent layers: forgets the state stored by rnnTimeStep. */
  public void clearStoredState() {}

  /** After each update of the network's parameters: moves STATE parameters stepped outside the updater. */
  public void afterUpdate() {}

  /** What this layer does with channels-last images ({@link ChannelsLast}); NCHW only unless it says. */
  public ChannelsLast.Role channelsLastRole() {
    return ChannelsLast.Role.NCHW_ONLY;
  }

  /** Its input arrives, or its output leaves, channels-last (NHWC [N, H, W, C]), as {@link ChannelsLast} planned. */
  protected boolean nhwcIn;
  protected boolean nhwcOut;

  /** The layouts {@link ChannelsLast} planned for this layer's input and output (true: NHWC). */
  public void setChannelsLast(boolean in, boolean out) {
    nhwcIn = in;
    nhwcOut = out;
  }

  /** Forward pass; keeps what backward needs. */
  public abstract Tensor forward(Tensor x, boolean training);

  /** Backward pass from dL/dy; returns dL/dx, or null when {@code needDx} is false. */
  public abstract Tensor backward(Tensor dy, boolean needDx);

  /**
   * This layer's last forward output {@code y} as Deeplearning4j shows a layer's activations: a new
   * f32 tensor the caller closes; sequences (the network's [N, T, size] views) as [N, size, T],
   * channels-last images as [N, C, H, W].
   */
  public Tensor activation(Tensor y) {
    if (y.rank() == 4 && nhwcOut) {
      try (Tensor v = y.permute(0, 3, 1, 2)) {  // a channels-last image, shown NCHW
        return f32Copy(v);
      }
    }
    if (y.rank() != 3) {
      return f32Copy(y);
    }
    try (Tensor v = y.permute(0, 2, 1)) {
      return f32Copy(v);
    }
  }

  /** A new contiguous f32 copy of {@code v}. */
  static Tensor f32Copy(Tensor v) {
    return v.dtype() == DType.F32 ? org.ndrt.Ops.copy(v, null) : v.cast(DType.F32);
  }

  /** A buffer of this layer: the same tensor while dtype and shape stay the same. */
  protected Tensor buffer(String key, DType dt, long... shape) {
    Tensor t = buffers.get(key);
    if (t != null && t.dtype() == dt && Arrays.equals(t.shape(), shape)) {
      return t;
    }
    if (t != null) {
      t.close();
    }
    t = Tensor.empty(dt, shape);
    buffers.put(key, t);
    return t;
  }

  /** A view of {@code x} with {@code shape}, cached while x and the shape stay the same. */
  protected Tensor view(String key, Tensor x, long... shape) {
    ViewKey k = views.get(key);
    if (k != null && k.source == x && Arrays.equals(k.view.shape(), shape)) {
      return k.view;
    }
    if (k != null) {
      k.view.close();
    }
    Tensor v = x.reshape(shape);
    views.put(key, new ViewKey(x, v));
    return v;
  }

  private static final class ViewKey {
    final Tensor source;
    final Tensor view;

    ViewKey(Tensor source, Tensor view) {
      this.source = source;
      this.view = view;
    }
  }

  private final Map<String, ViewKey> views = new HashMap<>();

  /** {@code x} in f32: x itself when it is f32, else a cast into a buffer. */
  protected Tensor asF32(String key, Tensor x) {
    if (x.dtype() == DType.F32) {
      return x;
    }
    Tensor b = buffer(key, DType.F32, x.shape());
    org.ndrt.Ops.cast(x, DType.F32, b);
    return b;
  }

  /** {@code x} in the compute dtype: x itself when it already is, else a cast into a buffer. */
  protected Tensor asCompute(String key, Tensor x) {
    if (x.dtype() == dtype) {
      return x;
    }
    Tensor b = buffer(key, dtype, x.shape());
    org.ndrt.Ops.cast(x, dtype, b);
    return b;
  }

  /**
   * Whether {@link #releaseActivations} may free this layer's buffers between passes: false for
   * layers that keep something across passes in them (recurrent state, lengths handed downstream,
   * cached loss weights).
   */
  public boolean releasableBetweenPasses() {
    return true;
  }

  /**
   * Frees this layer's buffers (its output among them) and cached views: a graph's inference pass
   * calls it once no later vertex reads the output; the next forward allocates them again.
   */
  public void releaseActivations() {
    if (releasableBetweenPasses()) {
      close();
    }
  }

  /**
   * Closes the views this layer cached of {@code source} (a tensor another layer is about to free),
   * but those {@code stillRead} says are read yet (a view this layer passed on as its output).
   */
  public void releaseViewsOf(Tensor source, java.util.function.Predicate<Tensor> stillRead) {
    views.values().removeIf(k -> {
      if (k.source != source || stillRead.test(k.view)) {
        return false;
      }
      k.view.close();
      return true;
    });
  }

  /** Releases the buffers and cached views (the parameter views belong to the network). */
  @Override
  public void close() {
    for (ViewKey k : views.values()) {
      k.view.close();
    }
    views.clear();
    for (Tensor t : buffers.values()) {
      t.close();
    }
    buffers.clear();
  }

  /** [N, rest...] with N replaced. */
  protected static long[] withBatch(long n, long... rest) {
    long[] s = new long[rest.length + 1];
    s[0] = n;
    System.arraycopy(rest, 0, s, 1, rest.length);
    return s;
  }
}
