// matmul and gemm on cpu: OpenBLAS sgemm/dgemm through the linalg engine (linalg_engine.hpp:
// tiles over ndrt's pool, one single-threaded BLAS call each). Operands whose last two axes are
// row- or column-major (any leading dimension) go to BLAS as they are, the transpose flag
// absorbing the layout; anything else (broadcast rows, negative strides, gaps in both axes) is
// first copied to a dense buffer. An output BLAS cannot write is computed into a dense buffer
// and copied tile by tile. f16/bf16 run in f32 (linalg_half.hpp).
#include <algorithm>

#include "kernels.hpp"
#include "linalg_engine.hpp"
#include "linalg_half.hpp"
#include "loops.hpp"

namespace ndrt {

void register_cpu_linalg_dense(Registry& r);  // linalg_dense.cpp

namespace {

using namespace linalg;

// Everything one batched product needs: operands as BLAS reads them, batch strides, output.
template <class T>
struct Product {
  Tensor a, b;
  MatArg ma, mb;
  int64_t m = 0, n = 0, k = 0, nb = 0;
  Dims batch;
  int64_t sa[NDRT_MAX_RANK], sb[NDRT_MAX_RANK];
  WorkOut w;

  Product(const char* op, const Tensor& a0, const Tensor& b0, bool ta, bool tb, const Tensor& y) {
    const int ry = y.rank();
    m = y.shape.d[ry - 2];
    n = y.shape.d[ry - 1];
    k = a0.shape.d[a0.rank() - (ta ? 2 : 1)];
    check_blas_sizes(op, m, n, k);
    a = blas_operand<T>(a0, ta, ma);
    b = blas_operand<T>(b0, tb, mb);
    batch = y.shape;
    batch.rank -= 2;
    nb = batch.numel();
    batch_strides(a, batch, sa);
    batch_strides(b, batch, sb);
    w = work_out(y);
  }
  Gemm<T> get(int64_t bi) const {
    Gemm<T> g;
    g.ta = ma.trans;
    g.tb = mb.trans;
    g.m = m;
    g.n = n;
    g.k = k;
    g.a = a.data<T>() + batch_offset(bi, batch, sa);
    g.lda = ma.ld;
    g.b = b.data<T>() + batch_offset(bi, batch, sb);
    g.ldb = mb.ld;
    g.c = w.buf.data<T>() + batch_offset(bi, batch, w.bs);
    g.ldc = w.ld;
    return g;
  }
  // Copies a finished tile of the work buffer into the output (when they differ).
  void copy_out(const Tensor& y, int64_t bi, int64_t i0, int64_t i1, int64_t j0, int64_t j1) const {
    const int r = y.rank();
    const int64_t rs = y.strides.d[r - 2], cs = y.strides.d[r - 1];
    T* dst = y.data<T>() + batch_offset(bi, batch, y.strides.d) + i0 * rs + j0 * cs;
    const T* src = w.buf.data<T>() + batch_offset(bi, batch, w.bs) + i0 * w.ld + j0;
    copy_block(dst, rs, cs, src, w.ld, 1, i1 - i0, j1 - j0);
  }
};

template <class T>
void matmul_kernel(OpContext& c) {
  const bool ta = c.attrs.get_bool(0), tb = c.attrs.get_bool(1);
  const Tensor& y = *c.out[0];
  if (y.numel() == 0) return;
  Product<T> p("matmul", *c.in[0], *c.in[1], ta, tb, y);
  auto get = [&](int64_t bi) { return p.get(bi); };
  if (p.w.direct) return run_gemms<T>(p.nb, get, T(1), T(0));
  run_gemms<T>(p.nb, get, T(1), T(0), NoHook{},
               [&](int64_t bi, int64_t i0, int64_t i1, int64_t j0, int64_t j1) { p.copy_out(y, bi, i0, i1, j0, j1); });
}

// y = alpha * op(a) @ op(b) + beta * c. c reaches the work buffer tile by tile right before the
// tile's BLAS call, which then applies beta itself; when y is c's own view it already is there.
template <class T>
void gemm_kernel(OpContext& c) {
  const bool ta = c.attrs.get_bool(0), tb = c.attrs.get_bool(1);
  const T alpha = T(c.attrs.get_float(2)), beta = T(c.attrs.get_float(3));
  const Tensor &cc = *c.in[2], &y = *c.out[0];
  if (y.numel() == 0) return;
  Product<T> p("gemm", *c.in[0], *c.in[1], ta, tb, y);
  auto get = [&](int64_t bi) { return p.get(bi); };
  // Inference allows y to share memory with c only as the very same view.
  const bool in_place = cc.same_view(y);
  const bool fill = beta != T(0) && !(in_place && p.w.direct);
  const int r = y.rank();
  int64_t cst[NDRT_MAX_RANK];
  broadcast_strides(cc, y.shape, cst);
  const T* cbase = cc.data<T>();
  T* wbase = p.w.buf.template data<T>();
  auto pre = [&](int64_t bi, int64_t i0, int64_t i1, int64_t j0, int64_t j1) {
    if (!fill) return;
    const T* src = cbase + batch_offset(bi, p.batch, cst) + i0 * cst[r - 2] + j0 * cst[r - 1];
    T* dst = wbase + batch_offset(bi, p.batch, p.w.bs) + i0 * p.w.ld + j0;
    copy_block(dst, p.w.ld, 1, src, cst[r - 2], cst[r - 1], i1 - i0, j1 - j0);
  };
  auto post = [&](int64_t bi, int64_t i0, int64_t i1, int64_t j0, int64_t j1) {
    if (!p.w.direct) p.copy_out(y, bi, i0, i1, j0, j1);
  };
  run_gemms<T>(p.nb, get, alpha, beta, pre, post);
}

void matmul_f16(OpContext& c) { run_via_f32(c, matmul_kernel<float>, "ndrt:f16-via-sgemm"); }
void matmul_bf16(OpContext& c) {
  if (!dnnl_matmul_bf16(c)) run_via_f32(c, matmul_kernel<float>, "ndrt:bf16-via-sgemm");
}
void gemm_f16(OpContext& c) { run_via_f32(c, gemm_kernel<float>, "ndrt:f16-via-sgemm"); }
void gemm_bf16(OpContext& c) { run_via_f32(c, gemm_kernel<float>, "ndrt:bf16-via-sgemm"); }

}  // namespace

void register_cpu_matmul(Registry& r) {
  r.kernel("matmul", kCpu, {NDRT_F32}, matmul_kernel<float>, "openblas:sgemm");
  r.kernel("matmul", kCpu, {NDRT_F64}, matmul_kernel<double>, "openblas:dgemm");
  r.kernel("matmul", kCpu, {NDRT_F16}, matmul_f16, "ndrt:f16-via-sgemm");
  r.kernel("matmul", kCpu, {NDRT_BF16}, matmul_bf16, "ndrt:bf16-via-sgemm");
  r.kernel("gemm", kCpu, {NDRT_F32}, gemm_kernel<float>, "openblas:sgemm");
  r.kernel("gemm", kCpu, {NDRT_F64}, gemm_kernel<double>, "openblas:dgemm");
  r.kernel("gemm", kCpu, {NDRT_F16}, gemm_f16, "ndrt:f16-via-sgemm");
  r.kernel("gemm", kCpu, {NDRT_BF16}, gemm_bf16, "ndrt:bf16-via-sgemm");
  register_cpu_linalg_dense(r);
}

}  // namespace ndrt
