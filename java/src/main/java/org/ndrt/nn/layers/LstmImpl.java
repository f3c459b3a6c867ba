package org.ndrt.nn.layers;

import java.util.ArrayList;
import java.util.List;
import org.ndrt.DType;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.nn.conf.layers.LSTM;

/**
 * LSTM through the runtime's lstm / lstm_bp ops. The parameters keep Deeplearning4j's layout (W
 * [nIn, 4H], RW [H, 4H], b [4H], column blocks: block input, forget, output, input gate); each
 * forward pass assembles the op's PyTorch layout (w_ih [4H, nIn], w_hh [4H, H], b_ih [4H], gate
 * blocks i, f, g, o; b_hh = 0) with one concat per array, and each backward writes the gradients
 * back in Deeplearning4j's layout the same way.
 */
final class LstmImpl extends RecurrentImpl {
  /** For torch's gate block j (i, f, g, o): Deeplearning4j's block (block input 0, forget 1, output 2, input 3). */
  private static final int[] DL4J_BLOCK_OF_TORCH = {3, 1, 0, 2};
  /** For Deeplearning4j's block k: torch's gate block. */
  private static final int[] TORCH_BLOCK_OF_DL4J = {2, 1, 3, 0};

  private final double forgetBias;
  private final List<Tensor> views = new ArrayList<>();
  private Tensor[] wihParts;
  private Tensor[] whhParts;
  private Tensor[] bihParts;
  private Tensor[] dwParts;
  private Tensor[] drwParts;
  private Tensor[] dbParts;
  private Tensor wih;
  private Tensor whh;
  private Tensor bih;
  private Tensor bhh;
  private Tensor dwih;
  private Tensor dwhh;
  private Tensor dbih;
  private Tensor dbhh;
  private Tensor ws;

  LstmImpl(LSTM conf, boolean reverse, DType dtype) {
    super(conf.nIn(), conf.nOut(), reverse, 2, dtype);
    this.forgetBias = conf.forgetGateBiasInit();
  }

  @Override
  public List<ParamSpec> params() {
    return List.of(ParamSpec.weight("W", h, nIn + h, nIn, 4 * h), ParamSpec.weight("RW", h, nIn + h, h, 4 * h),
        ParamSpec.biasBlocks("b", new double[] {0, forgetBias, 0, 0}, 4 * h));
  }

  @Override
  public void bind(Tensor[] params, Tensor[] grads) {
    super.bind(params, grads);
    wih = buffer("wih", dtype, 4 * h, nIn);
    whh = buffer("whh", dtype, 4 * h, h);
    bih = buffer("bih", dtype, 4 * h);
    bhh = buffer("bhh", dtype, 4 * h).fill(0);
    dwih = buffer("dwih", dtype, 4 * h, nIn);
    dwhh = buffer("dwhh", dtype, 4 * h, h);
    dbih = buffer("dbih", dtype, 4 * h);
    dbhh = buffer("dbhh", dtype, 4 * h);
    wihParts = new Tensor[4];
    whhParts = new Tensor[4];
    bihParts = new Tensor[4];
    dwParts = new Tensor[4];
    drwParts = new Tensor[4];
    dbParts = new Tensor[4];
    for (int j = 0; j < 4; ++j) {
      int k = DL4J_BLOCK_OF_TORCH[j];
      wihParts[j] = columnBlockT(p[0], k);
      whhParts[j] = columnBlockT(p[1], k);
      bihParts[j] = keep(p[2].slice(0, k * h, (k + 1) * h));
      int jt = TORCH_BLOCK_OF_DL4J[j];  // here j runs over Deeplearning4j's blocks
      dwParts[j] = rowBlockT(dwih, jt);
      drwParts[j] = rowBlockT(dwhh, jt);
      dbParts[j] = keep(dbih.slice(0, jt * h, (jt + 1) * h));
    }
  }

  /** Column block k of a [rows, 4H] matrix, transposed: [H, rows] (a view). */
  private Tensor columnBlockT(Tensor m, int k) {
    try (Tensor s = m.slice(1, k * h, (k + 1) * h)) {
      return keep(s.transpose(0, 1));
    }
  }

  /** Row block j of a [4H, cols] matrix, transposed: [cols, H] (a view). */
  private Tensor rowBlockT(Tensor m, int j) {
    try (Tensor s = m.slice(0, j * h, (j + 1) * h)) {
      return keep(s.transpose(0, 1));
    }
  }

  private Tensor keep(Tensor v) {
    views.add(v);
    return v;
  }

  @Override
  protected void run() {
    Ops.concat(wihParts, 0, wih);
    Ops.concat(whhParts, 0, whh);
    Ops.concat(bihParts, 0, bih);
    ws = buffer("ws", wsType(), y.shape()[0], y.shape()[1], 5 * h);
    Ops.lstm(x, wih, whh, bih, bhh, h0[0], h0[1], lens, reverse, false, y, hN[0], hN[1], ws);
  }

  @Override
  public Tensor backward(Tensor dy, boolean needDx) {
    long n = y.shape()[0];
    Tensor dx = buffer("dx", dtype, n, y.shape()[1], nIn);
    Ops.lstmBp(x, wih, whh, bih, bhh, h0[0], h0[1], lens, y, ws, dy, zeroState("dhn"), zeroState("dcn"), reverse, false,
        dx, dwih, dwhh, dbih, dbhh, buffer("dh0", dtype, n, h), buffer("dc0", dtype, n, h));
    Ops.concat(dwParts, 1, g[0]);
    Ops.concat(drwParts, 1, g[1]);
    Ops.concat(dbParts, 0, g[2]);
    return needDx ? dx : null;
  }

  @Override
  public void close() {
    for (Tensor v : views) {
      v.close();
    }
    views.clear();
    super.close();
  }
}
