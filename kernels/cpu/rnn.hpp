// Shared pieces of the recurrent kernels: rnn.cpp (the design, LSTM, registration) and
// rnn_gru.cpp (GRU). All of it is for f32 / f64; f16 / bf16 go through f32 (rnn.cpp).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "elementwise_math.hpp"
#include "linalg_engine.hpp"
#include "parallel.hpp"
#include "registry.hpp"

namespace ndrt::rnn {

enum { kReverse = 0, kTimeMajor = 1 };  // attribute order (runtime/ops/rnn.cpp)

// One call's geometry. Every sequence buffer ([.., .., f]: x, y, dy, ws and the gate gradients) is
// a dense matrix of B*T rows in x's major order: row(t, b) = t*B + b with time_major, b*T + t
// without. At one time step the B rows are then evenly spaced (bstride() rows apart), so a step's
// rows are one strided matrix that BLAS reads or writes in place.
struct Seq {
  int64_t B = 0, T = 0, I = 0, H = 0;
  bool tm = false, reverse = false;
  std::vector<int64_t> len;  // checked to lie in [0, T]
  int64_t rows() const { return B * T; }
  int64_t row(int64_t t, int64_t b) const { return tm ? t * B + b : b * T + t; }
  int64_t bstride() const { return tm ? 1 : T; }
  // Time index of the s-th step processed (forward order).
  int64_t time_of(int64_t s) const { return reverse ? T - 1 - s : s; }
  // Valid steps of row b are t < len[b] in both directions (reverse runs them len-1 down to 0).
  bool valid(int64_t t, int64_t b) const { return t < len[size_t(b)]; }
  // The first valid step processed for row b (its previous state is h0 / c0).
  bool first(int64_t t, int64_t b) const { return reverse ? t == len[size_t(b)] - 1 : t == 0; }
  // The row of the step processed just before (t, b); only for a valid, non-first step.
  int64_t prev_row(int64_t t, int64_t b) const { return row(reverse ? t + 1 : t - 1, b); }
};

// Reads x's geometry, the attributes and the lengths input (any strides, i32 or i64); lengths
// out of [0, T] fail with NDRT_ERR_INVALID_ARGUMENT. Also refuses sizes BLAS's int cannot take.
Seq make_seq(const OpContext& c, int lengths_input, int gates);

template <class T>
inline T sigmoid_of(T x) {
  if constexpr (std::is_same_v<T, float>) {
    return vmath::sigmoid(x);
  } else {
    const T e = std::exp(-std::fabs(x)), s = T(1) / (T(1) + e);
    return x >= T(0) ? s : e * s;
  }
}

template <class T>
inline T tanh_of(T x) {
  if constexpr (std::is_same_v<T, float>)
    return vmath::tanh(x);
  else
    return std::tanh(x);
}

// In place over n dense values: the 8-wide blocks for f32 where built with AVX2, else the scalar
// forms above (the fused step passes activate whole gate blocks of a row at once).
template <class T>
inline void sigmoid_inplace(T* p, int64_t n) {
#if defined(__AVX2__) && defined(__FMA__)
  if constexpr (std::is_same_v<T, float>) return vmath::sigmoid_block(p, p, n);
#endif
  for (int64_t j = 0; j < n; ++j) p[j] = sigmoid_of(p[j]);
}
template <class T>
inline void tanh_into(T* y, const T* x, int64_t n) {
#if defined(__AVX2__) && defined(__FMA__)
  if constexpr (std::is_same_v<T, float>) return vmath::tanh_block(y, x, n);
#endif
  for (int64_t j = 0; j < n; ++j) y[j] = tanh_of(x[j]);
}

// dst <- src, same shape of rank <= 3, any strides (parallel over the outer two axes).
template <class T>
void copy3(const Tensor& dst, const Tensor& src) {
  const int r = src.rank();
  int64_t n[3] = {1, 1, 1}, ss[3] = {0, 0, 0}, ds[3] = {0, 0, 0};
  for (int i = 0; i < r; ++i) {
    n[3 - r + i] = src.shape.d[i];
    ss[3 - r + i] = src.strides.d[i];
    ds[3 - r + i] = dst.strides.d[i];
  }
  if (n[0] * n[1] * n[2] == 0) return;
  const T* s = src.data<T>();
  T* d = dst.data<T>();
  parallel_for(n[0] * n[1], std::max<int64_t>(1, 16384 / n[2]), [&](int64_t q0, int64_t q1) {
    for (int64_t q = q0; q < q1; ++q) {
      const int64_t i = q / n[1], j = q % n[1];
      const T* sp = s + i * ss[0] + j * ss[1];
      T* dp = d + i * ds[0] + j * ds[1];
      if (ss[2] == 1 && ds[2] == 1)
        std::copy(sp, sp + n[2], dp);
      else
        for (int64_t k = 0; k < n[2]; ++k) dp[k * ds[2]] = sp[k * ss[2]];
    }
  });
}

// t itself when it is row-major contiguous, else a dense copy.
template <class T>
Tensor dense(const Tensor& t) {
  if (t.is_contiguous()) return t;
  Tensor d = alloc_tensor(t.dtype, t.shape, t.device());
  copy3<T>(d, t);
  return d;
}

// A fresh dense copy (state buffers the kernel updates).
template <class T>
Tensor fresh_copy(const Tensor& t) {
  Tensor d = alloc_tensor(t.dtype, t.shape, t.device());
  copy3<T>(d, t);
  return d;
}

// The buffer an output is computed in: the output itself when contiguous, else a dense temporary
// that finish() copies out.
inline Tensor out_buf(const Tensor& o) { return o.is_contiguous() ? o : alloc_tensor(o.dtype, o.shape, o.device()); }
template <class T>
void finish(const Tensor& o, const Tensor& buf) {
  if (!buf.same_view(o)) copy3<T>(o, buf);
}

inline Tensor scratch(ndrt_dtype d, int64_t rows, int64_t cols, ndrt_device dev) {
  Dims s{};
  s.rank = 2;
  s.d[0] = rows;
  s.d[1] = cols;
  return alloc_tensor(d, s, dev);
}

// C[m x n] = op(A) @ op(B) + beta * C through the linalg engine (row-major, leading dimensions
// as BLAS takes them). k == 0 gives beta * C.
template <class T>
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb, T beta,
          T* c, int64_t ldc) {
  if (m <= 0 || n <= 0) return;
  linalg::Gemm<T> g;
  g.ta = ta;
  g.tb = tb;
  g.m = m;
  g.n = n;
  g.k = k;
  g.a = a;
  g.lda = std::max<int64_t>(lda, 1);
  g.b = b;
  g.ldb = std::max<int64_t>(ldb, 1);
  g.c = c;
  g.ldc = std::max<int64_t>(ldc, 1);
  linalg::run_gemms<T>(1, [&](int64_t) { return g; }, T(1), beta);
}

// b[j] (stride bs) + b2[j] (stride b2s), or b alone when b2 is null, as a dense vector.
template <class T>
std::vector<T> bias_vec(const Tensor& b, const Tensor* b2) {
  const int64_t n = b.shape.d[0];
  std::vector<T> v(static_cast<size_t>(n));
  const T* p = b.data<T>();
  for (int64_t j = 0; j < n; ++j) v[size_t(j)] = p[j * b.strides.d[0]];
  if (b2) {
    const T* q = b2->data<T>();
    for (int64_t j = 0; j < n; ++j) v[size_t(j)] += q[j * b2->strides.d[0]];
  }
  return v;
}

// Column sums of a dense [rows, cols] matrix in f64 (blocks of columns in parallel, rows in a
// fixed order: independent of the thread count), written to up to two rank-1 outputs.
template <class T>
void col_sums(const T* a, int64_t rows, int64_t cols, const Tensor& o1, const Tensor* o2) {
  constexpr int64_t CB = 64;
  T* p1 = o1.data<T>();
  T* p2 = o2 ? o2->data<T>() : nullptr;
  const int64_t s1 = o1.strides.d[0], s2 = o2 ? o2->strides.d[0] : 0;
  const int64_t nb = (cols + CB - 1) / CB;
  parallel_for(nb, std::max<int64_t>(1, 65536 / std::max<int64_t>(rows * CB, 1)), [&](int64_t k0, int64_t k1) {
    for (int64_t k = k0; k < k1; ++k) {
      const int64_t j0 = k * CB, n = std::min(CB, cols - j0);
      double acc[CB] = {};
      for (int64_t i = 0; i < rows; ++i) {
        const T* r = a + i * cols + j0;
        for (int64_t j = 0; j < n; ++j) acc[j] += double(r[j]);
      }
      for (int64_t j = 0; j < n; ++j) {
        p1[(j0 + j) * s1] = T(acc[j]);
        if (p2) p2[(j0 + j) * s2] = T(acc[j]);
      }
    }
  });
}

// Batch rows per parallel_for part of a fused step pass: about 4096 elements.
inline int64_t row_grain(int64_t H) { return std::max<int64_t>(1, 4096 / std::max<int64_t>(H, 1)); }

// f16 / bf16: the 16-bit float inputs converted to f32 (lengths and an f32 ws pass as they are),
// the f32 kernel, each 16-bit output rounded once (ws stays f32). Sets c.impl.
void run_via_f32(OpContext& c, KernelFn f32_kernel, const char* impl);

void register_gru(Registry& r);  // rnn_gru.cpp

}  // namespace ndrt::rnn
