// ndrt's direct f32 convolution, forward and weight gradient, for NCHW images with an output width
// that is a multiple of 8 (stride 1, no dilation, no padding, one group) on CPUs with AVX-512: no
// column matrix, image rows are read where they lie, 8 output columns per vector.
//  - Forward: a register tile holds 5 output channels x 4 runs of 8 output pixels (20
//    accumulators; AVX-512's 32 vector registers are what make it fit, with AVX2's 16 it spills
//    and is no faster than oneDNN). Each step loads 4 image runs and broadcasts 5 weights for 20
//    FMAs, so the FMA units, not the loads, set the pace.
//  - Weight gradient: for one input channel and kernel row, a tile holds 5 output channels x 5
//    kernel columns (25 accumulators of 8 lanes) and runs over the whole batch: per run of 8
//    output pixels it loads the 5 channels' dy and 5 shifted image runs for 25 FMAs; the lanes are
//    added at the end.
// On LeNet's convolutions (Zen 4 core, OpenBLAS sgemm 95-102 GFLOP/s; each against oneDNN 2.6.3's
// best NCHW plan, interleaved in one process; the host drifts): conv 2 forward 74-105 GFLOP/s,
// 1.2-1.6x; conv 1 forward 1.8x; weight gradients: conv 2 1.1x, conv 1 (one input channel) 1.7-1.9x.
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
  int64_t at[kTileRuns], out[kTileRuns], ch[kTileChannels];  // a run's first image / output element
  for (int r = 0; r < kTileRuns; ++r) {
    const int64_t q = std::min(q0 + r, last_run), row = q / runs_per_row, col = (q % runs_per_row) * kRun;
    at[r] = row * W + col;
    out[r] = row * g.ow + col;
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
    for (int r = 0; r < kTileRuns; ++r) _mm256_storeu_ps(y + ch[o] * P + out[r], acc[o][r]);
}

// Sum of the 8 lanes.
__attribute__((target("avx2,fma,avx512f,avx512vl"))) inline float lane_sum(__m256 v) {
  __m128 a = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  a = _mm_add_ps(a, _mm_movehl_ps(a, a));
  a = _mm_add_ss(a, _mm_movehdup_ps(a));
  return _mm_cvtss_f32(a);
}

constexpr int kGradChannels = 5, kGradColumns = 5;

// dw[o][c][i][j] for output channels o0.. and kernel columns j0.. (clamped like tile()'s).
__attribute__((target("avx2,fma,avx512f,avx512vl"))) void grad_tile(const Conv2dGeom& g, const float* x,
                                                                      const float* dy, float* dw, int64_t c,
                                                                      int64_t i, int64_t o0, int64_t j0) {
  const int64_t C = g.c, H = g.h, W = g.w, OH = g.oh, OW = g.ow, P = OH * OW;
  int64_t ch[kGradChannels], col[kGradColumns];
  for (int o = 0; o < kGradChannels; ++o) ch[o] = std::min(o0 + o, g.k - 1);
  for (int j = 0; j < kGradColumns; ++j) col[j] = std::min(j0 + j, g.kw - 1);
  __m256 acc[kGradChannels][kGradColumns];
#pragma GCC unroll 5
  for (int o = 0; o < kGradChannels; ++o)
#pragma GCC unroll 5
    for (int j = 0; j < kGradColumns; ++j) acc[o][j] = _mm256_setzero_ps();
  // One loop over the runs of 8 outputs (dy's are contiguous; the image's skip W - OW at each row
  // end): with LeNet's OW = 8 a loop per row would run once per 25 FMAs.
  const int64_t runs = OH * OW / kRun, runs_per_row = OW / kRun;
  for (int64_t n = 0; n < g.n; ++n) {
    const float* xp = x + ((n * C + c) * H + i) * W;
    const float* dp = dy + n * g.k * P;
    for (int64_t q = 0, in_row = 0; q < runs; ++q, dp += kRun) {
      __m256 d[kGradChannels];
#pragma GCC unroll 5
      for (int o = 0; o < kGradChannels; ++o) d[o] = _mm256_loadu_ps(dp + ch[o] * P);
#pragma GCC unroll 5
      for (int j = 0; j < kGradColumns; ++j) {
        const __m256 xv = _mm256_loadu_ps(xp + col[j]);
#pragma GCC unroll 5
        for (int o = 0; o < kGradChannels; ++o) acc[o][j] = _mm256_fmadd_ps(d[o], xv, acc[o][j]);
      }
      xp += kRun;
      if (++in_row == runs_per_row) in_row = 0, xp += W - OW;
    }
  }
#pragma GCC unroll 5
  for (int o = 0; o < kGradChannels; ++o)
#pragma GCC unroll 5
    for (int j = 0; j < kGradColumns; ++j) dw[((ch[o] * C + c) * g.kh + i) * g.kw + col[j]] = lane_sum(acc[o][j]);
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

void direct_conv_bp_weights(const Conv2dGeom& g, const float* x, const float* dy, float* dw) {
#if defined(__x86_64__)
  const int64_t otiles = (g.k + kGradChannels - 1) / kGradChannels, jtiles = (g.kw + kGradColumns - 1) / kGradColumns;
  const int64_t per_row = otiles * jtiles;  // tiles per (input channel, kernel row)
  // A tile is 25 FMAs of 8 lanes per run of 8 outputs over the batch (LeNet's conv 2: 1.6 MFLOP).
  parallel_for(g.c * g.kh * per_row, 1, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const int64_t ci = t / per_row, r = t % per_row;
      grad_tile(g, x, dy, dw, ci / g.kh, ci % g.kh, (r / jtiles) * kGradChannels, (r % jtiles) * kGradColumns);
    }
  });
#else
  (void)g, (void)x, (void)dy, (void)dw;
  fail(NDRT_ERR_INTERNAL, "conv2d_bp_weights: the direct kernel needs x86-64");
#endif
}

}  // namespace ndrt
