// ndrt's own convolution: im2col + one OpenBLAS sgemm/dgemm per group over a chunk of the batch
// (one big GEMM keeps BLAS threads busy even for small images), col2im for the data gradient.
// A 1x1 kernel with stride 1 and no padding reads the image as the column matrix directly.
// NCHW columns are [R, nb*P] (R = Cg*kh*kw reduction rows, P = OH*OW); NHWC columns are
// [nb*P, R] and the GEMM writes straight into the NHWC output rows.
#include <algorithm>
#include <cstring>

#include "blas.hpp"
#include "conv_util.hpp"
#include "linalg_engine.hpp"

namespace ndrt {

namespace {

constexpr int64_t kColBudgetBytes = int64_t(16) << 20;  // column buffer per chunk

template <class T>
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb,
          T beta, T* c, int64_t ldc) {
  if (m > INT32_MAX || n > INT32_MAX || k > INT32_MAX || lda > INT32_MAX || ldb > INT32_MAX || ldc > INT32_MAX)
    fail(NDRT_ERR_NOT_SUPPORTED, "conv2d: a GEMM dimension beyond 2^31 is not supported by the BLAS interface");
  auto TA = ta ? CblasTrans : CblasNoTrans, TB = tb ? CblasTrans : CblasNoTrans;
  linalg::blas_threads_for_direct_call();
  if constexpr (std::is_same_v<T, float>)
    blas::api().sgemm(CblasRowMajor, TA, TB, int(m), int(n), int(k), 1.0f, a, int(lda), b, int(ldb), beta, c, int(ldc));
  else
    blas::api().dgemm(CblasRowMajor, TA, TB, int(m), int(n), int(k), 1.0, a, int(lda), b, int(ldb), beta, c, int(ldc));
}

struct Plan {
  int64_t G, Cg, Kg, R, P, chunk;
  bool direct;  // 1x1, stride 1, no padding: the image is its own column matrix
};

template <class T>
Plan plan_of(const Conv2dGeom& g) {
  Plan p;
  p.G = g.groups;
  p.Cg = g.c / g.groups;
  p.Kg = g.k / g.groups;
  p.R = p.Cg * g.kh * g.kw;
  p.P = g.oh * g.ow;
  p.direct = g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.pt == 0 && g.pb == 0 && g.pl == 0 && g.pr == 0;
  const int64_t per_sample = std::max<int64_t>(1, p.R * p.P * int64_t(sizeof(T)));
  p.chunk = std::clamp<int64_t>(kColBudgetBytes / per_sample, 1, std::max<int64_t>(g.n, 1));
  if (p.direct && !g.nhwc) p.chunk = 1;  // NCHW samples are separate [C, P] matrices
  return p;
}

// NCHW [nb, K, P] slice of channels [k0, k0 + Kg) <-> [Kg, nb*P] matrix.
template <class T>
void gather_nchw(const T* src, int64_t K, int64_t k0, int64_t Kg, int64_t nb, int64_t P, T* dst) {
  parallel_for(nb * Kg, std::max<int64_t>(1, 16384 / P), [&](int64_t b, int64_t e) {
    for (int64_t it = b; it < e; ++it) {
      const int64_t bi = it / Kg, o = it % Kg;
      std::memcpy(dst + o * nb * P + bi * P, src + (bi * K + k0 + o) * P, size_t(P) * sizeof(T));
    }
  });
}

}  // namespace

template <class T>
void own_conv_fwd(const Conv2dGeom& g, const T* x, const T* w, const T* bias, T* y) {
  if constexpr (std::is_same_v<T, float>)
    if (direct_conv_applies(g)) return direct_conv_fwd(g, x, w, bias, y);
  const Plan p = plan_of<T>(g);
  Tensor colbuf = p.direct ? Tensor() : scratch<T>(g, p.R * p.chunk * p.P);
  Tensor tmpbuf = g.nhwc || p.chunk == 1 ? Tensor() : scratch<T>(g, p.Kg * p.chunk * p.P);
  T* col = p.direct ? nullptr : colbuf.data<T>();
  for (int64_t n0 = 0; n0 < g.n; n0 += p.chunk) {
    const int64_t nb = std::min(p.chunk, g.n - n0), NP = nb * p.P;
    if (g.nhwc) {
      T* yc = y + n0 * p.P * g.k;
      if (bias)
        parallel_for(NP, 4096, [&](int64_t b, int64_t e) {
          for (int64_t q = b; q < e; ++q) std::memcpy(yc + q * g.k, bias, size_t(g.k) * sizeof(T));
        });
      for (int64_t gi = 0; gi < p.G; ++gi) {
        const T* a = x + n0 * p.P * g.c + gi * p.Cg;
        int64_t lda = g.c;
        if (!p.direct) {
          im2col_nhwc(g, x, n0, nb, gi * p.Cg, p.Cg, col);
          a = col, lda = p.R;
        }
        gemm<T>(false, true, NP, p.Kg, p.R, a, lda, w + gi * p.Kg * p.R, p.R, bias ? T(1) : T(0), yc + gi * p.Kg, g.k);
      }
      continue;
    }
    for (int64_t gi = 0; gi < p.G; ++gi) {
      const T* b = p.direct ? x + (n0 * g.c + gi * p.Cg) * p.P : col;
      if (!p.direct) im2col_nchw(g, x, n0, nb, gi * p.Cg, p.Cg, col, NP, p.P);
      const T* wg = w + gi * p.Kg * p.R;
      if (nb == 1) {
        T* yg = y + (n0 * g.k + gi * p.Kg) * p.P;
        gemm<T>(false, false, p.Kg, p.P, p.R, wg, p.R, b, NP, T(0), yg, p.P);
        if (bias)
          for (int64_t o = 0; o < p.Kg; ++o)
            for (int64_t q = 0; q < p.P; ++q) yg[o * p.P + q] += bias[gi * p.Kg + o];
        continue;
      }
      T* tmp = tmpbuf.data<T>();
      gemm<T>(false, false, p.Kg, NP, p.R, wg, p.R, b, NP, T(0), tmp, NP);
      parallel_for(nb * p.Kg, std::max<int64_t>(1, 16384 / p.P), [&](int64_t lo, int64_t hi) {
        for (int64_t it = lo; it < hi; ++it) {
          const int64_t bi = it / p.Kg, o = it % p.Kg;
          T* dst = y + ((n0 + bi) * g.k + gi * p.Kg + o) * p.P;
          const T* src = tmp + o * NP + bi * p.P;
          const T bv = bias ? bias[gi * p.Kg + o] : T(0);
          for (int64_t q = 0; q < p.P; ++q) dst[q] = src[q] + bv;
        }
      });
    }
  }
}

template <class T>
void own_conv_bp_data(const Conv2dGeom& g, const T* w, const T* dy, T* dx) {
  if constexpr (std::is_same_v<T, float>)
    if (direct_conv_applies(g)) return direct_conv_bp_data(g, w, dy, dx);
  const Plan p = plan_of<T>(g);
  Tensor colbuf = p.direct ? Tensor() : scratch<T>(g, p.R * p.chunk * p.P);
  Tensor dybuf = g.nhwc || p.chunk == 1 ? Tensor() : scratch<T>(g, p.Kg * p.chunk * p.P);
  T* dcol = p.direct ? nullptr : colbuf.data<T>();
  for (int64_t n0 = 0; n0 < g.n; n0 += p.chunk) {
    const int64_t nb = std::min(p.chunk, g.n - n0), NP = nb * p.P;
    for (int64_t gi = 0; gi < p.G; ++gi) {
      const T* wg = w + gi * p.Kg * p.R;
      if (g.nhwc) {
        const T* dyg = dy + n0 * p.P * g.k + gi * p.Kg;
        if (p.direct) {  // the column gradient is dx itself
          gemm<T>(false, false, NP, p.R, p.Kg, dyg, g.k, wg, p.R, T(0), dx + n0 * p.P * g.c + gi * p.Cg, g.c);
          continue;
        }
        gemm<T>(false, false, NP, p.R, p.Kg, dyg, g.k, wg, p.R, T(0), dcol, p.R);
        col2im_nhwc(g, dcol, n0, nb, gi * p.Cg, p.Cg, dx);
        continue;
      }
      const T* b = dy + (n0 * g.k + gi * p.Kg) * p.P;
      if (nb > 1) {
        gather_nchw(dy + n0 * g.k * p.P, g.k, gi * p.Kg, p.Kg, nb, p.P, dybuf.data<T>());
        b = dybuf.data<T>();
      }
      if (p.direct) {
        gemm<T>(true, false, p.R, NP, p.Kg, wg, p.R, b, NP, T(0), dx + (n0 * g.c + gi * p.Cg) * p.P, NP);
        continue;
      }
      gemm<T>(true, false, p.R, NP, p.Kg, wg, p.R, b, NP, T(0), dcol, NP);
      col2im_nchw(g, dcol, n0, nb, gi * p.Cg, p.Cg, dx, NP, p.P);
    }
  }
}

template <class T>
void own_conv_bp_weights(const Conv2dGeom& g, const T* x, const T* dy, T* dw) {
  if constexpr (std::is_same_v<T, float>)
    if (direct_conv_applies(g)) return direct_conv_bp_weights(g, x, dy, dw);
  const Plan p = plan_of<T>(g);
  Tensor colbuf = p.direct ? Tensor() : scratch<T>(g, p.R * p.chunk * p.P);
  Tensor dybuf = g.nhwc || p.chunk == 1 ? Tensor() : scratch<T>(g, p.Kg * p.chunk * p.P);
  T* col = p.direct ? nullptr : colbuf.data<T>();
  for (int64_t n0 = 0; n0 < g.n; n0 += p.chunk) {
    const int64_t nb = std::min(p.chunk, g.n - n0), NP = nb * p.P;
    const T beta = n0 == 0 ? T(0) : T(1);  // chunks accumulate into dw
    for (int64_t gi = 0; gi < p.G; ++gi) {
      T* dwg = dw + gi * p.Kg * p.R;
      if (g.nhwc) {
        const T* a = x + n0 * p.P * g.c + gi * p.Cg;
        int64_t lda = g.c;
        if (!p.direct) {
          im2col_nhwc(g, x, n0, nb, gi * p.Cg, p.Cg, col);
          a = col, lda = p.R;
        }
        gemm<T>(true, false, p.Kg, p.R, NP, dy + n0 * p.P * g.k + gi * p.Kg, g.k, a, lda, beta, dwg, p.R);
        continue;
      }
      const T* b = p.direct ? x + (n0 * g.c + gi * p.Cg) * p.P : col;
      if (!p.direct) im2col_nchw(g, x, n0, nb, gi * p.Cg, p.Cg, col, NP, p.P);
      const T* a = dy + (n0 * g.k + gi * p.Kg) * p.P;
      if (nb > 1) {
        gather_nchw(dy + n0 * g.k * p.P, g.k, gi * p.Kg, p.Kg, nb, p.P, dybuf.data<T>());
        a = dybuf.data<T>();
      }
      gemm<T>(false, true, p.Kg, p.R, NP, a, NP, b, NP, beta, dwg, p.R);
    }
  }
}

template void own_conv_fwd<float>(const Conv2dGeom&, const float*, const float*, const float*, float*);
template void own_conv_fwd<double>(const Conv2dGeom&, const double*, const double*, const double*, double*);
template void own_conv_bp_data<float>(const Conv2dGeom&, const float*, const float*, float*);
template void own_conv_bp_data<double>(const Conv2dGeom&, const double*, const double*, double*);
template void own_conv_bp_weights<float>(const Conv2dGeom&, const float*, const float*, float*);
template void own_conv_bp_weights<double>(const Conv2dGeom&, const double*, const double*, double*);

}  // namespace ndrt
