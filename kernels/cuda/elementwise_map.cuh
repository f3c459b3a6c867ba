// The map machinery shared by the elementwise and creation CUDA files: strided operand views with
// numpy broadcasting (axes coalesced on the host so most launches index rank 1 or 2), the dtype
// conversions of the cast op (matching kernels/cpu/convert.hpp), and one map kernel template
//   struct Op { template <class C> __device__ static R f(C x[, C y[, C z]], const Params<C>& p); };
// applied per element in the arithmetic type C = calc_t<T> (float for f16/bf16, the storage type
// otherwise, as on the CPU) and rounded once to the output type.
#pragma once
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "cuda_common.cuh"

namespace ndrt::cuda {

void register_cuda_elementwise_grad();   // elementwise_grad.cu
void register_cuda_elementwise_logic();  // elementwise_logic.cu

namespace elt {

// ---- types -------------------------------------------------------------------------------------
template <class T> struct Calc { using type = T; };
template <> struct Calc<__half> { using type = float; };
template <> struct Calc<__nv_bfloat16> { using type = float; };
template <class T> using calc_t = typename Calc<T>::type;

template <class T> __device__ __forceinline__ calc_t<T> load(const T* p) { return convert<calc_t<T>>(*p); }

// Two op parameters (alpha, bounds, ...) in the arithmetic type, filled on the host.
template <class C>
struct Params {
  C a = C(0), b = C(0);
};

// A double attribute as a floating type, saturating to +-inf (as the CPU's float_param).
template <class C>
inline C float_param(double v) {
  using L = std::numeric_limits<C>;
  if (v > double(L::max())) return L::infinity();
  if (v < double(L::lowest())) return -L::infinity();
  return C(v);
}

// Address of element [0,..,0]: Tensor::base() is not usable here (itemsize() calls into libndrt).
inline char* base_of(const Tensor& t) {
  return static_cast<char*>(t.storage->data) + t.offset * item_size(t.dtype);
}

// ---- conversions of the cast op (rules: runtime/value_rules.hpp, shared with the cpu) ----------
using rules::float_round_odd;

template <class T> constexpr bool kHalfLike = std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;

template <class To>
__host__ __device__ inline To from_float(float f) {
  if constexpr (std::is_same_v<To, __half>) return __float2half_rn(f);
  else return __float2bfloat16_rn(f);
}

// v converted as the cast op defines it: to bool is v != 0 (NaN is true); to f16/bf16 rounds to
// nearest even once (f64, i32, i64 through a round-to-odd float); floats to integers saturate
// (NaN -> 0). A bool From is a value here: kernels load bool storage as bytes.
template <class To, class From>
__host__ __device__ inline To cast_value(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (kHalfLike<From>) {
    return cast_value<To>(convert<float>(v));
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (kHalfLike<To>) {
    if constexpr (std::is_same_v<From, double> || std::is_same_v<From, int64_t> || std::is_same_v<From, int32_t>)
      return from_float<To>(float_round_odd(double(v)));
    else
      return from_float<To>(float(v));
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    return rules::float_to_int<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

// ---- strided operands --------------------------------------------------------------------------
// N operands seen with one shape (operand 0 is the output; inputs broadcast with stride 0), axes of
// extent 1 dropped and adjacent axes merged wherever every operand allows it: a contiguous or
// scalar-broadcast launch ends up at rank 0 or 1. offsets() maps the row-major index i of the shape
// to each operand's element offset.
template <int N>
struct Strided {
  int32_t rank = 0;
  bool contig = true;  // every operand dense in row-major order: offset == i
  bool small = true;   // numel < 2^32: index arithmetic in 32 bits
  int64_t shape[NDRT_MAX_RANK];
  int64_t stride[N][NDRT_MAX_RANK];

  __host__ __device__ __forceinline__ void offsets(int64_t i, int64_t (&off)[N]) const {
    if (contig) {
      for (int k = 0; k < N; ++k) off[k] = i;
      return;
    }
    for (int k = 0; k < N; ++k) off[k] = 0;
    int d = rank - 1;
    if (small) {
      uint32_t j = uint32_t(i);
      for (; d > 0; --d) {
        const uint32_t s = uint32_t(shape[d]), q = j / s, r = j - q * s;
        for (int k = 0; k < N; ++k) off[k] += int64_t(r) * stride[k][d];
        j = q;
      }
      i = j;
    } else {
      for (; d > 0; --d) {
        const int64_t q = i / shape[d], r = i - q * shape[d];
        for (int k = 0; k < N; ++k) off[k] += r * stride[k][d];
        i = q;
      }
    }
    if (d == 0)  // the outermost axis needs no division
      for (int k = 0; k < N; ++k) off[k] += i * stride[k][0];
  }
};

// Operand k's strides seen with `shape` (right-aligned; missing or extent-1 axes get stride 0).
template <int N>
Strided<N> make_strided(const Dims& shape, const Tensor* const (&ts)[N]) {
  Strided<N> v;
  int64_t st[N][NDRT_MAX_RANK];
  for (int k = 0; k < N; ++k) {
    const Tensor& t = *ts[k];
    const int off = shape.rank - t.shape.rank;
    for (int d = 0; d < shape.rank; ++d)
      st[k][d] = (d < off || t.shape.d[d - off] == 1) ? 0 : t.strides.d[d - off];
  }
  // Innermost first: drop extent-1 axes, merge an axis into the one inside it when every operand
  // steps over it exactly as one more row of the inner axis.
  int64_t sh[NDRT_MAX_RANK], ms[N][NDRT_MAX_RANK];
  int r = 0;
  for (int d = shape.rank - 1; d >= 0; --d) {
    if (shape.d[d] == 1) continue;
    bool merge = r > 0;
    for (int k = 0; k < N && merge; ++k) merge = st[k][d] == ms[k][r - 1] * sh[r - 1];
    if (merge) {
      sh[r - 1] *= shape.d[d];
    } else {
      sh[r] = shape.d[d];
      for (int k = 0; k < N; ++k) ms[k][r] = st[k][d];
      ++r;
    }
  }
  v.rank = r;
  int64_t n = 1;
  for (int d = 0; d < r; ++d) {  // back to outermost first
    v.shape[d] = sh[r - 1 - d];
    n *= v.shape[d];
    for (int k = 0; k < N; ++k) v.stride[k][d] = ms[k][r - 1 - d];
  }
  v.small = n <= int64_t(UINT32_MAX);
  v.contig = r == 0;
  if (r == 1) {
    v.contig = true;
    for (int k = 0; k < N; ++k) v.contig = v.contig && v.stride[k][0] == 1;
  }
  return v;
}

template <int N>
struct Ptrs {
  char* p[N];
};

// ---- the map kernel ----------------------------------------------------------------------------
template <class Op, class To, class C, int NIn>
__device__ __forceinline__ To apply(const C (&x)[NIn], const Params<C>& prm) {
  if constexpr (NIn == 1)
    return convert<To>(Op::f(x[0], prm));
  else if constexpr (NIn == 2)
    return convert<To>(Op::f(x[0], x[1], prm));
  else
    return convert<To>(Op::f(x[0], x[1], x[2], prm));
}

// y = Op(x...) for NIn inputs of storage type Ti, output storage type To. In place is fine (an
// output that is the very same view as an input reads each element before writing it).
// Each thread loads the inputs of kUnroll elements (a grid stride apart: coalesced) before it
// computes and stores them: with one element at a time too few bytes are in flight to fill HBM.
template <class Op, class To, class Ti, int NIn>
__global__ void map_kernel(int64_t n, Strided<NIn + 1> v, Ptrs<NIn + 1> p, Params<calc_t<Ti>> prm) {
  constexpr int kUnroll = 4;
  using C = calc_t<Ti>;
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + (kUnroll - 1) * step < n; i += kUnroll * step) {
    int64_t off[kUnroll][NIn + 1];
    C x[kUnroll][NIn];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      v.offsets(i + u * step, off[u]);
#pragma unroll
      for (int k = 0; k < NIn; ++k) x[u][k] = load(reinterpret_cast<const Ti*>(p.p[k + 1]) + off[u][k + 1]);
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) reinterpret_cast<To*>(p.p[0])[off[u][0]] = apply<Op, To>(x[u], prm);
  }
  for (; i < n; i += step) {
    int64_t off[NIn + 1];
    v.offsets(i, off);
    C x[NIn];
#pragma unroll
    for (int k = 0; k < NIn; ++k) x[k] = load(reinterpret_cast<const Ti*>(p.p[k + 1]) + off[k + 1]);
    reinterpret_cast<To*>(p.p[0])[off[0]] = apply<Op, To>(x, prm);
  }
}

// Runs Op over c.out[0] (inputs c.in[0 .. NIn), broadcast to the output's shape).
template <class Op, class To, class Ti, int NIn>
void launch_map(const OpContext& c, const Params<calc_t<Ti>>& prm) {
  const Tensor& y = *c.out[0];
  const int64_t n = y.numel();
  if (n == 0) return;
  const Tensor* ts[NIn + 1];
  Ptrs<NIn + 1> p;
  ts[0] = &y;
  for (int k = 0; k < NIn; ++k) ts[k + 1] = c.in[k];
  for (int k = 0; k <= NIn; ++k) p.p[k] = base_of(*ts[k]);
  const Strided<NIn + 1> v = make_strided<NIn + 1>(y.shape, ts);
  const Launch L = launch_for(n);
  map_kernel<Op, To, Ti, NIn><<<L.grid, L.block, 0, stream(c)>>>(n, v, p, prm);
  check_launch(c.op->name);
}

// The registered kernel of a same-dtype map: Op::params (or none) then launch_map.
struct NoAttrs {
  template <class C>
  static Params<C> params(const OpContext&) { return {}; }
};
struct OneFloatAttr {  // alpha / beta in attribute slot 0
  template <class C>
  static Params<C> params(const OpContext& c) { return {float_param<C>(c.attrs.get_float(0)), C(0)}; }
};

template <class T, class Op, int NIn>
void map_op(OpContext& c) {
  launch_map<Op, T, T, NIn>(c, Op::template params<calc_t<T>>(c));
}

// ---- device math, float and double overloads ----------------------------------------------------
__device__ __forceinline__ float m_exp(float x) { return expf(x); }
__device__ __forceinline__ double m_exp(double x) { return exp(x); }
__device__ __forceinline__ float m_expm1(float x) { return expm1f(x); }
__device__ __forceinline__ double m_expm1(double x) { return expm1(x); }
__device__ __forceinline__ float m_log(float x) { return logf(x); }
__device__ __forceinline__ double m_log(double x) { return log(x); }
__device__ __forceinline__ float m_log1p(float x) { return log1pf(x); }
__device__ __forceinline__ double m_log1p(double x) { return log1p(x); }
__device__ __forceinline__ float m_sqrt(float x) { return sqrtf(x); }
__device__ __forceinline__ double m_sqrt(double x) { return sqrt(x); }
__device__ __forceinline__ float m_sin(float x) { return sinf(x); }
__device__ __forceinline__ double m_sin(double x) { return sin(x); }
__device__ __forceinline__ float m_cos(float x) { return cosf(x); }
__device__ __forceinline__ double m_cos(double x) { return cos(x); }
__device__ __forceinline__ float m_tanh(float x) { return tanhf(x); }
__device__ __forceinline__ double m_tanh(double x) { return tanh(x); }
__device__ __forceinline__ float m_pow(float x, float y) { return powf(x, y); }
__device__ __forceinline__ double m_pow(double x, double y) { return pow(x, y); }
__device__ __forceinline__ float m_fabs(float x) { return fabsf(x); }
__device__ __forceinline__ double m_fabs(double x) { return fabs(x); }
__device__ __forceinline__ float m_floor(float x) { return floorf(x); }
__device__ __forceinline__ double m_floor(double x) { return floor(x); }
__device__ __forceinline__ float m_ceil(float x) { return ceilf(x); }
__device__ __forceinline__ double m_ceil(double x) { return ceil(x); }
__device__ __forceinline__ float m_rint(float x) { return rintf(x); }  // halves to even
__device__ __forceinline__ double m_rint(double x) { return rint(x); }
// Phi(x), the normal cdf, = erfc(-x / sqrt 2) / 2; normcdff keeps the lower tail accurate.
__device__ __forceinline__ float m_normcdf(float x) { return normcdff(x); }
__device__ __forceinline__ double m_normcdf(double x) { return 0.5 * erfc(x * -0.70710678118654752440); }

// Integer arithmetic wraps (two's complement) instead of overflowing into undefined behaviour.
template <class C> struct WrapType { using type = C; };
template <> struct WrapType<int8_t> { using type = uint8_t; };
template <> struct WrapType<int32_t> { using type = uint32_t; };
template <> struct WrapType<int64_t> { using type = uint64_t; };
template <class C> using Wrap = typename WrapType<C>::type;

}  // namespace elt
}  // namespace ndrt::cuda
