// CUDA linalg family: matmul, gemm, linear (GEMM + bias + activation) and linear_bp on cuBLAS.
//
// Every product is one cublasGemm{Strided}BatchedEx_64 call in row-major terms: C = op(A) op(B) is
// computed as the column-major C^T = op(B)^T op(A)^T, so a row-major operand needs no copy. An
// operand whose last two axes are row- or column-major (any leading dimension) goes to cuBLAS as
// it is, the transpose flag absorbing the layout (as the cpu's blas_layout); anything else
// (broadcast rows, negative strides, gaps in both axes) is packed into scratch first. Batch axes
// broadcast numpy-style: one stride per operand gives the strided-batched call, anything else a
// pointer-array batched call (pointers built on the device). Accumulation is f32
// (CUBLAS_COMPUTE_32F: true f32, no TF32) for f32/f16/bf16 and f64 for f64; f16/bf16 run on tensor
// cores and round once. With cuda.matmul.allow_tf32 = 1, f32 operands go to the tensor cores as
// TF32 (CUBLAS_COMPUTE_32F_FAST_TF32: 10-bit mantissas in, f32 accumulation), read per call.
//
// linear: GEMM into an f32 (f16/bf16) or T buffer, then one epilogue kernel adds the bias, applies
// the activation and rounds once. linear_bp: one pass makes dz = dy * act'(.), the bias gradient
// sums dz per column (f64, fixed order), then dx = dz W^T and dw = x^T dz. For f16/bf16, dz is kept
// as hi + lo 16-bit parts (about 22 significant bits) and each gradient is two tensor-core GEMMs
// accumulating in f32, so results match the cpu's all-f32 computation to within the final
// rounding instead of carrying dz's 16-bit rounding.
#include <cmath>

#include "channel_sums.cuh"
#include "cuda_common.cuh"
#include "dense_copy.cuh"

namespace ndrt::cuda {

namespace {

using dense::base_of;
using dense::first_index;
using dense::grid_step;

enum Act : int { kNone = 0, kRelu = 1, kSigmoid = 2, kTanh = 3, kLeaky = 4, kGelu = 5 };
enum { kTransW = 0, kActivation = 1, kSlope = 2 };  // linear / linear_bp attributes

bool is_half(ndrt_dtype d) { return d == NDRT_F16 || d == NDRT_BF16; }

cudaDataType blas_type(ndrt_dtype d) {
  switch (d) {
    case NDRT_F64: return CUDA_R_64F;
    case NDRT_F16: return CUDA_R_16F;
    case NDRT_BF16: return CUDA_R_16BF;
    default: return CUDA_R_32F;
  }
}

// ---- operands --------------------------------------------------------------------------------

// A matrix operand as cuBLAS reads it (row-major terms): op(X) is the stored matrix or its
// transpose, leading dimension ld, and per batch axis of the product the element stride (0 where
// the operand broadcasts).
struct Mat {
  const char* p = nullptr;
  bool trans = false;
  int64_t ld = 1;
  int64_t bs[NDRT_MAX_RANK] = {};
};

// The product's output: row stride ld and batch strides, in elements of its dtype.
struct OutMat {
  char* p = nullptr;
  int64_t ld = 1;
  int64_t bs[NDRT_MAX_RANK] = {};
  bool direct = true;  // p is the op's output itself (not scratch copied out afterwards)
};

// Can rows x cols with strides rs, cs be read by BLAS as op(stored), with want_trans on top?
bool blas_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs, bool want_trans, bool& trans, int64_t& ld) {
  const int64_t r1 = rows > 1 ? rows : 1, c1 = cols > 1 ? cols : 1;
  if ((rows <= 1 && cols <= 1) || rows == 0 || cols == 0) return trans = want_trans, ld = c1, true;
  if ((cs == 1 || cols == 1) && rs >= c1) return trans = want_trans, ld = rs, true;
  if ((rs == 1 || rows == 1) && cs >= r1) return trans = !want_trans, ld = cs, true;
  if (rows == 1 && cs == 1) return trans = want_trans, ld = c1, true;
  if (cols == 1 && rs == 1) return trans = !want_trans, ld = r1, true;
  return false;
}

// Batch strides of t (its last two axes are the matrix) over the product's batch axes.
void batch_strides(const Tensor& t, const int64_t* strides, const Dims& batch, int64_t* out) {
  const int off = batch.rank - (t.rank() - 2);
  for (int i = 0; i < batch.rank; ++i) {
    const int j = i - off;
    out[i] = (j < 0 || t.shape.d[j] == 1) ? 0 : strides[j];
  }
}

// Operand t (rank >= 2) of a product with batch axes `batch`; packed into `keep` when BLAS cannot
// read its last two axes as they are.
Mat operand(const OpContext& c, const Tensor& t, bool want_trans, const Dims& batch, std::optional<Scratch>& keep) {
  Mat m;
  const int r = t.rank();
  const int64_t rows = t.shape.d[r - 2], cols = t.shape.d[r - 1];
  if (blas_layout(rows, cols, t.strides.d[r - 2], t.strides.d[r - 1], want_trans, m.trans, m.ld)) {
    m.p = base_of(t);
    batch_strides(t, t.strides.d, batch, m.bs);
    return m;
  }
  const int64_t item = item_size(t.dtype), n = t.numel();
  keep.emplace(c.device, size_t(n * item));
  const View packed = dense::packed_view(keep->ptr, t.shape);
  dense::copy(c, packed, dense::strided_view(t), n, item);
  m.p = packed.base;
  m.trans = want_trans;
  m.ld = cols > 1 ? cols : 1;
  batch_strides(t, packed.stride, batch, m.bs);
  return m;
}

// A dense row-major matrix (or batch of them) at p: op(p) = p or p^T.
Mat dense_mat(const void* p, int64_t cols, bool trans) {
  Mat m;
  m.p = static_cast<const char*>(p);
  m.trans = trans;
  m.ld = cols > 1 ? cols : 1;
  return m;
}

// Where a product into y is written: y itself when its last two axes are row-major with a legal
// row stride (and its dtype is `work`), else packed scratch of `work` dtype and y's shape.
OutMat work_out(const OpContext& c, const Tensor& y, ndrt_dtype work, std::optional<Scratch>& keep) {
  OutMat o;
  const int r = y.rank();
  const int64_t m = y.shape.d[r - 2], n = y.shape.d[r - 1], rs = y.strides.d[r - 2], cs = y.strides.d[r - 1];
  const int64_t n1 = n > 1 ? n : 1;
  o.direct = work == y.dtype && (cs == 1 || n <= 1) && (m <= 1 || rs >= n1);
  if (o.direct) {
    o.p = base_of(y);
    o.ld = m <= 1 ? n1 : rs;
    for (int i = 0; i < r - 2; ++i) o.bs[i] = y.strides.d[i];
    return o;
  }
  keep.emplace(c.device, size_t(y.numel() * item_size(work)));
  const View packed = dense::packed_view(keep->ptr, y.shape);
  o.p = packed.base;
  o.ld = n1;
  for (int i = 0; i < r - 2; ++i) o.bs[i] = packed.stride[i];
  return o;
}

// y <- the packed buffer p of y's shape and dtype (a product computed off to the side).
void copy_out(const OpContext& c, const Tensor& y, void* p) {
  dense::copy(c, dense::strided_view(y), dense::packed_view(p, y.shape), y.numel(), item_size(y.dtype));
}

// ---- the product -------------------------------------------------------------------------------

// Row-major C[m x n] = alpha op(A)[m x k] op(B)[k x n] + beta C over the batch axes.
struct Product {
  int64_t m = 0, n = 0, k = 0;
  Dims batch{};  // rank 0: one product
  Mat a, b;
  OutMat c;
  ndrt_dtype ab = NDRT_F32;  // dtype of A and B
  ndrt_dtype ct = NDRT_F32;  // dtype of C
};

// Whether offsets over `batch` with strides s are bi * one_stride for the linear batch index bi.
// Axes of extent 1 do not count; the innermost other axis sets the stride.
bool uniform_stride(const Dims& batch, const int64_t* s, long long& one) {
  bool found = false;
  int64_t inner = 1;  // product of the extents after axis i
  one = 0;
  for (int i = batch.rank - 1; i >= 0; --i) {
    if (batch.d[i] != 1) {
      if (!found) {
        one = s[i];  // inner is 1 here: every later axis has extent 1
        found = true;
      } else if (s[i] != int64_t(one) * inner) {
        return false;
      }
    }
    inner *= batch.d[i];
  }
  return true;
}

struct BatchPointers {
  int32_t rank;
  int64_t shape[NDRT_MAX_RANK];
  int64_t sa[NDRT_MAX_RANK], sb[NDRT_MAX_RANK], sc[NDRT_MAX_RANK];  // bytes
  const char* a;
  const char* b;
  char* c;
};

__global__ void fill_batch_pointers(BatchPointers q, const void** A, const void** B, void** C, int64_t nb) {
  for (int64_t bi = first_index(); bi < nb; bi += grid_step()) {
    int64_t oa = 0, ob = 0, oc = 0, rest = bi;
    for (int d = q.rank - 1; d >= 0; --d) {
      const int64_t i = rest % q.shape[d];
      rest /= q.shape[d];
      oa += i * q.sa[d];
      ob += i * q.sb[d];
      oc += i * q.sc[d];
    }
    A[bi] = q.a + oa;
    B[bi] = q.b + ob;
    C[bi] = q.c + oc;
  }
}

void run_product(const OpContext& c, const Product& p, double alpha, double beta) {
  cublasHandle_t h = cublas(c.device);
  // The handle is shared by the module's files: state the modes this call relies on (host
  // scalars; the compute type alone decides TF32, the math mode adds none).
  check(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST), "cublasSetPointerMode");
  check(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
  const bool f64 = p.ab == NDRT_F64;
  const float af = float(alpha), bf = float(beta);
  const void* al = f64 ? static_cast<const void*>(&alpha) : &af;
  const void* be = f64 ? static_cast<const void*>(&beta) : &bf;
  const bool tf32 = p.ab == NDRT_F32 && matmul_allow_tf32();
  const cublasComputeType_t compute = f64 ? CUBLAS_COMPUTE_64F : tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  const cudaDataType tab = blas_type(p.ab), tc = blas_type(p.ct);
  // Column-major view: C^T[n x m] = op(B)^T op(A)^T.
  const cublasOperation_t opa = p.b.trans ? CUBLAS_OP_T : CUBLAS_OP_N, opb = p.a.trans ? CUBLAS_OP_T : CUBLAS_OP_N;
  const int64_t nb = p.batch.numel();
  long long sa = 0, sb = 0, sc = 0;
  if (uniform_stride(p.batch, p.a.bs, sa) && uniform_stride(p.batch, p.b.bs, sb) &&
      uniform_stride(p.batch, p.c.bs, sc)) {
    check(cublasGemmStridedBatchedEx_64(h, opa, opb, p.n, p.m, p.k, al, p.b.p, tab, p.b.ld, sb, p.a.p, tab, p.a.ld, sa,
                                        be, p.c.p, tc, p.c.ld, sc, nb, compute, CUBLAS_GEMM_DEFAULT),
          "cublasGemmStridedBatchedEx");
    return;
  }
  BatchPointers q{};
  q.rank = p.batch.rank;
  const int64_t ea = item_size(p.ab), ec = item_size(p.ct);
  for (int i = 0; i < q.rank; ++i) {
    q.shape[i] = p.batch.d[i];
    q.sa[i] = p.a.bs[i] * ea;
    q.sb[i] = p.b.bs[i] * ea;
    q.sc[i] = p.c.bs[i] * ec;
  }
  q.a = p.a.p;
  q.b = p.b.p;
  q.c = p.c.p;
  Scratch ptrs(c.device, size_t(3 * nb) * sizeof(void*));
  void** slots = static_cast<void**>(ptrs.ptr);
  const void** A = const_cast<const void**>(slots);
  const void** B = A + nb;
  void** C = slots + 2 * nb;
  const Launch l = launch_for(nb);
  fill_batch_pointers<<<l.grid, l.block, 0, stream(c)>>>(q, A, B, C, nb);
  check_launch("matmul batch pointers");
  check(cublasGemmBatchedEx_64(h, opa, opb, p.n, p.m, p.k, al, B, tab, p.b.ld, A, tab, p.a.ld, be, C, tc, p.c.ld, nb,
                               compute, CUBLAS_GEMM_DEFAULT),
        "cublasGemmBatchedEx");
}

// ---- matmul, gemm ------------------------------------------------------------------------------

// The output's batch axes and the product sizes of op(a) @ op(b) into y.
Product product_of(const Tensor& a, const Tensor& y, bool ta) {
  Product p;
  const int ry = y.rank();
  p.m = y.shape.d[ry - 2];
  p.n = y.shape.d[ry - 1];
  p.k = a.shape.d[a.rank() - (ta ? 2 : 1)];
  p.batch = y.shape;
  p.batch.rank -= 2;
  p.ab = p.ct = y.dtype;
  return p;
}

// y = beta * c (c broadcast to y), exactly 0 for beta == 0: gemm when alpha == 0 or k == 0.
template <class T>
__global__ void scale_kernel(View y, View cv, double beta, int64_t n) {
  using A = compute_t<T>;
  for (int64_t i = first_index(); i < n; i += grid_step())
    y.at<T>(i) = convert<T>(beta == 0 ? A(0) : A(beta) * convert<A>(cv.at<T>(i)));
}

void matmul_kernel(OpContext& c) {
  const bool ta = c.attrs.get_bool(0), tb = c.attrs.get_bool(1);
  const Tensor &a = *c.in[0], &b = *c.in[1], &y = *c.out[0];
  c.impl = "cublas";
  if (y.numel() == 0) return;
  Product p = product_of(a, y, ta);
  if (p.k == 0) return dense::zero(c, y);
  std::optional<Scratch> ka, kb, kc;
  p.a = operand(c, a, ta, p.batch, ka);
  p.b = operand(c, b, tb, p.batch, kb);
  p.c = work_out(c, y, y.dtype, kc);
  run_product(c, p, 1.0, 0.0);
  if (!p.c.direct) copy_out(c, y, p.c.p);
}

// y = alpha op(a) op(b) + beta c. c reaches the work buffer first (unless it already is there:
// y is c's own view and cuBLAS writes y directly); beta = 0 never reads c.
void gemm_kernel(OpContext& c) {
  const bool ta = c.attrs.get_bool(0), tb = c.attrs.get_bool(1);
  const double alpha = c.attrs.get_float(2), beta = c.attrs.get_float(3);
  const Tensor &a = *c.in[0], &b = *c.in[1], &cc = *c.in[2], &y = *c.out[0];
  c.impl = "cublas";
  if (y.numel() == 0) return;
  Product p = product_of(a, y, ta);
  const int64_t n = y.numel();
  if (p.k == 0 || alpha == 0) {
    const View yv = dense::strided_view(y), cv = dense::broadcast_to(cc, y.shape);
    const Launch l = launch_for(n);
    visit<NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16>(y.dtype, "gemm", [&](auto t) {
      scale_kernel<decltype(t)><<<l.grid, l.block, 0, stream(c)>>>(yv, cv, beta, n);
    });
    return check_launch("gemm");
  }
  std::optional<Scratch> ka, kb, kc;
  p.a = operand(c, a, ta, p.batch, ka);
  p.b = operand(c, b, tb, p.batch, kb);
  p.c = work_out(c, y, y.dtype, kc);
  const bool in_place = cc.same_view(y);
  const int64_t item = item_size(y.dtype);
  if (beta != 0 && !(in_place && p.c.direct)) {
    const View dst = p.c.direct ? dense::strided_view(y) : dense::packed_view(p.c.p, y.shape);
    dense::copy(c, dst, dense::broadcast_to(cc, y.shape), n, item);
  }
  run_product(c, p, alpha, beta);
  if (!p.c.direct) copy_out(c, y, p.c.p);
}

// ---- linear ------------------------------------------------------------------------------------

constexpr double kInvSqrt2 = 0.70710678118654752440, kInvSqrt2Pi = 0.39894228040143267794;

template <class A>
__device__ A activate(A z, int act, A slope) {
  switch (act) {
    case kRelu: return z < A(0) ? A(0) : z;  // NaN passes
    case kSigmoid: {
      const A e = exp(-fabs(z)), s = A(1) / (A(1) + e);
      return z >= A(0) ? s : e * s;
    }
    case kTanh: return tanh(z);
    case kLeaky: return z < A(0) ? slope * z : z;
    case kGelu: return A(0.5) * z * erfc(z * A(-kInvSqrt2));
    default: return z;
  }
}

// dz from the saved value s (y; the pre-activation z for gelu) and the incoming gradient d.
template <class A>
__device__ A activation_grad(A s, A d, int act, A slope) {
  switch (act) {
    case kRelu: return s > A(0) ? d : A(0);
    case kSigmoid: return d * s * (A(1) - s);
    case kTanh: return d * (A(1) - s * s);
    case kLeaky: return s > A(0) ? d : slope * d;
    case kGelu: return d * (A(0.5) * erfc(s * A(-kInvSqrt2)) + s * A(kInvSqrt2Pi) * exp(A(-0.5) * s * s));
    default: return d;
  }
}

// y[r, j] = act(z[r, j] + b[j]) with z the GEMM result (null: K == 0, z = 0). z may be y itself.
template <class T>
__global__ void linear_epilogue(const compute_t<T>* z, int64_t ldz, const T* bias, int64_t bs, T* y, int64_t ys0,
                                int64_t ys1, int64_t N, int64_t M, int act, double slope) {
  using A = compute_t<T>;
  for (int64_t i = first_index(); i < N * M; i += grid_step()) {
    const int64_t r = i / M, j = i - r * M;
    const A v = (z ? z[r * ldz + j] : A(0)) + convert<A>(bias[j * bs]);
    y[r * ys0 + j * ys1] = convert<T>(activate<A>(v, act, A(slope)));
  }
}

// z[r, j] += b[j] over a dense [N, M] buffer (z = b when `has_product` is false: K == 0).
template <class T>
__global__ void add_bias_rows(compute_t<T>* z, const T* bias, int64_t bs, int64_t N, int64_t M, bool has_product) {
  using A = compute_t<T>;
  for (int64_t i = first_index(); i < N * M; i += grid_step()) {
    const int64_t j = i % M;
    z[i] = (has_product ? z[i] : A(0)) + convert<A>(bias[j * bs]);
  }
}

// x [N, K] @ W (W = w [K, M], or w^T with transpose_w) into an [N, M] buffer of type `work` (f32
// for 16-bit x) with row stride ld. Nothing runs when K == 0.
void linear_product(const OpContext& c, const Tensor& x, const Tensor& w, bool tw, void* out, int64_t ld,
                    ndrt_dtype work) {
  const int64_t N = x.shape.d[0], K = x.shape.d[1], M = w.shape.d[tw ? 0 : 1];
  if (K == 0 || N == 0 || M == 0) return;
  Product p;
  p.m = N, p.n = M, p.k = K;
  p.ab = x.dtype;
  p.ct = work;
  std::optional<Scratch> kx, kw;
  p.a = operand(c, x, false, p.batch, kx);
  p.b = operand(c, w, tw, p.batch, kw);
  p.c.p = static_cast<char*>(out);
  p.c.ld = ld;
  run_product(c, p, 1.0, 0.0);
}

template <class T>
void linear_run(OpContext& c) {
  using A = compute_t<T>;
  const bool tw = c.attrs.get_bool(kTransW);
  const int act = int(c.attrs.get_int(kActivation));
  const double slope = c.attrs.get_float(kSlope);
  const Tensor &x = *c.in[0], &w = *c.in[1], &b = *c.in[2], &y = *c.out[0];
  const int64_t N = y.shape.d[0], M = y.shape.d[1], K = x.shape.d[1];
  const ndrt_dtype work = is_half(y.dtype) ? NDRT_F32 : y.dtype;
  // The GEMM writes y itself where it can (f32/f64, row-major y), else a dense buffer; z.ld is the
  // row stride of either (y's own when y is a column slice of a wider matrix).
  std::optional<Scratch> keep;
  const OutMat z = work_out(c, y, work, keep);
  const bool product = K > 0;
  if (product) linear_product(c, x, w, tw, z.p, z.ld, work);
  const Launch l = launch_for(N * M);
  linear_epilogue<T><<<l.grid, l.block, 0, stream(c)>>>(product ? reinterpret_cast<const A*>(z.p) : nullptr, z.ld,
                                                        reinterpret_cast<const T*>(base_of(b)), b.strides.d[0],
                                                        reinterpret_cast<T*>(base_of(y)), y.strides.d[0],
                                                        y.strides.d[1], N, M, act, slope);
  check_launch("linear");
}

void linear_kernel(OpContext& c) {
  c.impl = "cublas+epilogue";
  if (c.out[0]->numel() == 0) return;
  visit<NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16>(c.out[0]->dtype, "linear",
                                                  [&](auto t) { linear_run<decltype(t)>(c); });
}

// ---- linear_bp ---------------------------------------------------------------------------------

// dz = act'(s) * dy over [N, M] (s: y, or the recomputed pre-activation z for gelu). 16-bit T keeps
// dz as hi + lo (lo null for f32/f64: hi is dz).
template <class T>
__global__ void dz_kernel(View y, const compute_t<T>* z, View dy, int64_t N, int64_t M, int act, double slope, T* hi,
                          T* lo) {
  using A = compute_t<T>;
  for (int64_t i = first_index(); i < N * M; i += grid_step()) {
    const int64_t r = i / M, j = i - r * M;
    const A d = convert<A>(reinterpret_cast<const T*>(dy.base)[r * dy.stride[0] + j * dy.stride[1]]);
    A s = A(0);
    if (act == kGelu) s = z[i];
    else if (act != kNone) s = convert<A>(reinterpret_cast<const T*>(y.base)[r * y.stride[0] + j * y.stride[1]]);
    const A g = activation_grad<A>(s, d, act, A(slope));
    const T h = convert<T>(g);
    hi[i] = h;
    if (lo) lo[i] = convert<T>(g - convert<A>(h));
  }
}

// db[j] = sum over rows of dz[:, j] (hi + lo), f64.
template <class T>
struct DzValue {
  const T* hi;
  const T* lo;
  __device__ void operator()(int64_t e, int64_t, double* v) const {
    v[0] = double(convert<compute_t<T>>(hi[e])) + (lo ? double(convert<compute_t<T>>(lo[e])) : 0.0);
  }
};
template <class T>
struct StoreVector {
  T* out;
  int64_t stride;
  __device__ void operator()(int64_t c, const double* s) const { out[c * stride] = convert<T>(s[0]); }
};

// dst[i] = src[i] rounded to T (f32 GEMM results into a 16-bit output).
template <class T>
__global__ void round_into(View dst, const compute_t<T>* src, int64_t n) {
  for (int64_t i = first_index(); i < n; i += grid_step()) dst.at<T>(i) = convert<T>(src[i]);
}

// out (the op's output, rank 2) = sum over the dz parts of op(dz) @ op(other) or op(other) @ op(dz).
// `dz_first`: dz is A ([N, M] dense, op = dz or dz^T), else B. 16-bit: f32 scratch, two GEMMs.
template <class T>
void gradient_product(const OpContext& c, const Tensor& out, const T* hi, const T* lo, int64_t M, bool dz_first,
                      bool dz_trans, const Tensor& other, bool other_trans, int64_t k) {
  if (out.numel() == 0) return;
  if (k == 0) return dense::zero(c, out);
  using A = compute_t<T>;
  Product p;
  p.m = out.shape.d[0];
  p.n = out.shape.d[1];
  p.k = k;
  p.ab = out.dtype;
  p.ct = lo ? NDRT_F32 : out.dtype;
  std::optional<Scratch> ko, kc;
  const Mat om = operand(c, other, other_trans, p.batch, ko);
  p.c = work_out(c, out, p.ct, kc);
  const T* parts[2] = {hi, lo};
  for (int q = 0; q < 2 && parts[q]; ++q) {
    const Mat dz = dense_mat(parts[q], M, dz_trans);
    p.a = dz_first ? dz : om;
    p.b = dz_first ? om : dz;
    run_product(c, p, 1.0, q == 0 ? 0.0 : 1.0);
  }
  if (p.c.direct) return;
  if (!lo) return copy_out(c, out, p.c.p);
  // f32 sums -> the 16-bit output, rounded once.
  const View dst = dense::strided_view(out), src = dense::packed_view(p.c.p, out.shape);
  const int64_t n = out.numel();
  const Launch l = launch_for(n);
  round_into<T><<<l.grid, l.block, 0, stream(c)>>>(dst, reinterpret_cast<const A*>(src.base), n);
  check_launch(c.op->name);
}

template <class T>
void linear_bp_run(OpContext& c) {
  using A = compute_t<T>;
  const bool tw = c.attrs.get_bool(kTransW);
  const int act = int(c.attrs.get_int(kActivation));
  const double slope = c.attrs.get_float(kSlope);
  const Tensor &x = *c.in[0], &w = *c.in[1], &b = *c.in[2], &y = *c.in[3], &dy = *c.in[4];
  const Tensor &dx = *c.out[0], &dw = *c.out[1], &db = *c.out[2];
  const int64_t N = x.shape.d[0], K = x.shape.d[1], M = dy.shape.d[1];
  const bool half = is_half(x.dtype);
  const int64_t NM = N * M;
  cudaStream_t st = stream(c);

  // dz: dy itself when there is nothing to apply (f32/f64, dense dy), else dense hi (+ lo).
  std::optional<Scratch> hi_buf, lo_buf;
  const T* hi = nullptr;
  const T* lo = nullptr;
  if (NM > 0) {
    if (act == kNone && !half && dense::is_packed(dense::strided_view(dy))) {
      hi = reinterpret_cast<const T*>(base_of(dy));
    } else {
      std::optional<Scratch> z_buf;  // gelu: the pre-activation x @ W + b
      const A* z = nullptr;
      if (act == kGelu) {
        z_buf.emplace(c.device, size_t(NM) * sizeof(A));
        linear_product(c, x, w, tw, z_buf->ptr, M > 1 ? M : 1, is_half(x.dtype) ? NDRT_F32 : x.dtype);
        const Launch l = launch_for(NM);
        add_bias_rows<T><<<l.grid, l.block, 0, st>>>(z_buf->as<A>(), reinterpret_cast<const T*>(base_of(b)),
                                                     b.strides.d[0], N, M, K > 0);
        check_launch("linear_bp");
        z = z_buf->as<A>();
      }
      hi_buf.emplace(c.device, size_t(NM) * sizeof(T));
      if (half) lo_buf.emplace(c.device, size_t(NM) * sizeof(T));
      const Launch l = launch_for(NM);
      dz_kernel<T><<<l.grid, l.block, 0, st>>>(dense::strided_view(y), z, dense::strided_view(dy), N, M, act, slope,
                                               hi_buf->as<T>(), half ? lo_buf->as<T>() : nullptr);
      check_launch("linear_bp");
      hi = hi_buf->as<T>();
      lo = half ? lo_buf->as<T>() : nullptr;
    }
  }
  // db = column sums of dz (zeros when N == 0).
  chan::channel_sums<1>(c, N, M, 1, DzValue<T>{hi, lo},
                        StoreVector<T>{reinterpret_cast<T*>(base_of(db)), db.strides.d[0]});
  // dx [N, K] = dz [N, M] @ W^T, W^T = tw ? w : w^T.
  gradient_product<T>(c, dx, hi, lo, M, true, false, w, !tw, M);
  // dw = x^T @ dz ([K, M]), or dz^T @ x ([M, K]) when w is stored transposed.
  if (!tw)
    gradient_product<T>(c, dw, hi, lo, M, false, false, x, true, N);
  else
    gradient_product<T>(c, dw, hi, lo, M, true, true, x, false, N);
}

void linear_bp_kernel(OpContext& c) {
  c.impl = "cublas+epilogue";
  visit<NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16>(c.in[0]->dtype, "linear_bp",
                                                  [&](auto t) { linear_bp_run<decltype(t)>(c); });
}

}  // namespace

void register_cuda_linalg() {
  const std::initializer_list<ndrt_dtype> floats = {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16};
  reg("matmul", floats, matmul_kernel, "cublas");
  reg("gemm", floats, gemm_kernel, "cublas");
  reg("linear", floats, linear_kernel, "cublas+epilogue");
  reg("linear_bp", floats, linear_bp_kernel, "cublas+epilogue");
}

}  // namespace ndrt::cuda
