// Max pooling over 2x2 windows: the rules every kernel of it shares bit for bit (conv_pool_2x2.cpp,
// and conv_direct.cpp's convolution fused with the pooling). A window is a b (top row) / c d
// (bottom row). The forward's value is window_max (the last NaN, else the first maximum); the
// backward's winner, the element its gradient goes to, is the first NaN, else the first maximum.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "conv_util.hpp"

namespace ndrt {

// Whether v replaces acc as the backward's winner: greater, or the first NaN.
template <class A>
inline bool takes(A v, A acc) {
  return !(v <= acc) & (acc == acc);
}

// One window's forward value.
template <class A>
inline A window_max(A a, A b, A c, A d) {
  return pool_pick(pool_pick(a, b), pool_pick(c, d));
}

// c ? x : y on the bits (A is float or double): GCC turns these selects into branches otherwise,
// which random data mispredicts half the time.
template <class A>
inline A select(bool c, A x, A y) {
  using U = std::conditional_t<sizeof(A) == 4, uint32_t, uint64_t>;
  U ux, uy;
  std::memcpy(&ux, &x, sizeof ux);
  std::memcpy(&uy, &y, sizeof uy);
  const U m = U(0) - U(c);
  ux = (ux & m) | (uy & ~m);
  std::memcpy(&x, &ux, sizeof ux);
  return x;
}

// The backward's winner as three choices: b over a (top row), d over c (bottom row), and the
// bottom row's over the top row's.
struct Winner {
  bool right_top, right_bottom, down;
};
template <class A>
inline Winner window_winner(A a, A b, A c, A d) {
  const bool tb = takes(b, a), td = takes(d, c);
  return {tb, td, takes(select(td, d, c), select(tb, b, a))};
}
// The same as the winner's row-major position: 0 a, 1 b, 2 c, 3 d.
inline int winner_position(Winner w) { return w.down ? 2 + int(w.right_bottom) : int(w.right_top); }

#if defined(__x86_64__)
// pool_pick() on 8 lanes. max_ps(v, acc) is v > acc ? v : acc (ties keep acc); a NaN v wins.
__attribute__((target("avx2"))) inline __m256 pick8(__m256 acc, __m256 v) {
  return _mm256_blendv_ps(_mm256_max_ps(v, acc), v, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
}
// takes() on 8 lanes, as a mask.
__attribute__((target("avx2"))) inline __m256 takes8(__m256 v, __m256 acc) {
  return _mm256_and_ps(_mm256_cmp_ps(v, acc, _CMP_NLE_UQ), _mm256_cmp_ps(acc, acc, _CMP_ORD_Q));
}
// window_winner() on 8 windows (a b top row, c d bottom row), as masks.
struct Winner8 {
  __m256 right_top, right_bottom, down;
};
__attribute__((target("avx2"))) inline Winner8 window_winner8(__m256 a, __m256 b, __m256 c, __m256 d) {
  const __m256 tb = takes8(b, a), td = takes8(d, c);
  return {tb, td, takes8(_mm256_blendv_ps(c, d, td), _mm256_blendv_ps(a, b, tb))};
}
// [0 1 2 3 | 4 5 6 7] <-> [0 1 4 5 | 2 3 6 7]: the window order of the even/odd column shuffles.
__attribute__((target("avx2"))) inline __m256 swap_mid(__m256 v) {
  return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(v), 0xD8));
}
#endif

}  // namespace ndrt
