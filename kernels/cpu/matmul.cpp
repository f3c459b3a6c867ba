// matmul on cpu through OpenBLAS sgemm/dgemm, one call per batch entry. Operands whose last two
// axes are row- or column-major (any leading dimension) go to BLAS as they are, with the
// transpose flag absorbing the layout; anything else (broadcast rows, negative strides, gaps in
// both axes) is first copied to a dense buffer.
#include <cblas.h>

#include <cstring>
#include <vector>

#include "kernels.hpp"
#include "loops.hpp"

namespace ndrt {

namespace {

// How one operand's matrix (rows x cols, strides rs, cs) is handed to BLAS.
struct MatArg {
  bool trans;  // BLAS transpose flag for this operand (layout and requested transpose combined)
  int64_t ld;
};

// Can (rows x cols with strides rs, cs) be described to row-major BLAS without copying?
bool blas_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs, bool want_trans, MatArg& out) {
  if (cs == 1 && rs >= std::max<int64_t>(1, cols)) {
    out = {want_trans, rs};
    return true;
  }
  if (rs == 1 && cs >= std::max<int64_t>(1, rows)) {
    out = {!want_trans, cs};
    return true;
  }
  if (rows == 1 && cs == 1) {  // a single row: any row stride will do
    out = {want_trans, std::max<int64_t>(1, cols)};
    return true;
  }
  if (cols == 1 && rs == 1) {
    out = {!want_trans, std::max<int64_t>(1, rows)};
    return true;
  }
  return false;
}

template <class T>
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb, T* c,
          int64_t ldc) {
  auto TA = ta ? CblasTrans : CblasNoTrans, TB = tb ? CblasTrans : CblasNoTrans;
  if constexpr (std::is_same_v<T, float>)
    cblas_sgemm(CblasRowMajor, TA, TB, int(m), int(n), int(k), 1.0f, a, int(lda), b, int(ldb), 0.0f, c, int(ldc));
  else
    cblas_dgemm(CblasRowMajor, TA, TB, int(m), int(n), int(k), 1.0, a, int(lda), b, int(ldb), 0.0, c, int(ldc));
}

// A dense row-major copy of a tensor's data (for operands BLAS cannot read in place).
template <class T>
Tensor dense_copy(const Tensor& t) {
  Tensor d = alloc_tensor(t.dtype, t.shape, t.device());
  Loop<2> L = make_loop<2>(d, {&t});
  run_loop(L, [&](char** p, int64_t n, const int64_t* s) {
    T* o = reinterpret_cast<T*>(p[0]);
    const T* x = reinterpret_cast<const T*>(p[1]);
    for (int64_t i = 0; i < n; ++i) o[i * s[0]] = x[i * s[1]];
  });
  return d;
}

template <class T>
void matmul_kernel(OpContext& c) {
  const bool want_ta = c.attrs.get_bool(0), want_tb = c.attrs.get_bool(1);
  Tensor a = *c.in[0], b = *c.in[1];
  Tensor& y = *c.out[0];
  const int ra = a.rank(), rb = b.rank(), ry = y.rank();
  const int64_t m = y.shape.d[ry - 2], n = y.shape.d[ry - 1];
  const int64_t k = a.shape.d[ra - (want_ta ? 2 : 1)];
  if (m == 0 || n == 0) return;
  c.impl = std::is_same_v<T, float> ? "openblas:sgemm" : "openblas:dgemm";
  if (k > INT32_MAX || m > INT32_MAX || n > INT32_MAX)
    fail(NDRT_ERR_NOT_SUPPORTED, "matmul: sizes beyond 2^31 are not supported by the BLAS interface");

  MatArg ma, mb;
  if (!blas_layout(a.shape.d[ra - 2], a.shape.d[ra - 1], a.strides.d[ra - 2], a.strides.d[ra - 1], want_ta, ma)) {
    a = dense_copy<T>(a);
    blas_layout(a.shape.d[ra - 2], a.shape.d[ra - 1], a.strides.d[ra - 2], a.strides.d[ra - 1], want_ta, ma);
  }
  if (!blas_layout(b.shape.d[rb - 2], b.shape.d[rb - 1], b.strides.d[rb - 2], b.strides.d[rb - 1], want_tb, mb)) {
    b = dense_copy<T>(b);
    blas_layout(b.shape.d[rb - 2], b.shape.d[rb - 1], b.strides.d[rb - 2], b.strides.d[rb - 1], want_tb, mb);
  }
  // The output must be row-major in its last two axes for BLAS; otherwise compute into a dense
  // buffer and copy into the caller's view.
  const bool y_direct = y.strides.d[ry - 1] == 1 && y.strides.d[ry - 2] >= std::max<int64_t>(1, n);
  Tensor yd = y_direct ? y : alloc_tensor(y.dtype, y.shape, y.device());
  const int64_t ldc = yd.strides.d[ry - 2];

  // Batch offsets with broadcasting: walk the output's batch index.
  Dims batch;
  batch.rank = ry - 2;
  for (int i = 0; i < batch.rank; ++i) batch.d[i] = y.shape.d[i];
  int64_t sa[NDRT_MAX_RANK], sb[NDRT_MAX_RANK];
  Tensor ab = a, bb = b;
  ab.shape.rank = ra - 2;
  ab.strides.rank = ra - 2;
  bb.shape.rank = rb - 2;
  bb.strides.rank = rb - 2;
  broadcast_strides(ab, batch, sa);
  broadcast_strides(bb, batch, sb);
  const int64_t nbatch = batch.numel();
  for (int64_t bi = 0; bi < nbatch; ++bi) {
    int64_t rem = bi, oa = 0, ob = 0, oy = 0;
    for (int i = batch.rank - 1; i >= 0; --i) {
      int64_t idx = rem % batch.d[i];
      rem /= batch.d[i];
      oa += idx * sa[i];
      ob += idx * sb[i];
      oy += idx * yd.strides.d[i];
    }
    T* yp = yd.data<T>() + oy;
    if (k == 0) {  // empty inner product: zeros (BLAS may leave C untouched)
      for (int64_t i = 0; i < m; ++i) std::memset(yp + i * ldc, 0, size_t(n) * sizeof(T));
      continue;
    }
    gemm<T>(ma.trans, mb.trans, m, n, k, a.data<T>() + oa, ma.ld, b.data<T>() + ob, mb.ld, yp, ldc);
  }
  if (!y_direct) {
    Loop<2> L = make_loop<2>(y, {&yd});
    run_loop(L, [&](char** p, int64_t cnt, const int64_t* s) {
      T* o = reinterpret_cast<T*>(p[0]);
      const T* x = reinterpret_cast<const T*>(p[1]);
      for (int64_t i = 0; i < cnt; ++i) o[i * s[0]] = x[i * s[1]];
    });
  }
}

}  // namespace

void register_cpu_matmul(Registry& r) {
  r.kernel("matmul", kCpu, {NDRT_F32}, matmul_kernel<float>, "openblas:sgemm");
  r.kernel("matmul", kCpu, {NDRT_F64}, matmul_kernel<double>, "openblas:dgemm");
}

}  // namespace ndrt
