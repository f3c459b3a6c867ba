// Recurrent layers on cuda: lstm, lstm_bp (here) and gru, gru_bp (rnn_gru.cu); shared pieces in
// rnn.cuh. Op definitions and the user-facing contract are in runtime/ops/rnn.cpp; the algorithm
// mirrors the CPU kernels (kernels/cpu/rnn.cpp, rnn_gru.cpp) step for step, so the numbers agree
// up to float ordering (cuBLAS vs OpenBLAS sums, CUDA's expf / tanhf vs the CPU's vector forms).
//
// Design
//  - Every sequence buffer is a dense [B*T, f] matrix in x's major order (rnn.cuh, Seq::row); one
//    time step's B rows form a strided matrix that cuBLAS reads and writes in place. Strided
//    inputs are packed into stream-ordered scratch first; strided outputs are computed in scratch
//    and copied out at the end.
//  - Forward: the input projection of ALL steps is one GEMM X [B*T, I] @ W_ih^T written straight
//    into the workspace (LSTM: ws columns 0..4H of [.., 5H]; GRU: columns 0..3H of [.., 4H]). Per
//    step, on this thread's stream: one GEMM h @ W_hh^T (LSTM: accumulated onto the step's ws rows
//    with beta = 1; GRU: into a [B, 3H] scratch, the n gate needs W_hn h + b_hn on its own), then
//    ONE fused kernel over the step's [B, H] (biases, gate activations, state update, y, ws).
//    Invalid steps (t >= lengths[b]) write zeros into y and ws and leave the state alone. The state
//    (h, c) lives in the h_n / c_n output buffers, initialised from h0 / c0.
//  - Backward (full BPTT): steps in the reverse processing order; per step ONE fused kernel writes
//    the step's gate gradients (dh = carried dh + dy_t) into [B*T, kH] scratch and gathers each
//    row's previous hidden state (h0 or y of the previous step) into [B*T, H]; then one GEMM adds
//    dG_t @ W_hh to the carried dh (which lives in the dh0 output buffer). At the end dx, dW_ih and
//    dW_hh are one GEMM each over all steps, and the bias gradients are column sums in f64
//    (chan::channel_sums, deterministic).
//  - f32 and f64 natively (cuBLAS, f64 in f64; f32 in f32, or TF32 when cuda.matmul.allow_tf32 =
//    1). f16 and bf16 convert their float inputs to f32 scratch, run the f32 path (ws is then f32,
//    the compute dtype, as on the CPU) and round each output once.
//  - Lengths are read on the device (i32 or i64, any stride). The CPU fails on a length outside
//    [0, T] with NDRT_ERR_INVALID_ARGUMENT; a kernel cannot report that without a host
//    synchronisation, which kernels must not do (as kernels/cuda/layout_index.cu for bad
//    indices), so here such lengths are NOT reported: a length > T is taken as T (every step
//    valid) and a length < 0 as 0 (no step valid). No memory outside the tensors is touched.
//  - Sizes of 0 (B, T, I or H) launch no kernel with an empty grid and call cuBLAS with no zero
//    dimension (rnn.cuh, Blas::gemm): the outputs get what the CPU gives (h_n = h0, zero
//    gradients, empty y / ws).
#include "rnn.cuh"

namespace ndrt::cuda {

namespace rnn {

namespace {

// One forward step at time t over the (b, j) pairs: ws rows hold x W_ih^T + h W_hh^T for the step.
template <class A>
__global__ void lstm_step(Seq s, int64_t t, A* ws, A* y, A* h, A* cs, const A* bi, const A* bh, const int64_t* len) {
  const int64_t H = s.H, W = 5 * H, n = s.B * H;
  for (int64_t q = first_index(); q < n; q += grid_step()) {
    const int64_t b = q / H, j = q - b * H, r = s.row(t, b);
    A* g = ws + r * W;
    if (t >= len[b]) {
      g[j] = g[H + j] = g[2 * H + j] = g[3 * H + j] = g[4 * H + j] = A(0);
      y[r * H + j] = A(0);
      continue;
    }
    // The CPU adds b_ih + b_hh (summed first) to the GEMM's sum.
    const A ig = sigmoid_of(g[j] + (bi[j] + bh[j]));
    const A fg = sigmoid_of(g[H + j] + (bi[H + j] + bh[H + j]));
    const A gg = tanh(g[2 * H + j] + (bi[2 * H + j] + bh[2 * H + j]));
    const A og = sigmoid_of(g[3 * H + j] + (bi[3 * H + j] + bh[3 * H + j]));
    const A cn = fg * cs[b * H + j] + ig * gg;
    g[j] = ig;
    g[H + j] = fg;
    g[2 * H + j] = gg;
    g[3 * H + j] = og;
    g[4 * H + j] = cn;
    cs[b * H + j] = cn;
    const A hn = og * tanh(cn);
    h[b * H + j] = hn;
    y[r * H + j] = hn;
  }
}

// One backward step at time t: gate gradients dG [R, 4H] and the previous hidden state Hp [R, H]
// of the step's rows; dh, dc [B, H] carried (dh zeroed for the GEMM that follows).
template <class A>
__global__ void lstm_bp_step(Seq s, int64_t t, const A* ws, const A* y, const A* h0, const A* c0, const A* dy,
                             const int64_t* len, A* dG, A* Hp, A* dh, A* dc) {
  const int64_t H = s.H, G = 4 * H, W = 5 * H, n = s.B * H;
  for (int64_t q = first_index(); q < n; q += grid_step()) {
    const int64_t b = q / H, j = q - b * H, r = s.row(t, b), L = len[b];
    A* d = dG + r * G;
    if (t >= L) {
      d[j] = d[H + j] = d[2 * H + j] = d[3 * H + j] = A(0);
      Hp[r * H + j] = A(0);
      continue;
    }
    const bool first = s.first(t, L);
    const int64_t pr = first ? 0 : s.prev_row(t, b);
    const A* w = ws + r * W;
    const A cprev = first ? c0[b * H + j] : ws[pr * W + 4 * H + j];
    const A hsrc = first ? h0[b * H + j] : y[pr * H + j];
    const A i = w[j], f = w[H + j], g = w[2 * H + j], o = w[3 * H + j], tc = tanh(w[4 * H + j]);
    const A dht = dh[b * H + j] + dy[r * H + j];
    const A dct = dc[b * H + j] + dht * o * (A(1) - tc * tc);
    d[j] = dct * g * i * (A(1) - i);
    d[H + j] = dct * cprev * f * (A(1) - f);
    d[2 * H + j] = dct * i * (A(1) - g * g);
    d[3 * H + j] = dht * tc * o * (A(1) - o);
    dc[b * H + j] = dct * f;
    dh[b * H + j] = A(0);  // the GEMM after this kernel adds dG_t @ W_hh
    Hp[r * H + j] = hsrc;
  }
}

// Inputs x, w_ih, w_hh, b_ih, b_hh, h0, c0, lengths; outputs y, h_n, c_n, ws.
template <class T>
void lstm_run(OpContext& c) {
  using A = compute_t<T>;
  const Seq s = make_seq(c);
  const int64_t B = s.B, I = s.I, H = s.H, G = 4 * H, W = 5 * H, R = s.rows();
  DenseOut<T, A> y(c, *c.out[0]), hn(c, *c.out[1]), cn(c, *c.out[2]);
  DenseOut<A, A> ws(c, *c.out[3]);
  {
    std::optional<Scratch> kh, kc;
    copy_dense(c, hn.p, dense_in<T, A>(c, *c.in[5], kh), B * H);
    copy_dense(c, cn.p, dense_in<T, A>(c, *c.in[6], kc), B * H);
  }
  if (R > 0 && H > 0) {
    std::optional<Scratch> kx, kwi, kwh, kbi, kbh, kl;
    const A* xp = dense_in<T, A>(c, *c.in[0], kx);
    const A* wip = dense_in<T, A>(c, *c.in[1], kwi);
    const A* whp = dense_in<T, A>(c, *c.in[2], kwh);
    const A* bip = dense_in<T, A>(c, *c.in[3], kbi);
    const A* bhp = dense_in<T, A>(c, *c.in[4], kbh);
    const int64_t* len = read_lengths(c, *c.in[7], s.T, kl);
    const Blas<A> blas(c);
    blas.gemm(false, true, R, G, I, xp, I, wip, I, A(0), ws.p, W);  // all steps
    const int64_t lda = s.bstride() * W;
    const Launch l = step_launch(s);
    cudaStream_t st = stream(c);
    for (int64_t step = 0; step < s.T; ++step) {
      const int64_t t = s.time_of(step);
      blas.gemm(false, true, B, G, H, hn.p, H, whp, H, A(1), ws.p + s.row(t, 0) * W, lda);
      lstm_step<A><<<l.grid, l.block, 0, st>>>(s, t, ws.p, y.p, hn.p, cn.p, bip, bhp, len);
      check_launch("lstm");
    }
  }  // else y and ws are empty
  y.finish();
  hn.finish();
  cn.finish();
  ws.finish();
}

// Inputs x, w_ih, w_hh, b_ih, b_hh, h0, c0, lengths, y, ws, dy, dh_n, dc_n; outputs dx, dw_ih,
// dw_hh, db_ih, db_hh, dh0, dc0.
template <class T>
void lstm_bp_run(OpContext& c) {
  using A = compute_t<T>;
  const Seq s = make_seq(c);
  const int64_t B = s.B, I = s.I, H = s.H, G = 4 * H, R = s.rows();
  DenseOut<T, A> dx(c, *c.out[0]), dwi(c, *c.out[1]), dwh(c, *c.out[2]), dbi(c, *c.out[3]), dbh(c, *c.out[4]),
      dh(c, *c.out[5]), dc(c, *c.out[6]);
  {
    std::optional<Scratch> kh, kc;
    copy_dense(c, dh.p, dense_in<T, A>(c, *c.in[11], kh), B * H);
    copy_dense(c, dc.p, dense_in<T, A>(c, *c.in[12], kc), B * H);
  }
  std::optional<Scratch> kG, kHp;
  if (R * G > 0) {
    kG.emplace(c.device, size_t(R * G) * sizeof(A));
    kHp.emplace(c.device, size_t(R * H) * sizeof(A));
  }
  A* dG = kG ? kG->as<A>() : nullptr;
  A* Hp = kHp ? kHp->as<A>() : nullptr;
  const Blas<A> blas(c);
  if (R > 0 && H > 0) {
    std::optional<Scratch> kwh, kh0, kc0, ky, kws, kdy, kl;
    const A* whp = dense_in<T, A>(c, *c.in[2], kwh);
    const A* h0 = dense_in<T, A>(c, *c.in[5], kh0);
    const A* c0 = dense_in<T, A>(c, *c.in[6], kc0);
    const int64_t* len = read_lengths(c, *c.in[7], s.T, kl);
    const A* yp = dense_in<T, A>(c, *c.in[8], ky);
    const A* wsp = dense_in<A, A>(c, *c.in[9], kws);
    const A* dyp = dense_in<T, A>(c, *c.in[10], kdy);
    const int64_t ldg = s.bstride() * G;
    const Launch l = step_launch(s);
    cudaStream_t st = stream(c);
    for (int64_t step = s.T - 1; step >= 0; --step) {
      const int64_t t = s.time_of(step);
      lstm_bp_step<A><<<l.grid, l.block, 0, st>>>(s, t, wsp, yp, h0, c0, dyp, len, dG, Hp, dh.p, dc.p);
      check_launch("lstm_bp");
      blas.gemm(false, false, B, H, G, dG + s.row(t, 0) * G, ldg, whp, H, A(1), dh.p, H);
    }
  }
  all_step_grads<T, A>(c, blas, R, I, H, G, dG, dG, Hp, dx.p, dwi.p, dwh.p, dbi.p, dbh.p);  // no rows: zeros
  dx.finish();
  dwi.finish();
  dwh.finish();
  dbi.finish();
  dbh.finish();
  dh.finish();
  dc.finish();
}

void lstm_fn(OpContext& c) {
  c.impl = "cublas+fused-step";
  visit<NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16>(c.in[0]->dtype, "lstm", [&](auto t) { lstm_run<decltype(t)>(c); });
}
void lstm_bp_fn(OpContext& c) {
  c.impl = "cublas+fused-step";
  visit<NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16>(c.in[0]->dtype, "lstm_bp",
                                                  [&](auto t) { lstm_bp_run<decltype(t)>(c); });
}

}  // namespace

}  // namespace rnn

void register_cuda_rnn() {
  const std::initializer_list<ndrt_dtype> floats = {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16};
  reg("lstm", floats, rnn::lstm_fn, "cublas+fused-step");
  reg("lstm_bp", floats, rnn::lstm_bp_fn, "cublas+fused-step");
  rnn::register_cuda_gru();
}

}  // namespace ndrt::cuda
