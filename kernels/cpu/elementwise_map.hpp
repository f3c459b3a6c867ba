// The elementwise map kernels shared by the elementwise cpu files. An op is a functor
//   struct Op : <attribute base> { template <class C> static R f(C x[, C y], const Params<C>& p); };
// applied per element in the compute type C = compute_t<T> (float for f16/bf16). Each row the
// strided loop hands over runs one of two ways:
//  - direct: storage is its own compute type, output and inputs dense (inputs may also be a
//    broadcast scalar): one flat loop over the tensors' memory, which GCC vectorises;
//  - blocked: anything else (f16/bf16, strided views): blocks of kBlock elements are converted into
//    dense compute-type buffers, the same flat loop runs on those, the result is converted back.
// So the per-op loop is compiled once per compute type, and f16/bf16/strided rows still vectorise.
// Light ops (Op::kStream) write outputs larger than the last-level cache with streaming stores.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

#if defined(__F16C__) || defined(__AVX__)
#include <immintrin.h>
#endif
#if __has_include(<unistd.h>)
#include <unistd.h>  // sysconf: the last-level cache size
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
// form cannot vectorise (sqrt: -fmath-errno keeps std::sqrt a guarded libm call) or where a
// hand-vectorised fast path pays (exp, sigmoid).
template <class Op, class C, class = void>
struct HasBlock : std::false_type {};
template <class Op, class C>
struct HasBlock<Op, C, std::void_t<decltype(Op::block(std::declval<C*>(), std::declval<const C*>(), int64_t(0)))>>
    : std::true_type {};

// Params come in by value: a reference could alias y, and reloading it every element keeps the
// loop scalar. flatten: the loops vectorise only with Op::f inlined, and GCC's inliner stops
// inlining in translation units as large as elementwise_unary.cpp (tanh became a scalar call, 10x).
#if defined(__GNUC__)
#define NDRT_ELT_FLATTEN __attribute__((flatten))
#else
#define NDRT_ELT_FLATTEN
#endif
template <class Op, class Co, class C>
NDRT_ELT_FLATTEN void compute1(Co* y, const C* x, int64_t n, const Params<C> p) {
  if constexpr (std::is_same_v<Co, C> && HasBlock<Op, C>::value) {
    Op::block(y, x, n);
  } else {
    for (int64_t i = 0; i < n; ++i) y[i] = Co(Op::f(x[i], p));
  }
}

template <class Op, class Co, class C>
NDRT_ELT_FLATTEN void compute2(Co* y, const C* a, int64_t sa, const C* b, int64_t sb, int64_t n, const Params<C> p) {
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

// ---- streaming stores for outputs larger than the cache -------------------------------------------
// A plain store first reads the line it writes (write-allocate), so a map over a tensor much larger
// than the last-level cache moves its output through memory twice. Streaming (non-temporal) stores
// write whole lines without reading them: add / relu over 16M f32 run ~1.4x faster at one thread.
// Only light ops opt in (Op::kStream): a compute-bound op (tanh, exp) gains nothing and loses a
// few percent. An output that fits in the cache keeps plain stores, so a following op finds it there.

// The size of the last-level cache one core sees: Linux sysfs first (glibc's sysconf reports the
// sum over all of a socket's AMD core complexes, 384 MiB on a part with 32 MiB per complex), then
// sysconf, then 32 MiB.
inline int64_t last_level_cache_bytes() {
  int64_t bytes = -1;
  int best = 0;
  for (int i = 0; i < 8; ++i) {
    char path[64];
    std::snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
    FILE* f = std::fopen(path, "r");
    if (!f) break;
    int level = 0;
    const bool ok = std::fscanf(f, "%d", &level) == 1;
    std::fclose(f);
    std::snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
    f = std::fopen(path, "r");
    if (!f) continue;
    long long v = 0;
    char unit = 0;
    const int got = std::fscanf(f, "%lld%c", &v, &unit);
    std::fclose(f);
    if (!ok || got < 1 || level <= best || v <= 0) continue;
    best = level;
    bytes = v * (unit == 'K' ? 1024LL : unit == 'M' ? 1LL << 20 : unit == 'G' ? 1LL << 30 : 1LL);
  }
#ifdef _SC_LEVEL3_CACHE_SIZE
  if (bytes <= 0) bytes = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
  return bytes > 0 ? bytes : int64_t(32) << 20;
}

inline int64_t stream_threshold_bytes() {
  static const int64_t bytes = last_level_cache_bytes();
  return bytes;
}

template <class Op, class = void>
struct StreamOp : std::false_type {};
template <class Op>
struct StreamOp<Op, std::void_t<decltype(Op::kStream)>> : std::bool_constant<Op::kStream> {};

// Whether op Op writes output y with streaming stores.
template <class Op>
inline bool stream_output(const Tensor& y) {
#if defined(__AVX__)
  if constexpr (StreamOp<Op>::value) return y.numel() * y.itemsize() >= stream_threshold_bytes();
#endif
  (void)y;
  return false;
}

#if defined(__AVX__)
// Elements per streamed piece: 256 bytes, computed into a local array the compiler keeps in
// registers (a larger buffer written and reread through L1 was slower than plain stores).
template <class Co>
constexpr int64_t kStreamPiece = 256 / int64_t(sizeof(Co));

template <class Co>
inline void stream_piece(Co* y, const Co* t) {
  const __m256i* src = reinterpret_cast<const __m256i*>(t);
  __m256i* dst = reinterpret_cast<__m256i*>(y);
  for (int k = 0; k < 256 / 32; ++k) _mm256_stream_si256(dst + k, _mm256_load_si256(src + k));
}

// Elements of y before its first 32-byte boundary; n when y is not even aligned to its type
// (wrapped memory) and so never can be.
template <class Co>
inline int64_t stream_head(const Co* y, int64_t n) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(y);
  if (a % sizeof(Co) != 0) return n;
  return std::min<int64_t>(n, int64_t((32 - a % 32) % 32 / sizeof(Co)));
}

// compute1 / compute2 with streaming stores: the unaligned head and the tail go through plain
// stores, whole 256-byte pieces in between are computed and streamed. In place (y == x) is fine:
// a piece is read before it is written.
template <class Op, class Co, class C>
NDRT_ELT_FLATTEN void stream1(Co* y, const C* x, int64_t n, const Params<C> p) {
  constexpr int64_t K = kStreamPiece<Co>;
  int64_t i = stream_head(y, n);
  compute1<Op>(y, x, i, p);
  for (; i + K <= n; i += K) {
    alignas(32) Co t[K];
    if constexpr (std::is_same_v<Co, C> && HasBlock<Op, C>::value)
      Op::block(t, x + i, K);
    else
      for (int64_t k = 0; k < K; ++k) t[k] = Co(Op::f(x[i + k], p));
    stream_piece(y + i, t);
  }
  compute1<Op>(y + i, x + i, n - i, p);
  _mm_sfence();  // streaming stores are weakly ordered: drain them before the loop's join
}

// sa, sb in {0, 1} (a stride-0 input is a broadcast scalar).
template <class Op, class Co, class C>
NDRT_ELT_FLATTEN void stream2(Co* y, const C* a, int64_t sa, const C* b, int64_t sb, int64_t n, const Params<C> p) {
  constexpr int64_t K = kStreamPiece<Co>;
  int64_t i = stream_head(y, n);
  compute2<Op>(y, a, sa, b, sb, i, p);
  const C av = *a, bv = *b;
  for (; i + K <= n; i += K) {
    alignas(32) Co t[K];
    if (sa == 1 && sb == 1) {
      for (int64_t k = 0; k < K; ++k) t[k] = Co(Op::f(a[i + k], b[i + k], p));
    } else if (sa == 1) {
      for (int64_t k = 0; k < K; ++k) t[k] = Co(Op::f(a[i + k], bv, p));
    } else {
      for (int64_t k = 0; k < K; ++k) t[k] = Co(Op::f(av, b[i + k], p));
    }
    stream_piece(y + i, t);
  }
  compute2<Op>(y + i, a + i * sa, sa, b + i * sb, sb, n - i, p);
  _mm_sfence();
}
#endif

// ---- kernels -------------------------------------------------------------------------------------
// y = Op(x): input dtype Ti, output dtype To.
template <class Ti, class To, class Op>
void unary_kernel(OpContext& c) {
  using Ci = compute_t<Ti>;
  using Co = compute_t<To>;
  const Params<Ci> prm = Op::template params<Ci>(c);
  Loop<2> L = make_loop<2>(*c.out[0], {c.in[0]});
  [[maybe_unused]] const bool stream = stream_output<Op>(*c.out[0]);  // unused without AVX
  run_loop(L, [&](char** p, int64_t n, const int64_t* s) {
    To* o = reinterpret_cast<To*>(p[0]);
    const Ti* x = reinterpret_cast<const Ti*>(p[1]);
    if constexpr (kDirect<Ti> && kDirect<To>) {
      if (s[0] == 1 && s[1] == 1) {
#if defined(__AVX__)
        if constexpr (StreamOp<Op>::value) {
          if (stream) {
            stream1<Op>(o, x, n, prm);
            return;
          }
        }
#endif
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
  [[maybe_unused]] const bool stream = stream_output<Op>(*c.out[0]);  // unused without AVX
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
#if defined(__AVX__)
        if constexpr (StreamOp<Op>::value) {
          if (stream && (s[1] | s[2]) == 1) {  // not both broadcast scalars
            stream2<Op>(o, a, s[1], b, s[2], n, prm);
            return;
          }
        }
#endif
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
