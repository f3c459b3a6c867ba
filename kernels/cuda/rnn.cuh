// Shared pieces of the recurrent CUDA kernels: rnn.cu (the design, LSTM, registration) and
// rnn_gru.cu (GRU). The compute type A is float (f32, f16, bf16) or double (f64).
#pragma once
#include <optional>
#include <type_traits>

#include "channel_sums.cuh"
#include "dense_copy.cuh"

namespace ndrt::cuda::rnn {

using dense::base_of;
using dense::first_index;
using dense::grid_step;

enum { kReverse = 0, kTimeMajor = 1 };  // attribute order (runtime/ops/rnn.cpp)

// One call's geometry, passed to kernels by value. Every sequence buffer ([.., .., f]: x, y, dy, ws
// and the gate gradients) is a dense [B*T, f] matrix in x's major order, as on the CPU
// (kernels/cpu/rnn.hpp, Seq): row(t, b) = t*B + b with time_major, b*T + t without, so one step's
// B rows are bstride() rows apart and form one strided matrix cuBLAS reads or writes in place.
struct Seq {
  int64_t B = 0, T = 0, I = 0, H = 0;
  bool tm = false, reverse = false;
  __host__ __device__ int64_t rows() const { return B * T; }
  __host__ __device__ int64_t row(int64_t t, int64_t b) const { return tm ? t * B + b : b * T + t; }
  __host__ __device__ int64_t bstride() const { return tm ? 1 : T; }
  // Time index of the s-th step processed (forward order).
  __host__ __device__ int64_t time_of(int64_t s) const { return reverse ? T - 1 - s : s; }
  // Row b's first valid step processed (its previous state is h0 / c0), for a valid t < len.
  __host__ __device__ bool first(int64_t t, int64_t len) const { return reverse ? t == len - 1 : t == 0; }
  // The row of the step processed just before (t, b); only for a valid, non-first step.
  __host__ __device__ int64_t prev_row(int64_t t, int64_t b) const { return row(reverse ? t + 1 : t - 1, b); }
};

inline Seq make_seq(const OpContext& c) {
  Seq s;
  s.tm = c.attrs.get_bool(kTimeMajor);
  s.reverse = c.attrs.get_bool(kReverse);
  const Tensor& x = *c.in[0];
  s.B = x.shape.d[s.tm ? 1 : 0];
  s.T = x.shape.d[s.tm ? 0 : 1];
  s.I = x.shape.d[2];
  s.H = c.in[2]->shape.d[1];
  return s;
}

// ---- device math (the CPU's sigmoid_of / tanh_of forms) ----------------------------------------

template <class A>
__device__ __forceinline__ A sigmoid_of(A x) {
  const A e = exp(-fabs(x)), s = A(1) / (A(1) + e);
  return x >= A(0) ? s : e * s;
}

// ---- lengths -----------------------------------------------------------------------------------

// dst[b] = lengths[b] read as int64 with lengths > T taken as T and < 0 as 0 (see rnn.cu's header:
// out-of-range lengths are not reported on cuda).
template <class I>
__global__ void lengths_kernel(const I* src, int64_t stride, int64_t T, int64_t* dst, int64_t B) {
  for (int64_t b = first_index(); b < B; b += grid_step()) {
    const int64_t v = int64_t(src[b * stride]);
    dst[b] = v < 0 ? 0 : v > T ? T : v;
  }
}

// The lengths input (i32 or i64, any stride) as a dense int64 [B] array in `keep` (null for B = 0).
inline const int64_t* read_lengths(const OpContext& c, const Tensor& L, int64_t T, std::optional<Scratch>& keep) {
  const int64_t B = L.shape.d[0];
  if (B <= 0) return nullptr;
  keep.emplace(c.device, size_t(B) * sizeof(int64_t));
  int64_t* dst = keep->as<int64_t>();
  const Launch l = launch_for(B);
  const int64_t st = L.strides.d[0];
  if (L.dtype == NDRT_I32)
    lengths_kernel<int32_t><<<l.grid, l.block, 0, stream(c)>>>(reinterpret_cast<const int32_t*>(base_of(L)), st, T,
                                                               dst, B);
  else
    lengths_kernel<int64_t><<<l.grid, l.block, 0, stream(c)>>>(reinterpret_cast<const int64_t*>(base_of(L)), st, T,
                                                               dst, B);
  check_launch(c.op->name);
  return dst;
}

// ---- dense operands in the compute type --------------------------------------------------------

template <class T, class A>
__global__ void to_compute(View src, A* dst, int64_t n) {
  for (int64_t i = first_index(); i < n; i += grid_step()) dst[i] = convert<A>(src.at<T>(i));
}
template <class T, class A>
__global__ void from_compute(View dst, const A* src, int64_t n) {
  for (int64_t i = first_index(); i < n; i += grid_step()) dst.at<T>(i) = convert<T>(src[i]);
}

// Input t (storage type T) as a dense row-major array of A: t itself when T is A and t is
// contiguous, else a packed copy in `keep` (16-bit T: converted to f32, exactly).
template <class T, class A>
const A* dense_in(const OpContext& c, const Tensor& t, std::optional<Scratch>& keep) {
  const int64_t n = t.numel();
  if (n == 0) return nullptr;  // never dereferenced
  if constexpr (std::is_same_v<T, A>)
    if (is_contiguous(t)) return reinterpret_cast<const A*>(base_of(t));
  keep.emplace(c.device, size_t(n) * sizeof(A));
  if constexpr (std::is_same_v<T, A>) {
    dense::copy(c, dense::packed_view(keep->ptr, t.shape), dense::strided_view(t), n, int64_t(sizeof(A)));
  } else {
    const Launch l = launch_for(n);
    to_compute<T, A><<<l.grid, l.block, 0, stream(c)>>>(dense::strided_view(t), keep->as<A>(), n);
    check_launch(c.op->name);
  }
  return keep->as<A>();
}

// Output t (storage type T) computed as a dense row-major array of A: t itself when T is A and t
// is contiguous, else scratch that finish() copies (16-bit T: rounds once) into t.
template <class T, class A>
struct DenseOut {
  const OpContext& c;
  const Tensor& t;
  std::optional<Scratch> own;
  A* p = nullptr;
  DenseOut(const OpContext& ctx, const Tensor& out) : c(ctx), t(out) {
    const int64_t n = out.numel();
    if (n == 0) return;  // p stays null, never dereferenced
    if (std::is_same_v<T, A> && is_contiguous(out)) {
      p = reinterpret_cast<A*>(base_of(out));
      return;
    }
    own.emplace(ctx.device, size_t(n) * sizeof(A));
    p = own->as<A>();
  }
  DenseOut(const DenseOut&) = delete;
  DenseOut& operator=(const DenseOut&) = delete;
  void finish() {
    if (!own) return;
    const int64_t n = t.numel();
    if constexpr (std::is_same_v<T, A>) {
      dense::copy(c, dense::strided_view(t), dense::packed_view(own->ptr, t.shape), n, int64_t(sizeof(A)));
    } else {
      const Launch l = launch_for(n);
      from_compute<T, A><<<l.grid, l.block, 0, stream(c)>>>(dense::strided_view(t), own->as<A>(), n);
      check_launch(c.op->name);
    }
  }
};

// dst[0..n) = src[0..n) (a state buffer initialised from h0 / c0 / dh_n / dc_n).
template <class A>
void copy_dense(const OpContext& c, A* dst, const A* src, int64_t n) {
  if (n <= 0 || dst == src) return;
  check(cudaMemcpyAsync(dst, src, size_t(n) * sizeof(A), cudaMemcpyDeviceToDevice, stream(c)), c.op->name);
}

// ---- GEMM --------------------------------------------------------------------------------------

// Row-major C[m x n] = op(A)[m x k] op(B)[k x n] + beta C on this thread's stream, as linalg.cu:
// cuBLAS computes the column-major C^T = op(B)^T op(A)^T, so row-major operands need no copy.
// f32 honours cuda.matmul.allow_tf32 (read once per op call), f64 computes in f64. Nothing is
// called with a zero dimension: m == 0 or n == 0 does nothing, k == 0 gives beta C (beta is 0 or
// 1 here: zeros written, or C left alone).
template <class A>
struct Blas {
  const OpContext& c;
  cublasHandle_t h;
  cublasComputeType_t compute;
  explicit Blas(const OpContext& ctx) : c(ctx), h(cublas(ctx.device)) {
    // The handle is shared by the module's files: state the modes relied on (host scalars).
    check(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST), "cublasSetPointerMode");
    check(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
    if constexpr (std::is_same_v<A, double>)
      compute = CUBLAS_COMPUTE_64F;
    else
      compute = matmul_allow_tf32() ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  }
  void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const A* a, int64_t lda, const A* b, int64_t ldb,
            A beta, A* cc, int64_t ldc) const {
    if (m <= 0 || n <= 0) return;
    ldc = ldc > 1 ? ldc : 1;
    if (k <= 0) {
      if (beta == A(0))
        check(cudaMemset2DAsync(cc, size_t(ldc) * sizeof(A), 0, size_t(n) * sizeof(A), size_t(m), stream(c)),
              c.op->name);
      return;
    }
    constexpr cudaDataType dt = std::is_same_v<A, double> ? CUDA_R_64F : CUDA_R_32F;
    const A one = A(1);
    check(cublasGemmEx_64(h, tb ? CUBLAS_OP_T : CUBLAS_OP_N, ta ? CUBLAS_OP_T : CUBLAS_OP_N, n, m, k, &one, b, dt,
                          ldb > 1 ? ldb : 1, a, dt, lda > 1 ? lda : 1, &beta, cc, dt, ldc, compute,
                          CUBLAS_GEMM_DEFAULT),
          "cublasGemmEx");
  }
};

// ---- bias gradients ----------------------------------------------------------------------------

// Column sums of a dense [rows, cols] matrix in f64 (chan::channel_sums: fixed order, no atomics),
// rounded to A and written to o1 and, when not null, o2 (dense [cols]). rows == 0 gives zeros.
template <class A>
struct ColValue {
  const A* p;
  __device__ void operator()(int64_t e, int64_t, double* v) const { v[0] = double(p[e]); }
};
template <class A>
struct ColStore {
  A* o1;
  A* o2;
  __device__ void operator()(int64_t c, const double* s) const {
    o1[c] = A(s[0]);
    if (o2) o2[c] = A(s[0]);
  }
};
template <class A>
void col_sums(const OpContext& c, const A* m, int64_t rows, int64_t cols, A* o1, A* o2) {
  if (cols <= 0) return;
  chan::channel_sums<1>(c, rows, cols, 1, ColValue<A>{m}, ColStore<A>{o1, o2});
}

// After the step loop, the gradients over all steps at once: dx = dG_i @ W_ih, dW_ih = dG_i^T @ X,
// dW_hh = dG_h^T @ H_prev, db_ih and db_hh the column sums of dG_i and dG_h (the LSTM passes one
// dG for both: one sum written twice). Outputs are dense [R, I], [G, I], [G, H], [G], [G].
template <class T, class A>
void all_step_grads(const OpContext& c, const Blas<A>& blas, int64_t R, int64_t I, int64_t H, int64_t G, const A* dGi,
                    const A* dGh, const A* Hp, A* dx, A* dwi, A* dwh, A* dbi, A* dbh) {
  std::optional<Scratch> kx, kwi;
  const A* xp = dense_in<T, A>(c, *c.in[0], kx);
  const A* wip = dense_in<T, A>(c, *c.in[1], kwi);
  blas.gemm(false, false, R, I, G, dGi, G, wip, I, A(0), dx, I);
  blas.gemm(true, false, G, I, R, dGi, G, xp, I, A(0), dwi, I);
  blas.gemm(true, false, G, H, R, dGh, G, Hp, H, A(0), dwh, H);
  if (dGi == dGh) {
    col_sums<A>(c, dGi, R, G, dbi, dbh);
  } else {
    col_sums<A>(c, dGi, R, G, dbi, nullptr);
    col_sums<A>(c, dGh, R, G, dbh, nullptr);
  }
}

// Grid over the B*H (batch row, hidden unit) pairs of one step.
inline Launch step_launch(const Seq& s) { return launch_for(s.B * s.H); }

void register_cuda_gru();  // rnn_gru.cu

}  // namespace ndrt::cuda::rnn
