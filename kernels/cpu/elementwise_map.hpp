// The elementwise map kernels shared by the elementwise cpu files. An op is a functor
//   struct Op : <attribute base> { template <class C> static R f(C x[, C y], const Params<C>& p); };
// applied per element in the compute type C = compute_t<T> (float for f16/bf16). Each row the
// strided loop hands over runs one of two ways:
//  - direct: storage is its own compute type, output and inputs dense (inputs may also be a
//    broadcast scalar): one flat loop over the tensors' memory, which GCC vectorises;
//  - blocked: anything else (f16/bf16, strided views): blocks of kBlock elements are converted into
//    dense compute-type buffers, the same flat loop runs on those, the result is converted back.
// So the per-op loop is compiled once per compute type, and f16/bf16/strided rows still vectorise.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

#if defined(__F16C__) || defined(__AVX__)
#include <immintrin.h>
#endif

#include "error.hpp"
#include "kernels.hpp"
#include "loops.hpp"

namespace ndrt::elt {

constexpr int64_t kBlock = 256;

template <class C>
struct Params {
  C a = C(0), b = C(0);
};

// Attribute bases: how an op turns the call's attributes into Params.
struct NoAttrs {
  static constexpr bool kIntDivCheck = false;
  template <class C>
  static Params<C> params(const OpContext&) { return {}; }
};
// A double attribute as a floating compute type, saturating to +-inf (a plain conversion of a
// double beyond the float range is undefined behaviour).
template <class C>
inline C float_param(double v) {
  using L = std::numeric_limits<C>;
  if (v > double(L::max())) return L::infinity();
  if (v < double(L::lowest())) return -L::infinity();
  return C(v);
}

// One float attribute (alpha, beta) in slot 0.
struct OneFloatAttr : NoAttrs {
  template <class C>
  static Params<C> params(const OpContext& c) { return {float_param<C>(c.attrs.get_float(0)), C(0)}; }
};

template <class T>
constexpr bool kDirect = std::is_same_v<compute_t<T>, T>;

// Integer arithmetic wraps (two's complement) instead of overflowing into undefined behaviour.
template <class T, bool = std::is_integral_v<T>>
struct WrapType { using type = T; };
template <class T>
struct WrapType<T, true> { using type = std::make_unsigned_t<T>; };
template <class T>
using Wrap = typename WrapType<T>::type;

// ---- storage <-> compute conversion -------------------------------------------------------------
template <class T>
inline compute_t<T> to_compute(T v) {
  if constexpr (std::is_same_v<T, Half>) {
#if defined(__F16C__)
    return _cvtsh_ss(v.bits);
#else
    return Half::to_float(v.bits);
#endif
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return static_cast<float>(v);
  } else {
    return v;
  }
}

template <class T>
inline T from_compute(compute_t<T> v) {
  if constexpr (std::is_same_v<T, Half>) {
    Half h;
#if defined(__F16C__)
    h.bits = _cvtss_sh(v, _MM_FROUND_TO_NEAREST_INT);
#else
    h.bits = Half::from_float(v);
#endif
    return h;
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    BFloat16 b;
    b.bits = BFloat16::from_float(v);
    return b;
  } else {
    return v;
  }
}

// dst[0..n) = src[i * stride] in compute type.
template <class T>
inline void load(compute_t<T>* dst, const T* src, int64_t stride, int64_t n) {
  int64_t i = 0;
  if (stride == 1) {
    if constexpr (std::is_same_v<T, BFloat16>) {
      const uint16_t* s = reinterpret_cast<const uint16_t*>(src);
      for (; i < n; ++i) {
        uint32_t u = uint32_t(s[i]) << 16;
        std::memcpy(dst + i, &u, 4);
      }
      return;
    }
#if defined(__F16C__)
    if constexpr (std::is_same_v<T, Half>) {
      for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i))));
    }
#endif
  }
  for (; i < n; ++i) dst[i] = to_compute(src[i * stride]);
}

// dst[i * stride] = src[i] rounded to the storage type (nearest even).
template <class T>
inline void store(T* dst, int64_t stride, const compute_t<T>* src, int64_t n) {
  int64_t i = 0;
  if (stride == 1) {
    if constexpr (std::is_same_v<T, BFloat16>) {
      uint16_t* d = reinterpret_cast<uint16_t*>(dst);
      for (; i < n; ++i) {  // branch-free BFloat16::from_float, so it vectorises
        uint32_t u;
        std::memcpy(&u, src + i, 4);
        uint32_t r = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
        uint32_t q = (u >> 16) | 0x40u;
        d[i] = uint16_t((u & 0x7fffffffu) > 0x7f800000u ? q : r);
      }
      return;
    }
#if defined(__F16C__)
    if constexpr (std::is_same_v<T, Half>) {
      for (; i + 8 <= n; i += 8)
        _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i),
                         _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT));
    }
#endif
  }
  for (; i < n; ++i) dst[i * stride] = from_compute<T>(src[i]);
}

// ---- flat compute loops (dense output; inputs dense or a broadcast scalar) -----------------------
// An op may bring its own dense loop, Op::block(C* y, const C* x, int64_t n), where the per-element
// form cannot vectorise (sqrt: -fmath-errno keeps std::sqrt a guarded libm call).
template <class Op, class C, class = void>
struct HasBlock : std::false_type {};
template <class Op, class C>
struct HasBlock<Op, C, std::void_t<decltype(Op::block(std::declval<C*>(), std::declval<const C*>(), int64_t(0)))>>
    : std::true_type {};

// Params come in by value: a reference could alias y, and reloading it every element keeps the
// loop scalar.
template <class Op, class Co, class C>
void compute1(Co* y, const C* x, int64_t n, const Params<C> p) {
  if constexpr (std::is_same_v<Co, C> && HasBlock<Op, C>::value) {
    Op::block(y, x, n);
  } else {
    for (int64_t i = 0; i < n; ++i) y[i] = Co(Op::f(x[i], p));
  }
}

template <class Op, class Co, class C>
void compute2(Co* y, const C* a, int64_t sa, const C* b, int64_t sb, int64_t n, const Params<C> p) {
  if (sa == 1 && sb == 1) {
    for (int64_t i = 0; i < n; ++i) y[i] = Co(Op::f(a[i], b[i], p));
  } else if (sb == 0 && sa == 1) {
    const C bv = *b;
    for (int64_t i = 0; i < n; ++i) y[i] = Co(Op::f(a[i], bv, p));
  } else if (sa == 0 && sb == 1) {
    const C av = *a;
    for (int64_t i = 0; i < n; ++i) y[i] = Co(Op::f(av, b[i], p));
  } else {
    for (int64_t i = 0; i < n; ++i) y[i] = Co(Op::f(a[i * sa], b[i * sb], p));
  }
}

// ---- kernels -------------------------------------------------------------------------------------
// y = Op(x): input dtype Ti, output dtype To.
template <class Ti, class To, class Op>
void unary_kernel(OpContext& c) {
  using Ci = compute_t<Ti>;
  using Co = compute_t<To>;
  const Params<Ci> prm = Op::template params<Ci>(c);
  Loop<2> L = make_loop<2>(*c.out[0], {c.in[0]});
  run_loop(L, [&](char** p, int64_t n, const int64_t* s) {
    To* o = reinterpret_cast<To*>(p[0]);
    const Ti* x = reinterpret_cast<const Ti*>(p[1]);
    if constexpr (kDirect<Ti> && kDirect<To>) {
      if (s[0] == 1 && s[1] == 1) {
        compute1<Op>(o, x, n, prm);
        return;
      }
    }
    Ci xb[kBlock];
    Co yb[kBlock];
    for (int64_t off = 0; off < n; off += kBlock) {
      const int64_t m = std::min(kBlock, n - off);
      load(xb, x + off * s[1], s[1], m);
      compute1<Op>(yb, xb, m, prm);
      store(o + off * s[0], s[0], yb, m);
    }
  });
}

// y = Op(a, b) with numpy broadcasting: inputs dtype Ti, output dtype To.
template <class Ti, class To, class Op>
void binary_kernel(OpContext& c) {
  using Ci = compute_t<Ti>;
  using Co = compute_t<To>;
  const Params<Ci> prm = Op::template params<Ci>(c);
  Loop<3> L = make_loop<3>(*c.out[0], {c.in[0], c.in[1]});
  std::atomic<bool> div_by_zero{false};
  run_loop(L, [&](char** p, int64_t n, const int64_t* s) {
    To* o = reinterpret_cast<To*>(p[0]);
    const Ti* a = reinterpret_cast<const Ti*>(p[1]);
    const Ti* b = reinterpret_cast<const Ti*>(p[2]);
    if constexpr (Op::kIntDivCheck && std::is_integral_v<Ti>) {
      bool zero = false;
      for (int64_t i = 0; i < n; ++i) zero |= b[i * s[2]] == 0;
      if (zero) div_by_zero.store(true, std::memory_order_relaxed);
    }
    if constexpr (kDirect<Ti> && kDirect<To>) {
      if (s[0] == 1 && (s[1] | 1) == 1 && (s[2] | 1) == 1) {  // strides 0 or 1 (non-negative)
        compute2<Op>(o, a, s[1], b, s[2], n, prm);
        return;
      }
    }
    Ci ab[kBlock], bb[kBlock];
    Co yb[kBlock];
    // A broadcast scalar input is converted once and read with stride 0.
    const Ci as = to_compute(*a), bs = to_compute(*b);
    for (int64_t off = 0; off < n; off += kBlock) {
      const int64_t m = std::min(kBlock, n - off);
      if (s[1] != 0) load(ab, a + off * s[1], s[1], m);
      if (s[2] != 0) load(bb, b + off * s[2], s[2], m);
      compute2<Op>(yb, s[1] ? ab : &as, s[1] ? 1 : 0, s[2] ? bb : &bs, s[2] ? 1 : 0, m, prm);
      store(o + off * s[0], s[0], yb, m);
    }
  });
  if (div_by_zero.load()) fail(NDRT_ERR_INVALID_ARGUMENT, "%s: integer division by zero", c.op->name);
}

}  // namespace ndrt::elt
