// Fused dense layer on cpu: linear (GEMM + bias + activation) and linear_bp.
//  - linear: each GEMM tile's thread fills its tile with the bias, the BLAS call accumulates onto
//    it (beta = 1, so the bias costs no pass of its own), then the activation runs over the tile
//    while it is still in cache (the "gemm epilogue").
//  - linear_bp: one pass computes dz = dy * act'(.) and the bias gradient db = column sums of dz
//    (blocks of rows and columns, partial sums added in a fixed order: the result does not depend
//    on the thread count), then two GEMMs: dx = dz @ W^T and dw = x^T @ dz (W = op(w)).
//  - f16 / bf16: the operands are converted to f32, the f32 kernel runs (sgemm with f32
//    accumulation, the epilogue / dz pass in f32) and each output is rounded once to the 16-bit
//    type (linalg_half.hpp), as matmul's half path.
#include <algorithm>
#include <climits>
#include <cmath>

#include "elementwise_math.hpp"
#include "kernels.hpp"
#include "linalg_engine.hpp"
#include "linalg_half.hpp"

namespace ndrt {

namespace {

using namespace linalg;

enum Act : int { kNone = 0, kRelu = 1, kSigmoid = 2, kTanh = 3, kLeaky = 4, kGelu = 5 };
enum { kTransW = 0, kActivation = 1, kAlpha = 2 };  // attribute order of linear and linear_bp

template <class T>
T sigmoid_of(T x) {
  if constexpr (std::is_same_v<T, float>) {
    return vmath::sigmoid(x);
  } else {
    T e = std::exp(-std::fabs(x)), s = T(1) / (T(1) + e);
    return x >= T(0) ? s : e * s;
  }
}

template <class T>
T tanh_of(T x) {
  if constexpr (std::is_same_v<T, float>)
    return vmath::tanh(x);
  else
    return std::tanh(x);
}

constexpr double kInvSqrt2 = 0.70710678118654752440, kInvSqrt2Pi = 0.39894228040143267794;

template <class T>
T gelu_of(T x) {  // x * Phi(x); erfc keeps the negative tail accurate
  return T(0.5) * x * std::erfc(x * T(-kInvSqrt2));
}
template <class T>
T gelu_grad(T x) {  // Phi(x) + x * phi(x)
  return T(0.5) * std::erfc(x * T(-kInvSqrt2)) + x * T(kInvSqrt2Pi) * std::exp(T(-0.5) * x * x);
}

template <class T, int A>
inline T act(T x, T alpha) {
  if constexpr (A == kRelu) return vmath::pick(x < T(0), T(0), x);  // NaN passes through
  if constexpr (A == kSigmoid) return sigmoid_of(x);
  if constexpr (A == kTanh) return tanh_of(x);
  if constexpr (A == kLeaky) return vmath::pick(x < T(0), alpha * x, x);
  if constexpr (A == kGelu) return gelu_of(x);
  return x;
}

// dz from the saved value s (the output y; the pre-activation z for gelu) and dy.
template <class T, int A>
inline T act_grad(T s, T d, T alpha) {
  if constexpr (A == kRelu) return vmath::pick(s > T(0), d, T(0));
  if constexpr (A == kSigmoid) return d * s * (T(1) - s);
  if constexpr (A == kTanh) return d * (T(1) - s * s);
  if constexpr (A == kLeaky) return vmath::pick(s > T(0), d, alpha * d);
  if constexpr (A == kGelu) return d * gelu_grad(s);
  return d;
}

template <class T, int A>
void linear_run(OpContext& c) {
  const bool tw = c.attrs.get_bool(kTransW);
  const T alpha = T(c.attrs.get_float(kAlpha));
  const Tensor &x = *c.in[0], &w = *c.in[1], &b = *c.in[2], &y = *c.out[0];
  if (y.numel() == 0) return;
  const int64_t N = y.shape.d[0], M = y.shape.d[1], K = x.shape.d[1];
  check_blas_sizes("linear", N, M, K);
  MatArg mx, mw;
  const Tensor xa = blas_operand<T>(x, false, mx), wa = blas_operand<T>(w, tw, mw);
  const WorkOut wo = work_out(y);
  Gemm<T> g;
  g.ta = mx.trans;
  g.tb = mw.trans;
  g.m = N;
  g.n = M;
  g.k = K;
  g.a = xa.data<T>();
  g.lda = mx.ld;
  g.b = wa.data<T>();
  g.ldb = mw.ld;
  g.c = wo.buf.data<T>();
  g.ldc = wo.ld;
  const T* bias = b.data<T>();
  const int64_t bs = b.strides.d[0];
  auto pre = [&](int64_t, int64_t i0, int64_t i1, int64_t j0, int64_t j1) {
    for (int64_t i = i0; i < i1; ++i) {
      T* row = g.c + i * g.ldc;
      for (int64_t j = j0; j < j1; ++j) row[j] = bias[j * bs];
    }
  };
  auto post = [&](int64_t, int64_t i0, int64_t i1, int64_t j0, int64_t j1) {
    if constexpr (A != kNone)
      for (int64_t i = i0; i < i1; ++i) {
        T* row = g.c + i * g.ldc;
        for (int64_t j = j0; j < j1; ++j) row[j] = act<T, A>(row[j], alpha);
      }
    if (!wo.direct) {
      const int64_t rs = y.strides.d[0], cs = y.strides.d[1];
      copy_block(y.data<T>() + i0 * rs + j0 * cs, rs, cs, g.c + i0 * g.ldc + j0, g.ldc, 1, i1 - i0, j1 - j0);
    }
  };
  run_gemms<T>(1, [&](int64_t) { return g; }, T(1), T(1), pre, post);
}

// One pass over [N, M]: dz = act_grad(src, dy) (written to dz unless null) and db partial sums.
// src is y (or z for gelu; it may then be dz itself, read before written); null for kNone.
template <class T, int A>
void dz_pass(int64_t N, int64_t M, const T* src, int64_t ss_r, int64_t ss_c, const T* dy, int64_t ds_r,
             int64_t ds_c, T* dz, int64_t ldz, T alpha, double* db_sum, ndrt_device dev) {
  for (int64_t j = 0; j < M; ++j) db_sum[j] = 0;
  if (N == 0 || M == 0) return;
  constexpr int64_t CB = 128;  // columns per block: the partial sums stay in registers / L1
  const int64_t ncb = (M + CB - 1) / CB;
  int64_t R = std::clamp<int64_t>(N * M / (int64_t(1) << 17), 1, 16);  // row groups: from sizes only
  R = std::min(R, N);
  const int64_t RB = (N + R - 1) / R;
  R = (N + RB - 1) / RB;
  Dims pd{};
  pd.rank = 1;
  pd.d[0] = R * M;
  Tensor part = alloc_tensor(NDRT_F64, pd, dev);
  double* ps = part.data<double>();
  const int64_t tasks = R * ncb, grain = std::max<int64_t>(1, 32768 / (RB * CB));
  parallel_for(tasks, grain, [&](int64_t tb, int64_t te) {
    for (int64_t t = tb; t < te; ++t) {
      const int64_t r = t / ncb, j0 = (t % ncb) * CB, cols = std::min(CB, M - j0);
      const int64_t i0 = r * RB, i1 = std::min(N, i0 + RB);
      double acc[CB] = {};
      for (int64_t i = i0; i < i1; ++i) {
        const T* d = dy + i * ds_r + j0 * ds_c;
        const T* s = A == kNone ? nullptr : src + i * ss_r + j0 * ss_c;
        T* z = dz ? dz + i * ldz + j0 : nullptr;
        if (ds_c == 1 && (A == kNone || ss_c == 1)) {
          if (z) {
            for (int64_t j = 0; j < cols; ++j) {
              const T v = act_grad<T, A>(s ? s[j] : T(0), d[j], alpha);
              z[j] = v;
              acc[j] += double(v);
            }
          } else {
            for (int64_t j = 0; j < cols; ++j) acc[j] += double(act_grad<T, A>(s ? s[j] : T(0), d[j], alpha));
          }
        } else {
          for (int64_t j = 0; j < cols; ++j) {
            const T v = act_grad<T, A>(s ? s[j * ss_c] : T(0), d[j * ds_c], alpha);
            if (z) z[j] = v;
            acc[j] += double(v);
          }
        }
      }
      for (int64_t j = 0; j < cols; ++j) ps[r * M + j0 + j] = acc[j];
    }
  });
  for (int64_t r = 0; r < R; ++r)
    for (int64_t j = 0; j < M; ++j) db_sum[j] += ps[r * M + j];
}

// Writes a GEMM into `out` (rank 2) through the engine, copying out of a work buffer if needed.
template <class T>
void gemm_into(const Tensor& out, Gemm<T> g) {
  const WorkOut wo = work_out(out);
  g.c = wo.buf.data<T>();
  g.ldc = wo.ld;
  auto post = [&](int64_t, int64_t i0, int64_t i1, int64_t j0, int64_t j1) {
    if (wo.direct) return;
    const int64_t rs = out.strides.d[0], cs = out.strides.d[1];
    copy_block(out.data<T>() + i0 * rs + j0 * cs, rs, cs, g.c + i0 * g.ldc + j0, g.ldc, 1, i1 - i0, j1 - j0);
  };
  run_gemms<T>(1, [&](int64_t) { return g; }, T(1), T(0), NoHook{}, post);
}

template <class T, int A>
void linear_bp_run(OpContext& c) {
  const bool tw = c.attrs.get_bool(kTransW);
  const T alpha = T(c.attrs.get_float(kAlpha));
  const Tensor &x = *c.in[0], &w = *c.in[1], &b = *c.in[2], &y = *c.in[3], &dy = *c.in[4];
  const Tensor &dx = *c.out[0], &dw = *c.out[1], &db = *c.out[2];
  const int64_t N = x.shape.d[0], K = x.shape.d[1], M = dy.shape.d[1];
  check_blas_sizes("linear_bp", N, M, K);

  // dz: dy itself when there is no activation and BLAS can read it, else a dense buffer.
  const int64_t drs = dy.strides.d[0], dcs = dy.strides.d[1];
  const bool dz_is_dy = A == kNone && (dcs == 1 || M <= 1) &&
                        (N <= 1 || (drs >= std::max<int64_t>(1, M) && drs <= INT32_MAX));
  Tensor dzt;
  const T* dz;
  int64_t ldz = std::max<int64_t>(1, M);
  if (dz_is_dy) {
    dz = dy.data<T>();
    if (N > 1) ldz = drs;
  } else {
    Dims s = dy.shape;
    dzt = alloc_tensor(dy.dtype, s, c.device);
    dz = dzt.data<T>();
  }
  // The saved value the derivative reads: y, or for gelu the pre-activation recomputed into dz.
  const T* src = y.data<T>();
  int64_t ss_r = y.strides.d[0], ss_c = y.strides.d[1];
  if (A == kGelu && N * M > 0) {
    MatArg mx, mw;
    const Tensor xa = blas_operand<T>(x, false, mx), wa = blas_operand<T>(w, tw, mw);
    Gemm<T> g;
    g.ta = mx.trans;
    g.tb = mw.trans;
    g.m = N;
    g.n = M;
    g.k = K;
    g.a = xa.data<T>();
    g.lda = mx.ld;
    g.b = wa.data<T>();
    g.ldb = mw.ld;
    g.c = dzt.data<T>();
    g.ldc = ldz;
    const T* bias = b.data<T>();
    const int64_t bs = b.strides.d[0];
    auto pre = [&](int64_t, int64_t i0, int64_t i1, int64_t j0, int64_t j1) {
      for (int64_t i = i0; i < i1; ++i)
        for (int64_t j = j0; j < j1; ++j) g.c[i * ldz + j] = bias[j * bs];
    };
    run_gemms<T>(1, [&](int64_t) { return g; }, T(1), T(1), pre, NoHook{});
    src = g.c;
    ss_r = ldz;
    ss_c = 1;
  }

  // dz and db in one pass.
  {
    Dims s{};
    s.rank = 1;
    s.d[0] = M;
    Tensor sums = alloc_tensor(NDRT_F64, s, c.device);
    double* sp = sums.data<double>();
    dz_pass<T, A>(N, M, src, ss_r, ss_c, dy.data<T>(), drs, dcs, dz_is_dy ? nullptr : dzt.data<T>(), ldz, alpha, sp,
                  c.device);
    T* dbp = db.data<T>();
    const int64_t dbs = db.strides.d[0];
    for (int64_t j = 0; j < M; ++j) dbp[j * dbs] = T(sp[j]);
  }

  // dx[N, K] = dz[N, M] @ W^T, W^T = tw ? w : w^T.
  if (dx.numel() > 0) {
    MatArg mw;
    const Tensor wa = blas_operand<T>(w, !tw, mw);
    Gemm<T> g;
    g.ta = false;
    g.tb = mw.trans;
    g.m = N;
    g.n = K;
    g.k = M;
    g.a = dz;
    g.lda = ldz;
    g.b = wa.data<T>();
    g.ldb = mw.ld;
    gemm_into<T>(dx, g);
  }
  // dw = x^T @ dz ([K, M]), or its transpose dz^T @ x ([M, K]) when w is stored transposed.
  if (dw.numel() > 0) {
    MatArg mx;
    const Tensor xa = blas_operand<T>(x, !tw, mx);
    Gemm<T> g;
    g.k = N;
    if (!tw) {
      g.ta = mx.trans;
      g.tb = false;
      g.m = K;
      g.n = M;
      g.a = xa.data<T>();
      g.lda = mx.ld;
      g.b = dz;
      g.ldb = ldz;
    } else {
      g.ta = true;
      g.tb = mx.trans;
      g.m = M;
      g.n = K;
      g.a = dz;
      g.lda = ldz;
      g.b = xa.data<T>();
      g.ldb = mx.ld;
    }
    gemm_into<T>(dw, g);
  }
}

template <class T>
void linear_kernel(OpContext& c) {
  switch (c.attrs.get_int(kActivation)) {
    case kRelu: return linear_run<T, kRelu>(c);
    case kSigmoid: return linear_run<T, kSigmoid>(c);
    case kTanh: return linear_run<T, kTanh>(c);
    case kLeaky: return linear_run<T, kLeaky>(c);
    case kGelu: return linear_run<T, kGelu>(c);
    default: return linear_run<T, kNone>(c);
  }
}

template <class T>
void linear_bp_kernel(OpContext& c) {
  switch (c.attrs.get_int(kActivation)) {
    case kRelu: return linear_bp_run<T, kRelu>(c);
    case kSigmoid: return linear_bp_run<T, kSigmoid>(c);
    case kTanh: return linear_bp_run<T, kTanh>(c);
    case kLeaky: return linear_bp_run<T, kLeaky>(c);
    case kGelu: return linear_bp_run<T, kGelu>(c);
    default: return linear_bp_run<T, kNone>(c);
  }
}

void linear_f16(OpContext& c) { run_via_f32(c, linear_kernel<float>, "ndrt:linear-f16-via-sgemm"); }
void linear_bf16(OpContext& c) { run_via_f32(c, linear_kernel<float>, "ndrt:linear-bf16-via-sgemm"); }
void linear_bp_f16(OpContext& c) { run_via_f32(c, linear_bp_kernel<float>, "ndrt:linear_bp-f16-via-sgemm"); }
void linear_bp_bf16(OpContext& c) { run_via_f32(c, linear_bp_kernel<float>, "ndrt:linear_bp-bf16-via-sgemm"); }

}  // namespace

void register_cpu_linalg_dense(Registry& r) {
  r.kernel("linear", kCpu, {NDRT_F32}, linear_kernel<float>, "openblas:sgemm+epilogue");
  r.kernel("linear", kCpu, {NDRT_F64}, linear_kernel<double>, "openblas:dgemm+epilogue");
  r.kernel("linear_bp", kCpu, {NDRT_F32}, linear_bp_kernel<float>, "openblas:sgemm+epilogue");
  r.kernel("linear_bp", kCpu, {NDRT_F64}, linear_bp_kernel<double>, "openblas:dgemm+epilogue");
  r.kernel("linear", kCpu, {NDRT_F16}, linear_f16, "ndrt:linear-f16-via-sgemm");
  r.kernel("linear", kCpu, {NDRT_BF16}, linear_bf16, "ndrt:linear-bf16-via-sgemm");
  r.kernel("linear_bp", kCpu, {NDRT_F16}, linear_bp_f16, "ndrt:linear_bp-f16-via-sgemm");
  r.kernel("linear_bp", kCpu, {NDRT_BF16}, linear_bp_bf16, "ndrt:linear_bp-bf16-via-sgemm");
}

}  // namespace ndrt
