package org.ndrt.nn.layers;

import java.util.List;
import org.ndrt.DType;
import org.ndrt.Ops;
import org.ndrt.Tensor;

/**
 * The wrapped layer's output at each sequence's last valid step: a gather of rows b * T + len_b - 1
 * from its [N * T, F] output (len_b = T without a mask; a length of 0 picks step 0, which the op
 * leaves at 0); backward scatters the gradient into zeros at the same rows (gather_bp).
 */
final class LastTimeStepImpl extends LayerImpl {
  /** Wraps a recurrent layer, which keeps its states in its buffers between passes. */
  @Override
  public boolean releasableBetweenPasses() {
    return false;
  }

  private final LayerImpl inner;
  private Tensor lengths;
  private Tensor rows;
  private Tensor idx;
  private long n;
  private long t;
  private long f;

  LastTimeStepImpl(LayerImpl inner, DType dtype) {
    super(dtype);
    this.inner = inner;
  }

  @Override
  public List<ParamSpec> params() {
    return inner.params();
  }

  @Override
  public void bind(Tensor[] params, Tensor[] grads) {
    super.bind(params, grads);
    inner.bind(params, grads);
  }

  @Override
  public void setSequenceLengths(Tensor lengths) {
    this.lengths = lengths;
    inner.setSequenceLengths(lengths);
  }

  @Override
  public void setRnnState(RnnState mode) {
    inner.setRnnState(mode);
  }

  @Override
  public void clearStoredState() {
    inner.clearStoredState();
  }

  @Override
  public Tensor forward(Tensor x, boolean training) {
    Tensor y = inner.forward(x, training);
    long[] s = y.shape();
    n = s[0];
    t = s[1];
    f = s[2];
    long[] len = lengths != null ? lengths.toLongArray() : null;
    long[] at = new long[(int) n];
    for (int b = 0; b < n; ++b) {
      long l = len != null ? len[b] : t;
      at[b] = b * t + Math.max(l - 1, 0);
    }
    idx = buffer("idx", DType.I64, n).copyFrom(at);
    rows = view("rows", y, n * t, f);
    return Ops.gather(rows, idx, 0, buffer("y", dtype, n, f));
  }

  @Override
  public Tensor backward(Tensor dy, boolean needDx) {
    Tensor dRows = Ops.gatherBp(rows, idx, dy, 0, buffer("dyseq", dtype, n * t, f));
    return inner.backward(view("dyseq3", dRows, n, t, f), needDx);
  }

  @Override
  public void close() {
    inner.close();
    super.close();
  }
}
