// The linalg GEMM engine: OpenBLAS pinned to one thread, tiles over ndrt's pool (see the header).
#include "linalg_engine.hpp"

#include <algorithm>
#include <climits>
#include <mutex>
#include <numeric>

#include "blas.hpp"
#include "cores.hpp"
#include "error.hpp"
#include "loops.hpp"

namespace ndrt::linalg {

namespace {

// Below this many multiply-adds a pool part costs more than it saves (~0.5 MFLOP, tens of us).
constexpr double kMinTaskMacs = double(1 << 18);
// Tiles keep at least this many rows / columns (BLAS micro-kernels work on 8..16-wide panels).
constexpr int64_t kMinTileRows = 16, kMinTileCols = 32;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Best pm x pn == tiles grid: least packing work (each tile packs its A row panel and B column
// panel: k * (m * pn + n * pm) in all, OpenBLAS's own criterion), tiles not thinner than the
// minimums. False when no factorisation fits.
bool pick_grid(int64_t tiles, int64_t m, int64_t n, int32_t& pm, int32_t& pn) {
  double best = -1;
  for (int64_t i = 1; i <= tiles; ++i) {
    if (tiles % i) continue;
    const int64_t j = tiles / i;
    if ((i > 1 && m / i < kMinTileRows) || (j > 1 && n / j < kMinTileCols)) continue;
    const double cost = double(m) * double(j) + double(n) * double(i);
    if (best < 0 || cost <= best) {  // ties: more row tiles (contiguous C rows per part)
      best = cost;
      pm = int32_t(i);
      pn = int32_t(j);
    }
  }
  return best >= 0;
}

// Boundary p of `parts` equal cuts of [0, len), rounded down to a multiple of `align` (the tile
// minimums keep every tile non-empty).
int64_t cut(int64_t len, int64_t parts, int64_t p, int64_t align) {
  if (p >= parts) return len;
  return (len * p / parts) / align * align;
}

}  // namespace

namespace {
std::mutex g_blas_mu;
int g_blas_users = 0;  // engine GEMMs in flight, guarded by g_blas_mu
}  // namespace

BlasOneThread::BlasOneThread() {
  std::lock_guard<std::mutex> lock(g_blas_mu);
  const blas::Api& b = blas::api();
  if (g_blas_users++ == 0 && b.get_num_threads() != 1) b.set_num_threads(1);
}

BlasOneThread::~BlasOneThread() {
  std::lock_guard<std::mutex> lock(g_blas_mu);
  if (--g_blas_users == 0) {
    const int t = cpu_threads();
    const blas::Api& b = blas::api();
    if (b.get_num_threads() != t) b.set_num_threads(t);
  }
}

void blas_threads_for_direct_call() {
  std::lock_guard<std::mutex> lock(g_blas_mu);
  const int t = g_blas_users ? 1 : active_threads();
  const blas::Api& b = blas::api();
  if (b.get_num_threads() != t) b.set_num_threads(t);
}

Split plan_split(int64_t nb, int64_t m, int64_t n, int64_t k) {
  Split s;
  s.tasks = nb;
  s.grain = nb;  // one part: everything inline
  const int64_t threads = cpu_threads();
  const double per_matrix = double(m) * double(n) * double(std::max<int64_t>(k, 1));
  const double total = per_matrix * double(nb);
  if (threads <= 1 || total < 2 * kMinTaskMacs) return s;
  const int64_t parts = int64_t(std::min(double(threads), total / kMinTaskMacs));
  if (nb >= parts) {  // whole matrices per part
    s.grain = ceil_div(nb, parts);
    return s;
  }
  // Fewer matrices than parts: tile each, nb * tiles a multiple of parts where sizes allow.
  int64_t tiles = parts / std::gcd(nb, parts);
  const int64_t cap = std::max<int64_t>(1, int64_t(per_matrix / kMinTaskMacs));
  if (tiles > cap) tiles = std::max<int64_t>(1, std::min(cap, ceil_div(parts, nb)));
  int32_t pm = 1, pn = 1;
  while (tiles > 1 && !pick_grid(tiles, m, n, pm, pn)) --tiles;
  if (tiles <= 1) pm = pn = 1;
  s.pm = pm;
  s.pn = pn;
  s.tasks = nb * pm * pn;
  s.grain = ceil_div(s.tasks, parts);
  return s;
}

void tile_bounds(const Split& s, int64_t m, int64_t n, int64_t t, int64_t& i0, int64_t& i1, int64_t& j0,
                 int64_t& j1) {
  const int64_t ti = t / s.pn, tj = t % s.pn;
  i0 = cut(m, s.pm, ti, 8);
  i1 = cut(m, s.pm, ti + 1, 8);
  j0 = cut(n, s.pn, tj, 16);
  j1 = cut(n, s.pn, tj + 1, 16);
}

template <class T>
void gemm_block(const Gemm<T>& g, int64_t i0, int64_t i1, int64_t j0, int64_t j1, T alpha, T beta) {
  const int64_t rows = i1 - i0, cols = j1 - j0;
  T* c = g.c + i0 * g.ldc + j0;
  if (g.k == 0 || alpha == T(0)) {  // BLAS may skip these; define them: C = beta * C, 0 * NaN = 0
    for (int64_t i = 0; i < rows; ++i) {
      T* row = c + i * g.ldc;
      if (beta == T(0))
        std::fill(row, row + cols, T(0));
      else if (beta != T(1))
        for (int64_t j = 0; j < cols; ++j) row[j] *= beta;
    }
    return;
  }
  const T* a = g.ta ? g.a + i0 : g.a + i0 * g.lda;
  const T* b = g.tb ? g.b + j0 * g.ldb : g.b + j0;
  const auto ta = g.ta ? CblasTrans : CblasNoTrans, tb = g.tb ? CblasTrans : CblasNoTrans;
  if constexpr (std::is_same_v<T, float>)
    blas::api().sgemm(CblasRowMajor, ta, tb, int(rows), int(cols), int(g.k), alpha, a, int(g.lda), b, int(g.ldb), beta, c,
                int(g.ldc));
  else
    blas::api().dgemm(CblasRowMajor, ta, tb, int(rows), int(cols), int(g.k), alpha, a, int(g.lda), b, int(g.ldb), beta, c,
                int(g.ldc));
}

template void gemm_block<float>(const Gemm<float>&, int64_t, int64_t, int64_t, int64_t, float, float);
template void gemm_block<double>(const Gemm<double>&, int64_t, int64_t, int64_t, int64_t, double, double);

bool blas_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs, bool want_trans, MatArg& out) {
  if ((rows <= 1 && cols <= 1) || rows == 0 || cols == 0) {  // nothing to stride over
    out = {want_trans, std::max<int64_t>(1, cols)};
    return true;
  }
  if ((cs == 1 || cols == 1) && rs >= std::max<int64_t>(1, cols) && rs <= INT32_MAX) {
    out = {want_trans, rs};
    return true;
  }
  if ((rs == 1 || rows == 1) && cs >= std::max<int64_t>(1, rows) && cs <= INT32_MAX) {
    out = {!want_trans, cs};
    return true;
  }
  if (rows == 1 && cs == 1) {  // a single row: any row stride will do
    out = {want_trans, std::max<int64_t>(1, cols)};
    return true;
  }
  if (cols == 1 && rs == 1) {  // a single column
    out = {!want_trans, std::max<int64_t>(1, rows)};
    return true;
  }
  return false;
}

template <class T>
Tensor blas_operand(const Tensor& t, bool want_trans, MatArg& out) {
  const int r = t.rank();
  if (blas_layout(t.shape.d[r - 2], t.shape.d[r - 1], t.strides.d[r - 2], t.strides.d[r - 1], want_trans, out))
    return t;
  Tensor d = alloc_tensor(t.dtype, t.shape, t.device());
  Loop<2> L = make_loop<2>(d, {&t});
  run_loop(L, [&](char** p, int64_t n, const int64_t* s) {
    T* o = reinterpret_cast<T*>(p[0]);
    const T* x = reinterpret_cast<const T*>(p[1]);
    for (int64_t i = 0; i < n; ++i) o[i * s[0]] = x[i * s[1]];
  });
  blas_layout(d.shape.d[r - 2], d.shape.d[r - 1], d.strides.d[r - 2], d.strides.d[r - 1], want_trans, out);
  return d;
}

template Tensor blas_operand<float>(const Tensor&, bool, MatArg&);
template Tensor blas_operand<double>(const Tensor&, bool, MatArg&);
template Tensor blas_operand<BFloat16>(const Tensor&, bool, MatArg&);

void batch_strides(const Tensor& t, const Dims& batch, int64_t* out) {
  const int tr = t.rank() - 2, off = batch.rank - tr;
  for (int i = 0; i < batch.rank; ++i) {
    const int j = i - off;
    out[i] = (j < 0 || t.shape.d[j] == 1) ? 0 : t.strides.d[j];
  }
}

WorkOut work_out(const Tensor& y) {
  WorkOut w;
  const int r = y.rank();
  const int64_t m = y.shape.d[r - 2], n = y.shape.d[r - 1], rs = y.strides.d[r - 2], cs = y.strides.d[r - 1];
  w.direct = (cs == 1 || n <= 1) && (m <= 1 || (rs >= std::max<int64_t>(1, n) && rs <= INT32_MAX));
  if (w.direct) {
    w.buf = y;
    w.ld = m <= 1 ? std::max<int64_t>(1, n) : rs;
    for (int i = 0; i < r - 2; ++i) w.bs[i] = y.strides.d[i];
    return w;
  }
  w.buf = alloc_tensor(y.dtype, y.shape, y.device());
  w.ld = std::max<int64_t>(1, n);
  for (int i = 0; i < r - 2; ++i) w.bs[i] = w.buf.strides.d[i];
  return w;
}

void check_blas_sizes(const char* op, int64_t m, int64_t n, int64_t k) {
  if (m > INT32_MAX || n > INT32_MAX || k > INT32_MAX)
    fail(NDRT_ERR_NOT_SUPPORTED, "%s: a matrix dimension beyond 2^31-1 is not supported by the BLAS interface", op);
}

}  // namespace ndrt::linalg
