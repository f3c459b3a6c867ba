package org.ndrt.nn.layers;

import org.ndrt.DType;
import org.ndrt.Ops;
import org.ndrt.Tensor;

/**
 * The compute side shared by LSTM and GRU: sequences come in as [N, T, nIn] (the network passes
 * Deeplearning4j's [N, nIn, T] arrays as permuted views; the ops copy strided inputs themselves) and
 * go out as dense [N, T, nOut] buffers. Keeps the valid lengths of the current minibatch and the
 * initial state (zeros, the previous forward's final state for truncated BPTT, or the state
 * rnnTimeStep stored).
 */
abstract class RecurrentImpl extends LayerImpl {
  /** Keeps the stored and previous states in its buffers between passes. */
  @Override
  public boolean releasableBetweenPasses() {
    return false;
  }

  protected final long nIn;
  protected final long h;
  protected final boolean reverse;
  private final int nStates;
  private Tensor lengths;
  private RnnState mode = RnnState.ZERO;
  private boolean hasPrevious;
  private boolean hasStored;
  private Tensor filledLengths;  // the full-length buffer, and the T it holds
  private long filledT = -1;
  /** Per forward: the input, the lengths used, the initial and final states, the output. */
  protected Tensor x;
  protected Tensor lens;
  protected final Tensor[] h0;
  protected final Tensor[] hN;
  protected Tensor y;

  RecurrentImpl(long nIn, long nOut, boolean reverse, int nStates, DType dtype) {
    super(dtype);
    this.nIn = nIn;
    this.h = nOut;
    this.reverse = reverse;
    this.nStates = nStates;
    this.h0 = new Tensor[nStates];
    this.hN = new Tensor[nStates];
  }

  /** The workspace dtype of the ops: f64 for f64, else f32. */
  protected DType wsType() {
    return dtype == DType.F64 ? DType.F64 : DType.F32;
  }

  @Override
  public void setSequenceLengths(Tensor lengths) {
    this.lengths = lengths;
  }

  @Override
  public void setRnnState(RnnState mode) {
    this.mode = mode;
  }

  @Override
  public void clearStoredState() {
    hasStored = false;
  }

  @Override
  public Tensor forward(Tensor in, boolean training) {
    long[] s = in.shape();
    if (s.length != 3 || s[2] != nIn) {
      throw new IllegalArgumentException(getClass().getSimpleName() + ": input has shape " + java.util.Arrays.toString(s)
          + " (as [N, T, features]), expected [N, T, " + nIn + "]");
    }
    long n = s[0];
    long t = s[1];
    lens = lengths != null ? lengths : fullLengths(n, t);
    for (int k = 0; k < nStates; ++k) {
      Tensor init = buffer("h0_" + k, dtype, n, h);
      if (mode == RnnState.PREVIOUS && hasPrevious && hN[k] != null && hN[k].shape()[0] == n) {
        Ops.copy(hN[k], init);
      } else if (mode == RnnState.STORED && hasStored) {
        Tensor st = buffer("stored_" + k, dtype, storedBatch, h);
        if (storedBatch != n) {
          throw new IllegalStateException("rnnTimeStep: the stored state is for " + storedBatch + " sequences, the input has "
              + n + " (call rnnClearPreviousState() to start new sequences)");
        }
        Ops.copy(st, init);
      } else {
        init.fill(0);
      }
      h0[k] = init;
      hN[k] = buffer("hn_" + k, dtype, n, h);
    }
    y = buffer("y", dtype, n, t, h);
    x = in;
    run();
    hasPrevious = true;
    if (mode == RnnState.STORED) {
      storedBatch = n;
      for (int k = 0; k < nStates; ++k) {
        Ops.copy(hN[k], buffer("stored_" + k, dtype, n, h));
      }
      hasStored = true;
    }
    return y;
  }

  private long storedBatch;

  /** [T, ..., T] for a minibatch without a mask (refilled only when N or T changes). */
  private Tensor fullLengths(long n, long t) {
    Tensor l = buffer("fullLengths", DType.I64, n);
    if (l != filledLengths || t != filledT) {
      l.fill(t);
      filledLengths = l;
      filledT = t;
    }
    return l;
  }

  /** Runs the op on x, lens, h0 into y and hN (and the workspace backward needs). */
  protected abstract void run();

  /** A zeroed [N, H] buffer (the final state's incoming gradient: the network uses the outputs only). */
  protected Tensor zeroState(String key) {
    Tensor z = buffer(key, dtype, y.shape()[0], h);
    z.fill(0);
    return z;
  }
}
