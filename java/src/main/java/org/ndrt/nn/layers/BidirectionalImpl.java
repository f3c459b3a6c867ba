package org.ndrt.nn.layers;

import java.util.ArrayList;
import java.util.List;
import org.ndrt.DType;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.nn.conf.layers.Bidirectional;

/**
 * Two recurrent layers over the same input, the second with the op's reverse = true; outputs
 * combined per step (concat on the feature axis, sum, product or mean), gradients split back.
 */
final class BidirectionalImpl extends LayerImpl {
  /** Keeps its directions' states in its buffers between passes. */
  @Override
  public boolean releasableBetweenPasses() {
    return false;
  }

  private final Bidirectional.Mode mode;
  private final LayerImpl fwd;
  private final LayerImpl bwd;
  private int nFwd;
  private Tensor yf;
  private Tensor yb;
  private Tensor half;

  BidirectionalImpl(Bidirectional conf, LayerImpl fwd, LayerImpl bwd, DType dtype) {
    super(dtype);
    this.mode = conf.getMode();
    this.fwd = fwd;
    this.bwd = bwd;
  }

  @Override
  public List<ParamSpec> params() {
    List<ParamSpec> l = new ArrayList<>();
    for (ParamSpec s : fwd.params()) {
      l.add(s.withName("f" + s.name));
    }
    for (ParamSpec s : bwd.params()) {
      l.add(s.withName("b" + s.name));
    }
    return l;
  }

  @Override
  public void bind(Tensor[] params, Tensor[] grads) {
    super.bind(params, grads);
    nFwd = fwd.params().size();
    fwd.bind(java.util.Arrays.copyOfRange(params, 0, nFwd), java.util.Arrays.copyOfRange(grads, 0, nFwd));
    bwd.bind(java.util.Arrays.copyOfRange(params, nFwd, params.length),
        java.util.Arrays.copyOfRange(grads, nFwd, grads.length));
  }

  @Override
  public void setSequenceLengths(Tensor lengths) {
    fwd.setSequenceLengths(lengths);
    bwd.setSequenceLengths(lengths);
  }

  @Override
  public void setRnnState(RnnState m) {
    if (m != RnnState.ZERO) {
      throw new UnsupportedOperationException("Bidirectional layers read whole sequences: no rnnTimeStep or truncated BPTT");
    }
  }

  @Override
  public Tensor forward(Tensor x, boolean training) {
    yf = fwd.forward(x, training);
    yb = bwd.forward(x, training);
    long[] s = yf.shape();
    switch (mode) {
      case CONCAT:
        return Ops.concat(new Tensor[] {yf, yb}, 2, buffer("y", dtype, s[0], s[1], 2 * s[2]));
      case ADD:
        return Ops.add(yf, yb, buffer("y", dtype, s));
      case MUL:
        return Ops.mul(yf, yb, buffer("y", dtype, s));
      case AVERAGE: {
        Tensor y = Ops.add(yf, yb, buffer("y", dtype, s));
        return Ops.mul(y, half(), y);
      }
      default:
        throw new IllegalStateException("mode " + mode);
    }
  }

  private Tensor half() {
    if (half == null) {
      half = Tensor.scalar(0.5, dtype);
    }
    return half;
  }

  @Override
  public Tensor backward(Tensor dy, boolean needDx) {
    long[] s = yf.shape();
    Tensor dyf;
    Tensor dyb;
    switch (mode) {
      case CONCAT:
        dyf = view2("dyf", dy, 0, s[2]);
        dyb = view2("dyb", dy, s[2], 2 * s[2]);
        break;
      case ADD:
        dyf = dyb = dy;
        break;
      case MUL:
        dyf = Ops.mul(dy, yb, buffer("dyf", dtype, s));
        dyb = Ops.mul(dy, yf, buffer("dyb", dtype, s));
        break;
      case AVERAGE:
        dyf = dyb = Ops.mul(dy, half(), buffer("dyf", dtype, s));
        break;
      default:
        throw new IllegalStateException("mode " + mode);
    }
    Tensor dxf = fwd.backward(dyf, true);
    Tensor dxb = bwd.backward(dyb, true);
    return needDx ? Ops.add(dxf, dxb, buffer("dx", dtype, dxf.shape())) : null;
  }

  /** dy[:, :, from:to] as a view, cached while dy stays the same tensor. */
  private Tensor view2(String key, Tensor dy, long from, long to) {
    Cached c = sliceCache.get(key);
    if (c != null && c.source == dy) {
      return c.view;
    }
    if (c != null) {
      c.view.close();
    }
    Tensor v = dy.slice(2, from, to);
    sliceCache.put(key, new Cached(dy, v));
    return v;
  }

  private static final class Cached {
    final Tensor source;
    final Tensor view;

    Cached(Tensor source, Tensor view) {
      this.source = source;
      this.view = view;
    }
  }

  private final java.util.Map<String, Cached> sliceCache = new java.util.HashMap<>();

  @Override
  public void close() {
    for (Cached c : sliceCache.values()) {
      c.view.close();
    }
    sliceCache.clear();
    if (half != null) {
      half.close();
      half = null;
    }
    fwd.close();
    bwd.close();
    super.close();
  }
}
