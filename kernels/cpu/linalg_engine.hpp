// The GEMM engine of the linalg family (matmul, gemm, linear, linear_bp).
//
// Threads: ndrt's intra-op pool does the threading, not OpenBLAS. While any GEMM of this engine
// runs, OpenBLAS is set to one thread and each GEMM is cut into tiles (or a batch into groups of
// matrices) that run as pool parts, one single-threaded BLAS call per tile. So a GEMM follows
// cpu.threads like every other op, and when another host thread holds the pool the call runs on
// the caller alone instead of putting a second set of threads on the cores. When no engine GEMM
// runs, OpenBLAS's count is put back to cpu.threads for code that calls cblas directly.
// (Debian's libopenblas0-pthread 0.3.21 holds one global mutex across every threaded level-3
// call, so concurrent threaded calls run one at a time, and its idle workers keep spinning on
// sched_yield for a while after each call; neither happens with one OpenBLAS thread.)
//
// Each tile's thread also runs a caller hook before its BLAS call (e.g. fill C with the bias so
// the GEMM accumulates onto it with beta = 1) and after it (the epilogue, on cache-hot data).
#pragma once
#include <cstdint>

#include "parallel.hpp"
#include "tensor.hpp"

namespace ndrt::linalg {

// C[m x n] = alpha * op(A)[m x k] @ op(B)[k x n] + beta * C, all row-major: A is stored [m x k]
// (ta false) or [k x m] (ta true) with leading dimension lda; likewise B; C has row stride ldc.
template <class T>
struct Gemm {
  bool ta = false, tb = false;
  int64_t m = 0, n = 0, k = 0;
  const T* a = nullptr;
  int64_t lda = 1;
  const T* b = nullptr;
  int64_t ldb = 1;
  T* c = nullptr;
  int64_t ldc = 1;
};

// OpenBLAS runs single-threaded while any of these lives; the last one out sets it back to
// cpu.threads. Two mutex operations and at most two openblas_set_num_threads calls (~20 ns).
class BlasOneThread {
 public:
  BlasOneThread();
  ~BlasOneThread();
  BlasOneThread(const BlasOneThread&) = delete;
  BlasOneThread& operator=(const BlasOneThread&) = delete;
};

// Before a BLAS call that leaves the threading to OpenBLAS (ndrt's own convolution's one big GEMM):
// OpenBLAS set to the active thread count (runtime/cores.hpp), unless engine GEMMs are in flight
// (their tiles need it at one; the call then runs single-threaded).
void blas_threads_for_direct_call();

// One single-threaded BLAS call on rows [i0, i1) x columns [j0, j1) of C. When k == 0 or
// alpha == 0 there is no BLAS call: the block becomes beta * C, exactly 0 for beta == 0.
template <class T>
void gemm_block(const Gemm<T>& g, int64_t i0, int64_t i1, int64_t j0, int64_t j1, T alpha, T beta);
extern template void gemm_block<float>(const Gemm<float>&, int64_t, int64_t, int64_t, int64_t, float, float);
extern template void gemm_block<double>(const Gemm<double>&, int64_t, int64_t, int64_t, int64_t, double, double);

// How nb GEMMs of m x n x k are cut: a pm x pn tile grid per matrix, `tasks` = nb * pm * pn
// pool items in parallel_for chunks of `grain`. Depends only on the sizes and cpu.threads.
struct Split {
  int32_t pm = 1, pn = 1;
  int64_t tasks = 1, grain = 1;
};
Split plan_split(int64_t nb, int64_t m, int64_t n, int64_t k);
// Tile t (row-major in the grid) of [0, m) x [0, n).
void tile_bounds(const Split& s, int64_t m, int64_t n, int64_t t, int64_t& i0, int64_t& i1, int64_t& j0, int64_t& j1);

struct NoHook {
  void operator()(int64_t, int64_t, int64_t, int64_t, int64_t) const {}
};

// Runs block(bi, i0, i1, j0, j1) over the tiles of nb m x n products with inner size k, as pool
// parts. When the call runs inline (the pool is busy with another host thread, or one thread) the
// blocks are whole matrices instead. Blocks must not throw.
template <class Block>
void run_tiled(int64_t nb, int64_t m, int64_t n, int64_t k, Block&& block) {
  if (nb <= 0 || m == 0 || n == 0) return;
  const Split s = plan_split(nb, m, n, k);
  const int64_t per = int64_t(s.pm) * s.pn;
  parallel_for(s.tasks, s.grain, [&](int64_t b, int64_t e) {
    if (per > 1 && b == 0 && e == s.tasks) {
      for (int64_t bi = 0; bi < nb; ++bi) block(bi, int64_t(0), m, int64_t(0), n);
      return;
    }
    for (int64_t t = b; t < e; ++t) {
      int64_t i0, i1, j0, j1;
      tile_bounds(s, m, n, t % per, i0, i1, j0, j1);
      if (i0 < i1 && j0 < j1) block(t / per, i0, i1, j0, j1);
    }
  });
}

// Runs nb GEMMs (get(bi) gives matrix bi; all share m, n, k) over the pool. pre/post(bi, i0, i1,
// j0, j1) run on the tile's thread right before / after its BLAS call. Hooks must not throw.
template <class T, class Get, class Pre, class Post>
void run_gemms(int64_t nb, Get&& get, T alpha, T beta, Pre&& pre, Post&& post) {
  if (nb <= 0) return;
  const Gemm<T> g0 = get(int64_t(0));
  BlasOneThread one;
  run_tiled(nb, g0.m, g0.n, g0.k, [&](int64_t bi, int64_t i0, int64_t i1, int64_t j0, int64_t j1) {
    pre(bi, i0, i1, j0, j1);
    gemm_block<T>(get(bi), i0, i1, j0, j1, alpha, beta);
    post(bi, i0, i1, j0, j1);
  });
}

template <class T, class Get>
void run_gemms(int64_t nb, Get&& get, T alpha, T beta) {
  run_gemms<T>(nb, get, alpha, beta, NoHook{}, NoHook{});
}

// ------------------------------------------------------------------------------------------------
// Operands: how a tensor's last two axes reach BLAS.
// ------------------------------------------------------------------------------------------------

// A matrix operand: op(X) as BLAS sees it (trans flag folds in the layout) and its leading dim.
struct MatArg {
  bool trans = false;
  int64_t ld = 1;
};

// Can the last two axes (rows x cols, strides rs, cs) go to row-major BLAS without a copy, with
// `want_trans` requested on top? Leading dimensions past INT32_MAX are refused (BLAS takes int).
bool blas_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs, bool want_trans, MatArg& out);

// The operand as BLAS will read it: `t` itself, or a dense row-major copy when its last two axes
// are not BLAS-readable (broadcast rows, negative strides, gaps in both axes).
template <class T>
Tensor blas_operand(const Tensor& t, bool want_trans, MatArg& out);

// Batch strides of t (rank r, last two axes are the matrix) seen with `batch` (numpy broadcast).
void batch_strides(const Tensor& t, const Dims& batch, int64_t* out);
// Element offset of batch entry bi (row-major over `batch`) with strides s.
inline int64_t batch_offset(int64_t bi, const Dims& batch, const int64_t* s) {
  int64_t off = 0;
  for (int i = batch.rank - 1; i >= 0 && bi; --i) {
    off += (bi % batch.d[i]) * s[i];
    bi /= batch.d[i];
  }
  return off;
}

// The buffer a GEMM writes: the output itself when its last two axes are row-major with a
// BLAS-legal row stride, else a dense temporary the epilogue copies from.
struct WorkOut {
  Tensor buf;      // the output or the temporary
  bool direct;     // buf is the output
  int64_t ld;      // row stride of buf
  int64_t bs[NDRT_MAX_RANK];  // batch strides of buf over the output's batch axes
};
WorkOut work_out(const Tensor& y);

// rows x cols block copy between strided matrices.
template <class T>
void copy_block(T* dst, int64_t drs, int64_t dcs, const T* src, int64_t srs, int64_t scs, int64_t rows, int64_t cols) {
  for (int64_t i = 0; i < rows; ++i) {
    T* d = dst + i * drs;
    const T* s = src + i * srs;
    if (dcs == 1 && scs == 1)
      for (int64_t j = 0; j < cols; ++j) d[j] = s[j];
    else
      for (int64_t j = 0; j < cols; ++j) d[j * dcs] = s[j * scs];
  }
}

// Refuses sizes the int-based BLAS interface cannot take.
void check_blas_sizes(const char* op, int64_t m, int64_t n, int64_t k);

}  // namespace ndrt::linalg
