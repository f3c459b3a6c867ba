// Row primitives shared by the reductions, softmax and the losses: a float exp (glibc's expf is a
// scalar call and exp dominates softmax; with AVX2+FMA an 8-wide version), and max / sum / exp-sum
// folds over contiguous runs written with explicit accumulator lanes so they vectorise (float sums
// do not otherwise).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#if defined(__AVX2__) || defined(__F16C__)
#include <immintrin.h>
#endif

#include "dtype.hpp"

namespace ndrt {
namespace red {

// e^x for float, within 2 ulp for results >= 2^-125; results below that flush to 0; +inf above
// ln(FLT_MAX); NaN stays NaN. Cody-Waite reduction x = n ln2 + r, |r| <= ln2/2, Cephes polynomial.
inline float fast_exp(float x) {
  const float hi = 88.72283905f, lo = -86.9f;
  float xc = x < lo ? lo : x;
  xc = xc > hi ? hi : xc;
  const float shift = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
  float t = xc * 1.44269504088896341f + shift;
  float n = t - shift;
  int32_t ni;
  std::memcpy(&ni, &t, 4);
  ni -= 0x4B400000;  // the integer n, from the low mantissa bits of t
  float r = xc - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  // 2^n as 2^(n-1) * 2 so n = 128 (x near ln(FLT_MAX)) does not overflow the exponent field.
  uint32_t bits = uint32_t(ni + 126) << 23;  // unsigned: a NaN input must not shift into the sign
  float scale;
  std::memcpy(&scale, &bits, 4);
  float y = p * scale * 2.0f;
  y = x < lo ? 0.0f : y;
  y = x > hi ? std::numeric_limits<float>::infinity() : y;
  return x != x ? x : y;
}

inline double fast_exp(double x) { return std::exp(x); }

// Long contiguous folds prefetch this far ahead. One core's hardware prefetchers stop at each 4 KiB
// page, and a single thread then keeps too few misses in flight to reach the memory bandwidth;
// explicit requests 8 KiB ahead gave ~15% on 16M-element f32 sum / max at one thread (4 and 16 KiB
// did less or no better). Runs below twice the distance are not prefetched. Requests past the
// run's end are harmless (a prefetch never faults) and, for the usual adjacent rows, fetch the next
// run.
constexpr int64_t kPrefetchBytes = 8192;

#if defined(__AVX2__) && defined(__FMA__)
template <int Lines>
inline void prefetch_ahead(const void* p) {
  const char* c = static_cast<const char*>(p) + kPrefetchBytes;
  for (int l = 0; l < Lines; ++l) _mm_prefetch(c + 64 * l, _MM_HINT_T0);
}
#endif

// Maximum (Less: minimum) of a contiguous run (n >= 1); NaN anywhere gives NaN. Written so the
// compiler vectorises it (select + unordered flag; no short-circuit in the loop).
#if defined(__AVX2__) && defined(__FMA__)
// 8-wide (float) / 4-wide (double) min or max with an unordered-compare NaN flag, 4 accumulators.
template <bool Less, class C, class V>
inline C run_extreme_avx(const C* x, int64_t n) {
  constexpr int W = int(sizeof(V) / sizeof(C));
  auto load = [](const C* p) {
    if constexpr (std::is_same_v<C, float>)
      return _mm256_loadu_ps(p);
    else
      return _mm256_loadu_pd(p);
  };
  auto pick = [](V a, V b) {
    if constexpr (std::is_same_v<C, float>)
      return Less ? _mm256_min_ps(a, b) : _mm256_max_ps(a, b);
    else
      return Less ? _mm256_min_pd(a, b) : _mm256_max_pd(a, b);
  };
  auto unord = [](V a, V b, V c) {  // a | (b or c has a NaN)
    if constexpr (std::is_same_v<C, float>)
      return _mm256_or_ps(a, _mm256_cmp_ps(b, c, _CMP_UNORD_Q));
    else
      return _mm256_or_pd(a, _mm256_cmp_pd(b, c, _CMP_UNORD_Q));
  };
  V first;
  if constexpr (std::is_same_v<C, float>)
    first = _mm256_set1_ps(x[0]);
  else
    first = _mm256_set1_pd(x[0]);
  V a0 = first, a1 = first, a2 = first, a3 = first, bad;
  if constexpr (std::is_same_v<C, float>)
    bad = _mm256_setzero_ps();
  else
    bad = _mm256_setzero_pd();
  int64_t i = 0;
  const bool pf = n * int64_t(sizeof(C)) >= 2 * kPrefetchBytes;
  for (; i + 4 * W <= n; i += 4 * W) {
    if (pf) prefetch_ahead<2>(x + i);  // 128 bytes per step
    V v0 = load(x + i), v1 = load(x + i + W), v2 = load(x + i + 2 * W), v3 = load(x + i + 3 * W);
    a0 = pick(a0, v0);
    a1 = pick(a1, v1);
    a2 = pick(a2, v2);
    a3 = pick(a3, v3);
    bad = unord(bad, v0, v1);  // one compare flags a NaN in either vector
    bad = unord(bad, v2, v3);
  }
  alignas(32) C lanes[4 * W];
  std::memcpy(lanes, &a0, sizeof(V));
  std::memcpy(lanes + W, &a1, sizeof(V));
  std::memcpy(lanes + 2 * W, &a2, sizeof(V));
  std::memcpy(lanes + 3 * W, &a3, sizeof(V));
  int any;
  if constexpr (std::is_same_v<C, float>)
    any = _mm256_movemask_ps(bad);
  else
    any = _mm256_movemask_pd(bad);
  C m = lanes[0];
  for (int l = 1; l < 4 * W; ++l) m = (Less ? lanes[l] < m : m < lanes[l]) ? lanes[l] : m;
  for (; i < n; ++i) {
    m = (Less ? x[i] < m : m < x[i]) ? x[i] : m;
    any |= x[i] != x[i];
  }
  return any ? std::numeric_limits<C>::quiet_NaN() : m;
}
#endif

template <bool Less, class C>
inline C run_extreme(const C* x, int64_t n) {
#if defined(__AVX2__) && defined(__FMA__)
  if constexpr (std::is_same_v<C, float>) return run_extreme_avx<Less, float, __m256>(x, n);
  if constexpr (std::is_same_v<C, double>) return run_extreme_avx<Less, double, __m256d>(x, n);
#endif
  using Mask = std::conditional_t<sizeof(C) == 8, int64_t, int32_t>;  // lane-wide, so it vectorises
  C lane[8];
  Mask nan[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (int l = 0; l < 8; ++l) lane[l] = x[0];
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int l = 0; l < 8; ++l) {
      C v = x[i + l];
      lane[l] = (Less ? v < lane[l] : lane[l] < v) ? v : lane[l];
      if constexpr (std::is_floating_point_v<C>) nan[l] |= Mask(v != v);
    }
  C m = lane[0];
  Mask any = nan[0];
  for (int l = 1; l < 8; ++l) {
    m = (Less ? lane[l] < m : m < lane[l]) ? lane[l] : m;
    any |= nan[l];
  }
  for (; i < n; ++i) {
    m = (Less ? x[i] < m : m < x[i]) ? x[i] : m;
    if constexpr (std::is_floating_point_v<C>) any |= Mask(x[i] != x[i]);
  }
  if constexpr (std::is_floating_point_v<C>)
    if (any) return std::numeric_limits<C>::quiet_NaN();
  return m;
}
// Index of the first element equal to v (v NaN: the first NaN) in a contiguous run; n when none.
template <class C>
inline int64_t run_find(const C* x, int64_t n, C v) {
  int64_t i = 0;
  const bool nan = v != v;
#if defined(__AVX2__) && defined(__FMA__)
  if constexpr (std::is_same_v<C, float>) {
    const __m256 t = _mm256_set1_ps(v);
    for (; i + 8 <= n; i += 8) {
      __m256 a = _mm256_loadu_ps(x + i);
      int bits = _mm256_movemask_ps(nan ? _mm256_cmp_ps(a, a, _CMP_UNORD_Q) : _mm256_cmp_ps(a, t, _CMP_EQ_OQ));
      if (bits) return i + __builtin_ctz(unsigned(bits));
    }
  } else if constexpr (std::is_same_v<C, double>) {
    const __m256d t = _mm256_set1_pd(v);
    for (; i + 4 <= n; i += 4) {
      __m256d a = _mm256_loadu_pd(x + i);
      int bits = _mm256_movemask_pd(nan ? _mm256_cmp_pd(a, a, _CMP_UNORD_Q) : _mm256_cmp_pd(a, t, _CMP_EQ_OQ));
      if (bits) return i + __builtin_ctz(unsigned(bits));
    }
  }
#endif
  for (; i < n; ++i)
    if (nan ? x[i] != x[i] : x[i] == v) return i;
  return n;
}

template <class C>
inline C run_max(const C* x, int64_t n) {
  return run_extreme<false>(x, n);
}

// Folds over contiguous runs in accumulator type A with 16 lanes (enough independent chains to
// hide the add latency once vectorised; f32 -> f64 included).
#define NDRT_RED_LANES16(EXPR)                                                                     \
  A lane[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};                                   \
  int64_t i = 0;                                                                                   \
  for (; i + 16 <= n; i += 16)                                                                     \
    for (int l = 0; l < 16; ++l) {                                                                 \
      const int64_t k = i + l;                                                                     \
      lane[l] += EXPR;                                                                             \
    }                                                                                              \
  for (int l = 0; l < 8; ++l) lane[l] += lane[l + 8];                                              \
  A s = ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7])); \
  for (; i < n; ++i) {                                                                             \
    const int64_t k = i;                                                                           \
    s += EXPR;                                                                                     \
  }                                                                                                \
  return s;

// Sum of x. f32 into f64 with AVX2: groups of 4 vectors are added in f32 first, then accumulated
// in f64 (half the f64 work; the error stays below 2^-22 sum|x|, independent of n).
template <class A, class C>
inline A run_sum(const C* x, int64_t n) {
#if defined(__AVX2__) && defined(__FMA__)
  if constexpr (std::is_same_v<A, double> && std::is_same_v<C, float>) {
    const bool pf = n * 4 >= 2 * kPrefetchBytes;
    __m256d a0 = _mm256_setzero_pd(), a1 = a0, a2 = a0, a3 = a0;
    int64_t i = 0;
    for (; i + 64 <= n; i += 64) {
      if (pf) prefetch_ahead<4>(x + i);  // 256 bytes per step
      __m256 v = _mm256_add_ps(_mm256_add_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(x + i + 8)),
                               _mm256_add_ps(_mm256_loadu_ps(x + i + 16), _mm256_loadu_ps(x + i + 24)));
      __m256 w = _mm256_add_ps(_mm256_add_ps(_mm256_loadu_ps(x + i + 32), _mm256_loadu_ps(x + i + 40)),
                               _mm256_add_ps(_mm256_loadu_ps(x + i + 48), _mm256_loadu_ps(x + i + 56)));
      a0 = _mm256_add_pd(a0, _mm256_cvtps_pd(_mm256_castps256_ps128(v)));
      a1 = _mm256_add_pd(a1, _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)));
      a2 = _mm256_add_pd(a2, _mm256_cvtps_pd(_mm256_castps256_ps128(w)));
      a3 = _mm256_add_pd(a3, _mm256_cvtps_pd(_mm256_extractf128_ps(w, 1)));
    }
    for (; i + 8 <= n; i += 8) {
      a0 = _mm256_add_pd(a0, _mm256_cvtps_pd(_mm_loadu_ps(x + i)));
      a1 = _mm256_add_pd(a1, _mm256_cvtps_pd(_mm_loadu_ps(x + i + 4)));
    }
    alignas(32) double t[4];
    _mm256_store_pd(t, _mm256_add_pd(_mm256_add_pd(a0, a1), _mm256_add_pd(a2, a3)));
    double s = (t[0] + t[1]) + (t[2] + t[3]);
    for (; i < n; ++i) s += double(x[i]);
    return s;
  }
#endif
  NDRT_RED_LANES16(A(x[k]))
}
// Sum of (x - m)^2.
template <class A, class C>
inline A run_sqdev(const C* x, int64_t n, C m) {
  NDRT_RED_LANES16(A(x[k] - m) * A(x[k] - m))
}
// Sum of y (x - m).
template <class A, class C>
inline A run_dot_dev(const C* x, const C* y, int64_t n, C m) {
  NDRT_RED_LANES16(A(y[k]) * A(x[k] - m))
}
// Sum of x y.
template <class A, class C>
inline A run_dot2(const C* x, const C* y, int64_t n) {
  NDRT_RED_LANES16(A(x[k]) * A(y[k]))
}
#undef NDRT_RED_LANES16

// Product of x in A, 16 lanes.
template <class A, class C>
inline A run_prod(const C* x, int64_t n) {
  A lane[16];
  for (A& l : lane) l = A(1);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    for (int l = 0; l < 16; ++l) lane[l] *= A(x[i + l]);
  for (int l = 0; l < 8; ++l) lane[l] *= lane[l + 8];
  A p = ((lane[0] * lane[1]) * (lane[2] * lane[3])) * ((lane[4] * lane[5]) * (lane[6] * lane[7]));
  for (; i < n; ++i) p *= A(x[i]);
  return p;
}

// f16 / bf16 runs converted to float in blocks (8 at a time with F16C / AVX2).
template <class T>
inline void load_block(const T* x, int64_t n, float* out) {
  int64_t i = 0;
#if defined(__AVX2__) && defined(__F16C__)
  if constexpr (sizeof(T) == 2) {
    for (; i + 8 <= n; i += 8) {
      __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i));
      __m256 f;
      if constexpr (std::is_same_v<T, BFloat16>)
        f = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
      else
        f = _mm256_cvtph_ps(h);
      _mm256_storeu_ps(out + i, f);
    }
  }
#endif
  for (; i < n; ++i) out[i] = float(x[i]);
}

// Calls f(buf, k, b) for the blocks x[b, b + k) of a contiguous f16/bf16 run, converted to float.
template <class T, class F>
inline void for_float_blocks(const T* x, int64_t n, F&& f) {
  float buf[512];
  for (int64_t b = 0; b < n; b += 512) {
    const int64_t k = std::min<int64_t>(512, n - b);
    load_block(x + b, k, buf);
    f(static_cast<const float*>(buf), k, b);
  }
}

#if defined(__AVX2__) && defined(__FMA__)
// fast_exp on 8 floats (the same reduction and polynomial, with FMA).
inline __m256 exp8(__m256 x) {
  const __m256 hi = _mm256_set1_ps(88.72283905f), lo = _mm256_set1_ps(-86.9f);
  const __m256 shift = _mm256_set1_ps(12582912.0f);
  __m256 xc = _mm256_min_ps(_mm256_max_ps(x, lo), hi);
  __m256 t = _mm256_fmadd_ps(xc, _mm256_set1_ps(1.44269504088896341f), shift);
  __m256 n = _mm256_sub_ps(t, shift);
  __m256i ni = _mm256_sub_epi32(_mm256_castps_si256(t), _mm256_set1_epi32(0x4B400000));
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), xc);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
  __m256 p = _mm256_set1_ps(1.9875691500e-4f);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
  p = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
  __m256 scale = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(ni, _mm256_set1_epi32(126)), 23));
  __m256 y = _mm256_mul_ps(_mm256_mul_ps(p, scale), _mm256_set1_ps(2.0f));
  y = _mm256_blendv_ps(y, _mm256_setzero_ps(), _mm256_cmp_ps(x, lo, _CMP_LT_OQ));
  y = _mm256_blendv_ps(y, _mm256_set1_ps(std::numeric_limits<float>::infinity()), _mm256_cmp_ps(x, hi, _CMP_GT_OQ));
  return _mm256_blendv_ps(y, x, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
}

// Natural log of 8 floats (Cephes logf: x = m 2^e, m in [sqrt(1/2), sqrt(2)), polynomial in m - 1);
// 0 gives -inf, negatives NaN, +inf and NaN themselves.
inline __m256 log8(__m256 x) {
  const __m256 one = _mm256_set1_ps(1.0f);
  // Subnormals: scaled by 2^24 into the normal range, the exponent corrected below.
  const __m256 sub = _mm256_cmp_ps(x, _mm256_set1_ps(1.17549435e-38f), _CMP_LT_OQ);
  __m256 xc = _mm256_blendv_ps(x, _mm256_mul_ps(x, _mm256_set1_ps(16777216.0f)), sub);
  __m256i bits = _mm256_castps_si256(xc);
  __m256 e = _mm256_cvtepi32_ps(_mm256_sub_epi32(_mm256_srli_epi32(bits, 23), _mm256_set1_epi32(126)));
  e = _mm256_sub_ps(e, _mm256_and_ps(sub, _mm256_set1_ps(24.0f)));
  __m256 m = _mm256_castsi256_ps(_mm256_or_si256(_mm256_and_si256(bits, _mm256_set1_epi32(0x007fffff)),
                                                 _mm256_set1_epi32(0x3f000000)));  // [0.5, 1)
  __m256 small = _mm256_cmp_ps(m, _mm256_set1_ps(0.707106781186547524f), _CMP_LT_OQ);
  e = _mm256_sub_ps(e, _mm256_and_ps(small, one));
  m = _mm256_sub_ps(_mm256_add_ps(m, _mm256_and_ps(small, m)), one);
  __m256 z = _mm256_mul_ps(m, m);
  __m256 y = _mm256_set1_ps(7.0376836292e-2f);
  y = _mm256_fmadd_ps(y, m, _mm256_set1_ps(-1.1514610310e-1f));
  y = _mm256_fmadd_ps(y, m, _mm256_set1_ps(1.1676998740e-1f));
  y = _mm256_fmadd_ps(y, m, _mm256_set1_ps(-1.2420140846e-1f));
  y = _mm256_fmadd_ps(y, m, _mm256_set1_ps(1.4249322787e-1f));
  y = _mm256_fmadd_ps(y, m, _mm256_set1_ps(-1.6668057665e-1f));
  y = _mm256_fmadd_ps(y, m, _mm256_set1_ps(2.0000714765e-1f));
  y = _mm256_fmadd_ps(y, m, _mm256_set1_ps(-2.4999993993e-1f));
  y = _mm256_fmadd_ps(y, m, _mm256_set1_ps(3.3333331174e-1f));
  y = _mm256_mul_ps(_mm256_mul_ps(y, m), z);
  y = _mm256_fmadd_ps(e, _mm256_set1_ps(-2.12194440e-4f), y);
  y = _mm256_fnmadd_ps(z, _mm256_set1_ps(0.5f), y);
  __m256 r = _mm256_add_ps(m, y);
  r = _mm256_fmadd_ps(e, _mm256_set1_ps(0.693359375f), r);
  r = _mm256_blendv_ps(r, _mm256_set1_ps(-std::numeric_limits<float>::infinity()),
                       _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_EQ_OQ));
  r = _mm256_blendv_ps(r, _mm256_set1_ps(std::numeric_limits<float>::quiet_NaN()),
                       _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_LT_OQ));
  r = _mm256_blendv_ps(r, x, _mm256_cmp_ps(x, _mm256_set1_ps(std::numeric_limits<float>::infinity()), _CMP_EQ_OQ));
  return _mm256_blendv_ps(r, x, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
}

// log(1 + x) for x > -1 from log8, exact to float precision for small x: log1p(x) = log(u) x / (u - 1),
// u = 1 + x rounded (Goldberg's trick); u == 1 gives x.
inline __m256 log1p8(__m256 x) {
  const __m256 u = _mm256_add_ps(_mm256_set1_ps(1.0f), x);
  const __m256 d = _mm256_sub_ps(u, _mm256_set1_ps(1.0f));
  const __m256 r = _mm256_div_ps(_mm256_mul_ps(log8(u), x), d);
  const __m256 exact = _mm256_cmp_ps(d, _mm256_setzero_ps(), _CMP_EQ_OQ);
  const __m256 inf = _mm256_cmp_ps(u, _mm256_set1_ps(std::numeric_limits<float>::infinity()), _CMP_EQ_OQ);
  return _mm256_blendv_ps(_mm256_blendv_ps(r, x, exact), u, inf);
}

inline double hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return double(_mm_cvtss_f32(s));
}

// Sum of e^(x - m) over a contiguous float run, terms stored to out when given; float lanes per
// block of 256, f64 across blocks.
inline double run_exp_sum(const float* x, int64_t n, float m, float* out) {
  const __m256 mv = _mm256_set1_ps(m);
  double total = 0;
  for (int64_t b = 0; b < n; b += 256) {
    const int64_t e = std::min<int64_t>(n, b + 256);
    __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
    int64_t i = b;
    for (; i + 16 <= e; i += 16) {
      __m256 v0 = exp8(_mm256_sub_ps(_mm256_loadu_ps(x + i), mv));
      __m256 v1 = exp8(_mm256_sub_ps(_mm256_loadu_ps(x + i + 8), mv));
      if (out) {
        _mm256_storeu_ps(out + i, v0);
        _mm256_storeu_ps(out + i + 8, v1);
      }
      a0 = _mm256_add_ps(a0, v0);
      a1 = _mm256_add_ps(a1, v1);
    }
    float tail = 0;
    for (; i < e; ++i) {
      float v = fast_exp(x[i] - m);
      if (out) out[i] = v;
      tail += v;
    }
    total += hsum(_mm256_add_ps(a0, a1)) + double(tail);
  }
  return total;
}

// dx = dy - e^y s over a contiguous float run (the log_softmax gradient).
inline void run_dy_minus_exp(const float* y, const float* dy, float* dx, int64_t n, float s) {
  const __m256 sv = _mm256_set1_ps(s);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(dx + i, _mm256_fnmadd_ps(exp8(_mm256_loadu_ps(y + i)), sv, _mm256_loadu_ps(dy + i)));
  for (; i < n; ++i) dx[i] = dy[i] - fast_exp(y[i]) * s;
}
#endif

template <class C>
inline void run_dy_minus_exp(const C* y, const C* dy, C* dx, int64_t n, C s) {  // generic
  for (int64_t i = 0; i < n; ++i) dx[i] = dy[i] - fast_exp(y[i]) * s;
}

// Sum of e^(x - m) over a contiguous run; when out is given it receives the terms. Accumulates in
// float lanes per block of 256 and in double across blocks, so long rows stay accurate.
template <class C>
inline double run_exp_sum(const C* x, int64_t n, C m, C* out) {  // generic (double; float without AVX2)
  double total = 0;
  for (int64_t b = 0; b < n; b += 256) {
    const int64_t e = std::min<int64_t>(n, b + 256);
    C lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int64_t i = b;
    if (out) {
      for (; i + 8 <= e; i += 8)
        for (int l = 0; l < 8; ++l) {
          C v = fast_exp(C(x[i + l] - m));
          out[i + l] = v;
          lane[l] += v;
        }
      for (; i < e; ++i) {
        C v = fast_exp(C(x[i] - m));
        out[i] = v;
        lane[0] += v;
      }
    } else {
      for (; i + 8 <= e; i += 8)
        for (int l = 0; l < 8; ++l) lane[l] += fast_exp(C(x[i + l] - m));
      for (; i < e; ++i) lane[0] += fast_exp(C(x[i] - m));
    }
    total += double((lane[0] + lane[1]) + (lane[2] + lane[3])) + double((lane[4] + lane[5]) + (lane[6] + lane[7]));
  }
  return total;
}

}  // namespace red
}  // namespace ndrt
