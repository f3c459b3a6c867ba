// Branch-free f32 transcendental functions that GCC auto-vectorises (selects become blends, the
// bit casts become integer vector ops). std::expf and friends are opaque calls that keep a loop
// scalar; glibc's vector variants (libmvec) are only reachable with -ffast-math, which we do not
// use. Accuracy: within a few ulp of the correctly rounded result over the whole float range,
// with IEEE special values (NaN, +-inf, overflow to inf, underflow through subnormals to 0).
// Polynomials are Cephes' minimax fits (S. Moshier); tests compare against f64 references.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#endif

// The functions below are meant to be inlined into loops that GCC then vectorises; one left as an
// out-of-line call (GCC's inliner gives up on large translation units) keeps its loop scalar and
// ~10x slower, so inlining is forced.
#if defined(__GNUC__)
#define NDRT_VMATH_INLINE inline __attribute__((always_inline))
#else
#define NDRT_VMATH_INLINE inline
#endif

namespace ndrt::vmath {

NDRT_VMATH_INLINE float from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
NDRT_VMATH_INLINE uint32_t to_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// c ? a : b as a bit blend. A plain ?: lets GCC move the work of the unused side under a branch
// (floating-point ops may trap, so it will not evaluate them speculatively), and a branch keeps
// the loop scalar; with the blend both sides are always computed and the loop vectorises.
NDRT_VMATH_INLINE float sel(bool c, float a, float b) {
  uint32_t m = 0u - uint32_t(c);
  return from_bits((to_bits(a) & m) | (to_bits(b) & ~m));
}

// The same for any compute type (double: a 64-bit blend; integers: a plain select).
template <class C>
NDRT_VMATH_INLINE C pick(bool c, C a, C b) {
  if constexpr (std::is_same_v<C, float>) {
    return sel(c, a, b);
  } else if constexpr (std::is_same_v<C, double>) {
    uint64_t m = 0u - uint64_t(c), ua, ub;
    std::memcpy(&ua, &a, 8);
    std::memcpy(&ub, &b, 8);
    ua = (ua & m) | (ub & ~m);
    std::memcpy(&a, &ua, 8);
    return a;
  } else {
    return c ? a : b;
  }
}

// 2^n for an integer n in [-126, 127], built in the exponent field.
NDRT_VMATH_INLINE float pow2i(int32_t n) { return from_bits(uint32_t(n + 127) << 23); }

// e^r for |r| <= ln2/2 (Cephes expf polynomial).
NDRT_VMATH_INLINE float exp_reduced(float r) {
  float p = 1.9875691500e-4f;
  p = std::fma(p, r, 1.3981999507e-3f);
  p = std::fma(p, r, 8.3334519073e-3f);
  p = std::fma(p, r, 4.1665795894e-2f);
  p = std::fma(p, r, 1.6666665459e-1f);
  p = std::fma(p, r, 5.0000001201e-1f);
  return std::fma(p, r * r, r) + 1.0f;
}

// Cody-Waite split of ln 2: n * kLn2Hi is exact for the n that occur here.
constexpr float kLog2e = 1.44269504088896341f;
constexpr float kLn2Hi = 0.693359375f;
constexpr float kLn2Lo = -2.12194440e-4f;

// e^x * 2^k, exactly scaled (k in [-24, 24]): lets a caller keep an intermediate that would
// underflow (erfc's tail) in the normal range.
NDRT_VMATH_INLINE float exp_scaled(float x, int32_t k) {
  // Clamp so 2^n stays within two exponent-field scalings; results past the clamp are inf / 0.
  // (Selects, not fmin/fmax: those are libm calls that keep the loop scalar. NaN clamps to -104
  // so the int conversion below stays defined; the last line returns the NaN.)
  float xc = sel(x > -104.0f, x, -104.0f);
  xc = sel(xc < 89.0f, xc, 89.0f);
  float n = std::nearbyint(xc * kLog2e);
  float r = std::fma(n, -kLn2Hi, xc);
  r = std::fma(n, -kLn2Lo, r);
  int32_t ni = int32_t(n) + k;
  int32_t n1 = ni >> 1;  // two factors: 2^n may be subnormal (n < -126) or overflow to inf
  float y = exp_reduced(r) * pow2i(n1) * pow2i(ni - n1);
  return sel(x != x, x, y);
}

NDRT_VMATH_INLINE float exp(float x) { return exp_scaled(x, 0); }

// e^x - 1, accurate near 0 (no cancellation): e^x - 1 = 2^n (expm1(r) + 1) - 1.
NDRT_VMATH_INLINE float expm1(float x) {
  float xc = sel(x > -30.0f, x, -30.0f);
  xc = sel(xc < 89.0f, xc, 89.0f);
  float n = std::nearbyint(xc * kLog2e);
  float r = std::fma(n, -kLn2Hi, xc);
  r = std::fma(n, -kLn2Lo, r);
  // expm1(r) for |r| <= ln2/2: Taylor to degree 8 (truncation below 1e-9 relative).
  float p = 1.0f / 40320;
  p = std::fma(p, r, 1.0f / 5040);
  p = std::fma(p, r, 1.0f / 720);
  p = std::fma(p, r, 1.0f / 120);
  p = std::fma(p, r, 1.0f / 24);
  p = std::fma(p, r, 1.0f / 6);
  p = std::fma(p, r, 0.5f);
  float q = std::fma(p, r * r, r);
  int32_t ni = int32_t(n);
  // Small n: 2^n - 1 is exact, one fma. Large n: the -1 no longer matters; scale in two steps
  // (for n = 128 the small form computes with t = inf and is discarded by the blend).
  float t = pow2i(ni);
  float small = std::fma(t, q, t - 1.0f);
  int32_t n1 = ni >> 1;
  float large = (q + 1.0f) * pow2i(n1) * pow2i(ni - n1);
  float y = sel(ni < 100, small, large);
  return sel(x != x, x, y);
}

// Natural log (Cephes logf): x = m 2^e with m in [sqrt(1/2), sqrt(2)), log(m) by a polynomial.
NDRT_VMATH_INLINE float log(float x) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  // Subnormals: scale into the normal range first.
  bool sub = x < 1.17549435e-38f;
  float xs = sel(sub, x * 8388608.0f, x);  // 2^23
  uint32_t u = to_bits(xs);
  int32_t e = int32_t((u >> 23) & 0xffu) - 126 - (sub ? 23 : 0);
  float m = from_bits((u & 0x007fffffu) | 0x3f000000u);  // [0.5, 1)
  bool lowm = m < 0.707106781186547524f;
  e = lowm ? e - 1 : e;
  m = sel(lowm, m + m - 1.0f, m - 1.0f);
  float z = m * m;
  float p = 7.0376836292e-2f;
  p = std::fma(p, m, -1.1514610310e-1f);
  p = std::fma(p, m, 1.1676998740e-1f);
  p = std::fma(p, m, -1.2420140846e-1f);
  p = std::fma(p, m, 1.4249322787e-1f);
  p = std::fma(p, m, -1.6668057665e-1f);
  p = std::fma(p, m, 2.0000714765e-1f);
  p = std::fma(p, m, -2.4999993993e-1f);
  p = std::fma(p, m, 3.3333331174e-1f);
  float fe = float(e);
  float y = p * m * z;
  y = std::fma(fe, kLn2Lo, y);
  y = std::fma(-0.5f, z, y);
  float r = m + y;
  r = std::fma(fe, kLn2Hi, r);
  r = sel(x == kInf, kInf, r);
  r = sel(x == 0.0f, -kInf, r);
  r = sel(x < 0.0f, std::numeric_limits<float>::quiet_NaN(), r);
  return sel(x != x, x, r);
}

// log(1 + x) without cancellation for small x (Goldberg: log(u) * x / (u - 1) with u = 1 + x).
NDRT_VMATH_INLINE float log1p(float x) {
  float u = 1.0f + x;
  float d = u - 1.0f;
  float y = sel(d == 0.0f, x, log(u) * (x / d));
  return sel(x == std::numeric_limits<float>::infinity(), x, y);
}

// tanh: odd polynomial below 0.625 (Cephes tanhf), 1 - 2 / (e^{2|x|} + 1) above.
NDRT_VMATH_INLINE float tanh(float x) {
  float a = std::fabs(x);
  float z = x * x;
  float p = -5.70498872745e-3f;
  p = std::fma(p, z, 2.06390887954e-2f);
  p = std::fma(p, z, -5.37397155531e-2f);
  p = std::fma(p, z, 1.33314422036e-1f);
  p = std::fma(p, z, -3.33332819422e-1f);
  float small = std::fma(p * z, x, x);
  float big = 1.0f - 2.0f / (exp(2.0f * a) + 1.0f);  // e^{2a} = inf gives exactly 1
  big = std::copysign(big, x);
  return sel(a < 0.625f, small, big);  // NaN takes the second branch and stays NaN
}

// 1 / (1 + e^-x), both tails accurate: e = e^-|x|, then 1/(1+e) or e/(1+e) (one division).
NDRT_VMATH_INLINE float sigmoid(float x) {
  float e = exp(-std::fabs(x));
  return sel(x >= 0.0f, 1.0f, e) / (1.0f + e);  // NaN: e is NaN, so is the quotient
}

// erfc(a) * 2^k for a >= 0 with a^2 = a2 + a2err given exactly: the Chebyshev fit of Numerical
// Recipes (erfcc, relative error < 1.2e-7 for every a >= 0), erfc(a) = t exp(P(t) - a^2),
// t = 1/(1 + a/2). The exponent is large in the tail (a^2 ~ 100 near the underflow), so its rounding
// errors (a^2 itself and P - a^2, recovered with TwoSum) are applied as a first-order factor.
NDRT_VMATH_INLINE float erfc_pos(float a, float a2, float a2err, int32_t k) {
  float t = 1.0f / std::fma(0.5f, a, 1.0f);
  float p = 0.17087277f;
  p = std::fma(p, t, -0.82215223f);
  p = std::fma(p, t, 1.48851587f);
  p = std::fma(p, t, -1.13520398f);
  p = std::fma(p, t, 0.27886807f);
  p = std::fma(p, t, -0.18628806f);
  p = std::fma(p, t, 0.09678418f);
  p = std::fma(p, t, 0.37409196f);
  p = std::fma(p, t, 1.00002368f);
  p = std::fma(p, t, -1.26551223f);
  float s = p - a2;  // TwoSum: s + serr = p - a2 exactly
  float bb = s - p;
  float serr = (p - (s - bb)) + (-a2 - bb);
  float r = t * exp_scaled(s, k) * (1.0f + (serr - a2err));
  return sel(a > 10.5f, 0.0f, r);  // past the underflow (also a = inf, where a2err is NaN); NaN stays
}

NDRT_VMATH_INLINE float erfc(float z) {
  float a = std::fabs(z);
  float a2 = a * a;
  float r = erfc_pos(a, a2, std::fma(a, a, -a2), 0);
  return sel(z < 0.0f, 2.0f - r, r);
}

// gelu(x) = x/2 erfc(-x/sqrt 2). (x/sqrt 2)^2 = x^2/2 is taken exactly from x (rounding x/sqrt 2
// first would cost ~100 ulp in the tail), and the tail erfc is kept 2^24 larger until it has been
// multiplied by x/2, so results near FLT_MIN do not lose bits to an intermediate underflow.
NDRT_VMATH_INLINE float gelu_erf(float x) {
  float x2 = x * x;
  float rs = erfc_pos(std::fabs(x) * 0.70710678118654752440f, 0.5f * x2, 0.5f * std::fma(x, x, -x2), 24);
  constexpr float kDown = 5.9604644775390625e-8f;  // 2^-24
  float neg = (0.5f * x * rs) * kDown;
  float pos = 0.5f * x * (2.0f - rs * kDown);
  return sel(x > 0.0f, pos, neg);
}

// erfc(-x / sqrt 2) = 2 Phi(x), the doubled normal cdf, with x^2/2 exact as in gelu_erf.
NDRT_VMATH_INLINE float erfc_gauss(float x) {
  float x2 = x * x;
  float r = erfc_pos(std::fabs(x) * 0.70710678118654752440f, 0.5f * x2, 0.5f * std::fma(x, x, -x2), 0);
  return sel(x > 0.0f, 2.0f - r, r);
}

#if defined(__AVX2__) && defined(__FMA__)
// ---- 8-wide fast paths for dense f32 blocks ------------------------------------------------------
// The scalar forms above spend most of their work on the edges of the range (clamps, two-factor
// scaling for subnormal / overflowing results, NaN blends). Inside |x| < 86.5 none of that is needed:
// e^x = p(r) 2^n is a normal float, and 2^n goes straight into p's exponent field. A vector with a
// lane outside that range (or NaN) takes the scalar forms for its 8 lanes, so results and special
// values are those of exp() / sigmoid() above (the same reduction and polynomial; n may differ by
// one at exact halves of x log2(e), where either n is accurate).
constexpr float kFastExpLimit = 86.5f;

// e^x for |x| < kFastExpLimit.
inline __m256 exp8_inrange(__m256 x) {
  const __m256 shift = _mm256_set1_ps(12582912.0f);  // 1.5 * 2^23: t's low mantissa bits hold n
  const __m256 t = _mm256_fmadd_ps(x, _mm256_set1_ps(kLog2e), shift);
  const __m256 n = _mm256_sub_ps(t, shift);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(kLn2Hi), x);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(kLn2Lo), r);
  __m256 p = _mm256_fmadd_ps(_mm256_set1_ps(1.9875691500e-4f), r, _mm256_set1_ps(1.3981999507e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
  p = _mm256_add_ps(_mm256_fmadd_ps(p, _mm256_mul_ps(r, r), r), _mm256_set1_ps(1.0f));
  // bits(t) << 23 == n << 23 (the 1.5 * 2^23 offset shifts out): add n to p's exponent.
  const __m256i e = _mm256_slli_epi32(_mm256_castps_si256(t), 23);
  return _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(p), e));
}

// Lanes of x outside the fast range (|x| >= kFastExpLimit or NaN) as a movemask.
inline int out_of_fast_range(__m256 ax) {
  return _mm256_movemask_ps(_mm256_cmp_ps(ax, _mm256_set1_ps(kFastExpLimit), _CMP_NLT_UQ));
}

inline __m256 abs8(__m256 x) { return _mm256_and_ps(x, _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff))); }

// exp() / sigmoid() of 8 lanes, out of line: the rare vectors with a lane out of the fast range.
__attribute__((noinline)) inline __m256 exp8_edge(__m256 x) {
  alignas(32) float t[8];
  _mm256_store_ps(t, x);
  for (int l = 0; l < 8; ++l) t[l] = exp(t[l]);
  return _mm256_load_ps(t);
}
__attribute__((noinline)) inline __m256 sigmoid8_edge(__m256 x) {
  alignas(32) float t[8];
  _mm256_store_ps(t, x);
  for (int l = 0; l < 8; ++l) t[l] = sigmoid(t[l]);
  return _mm256_load_ps(t);
}

// y[i] = e^x[i]. y may be x (in place): each vector is read before it is written.
inline void exp_block(float* y, const float* x, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    __m256 r = exp8_inrange(v);
    if (__builtin_expect(out_of_fast_range(abs8(v)) != 0, 0)) r = exp8_edge(v);
    _mm256_storeu_ps(y + i, r);
  }
  for (; i < n; ++i) y[i] = exp(x[i]);
}

// y[i] = 1 / (1 + e^-x[i]) as in sigmoid(): e = e^-|x|, then 1/(1+e) or e/(1+e). vdivps is
// correctly rounded and, on the cores measured, faster than rcp + two Newton steps.
inline void sigmoid_block(float* y, const float* x, int64_t n) {
  const __m256 one = _mm256_set1_ps(1.0f), sign = _mm256_set1_ps(-0.0f);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    const __m256 a = abs8(v);
    const __m256 e = exp8_inrange(_mm256_or_ps(a, sign));
    const __m256 num = _mm256_blendv_ps(e, one, _mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_GE_OQ));
    __m256 r = _mm256_div_ps(num, _mm256_add_ps(one, e));
    if (__builtin_expect(out_of_fast_range(a) != 0, 0)) r = sigmoid8_edge(v);
    _mm256_storeu_ps(y + i, r);
  }
  for (; i < n; ++i) y[i] = sigmoid(x[i]);
}

__attribute__((noinline)) inline __m256 tanh8_edge(__m256 x) {
  alignas(32) float t[8];
  _mm256_store_ps(t, x);
  for (int l = 0; l < 8; ++l) t[l] = tanh(t[l]);
  return _mm256_load_ps(t);
}

// y[i] = tanh(x[i]) as in tanh(): the odd polynomial below 0.625, 1 - 2 / (e^{2|x|} + 1) above.
inline void tanh_block(float* y, const float* x, int64_t n) {
  const __m256 one = _mm256_set1_ps(1.0f), two = _mm256_set1_ps(2.0f), sign = _mm256_set1_ps(-0.0f);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    const __m256 a = abs8(v), z = _mm256_mul_ps(v, v), a2 = _mm256_add_ps(a, a);
    __m256 p = _mm256_fmadd_ps(_mm256_set1_ps(-5.70498872745e-3f), z, _mm256_set1_ps(2.06390887954e-2f));
    p = _mm256_fmadd_ps(p, z, _mm256_set1_ps(-5.37397155531e-2f));
    p = _mm256_fmadd_ps(p, z, _mm256_set1_ps(1.33314422036e-1f));
    p = _mm256_fmadd_ps(p, z, _mm256_set1_ps(-3.33332819422e-1f));
    const __m256 small = _mm256_fmadd_ps(_mm256_mul_ps(p, z), v, v);
    const __m256 e = exp8_inrange(a2);
    __m256 big = _mm256_sub_ps(one, _mm256_div_ps(two, _mm256_add_ps(e, one)));
    big = _mm256_or_ps(big, _mm256_and_ps(v, sign));  // big >= 0: copysign is an or
    __m256 r = _mm256_blendv_ps(big, small, _mm256_cmp_ps(a, _mm256_set1_ps(0.625f), _CMP_LT_OQ));
    if (__builtin_expect(out_of_fast_range(a2) != 0, 0)) r = tanh8_edge(v);
    _mm256_storeu_ps(y + i, r);
  }
  for (; i < n; ++i) y[i] = tanh(x[i]);
}
#endif

}  // namespace ndrt::vmath
