// GRU on cpu: gru and gru_bp (the design is described at the top of rnn.cpp).
//   r = sigmoid(x W_ir^T + b_ir + h W_hr^T + b_hr), z = sigmoid(x W_iz^T + b_iz + h W_hz^T + b_hz),
//   n = tanh(x W_in^T + b_in + r * (h W_hn^T + b_hn)), h' = (1 - z) * n + z * h   (torch.nn.GRU).
#include "rnn.hpp"

#include "kernels.hpp"

namespace ndrt::rnn {

namespace {

template <class T>
void gru_kernel(OpContext& c) {
  const Seq s = make_seq(c, 6, 3);
  const Tensor &x = *c.in[0], &w_ih = *c.in[1], &w_hh = *c.in[2];
  const int64_t B = s.B, Tn = s.T, I = s.I, H = s.H, G = 3 * H, W = 4 * H, R = s.rows();
  Tensor hs = fresh_copy<T>(*c.in[5]);  // the state, dense [B, H]
  if (R > 0 && H > 0) {
    linalg::BlasOneThread one;
    const Tensor xd = dense<T>(x), yb = out_buf(*c.out[0]), wsb = out_buf(*c.out[2]);
    const Tensor hh = scratch(x.dtype, B, G, x.device());  // h @ W_hh^T of one step
    linalg::MatArg mi, mh;
    const Tensor wi = linalg::blas_operand<T>(w_ih, true, mi), wh = linalg::blas_operand<T>(w_hh, true, mh);
    const std::vector<T> bi = bias_vec<T>(*c.in[3], nullptr), bh = bias_vec<T>(*c.in[4], nullptr);
    T* wsp = wsb.data<T>();
    T* yp = yb.data<T>();
    T* hp = hs.data<T>();
    T* hhp = hh.data<T>();
    const T *bip = bi.data(), *bhp = bh.data();
    gemm<T>(false, mi.trans, R, G, I, xd.data<T>(), I, wi.data<T>(), mi.ld, T(0), wsp, W);  // all steps
    const int64_t lda = s.bstride() * W;
    for (int64_t step = 0; step < Tn; ++step) {
      const int64_t t = s.time_of(step);
      T* a = wsp + s.row(t, 0) * W;
      gemm<T>(false, mh.trans, B, G, H, hp, H, wh.data<T>(), mh.ld, T(0), hhp, G);
      parallel_for(B, row_grain(H), [&](int64_t b0, int64_t b1) {
        for (int64_t b = b0; b < b1; ++b) {
          T* __restrict g = a + b * lda;
          T* __restrict yr = yp + s.row(t, b) * H;
          if (!s.valid(t, b)) {
            std::fill(g, g + W, T(0));
            std::fill(yr, yr + H, T(0));
            continue;
          }
          const T* __restrict q = hhp + b * G;
          T* __restrict h = hp + b * H;
          // Whole gate blocks at once (vectorised activations): r, z in place, then n, then h'.
          for (int64_t j = 0; j < 2 * H; ++j) g[j] += bip[j] + q[j] + bhp[j];
          sigmoid_inplace(g, 2 * H);
          for (int64_t j = 0; j < H; ++j) {
            const T hn = q[2 * H + j] + bhp[2 * H + j];
            g[3 * H + j] = hn;
            g[2 * H + j] += bip[2 * H + j] + g[j] * hn;
          }
          tanh_into(g + 2 * H, g + 2 * H, H);
          for (int64_t j = 0; j < H; ++j) {
            const T z = g[H + j], hnew = (T(1) - z) * g[2 * H + j] + z * h[j];
            h[j] = hnew;
            yr[j] = hnew;
          }
        }
      });
    }
    finish<T>(*c.out[0], yb);
    finish<T>(*c.out[2], wsb);
  }  // else y and ws are empty
  copy3<T>(*c.out[1], hs);
}

template <class T>
void gru_bp_kernel(OpContext& c) {
  const Seq s = make_seq(c, 6, 3);
  const Tensor &x = *c.in[0], &w_ih = *c.in[1], &w_hh = *c.in[2];
  const int64_t B = s.B, Tn = s.T, I = s.I, H = s.H, G = 3 * H, W = 4 * H, R = s.rows();
  Tensor dh = fresh_copy<T>(*c.in[10]);  // carried gradient [B, H]
  linalg::BlasOneThread one;
  const Tensor xd = dense<T>(x);
  // dG_i: gradients of the input-side pre-activations (r, z, W_in x + b_in); dG_h: of the
  // hidden-side ones (r, z, W_hn h + b_hn).
  const Tensor dGi = scratch(x.dtype, R, G, x.device()), dGh = scratch(x.dtype, R, G, x.device()),
               Hp = scratch(x.dtype, R, H, x.device());
  T* gip = dGi.data<T>();
  T* ghp = dGh.data<T>();
  T* hpp = Hp.data<T>();
  if (R > 0 && H > 0) {
    const Tensor h0 = dense<T>(*c.in[5]), yd = dense<T>(*c.in[7]), wsd = dense<T>(*c.in[8]), dyd = dense<T>(*c.in[9]);
    linalg::MatArg mh;
    const Tensor wh = linalg::blas_operand<T>(w_hh, false, mh);
    const T *h0p = h0.data<T>(), *yp = yd.data<T>(), *wsp = wsd.data<T>(), *dyp = dyd.data<T>();
    T* dhp = dh.data<T>();
    const int64_t ldg = s.bstride() * G;
    for (int64_t step = Tn - 1; step >= 0; --step) {
      const int64_t t = s.time_of(step);
      parallel_for(B, row_grain(H), [&](int64_t b0, int64_t b1) {
        for (int64_t b = b0; b < b1; ++b) {
          const int64_t r = s.row(t, b);
          T* __restrict di = gip + r * G;
          T* __restrict dg = ghp + r * G;
          T* __restrict hprev = hpp + r * H;
          if (!s.valid(t, b)) {
            std::fill(di, di + G, T(0));
            std::fill(dg, dg + G, T(0));
            std::fill(hprev, hprev + H, T(0));
            continue;
          }
          const bool first = s.first(t, b);
          const T* __restrict w = wsp + r * W;
          const T* __restrict hsrc = first ? h0p + b * H : yp + s.prev_row(t, b) * H;
          const T* __restrict dyr = dyp + r * H;
          T* __restrict dhb = dhp + b * H;
          for (int64_t j = 0; j < H; ++j) {
            const T rg = w[j], z = w[H + j], n = w[2 * H + j], hn = w[3 * H + j], hv = hsrc[j];
            const T dht = dhb[j] + dyr[j];
            const T dan = dht * (T(1) - z) * (T(1) - n * n);
            const T dar = dan * hn * rg * (T(1) - rg);
            const T daz = dht * (hv - n) * z * (T(1) - z);
            di[j] = dg[j] = dar;
            di[H + j] = dg[H + j] = daz;
            di[2 * H + j] = dan;
            dg[2 * H + j] = dan * rg;
            dhb[j] = dht * z;  // the GEMM below adds dG_h,t @ W_hh
            hprev[j] = hv;
          }
        }
      });
      gemm<T>(false, mh.trans, B, H, G, ghp + s.row(t, 0) * G, ldg, wh.data<T>(), mh.ld, T(1), dhp, H);
    }
  }
  // dx = dG_i @ W_ih; dW_ih = dG_i^T @ X; dW_hh = dG_h^T @ H_prev; db_ih, db_hh = column sums.
  const Tensor dxb = out_buf(*c.out[0]), dwib = out_buf(*c.out[1]), dwhb = out_buf(*c.out[2]);
  linalg::MatArg mi;
  const Tensor wi = linalg::blas_operand<T>(w_ih, false, mi);
  gemm<T>(false, mi.trans, R, I, G, gip, G, wi.data<T>(), mi.ld, T(0), dxb.data<T>(), I);
  gemm<T>(true, false, G, I, R, gip, G, xd.data<T>(), I, T(0), dwib.data<T>(), I);
  gemm<T>(true, false, G, H, R, ghp, G, hpp, H, T(0), dwhb.data<T>(), H);
  col_sums<T>(gip, R, G, *c.out[3], nullptr);
  col_sums<T>(ghp, R, G, *c.out[4], nullptr);
  finish<T>(*c.out[0], dxb);
  finish<T>(*c.out[1], dwib);
  finish<T>(*c.out[2], dwhb);
  copy3<T>(*c.out[5], dh);
}

void gru_half(OpContext& c) { run_via_f32(c, gru_kernel<float>, "ndrt:gru-via-f32"); }
void gru_bp_half(OpContext& c) { run_via_f32(c, gru_bp_kernel<float>, "ndrt:gru_bp-via-f32"); }

}  // namespace

void register_gru(Registry& r) {
  r.kernel("gru", kCpu, {NDRT_F32}, gru_kernel<float>, "ndrt:gru-sgemm");
  r.kernel("gru", kCpu, {NDRT_F64}, gru_kernel<double>, "ndrt:gru-dgemm");
  r.kernel("gru", kCpu, {NDRT_F16, NDRT_BF16}, gru_half, "ndrt:gru-via-f32");
  r.kernel("gru_bp", kCpu, {NDRT_F32}, gru_bp_kernel<float>, "ndrt:gru_bp-sgemm");
  r.kernel("gru_bp", kCpu, {NDRT_F64}, gru_bp_kernel<double>, "ndrt:gru_bp-dgemm");
  r.kernel("gru_bp", kCpu, {NDRT_F16, NDRT_BF16}, gru_bp_half, "ndrt:gru_bp-via-f32");
}

}  // namespace ndrt::rnn
