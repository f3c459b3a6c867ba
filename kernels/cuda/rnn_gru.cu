// GRU on cuda: gru and gru_bp (the design, lengths and size-0 rules are described at the top of
// rnn.cu; the algorithm is the CPU's, kernels/cpu/rnn_gru.cpp).
//   r = sigmoid(x W_ir^T + b_ir + h W_hr^T + b_hr), z = sigmoid(x W_iz^T + b_iz + h W_hz^T + b_hz),
//   n = tanh(x W_in^T + b_in + r * (h W_hn^T + b_hn)), h' = (1 - z) * n + z * h   (torch.nn.GRU).
#include "rnn.cuh"

namespace ndrt::cuda::rnn {

namespace {

// One forward step at time t over the (b, j) pairs: ws rows hold x W_ih^T, hh [B, 3H] h W_hh^T.
template <class A>
__global__ void gru_step(Seq s, int64_t t, A* ws, A* y, A* h, const A* hh, const A* bi, const A* bh,
                         const int64_t* len) {
  const int64_t H = s.H, G = 3 * H, W = 4 * H, n = s.B * H;
  for (int64_t q = first_index(); q < n; q += grid_step()) {
    const int64_t b = q / H, j = q - b * H, r = s.row(t, b);
    A* g = ws + r * W;
    if (t >= len[b]) {
      g[j] = g[H + j] = g[2 * H + j] = g[3 * H + j] = A(0);
      y[r * H + j] = A(0);
      continue;
    }
    const A* qh = hh + b * G;
    const A rg = sigmoid_of(g[j] + (bi[j] + qh[j] + bh[j]));
    const A zg = sigmoid_of(g[H + j] + (bi[H + j] + qh[H + j] + bh[H + j]));
    const A hn = qh[2 * H + j] + bh[2 * H + j];
    const A ng = tanh(g[2 * H + j] + (bi[2 * H + j] + rg * hn));
    g[j] = rg;
    g[H + j] = zg;
    g[2 * H + j] = ng;
    g[3 * H + j] = hn;
    const A hnew = (A(1) - zg) * ng + zg * h[b * H + j];
    h[b * H + j] = hnew;
    y[r * H + j] = hnew;
  }
}

// One backward step at time t: dGi / dGh [R, 3H] (gradients of the input-side pre-activations r, z,
// W_in x + b_in and of the hidden-side ones r, z, W_hn h + b_hn) and Hp [R, H] of the step's rows;
// dh [B, H] carried (set to dh * z for the GEMM that follows).
template <class A>
__global__ void gru_bp_step(Seq s, int64_t t, const A* ws, const A* y, const A* h0, const A* dy, const int64_t* len,
                            A* dGi, A* dGh, A* Hp, A* dh) {
  const int64_t H = s.H, G = 3 * H, W = 4 * H, n = s.B * H;
  for (int64_t q = first_index(); q < n; q += grid_step()) {
    const int64_t b = q / H, j = q - b * H, r = s.row(t, b), L = len[b];
    A* di = dGi + r * G;
    A* dg = dGh + r * G;
    if (t >= L) {
      di[j] = di[H + j] = di[2 * H + j] = A(0);
      dg[j] = dg[H + j] = dg[2 * H + j] = A(0);
      Hp[r * H + j] = A(0);
      continue;
    }
    const A* w = ws + r * W;
    const A hv = s.first(t, L) ? h0[b * H + j] : y[s.prev_row(t, b) * H + j];
    const A rg = w[j], z = w[H + j], ng = w[2 * H + j], hn = w[3 * H + j];
    const A dht = dh[b * H + j] + dy[r * H + j];
    const A dan = dht * (A(1) - z) * (A(1) - ng * ng);
    const A dar = dan * hn * rg * (A(1) - rg);
    const A daz = dht * (hv - ng) * z * (A(1) - z);
    di[j] = dg[j] = dar;
    di[H + j] = dg[H + j] = daz;
    di[2 * H + j] = dan;
    dg[2 * H + j] = dan * rg;
    dh[b * H + j] = dht * z;  // the GEMM after this kernel adds dG_h,t @ W_hh
    Hp[r * H + j] = hv;
  }
}

// Inputs x, w_ih, w_hh, b_ih, b_hh, h0, lengths; outputs y, h_n, ws.
template <class T>
void gru_run(OpContext& c) {
  using A = compute_t<T>;
  const Seq s = make_seq(c);
  const int64_t B = s.B, I = s.I, H = s.H, G = 3 * H, W = 4 * H, R = s.rows();
  DenseOut<T, A> y(c, *c.out[0]), hn(c, *c.out[1]);
  DenseOut<A, A> ws(c, *c.out[2]);
  {
    std::optional<Scratch> kh;
    copy_dense(c, hn.p, dense_in<T, A>(c, *c.in[5], kh), B * H);
  }
  if (R > 0 && H > 0) {
    std::optional<Scratch> kx, kwi, kwh, kbi, kbh, kl;
    const A* xp = dense_in<T, A>(c, *c.in[0], kx);
    const A* wip = dense_in<T, A>(c, *c.in[1], kwi);
    const A* whp = dense_in<T, A>(c, *c.in[2], kwh);
    const A* bip = dense_in<T, A>(c, *c.in[3], kbi);
    const A* bhp = dense_in<T, A>(c, *c.in[4], kbh);
    const int64_t* len = read_lengths(c, *c.in[6], s.T, kl);
    Scratch hh(c.device, size_t(B * G) * sizeof(A));  // h @ W_hh^T of one step
    const Blas<A> blas(c);
    blas.gemm(false, true, R, G, I, xp, I, wip, I, A(0), ws.p, W);  // all steps
    const Launch l = step_launch(s);
    cudaStream_t st = stream(c);
    for (int64_t step = 0; step < s.T; ++step) {
      const int64_t t = s.time_of(step);
      blas.gemm(false, true, B, G, H, hn.p, H, whp, H, A(0), hh.as<A>(), G);
      gru_step<A><<<l.grid, l.block, 0, st>>>(s, t, ws.p, y.p, hn.p, hh.as<A>(), bip, bhp, len);
      check_launch("gru");
    }
  }  // else y and ws are empty
  y.finish();
  hn.finish();
  ws.finish();
}

// Inputs x, w_ih, w_hh, b_ih, b_hh, h0, lengths, y, ws, dy, dh_n; outputs dx, dw_ih, dw_hh, db_ih,
// db_hh, dh0.
template <class T>
void gru_bp_run(OpContext& c) {
  using A = compute_t<T>;
  const Seq s = make_seq(c);
  const int64_t B = s.B, I = s.I, H = s.H, G = 3 * H, R = s.rows();
  DenseOut<T, A> dx(c, *c.out[0]), dwi(c, *c.out[1]), dwh(c, *c.out[2]), dbi(c, *c.out[3]), dbh(c, *c.out[4]),
      dh(c, *c.out[5]);
  {
    std::optional<Scratch> kh;
    copy_dense(c, dh.p, dense_in<T, A>(c, *c.in[10], kh), B * H);
  }
  std::optional<Scratch> kGi, kGh, kHp;
  if (R * G > 0) {
    kGi.emplace(c.device, size_t(R * G) * sizeof(A));
    kGh.emplace(c.device, size_t(R * G) * sizeof(A));
    kHp.emplace(c.device, size_t(R * H) * sizeof(A));
  }
  A* dGi = kGi ? kGi->as<A>() : nullptr;
  A* dGh = kGh ? kGh->as<A>() : nullptr;
  A* Hp = kHp ? kHp->as<A>() : nullptr;
  const Blas<A> blas(c);
  if (R > 0 && H > 0) {
    std::optional<Scratch> kwh, kh0, ky, kws, kdy, kl;
    const A* whp = dense_in<T, A>(c, *c.in[2], kwh);
    const A* h0 = dense_in<T, A>(c, *c.in[5], kh0);
    const int64_t* len = read_lengths(c, *c.in[6], s.T, kl);
    const A* yp = dense_in<T, A>(c, *c.in[7], ky);
    const A* wsp = dense_in<A, A>(c, *c.in[8], kws);
    const A* dyp = dense_in<T, A>(c, *c.in[9], kdy);
    const int64_t ldg = s.bstride() * G;
    const Launch l = step_launch(s);
    cudaStream_t st = stream(c);
    for (int64_t step = s.T - 1; step >= 0; --step) {
      const int64_t t = s.time_of(step);
      gru_bp_step<A><<<l.grid, l.block, 0, st>>>(s, t, wsp, yp, h0, dyp, len, dGi, dGh, Hp, dh.p);
      check_launch("gru_bp");
      blas.gemm(false, false, B, H, G, dGh + s.row(t, 0) * G, ldg, whp, H, A(1), dh.p, H);
    }
  }
  all_step_grads<T, A>(c, blas, R, I, H, G, dGi, dGh, Hp, dx.p, dwi.p, dwh.p, dbi.p, dbh.p);
  dx.finish();
  dwi.finish();
  dwh.finish();
  dbi.finish();
  dbh.finish();
  dh.finish();
}

void gru_fn(OpContext& c) {
  c.impl = "cublas+fused-step";
  visit<NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16>(c.in[0]->dtype, "gru", [&](auto t) { gru_run<decltype(t)>(c); });
}
void gru_bp_fn(OpContext& c) {
  c.impl = "cublas+fused-step";
  visit<NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16>(c.in[0]->dtype, "gru_bp",
                                                  [&](auto t) { gru_bp_run<decltype(t)>(c); });
}

}  // namespace

void register_cuda_gru() {
  const std::initializer_list<ndrt_dtype> floats = {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16};
  reg("gru", floats, gru_fn, "cublas+fused-step");
  reg("gru_bp", floats, gru_bp_fn, "cublas+fused-step");
}

}  // namespace ndrt::cuda::rnn
