// Recurrent layers on cpu: lstm, lstm_bp (here) and gru, gru_bp (rnn_gru.cpp). Op definitions and
// the user-facing contract are in runtime/ops/rnn.cpp.
//
// Design
//  - One layer, one direction per call; `reverse` walks t = T-1 .. 0. Weights in PyTorch's layout
//    and gate order (LSTM i, f, g, o; GRU r, z, n). Row b's valid steps are t < lengths[b] in
//    both directions; invalid steps write y = 0 and zeros into ws and leave the state alone.
//  - Every sequence buffer is a dense [B*T, f] matrix in x's major order (rnn.hpp, Seq::row), so
//    x, y, dy, ws and dx need no transposition whichever time_major says, and one time step's B
//    rows form a strided matrix BLAS reads and writes in place. Strided inputs are copied to dense
//    ones first; strided outputs are computed in a dense buffer and copied out.
//  - Forward: the input projection of ALL steps is one GEMM, X [B*T, I] @ W_ih^T, written straight
//    into the workspace (LSTM: ws columns 0..4H of [.., 5H]; GRU: ws columns 0..3H of [.., 4H]).
//    Per step: one GEMM h @ W_hh^T (LSTM: accumulated onto that step's ws rows with beta = 1;
//    GRU: into a [B, 3H] scratch, since the n gate needs W_hn h + b_hn on its own), then ONE fused
//    pass over the batch (parallel_for over rows) that adds the biases, applies the gate
//    nonlinearities, updates h (and c), writes y, and leaves in ws what the backward needs:
//      LSTM ws [.., .., 5H]: i, f, g, o (activated) and the new cell state c';
//      GRU  ws [.., .., 4H]: r, z, n (activated) and W_hn h + b_hn.
//    The workspace has y's major order: [B, T, kH], or [T, B, kH] with time_major.
//  - Backward (full BPTT): steps in the reverse processing order; per step ONE fused pass computes
//    the gate gradients of the step's rows (dh = dh_carried + dy_t) into a [B*T, kH] buffer and
//    gathers each row's previous hidden state (h0 or y of the previous step) into [B*T, H]; then
//    one GEMM adds dG_t @ W_hh to the carried dh. At the end the weight gradients are one GEMM each
//    over all steps: dx = dG_i @ W_ih, dW_ih = dG_i^T @ X, dW_hh = dG_h^T @ H_prev; the bias
//    gradients are column sums of dG in f64. (GRU: dG_i and dG_h differ in the n block, dG_i
//    holding d(W_in x + b_in), dG_h holding d(W_hn h + b_hn) = r * d(n's pre-activation).)
//  - GEMMs go through the linalg engine (OpenBLAS, tiled over ndrt's pool, OpenBLAS itself held at
//    one thread for the whole call). f32 and f64 kernels; f16 and bf16 convert their float inputs
//    to f32, run the f32 kernel (ws then f32, the compute dtype) and round each output once.
//  - No oneDNN here (a later step may compare its RNN primitives).
#include "rnn.hpp"

#include "error.hpp"
#include "kernels.hpp"
#include "linalg_half.hpp"

namespace ndrt {

namespace rnn {

Seq make_seq(const OpContext& c, int lengths_input, int gates) {
  Seq s;
  s.tm = c.attrs.get_bool(kTimeMajor);
  s.reverse = c.attrs.get_bool(kReverse);
  const Tensor &x = *c.in[0], &L = *c.in[lengths_input];
  s.B = x.shape.d[s.tm ? 1 : 0];
  s.T = x.shape.d[s.tm ? 0 : 1];
  s.I = x.shape.d[2];
  s.H = c.in[2]->shape.d[1];
  s.len.resize(size_t(s.B));
  const int64_t st = L.strides.d[0];
  for (int64_t b = 0; b < s.B; ++b) {
    const int64_t v = L.dtype == NDRT_I32 ? int64_t(L.data<int32_t>()[b * st]) : L.data<int64_t>()[b * st];
    if (v < 0 || v > s.T)
      fail(NDRT_ERR_INVALID_ARGUMENT, "%s: lengths[%lld] = %lld is out of range [0, %lld] (T = %lld)", c.op->name,
           (long long)b, (long long)v, (long long)s.T, (long long)s.T);
    s.len[size_t(b)] = v;
  }
  // Largest leading dimension: a step's rows of ws are T * (gates + 1) * H apart (batch-major).
  linalg::check_blas_sizes(c.op->name, s.rows(), int64_t(gates + 1) * s.H, std::max(s.I, s.T * (gates + 1) * s.H));
  return s;
}

// See rnn.hpp.
void run_via_f32(OpContext& c, KernelFn f32_kernel, const char* impl) {
  Tensor ins[kMaxInputs], outs[kMaxOutputs];
  OpContext c32 = c;
  auto half = [](ndrt_dtype d) { return d == NDRT_F16 || d == NDRT_BF16; };
  for (int i = 0; i < c.n_in; ++i)
    if (half(c.in[i]->dtype)) {
      ins[i] = alloc_tensor(NDRT_F32, c.in[i]->shape, c.device);
      linalg::convert_tensor(ins[i], *c.in[i]);
      c32.in[i] = &ins[i];
    }
  for (int i = 0; i < c.n_out; ++i)
    if (half(c.out[i]->dtype)) {
      outs[i] = alloc_tensor(NDRT_F32, c.out[i]->shape, c.device);
      c32.out[i] = &outs[i];
    }
  c32.key_dtype = NDRT_F32;
  f32_kernel(c32);
  for (int i = 0; i < c.n_out; ++i)
    if (half(c.out[i]->dtype)) linalg::convert_tensor(*c.out[i], outs[i]);
  c.impl = impl;
}

}  // namespace rnn

namespace {

using namespace rnn;

template <class T>
void lstm_kernel(OpContext& c) {
  const Seq s = make_seq(c, 7, 4);
  const Tensor &x = *c.in[0], &w_ih = *c.in[1], &w_hh = *c.in[2];
  const int64_t B = s.B, Tn = s.T, I = s.I, H = s.H, G = 4 * H, W = 5 * H, R = s.rows();
  Tensor hs = fresh_copy<T>(*c.in[5]), cs = fresh_copy<T>(*c.in[6]);  // the state, dense [B, H]
  if (R > 0 && H > 0) {
    linalg::BlasOneThread one;
    const Tensor xd = dense<T>(x), yb = out_buf(*c.out[0]), wsb = out_buf(*c.out[3]);
    linalg::MatArg mi, mh;
    const Tensor wi = linalg::blas_operand<T>(w_ih, true, mi), wh = linalg::blas_operand<T>(w_hh, true, mh);
    const std::vector<T> bias = bias_vec<T>(*c.in[3], c.in[4]);
    T* wsp = wsb.data<T>();
    T* yp = yb.data<T>();
    T* hp = hs.data<T>();
    T* cp = cs.data<T>();
    const T* bs = bias.data();
    gemm<T>(false, mi.trans, R, G, I, xd.data<T>(), I, wi.data<T>(), mi.ld, T(0), wsp, W);  // all steps
    const int64_t lda = s.bstride() * W;
    for (int64_t step = 0; step < Tn; ++step) {
      const int64_t t = s.time_of(step);
      T* a = wsp + s.row(t, 0) * W;
      gemm<T>(false, mh.trans, B, G, H, hp, H, wh.data<T>(), mh.ld, T(1), a, lda);
      parallel_for(B, row_grain(H), [&](int64_t b0, int64_t b1) {
        for (int64_t b = b0; b < b1; ++b) {
          T* __restrict g = a + b * lda;
          T* __restrict yr = yp + s.row(t, b) * H;
          if (!s.valid(t, b)) {
            std::fill(g, g + W, T(0));
            std::fill(yr, yr + H, T(0));
            continue;
          }
          T* __restrict h = hp + b * H;
          T* __restrict cc = cp + b * H;
          // Whole gate blocks at once (vectorised activations): i, f, g, o in place, then c', h'.
          for (int64_t j = 0; j < G; ++j) g[j] += bs[j];
          sigmoid_inplace(g, 2 * H);
          tanh_into(g + 2 * H, g + 2 * H, H);
          sigmoid_inplace(g + 3 * H, H);
          for (int64_t j = 0; j < H; ++j) {
            const T cn = g[H + j] * cc[j] + g[j] * g[2 * H + j];
            g[4 * H + j] = cn;
            cc[j] = cn;
          }
          tanh_into(yr, g + 4 * H, H);
          for (int64_t j = 0; j < H; ++j) {
            const T hn = g[3 * H + j] * yr[j];
            h[j] = hn;
            yr[j] = hn;
          }
        }
      });
    }
    finish<T>(*c.out[0], yb);
    finish<T>(*c.out[3], wsb);
  }  // else y and ws are empty
  copy3<T>(*c.out[1], hs);
  copy3<T>(*c.out[2], cs);
}

template <class T>
void lstm_bp_kernel(OpContext& c) {
  const Seq s = make_seq(c, 7, 4);
  const Tensor &x = *c.in[0], &w_ih = *c.in[1], &w_hh = *c.in[2];
  const int64_t B = s.B, Tn = s.T, I = s.I, H = s.H, G = 4 * H, W = 5 * H, R = s.rows();
  Tensor dh = fresh_copy<T>(*c.in[11]), dc = fresh_copy<T>(*c.in[12]);  // carried gradients [B, H]
  linalg::BlasOneThread one;
  const Tensor xd = dense<T>(x);
  const Tensor dG = scratch(x.dtype, R, G, x.device()), Hp = scratch(x.dtype, R, H, x.device());
  T* dgp = dG.data<T>();
  T* hpp = Hp.data<T>();
  if (R > 0 && H > 0) {
    const Tensor h0 = dense<T>(*c.in[5]), c0 = dense<T>(*c.in[6]), yd = dense<T>(*c.in[8]), wsd = dense<T>(*c.in[9]),
                 dyd = dense<T>(*c.in[10]);
    linalg::MatArg mh;
    const Tensor wh = linalg::blas_operand<T>(w_hh, false, mh);
    const T *h0p = h0.data<T>(), *c0p = c0.data<T>(), *yp = yd.data<T>(), *wsp = wsd.data<T>(), *dyp = dyd.data<T>();
    T* dhp = dh.data<T>();
    T* dcp = dc.data<T>();
    const int64_t ldg = s.bstride() * G;
    for (int64_t step = Tn - 1; step >= 0; --step) {
      const int64_t t = s.time_of(step);
      parallel_for(B, row_grain(H), [&](int64_t b0, int64_t b1) {
        for (int64_t b = b0; b < b1; ++b) {
          const int64_t r = s.row(t, b);
          T* __restrict d = dgp + r * G;
          T* __restrict hprev = hpp + r * H;
          if (!s.valid(t, b)) {
            std::fill(d, d + G, T(0));
            std::fill(hprev, hprev + H, T(0));
            continue;
          }
          const bool first = s.first(t, b);
          const int64_t pr = first ? 0 : s.prev_row(t, b);
          const T* __restrict w = wsp + r * W;
          const T* __restrict cprev = first ? c0p + b * H : wsp + pr * W + 4 * H;
          const T* __restrict hsrc = first ? h0p + b * H : yp + pr * H;
          const T* __restrict dyr = dyp + r * H;
          T* __restrict dhb = dhp + b * H;
          T* __restrict dcb = dcp + b * H;
          tanh_into(d + 3 * H, w + 4 * H, H);  // tanh(c'), vectorised; d's o block is written last
          for (int64_t j = 0; j < H; ++j) {
            const T i = w[j], f = w[H + j], g = w[2 * H + j], o = w[3 * H + j], tc = d[3 * H + j];
            const T dht = dhb[j] + dyr[j];
            const T dct = dcb[j] + dht * o * (T(1) - tc * tc);
            d[j] = dct * g * i * (T(1) - i);
            d[H + j] = dct * cprev[j] * f * (T(1) - f);
            d[2 * H + j] = dct * i * (T(1) - g * g);
            d[3 * H + j] = dht * tc * o * (T(1) - o);
            dcb[j] = dct * f;
            dhb[j] = T(0);  // the GEMM below adds dG_t @ W_hh
            hprev[j] = hsrc[j];
          }
        }
      });
      gemm<T>(false, mh.trans, B, H, G, dgp + s.row(t, 0) * G, ldg, wh.data<T>(), mh.ld, T(1), dhp, H);
    }
  }
  // dx = dG @ W_ih; dW_ih = dG^T @ X; dW_hh = dG^T @ H_prev; db = column sums (inner size 0: zeros).
  const Tensor dxb = out_buf(*c.out[0]), dwib = out_buf(*c.out[1]), dwhb = out_buf(*c.out[2]);
  linalg::MatArg mi;
  const Tensor wi = linalg::blas_operand<T>(w_ih, false, mi);
  gemm<T>(false, mi.trans, R, I, G, dgp, G, wi.data<T>(), mi.ld, T(0), dxb.data<T>(), I);
  gemm<T>(true, false, G, I, R, dgp, G, xd.data<T>(), I, T(0), dwib.data<T>(), I);
  gemm<T>(true, false, G, H, R, dgp, G, hpp, H, T(0), dwhb.data<T>(), H);
  col_sums<T>(dgp, R, G, *c.out[3], c.out[4]);
  finish<T>(*c.out[0], dxb);
  finish<T>(*c.out[1], dwib);
  finish<T>(*c.out[2], dwhb);
  copy3<T>(*c.out[5], dh);
  copy3<T>(*c.out[6], dc);
}

void lstm_half(OpContext& c) { run_via_f32(c, lstm_kernel<float>, "ndrt:lstm-via-f32"); }
void lstm_bp_half(OpContext& c) { run_via_f32(c, lstm_bp_kernel<float>, "ndrt:lstm_bp-via-f32"); }

}  // namespace

void register_cpu_rnn(Registry& r) {
  r.kernel("lstm", kCpu, {NDRT_F32}, lstm_kernel<float>, "ndrt:lstm-sgemm");
  r.kernel("lstm", kCpu, {NDRT_F64}, lstm_kernel<double>, "ndrt:lstm-dgemm");
  r.kernel("lstm", kCpu, {NDRT_F16, NDRT_BF16}, lstm_half, "ndrt:lstm-via-f32");
  r.kernel("lstm_bp", kCpu, {NDRT_F32}, lstm_bp_kernel<float>, "ndrt:lstm_bp-sgemm");
  r.kernel("lstm_bp", kCpu, {NDRT_F64}, lstm_bp_kernel<double>, "ndrt:lstm_bp-dgemm");
  r.kernel("lstm_bp", kCpu, {NDRT_F16, NDRT_BF16}, lstm_bp_half, "ndrt:lstm_bp-via-f32");
  rnn::register_gru(r);
}

}  // namespace ndrt
