package org.ndrt.nn.layers;

import java.util.List;
import org.ndrt.DType;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.nn.conf.layers.GRU;

/**
 * GRU through the runtime's gru / gru_bp ops. Parameters W [nIn, 3H], RW [H, 3H], b [3H], RB [3H]
 * (blocks r, z, n); the ops take the transposed views of W and RW (w_ih [3H, nIn], w_hh [3H, H]) and
 * write the weight gradients through transposed views of the gradient arrays.
 */
final class GruImpl extends RecurrentImpl {
  private Tensor wT;
  private Tensor rwT;
  private Tensor dwT;
  private Tensor drwT;
  private Tensor ws;

  GruImpl(GRU conf, boolean reverse, DType dtype) {
    super(conf.nIn(), conf.nOut(), reverse, 1, dtype);
  }

  @Override
  public List<ParamSpec> params() {
    return List.of(ParamSpec.weight("W", h, nIn + h, nIn, 3 * h), ParamSpec.weight("RW", h, nIn + h, h, 3 * h),
        ParamSpec.bias("b", 0, false, 3 * h), ParamSpec.bias("RB", 0, false, 3 * h));
  }

  @Override
  public void bind(Tensor[] params, Tensor[] grads) {
    super.bind(params, grads);
    closeViews();
    wT = p[0].transpose(0, 1);
    rwT = p[1].transpose(0, 1);
    dwT = g[0].transpose(0, 1);
    drwT = g[1].transpose(0, 1);
  }

  @Override
  protected void run() {
    ws = buffer("ws", wsType(), y.shape()[0], y.shape()[1], 4 * h);
    Ops.gru(x, wT, rwT, p[2], p[3], h0[0], lens, reverse, false, y, hN[0], ws);
  }

  @Override
  public Tensor backward(Tensor dy, boolean needDx) {
    long n = y.shape()[0];
    Tensor dx = buffer("dx", dtype, n, y.shape()[1], nIn);
    Ops.gruBp(x, wT, rwT, p[2], p[3], h0[0], lens, y, ws, dy, zeroState("dhn"), reverse, false, dx, dwT, drwT, g[2], g[3],
        buffer("dh0", dtype, n, h));
    return needDx ? dx : null;
  }

  private void closeViews() {
    for (Tensor v : new Tensor[] {wT, rwT, dwT, drwT}) {
      if (v != null) {
        v.close();
      }
    }
  }

  @Override
  public void close() {
    closeViews();
    wT = rwT = dwT = drwT = null;
    super.close();
  }
}
