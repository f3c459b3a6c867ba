// conv2d_bias_max_pool2x2 and max_pool2x2_bp_index on cpu. The fused forward saves the memory
// traffic of the convolution's output (LeNet's conv 1: 2.9 MB per batch of 64, written by the
// convolution, read by the pooling and again by its backward): ndrt's direct kernel pools in
// registers (conv_direct.cpp) and stores only the pooled values and a byte per window, the
// element its gradient goes to; the backward reads that byte instead of the pooled input. Where
// the direct kernel does not apply, the convolution (own_conv_fwd) runs into a work buffer first.
// The window rules are pool_2x2.hpp's, so the results are exactly the separate ops'.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <type_traits>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "conv_util.hpp"
#include "kernels.hpp"
#include "pool_2x2.hpp"

namespace ndrt {

namespace {

// y and win from the convolution's output z (dense NCHW, even height and width).
void pool_with_winners(const Conv2dGeom& g, const float* z, float* y, uint8_t* win) {
  const int64_t OW = g.ow, PH = g.oh / 2, PW = g.ow / 2, plane = g.oh * g.ow, pooled = PH * PW;
  parallel_for(g.n * g.k, std::max<int64_t>(1, 32768 / std::max<int64_t>(plane, 1)), [&](int64_t b, int64_t e) {
    for (int64_t pl = b; pl < e; ++pl)
      for (int64_t p = 0; p < PH; ++p)
        for (int64_t q = 0; q < PW; ++q) {
          const float* t = z + pl * plane + 2 * p * OW + 2 * q;
          const int64_t at = pl * pooled + p * PW + q;
          y[at] = window_max(t[0], t[1], t[OW], t[OW + 1]);
          win[at] = uint8_t(winner_position(window_winner(t[0], t[1], t[OW], t[OW + 1])));
        }
  });
}

void conv_pool_kernel(OpContext& c) {
  Conv2dGeom g = conv_pool2x2_geom(c);
  g.device = c.device;
  const Tensor &y = *c.out[0], &win = *c.out[1];
  const bool direct = direct_conv_pool_applies(g);
  c.impl = direct ? "ndrt:direct+pool" : "ndrt:conv+pool";
  if (y.numel() == 0) return;
  Tensor x = conv_dense(*c.in[0]), w = conv_dense(*c.in[1]), b = conv_dense(*c.in[2]);
  ConvOut yo(y, NDRT_F32), wo(win, NDRT_U8);
  if (direct) {
    direct_conv_pool_fwd(g, x.data<float>(), w.data<float>(), b.data<float>(), yo.data<float>(), wo.data<uint8_t>());
  } else {
    Tensor z = scratch<float>(g, g.n * g.k * g.oh * g.ow);
    own_conv_fwd<float>(g, x.data<float>(), w.data<float>(), b.data<float>(), z.data<float>());
    pool_with_winners(g, z.data<float>(), yo.data<float>(), wo.data<uint8_t>());
  }
  yo.finish();
  wo.finish();
}

// dx rows top and bot (2p and 2p + 1 of a plane) from pooled row p's PW winners and dy values.
// Returns false if a winner is not 0..3.
template <class T>
bool unpool_row(const uint8_t* win, const T* dy, T* top, T* bot, int64_t PW) {
  int64_t q = 0;
  uint8_t bad = 0;
#if defined(__AVX2__)
  if constexpr (std::is_same_v<T, float>) {
    // 4 windows per step: each winner and gradient twice (the window's two columns), compared
    // with the column's position in the top row (0 1) and the bottom row (2 3).
    const __m256i dup = _mm256_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3);
    const __m256i top_pos = _mm256_setr_epi32(0, 1, 0, 1, 0, 1, 0, 1), bot_pos = _mm256_add_epi32(top_pos, _mm256_set1_epi32(2));
    const __m256i limit = _mm256_set1_epi32(3);
    __m256i over = _mm256_setzero_si256();
    for (; q + 4 <= PW; q += 4) {
      int32_t four;
      std::memcpy(&four, win + q, 4);
      const __m256i w8 = _mm256_permutevar8x32_epi32(_mm256_cvtepu8_epi32(_mm_cvtsi32_si128(four)), dup);
      const __m256 g8 = _mm256_permutevar8x32_ps(_mm256_castps128_ps256(_mm_add_ps(_mm_loadu_ps(dy + q), _mm_setzero_ps())), dup);
      over = _mm256_or_si256(over, _mm256_cmpgt_epi32(w8, limit));
      _mm256_storeu_ps(top + 2 * q, _mm256_and_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(w8, top_pos)), g8));
      _mm256_storeu_ps(bot + 2 * q, _mm256_and_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(w8, bot_pos)), g8));
    }
    bad = uint8_t(!_mm256_testz_si256(over, over));
  }
#endif
  for (; q < PW; ++q) {
    const int k = win[q];
    const T gv = T(0) + dy[q];
    bad |= uint8_t(k > 3);
    top[2 * q] = k == 0 ? gv : T(0);
    top[2 * q + 1] = k == 1 ? gv : T(0);
    bot[2 * q] = k == 2 ? gv : T(0);
    bot[2 * q + 1] = k == 3 ? gv : T(0);
  }
  return !bad;
}

template <class T>
void bp_index_kernel(OpContext& c) {
  const Tensor& dx = *c.out[0];
  if (dx.numel() == 0) return;
  Tensor dy = conv_dense(*c.in[0]), win = conv_dense(*c.in[1]);
  const int64_t planes = dy.shape.d[0] * dy.shape.d[1], PH = dy.shape.d[2], PW = dy.shape.d[3];
  ConvOut o(dx, dtype_of<T>());
  const uint8_t* wp = win.data<uint8_t>();
  const T* dp = dy.data<T>();
  T* xp = o.data<T>();
  std::atomic<bool> ok{true};
  parallel_for(planes * PH, std::max<int64_t>(1, 8192 / std::max<int64_t>(PW, 1)), [&](int64_t b, int64_t e) {
    bool good = true;
    for (int64_t r = b; r < e; ++r) {
      T* top = xp + 2 * r * 2 * PW;  // pooled row r of all planes: dx rows 2r, 2r + 1 (planes follow each other)
      good &= unpool_row<T>(wp + r * PW, dp + r * PW, top, top + 2 * PW, PW);
    }
    if (!good) ok.store(false, std::memory_order_relaxed);
  });
  if (!ok.load())
    fail(NDRT_ERR_INVALID_ARGUMENT, "%s: index holds a value above 3 (a window has 4 elements, 0..3)", c.op->name);
  o.finish();
}

}  // namespace

void register_cpu_conv_pool_fused(Registry& r) {
  r.kernel("conv2d_bias_max_pool2x2", kCpu, {NDRT_F32}, conv_pool_kernel, "ndrt:direct+pool");
  r.kernel("max_pool2x2_bp_index", kCpu, {NDRT_F32}, bp_index_kernel<float>, "ndrt:pool_2x2");
  r.kernel("max_pool2x2_bp_index", kCpu, {NDRT_F64}, bp_index_kernel<double>, "ndrt:pool_2x2");
}

}  // namespace ndrt
