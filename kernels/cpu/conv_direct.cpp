// ndrt's direct f32 convolution, forward, data and weight gradients, for NCHW images with an output
// width that is a multiple of 8 (stride 1, no dilation, no padding, one group) on CPUs with
// AVX-512: no column matrix, image rows are read where they lie, 8 output columns per vector.
//  - Forward: a register tile holds 5 output channels x 4 runs of 8 output pixels (20
//    accumulators; AVX-512's 32 vector registers are what make it fit, with AVX2's 16 it spills
//    and is no faster than oneDNN). Each step loads 4 image runs and broadcasts 5 weights for 20
//    FMAs, so the FMA units, not the loads, set the pace.
//  - Data gradient: scattered from dy rather than gathered into dx (a gather pads dy with zero
//    rows: half of LeNet's conv 2 work would be on zeros). For one input channel and kernel row,
//    a tile holds 4 dy rows x 5 kernel columns (20 accumulators) summed over the output channels
//    (4 dy loads + 5 weight broadcasts per 20 FMAs, as the forward); each row's 5 column sums are
//    shifted into place in one 16-lane vector and added into dx once.
//  - Weight gradient: for one input channel and kernel row, a tile holds 5 output channels x 5
//    kernel columns (25 accumulators of 8 lanes): per run of 8 output pixels it loads the 5
//    channels' dy and 5 shifted image runs for 25 FMAs; the lanes are added at the end. The batch
//    runs in chunks that fit L1, all tiles of one (channel block, input channel) per chunk, the
//    running sums parked between chunks (the sums' order is that of one pass over the batch).
//  - Forward fused with 2x2 max pooling at stride 2 (conv2d_bias_max_pool2x2): the forward's tile
//    turned to 5 channels x 4 output rows x 8 columns, pooled in registers; only the pooled values
//    and each window's winner are stored.
// On LeNet's convolutions (Zen 4 core, OpenBLAS sgemm 95-102 GFLOP/s; each against oneDNN 2.6.3's
// best NCHW plan, interleaved in one process; the host drifts): conv 2 forward 74-105 GFLOP/s,
// 1.2-1.6x; conv 1 forward 1.8x; data gradient conv 2 78-95 GFLOP/s, 1.2-1.5x; weight gradients
// conv 2 1.2-1.35x, conv 1 (one input channel) 1.7-2.3x. In a training step (other layers' data in
// the caches) conv 2's three passes ran at 88-97 GFLOP/s.
// Every output is computed by one tile (or one part) in a fixed order, so results do not depend on
// threads.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "conv_util.hpp"
#include "cores.hpp"
#include "pool_2x2.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace ndrt {

namespace {

constexpr int kTileChannels = 5, kTileRuns = 4, kRun = 8;

#if defined(__x86_64__)
#define NDRT_DIRECT_TARGET __attribute__((target("avx2,fma,avx512f,avx512vl")))

// The sums of one tile: acc[o][r] = bias[ch[o]] + the convolution of output channel ch[o] at the 8
// output pixels whose windows start at image offset at[r] (of one image x). Inlined into each
// caller, so the accumulators stay in registers.
NDRT_DIRECT_TARGET __attribute__((always_inline)) inline void tile_sums(const Conv2dGeom& g, const float* x,
                                                                         const float* w, const float* bias,
                                                                         const int64_t ch[kTileChannels],
                                                                         const int64_t at[kTileRuns],
                                                                         __m256 acc[kTileChannels][kTileRuns]) {
  const int64_t C = g.c, H = g.h, W = g.w, KH = g.kh, KW = g.kw, wstride = C * KH * KW;
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
}

// Output channels o0.. from 5 (a tile past the last channel redoes the last one: the same values
// written twice, instead of a narrower kernel).
inline void tile_channels(const Conv2dGeom& g, int64_t o0, int64_t ch[kTileChannels]) {
  for (int o = 0; o < kTileChannels; ++o) ch[o] = std::min(o0 + o, g.k - 1);
}

// One tile: output channels o0.. and output runs q0.. (run q = row q / runs_per_row, columns
// 8 * (q % runs_per_row) ..). A tile past the last run redoes the last one.
NDRT_DIRECT_TARGET void tile(const Conv2dGeom& g, const float* x, const float* w, const float* bias, float* y,
                             int64_t o0, int64_t q0) {
  const int64_t runs_per_row = g.ow / kRun, P = g.oh * g.ow, last_run = g.oh * runs_per_row - 1;
  int64_t at[kTileRuns], out[kTileRuns], ch[kTileChannels];  // a run's first image / output element
  for (int r = 0; r < kTileRuns; ++r) {
    const int64_t q = std::min(q0 + r, last_run), row = q / runs_per_row, col = (q % runs_per_row) * kRun;
    at[r] = row * g.w + col;
    out[r] = row * g.ow + col;
  }
  tile_channels(g, o0, ch);
  __m256 acc[kTileChannels][kTileRuns];
  tile_sums(g, x, w, bias, ch, at, acc);
#pragma GCC unroll 5
  for (int o = 0; o < kTileChannels; ++o)
#pragma GCC unroll 4
    for (int r = 0; r < kTileRuns; ++r) _mm256_storeu_ps(y + ch[o] * P + out[r], acc[o][r]);
}

// The convolution fused with 2x2 max pooling at stride 2: one tile is 5 output channels x output
// rows 2p..2p+3 (pooled rows p, p + 1; the last pair repeated when the pooled rows are odd) x 8
// columns from col, pooled in registers into 4 columns of both pooled rows, with each window's
// winner (pool_2x2.hpp). The convolution's output itself is never stored.
NDRT_DIRECT_TARGET void pool_tile(const Conv2dGeom& g, const float* x, const float* w, const float* bias, float* y,
                                  uint8_t* win, int64_t o0, int64_t p, int64_t col) {
  const int64_t PH = g.oh / 2, PW = g.ow / 2, pooled = PH * PW;
  const int64_t p1 = std::min(p + 1, PH - 1);
  const int64_t at[kTileRuns] = {2 * p * g.w + col, (2 * p + 1) * g.w + col, 2 * p1 * g.w + col,
                                 (2 * p1 + 1) * g.w + col};
  int64_t ch[kTileChannels];
  tile_channels(g, o0, ch);
  __m256 acc[kTileChannels][kTileRuns];
  tile_sums(g, x, w, bias, ch, at, acc);
  const __m256i two = _mm256_set1_epi32(2), one = _mm256_set1_epi32(1);
#pragma GCC unroll 5  // every loop over acc unrolled, or GCC keeps it in memory
  for (int o = 0; o < kTileChannels; ++o) {
    // Lanes: windows [p:0 1, p1:0 1 | p:2 3, p1:2 3]; a b from rows 2p / 2p1, c d from the row below.
    const __m256 a = _mm256_shuffle_ps(acc[o][0], acc[o][2], 0x88), b = _mm256_shuffle_ps(acc[o][0], acc[o][2], 0xDD);
    const __m256 c = _mm256_shuffle_ps(acc[o][1], acc[o][3], 0x88), d = _mm256_shuffle_ps(acc[o][1], acc[o][3], 0xDD);
    const __m256 m = swap_mid(pick8(pick8(a, b), pick8(c, d)));  // [p: 0 1 2 3 | p1: 0 1 2 3]
    const Winner8 wn = window_winner8(a, b, c, d);  // its position: down ? 2 + right_bottom : right_top
    const __m256i side = _mm256_castps_si256(_mm256_blendv_ps(wn.right_top, wn.right_bottom, wn.down));
    const __m256i idx = _mm256_or_si256(_mm256_and_si256(_mm256_castps_si256(wn.down), two), _mm256_and_si256(side, one));
    // 8 bytes in m's order (the zero-masking form: see add_shifted on GCC 12's unmasked ones).
    const __m128i bytes = _mm256_maskz_cvtepi32_epi8(__mmask8(0xFF), _mm256_permute4x64_epi64(idx, 0xD8));
    float* yo = y + ch[o] * pooled + col / 2;
    uint8_t* wo = win + ch[o] * pooled + col / 2;
    _mm_storeu_ps(yo + p * PW, _mm256_castps256_ps128(m));
    _mm_storeu_ps(yo + p1 * PW, _mm256_extractf128_ps(m, 1));
    const uint32_t lo = uint32_t(_mm_cvtsi128_si32(bytes)), hi = uint32_t(_mm_extract_epi32(bytes, 1));
    std::memcpy(wo + p * PW, &lo, 4);
    std::memcpy(wo + p1 * PW, &hi, 4);
  }
}

// Sum of the 8 lanes.
__attribute__((target("avx2,fma,avx512f,avx512vl"))) inline float lane_sum(__m256 v) {
  __m128 a = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  a = _mm_add_ps(a, _mm_movehl_ps(a, a));
  a = _mm_add_ss(a, _mm_movehdup_ps(a));
  return _mm_cvtss_f32(a);
}

constexpr int kGradChannels = 5, kGradColumns = 5;

// dw[o][c][i][j] for output channels o0.. and kernel columns j0.. (clamped like tile()'s), over
// images n0..n1 of the batch. The 8-lane sums carry from one range of images to the next in part
// (25 x 8 floats), so the sums are added in the same order as in one pass over the batch; the
// last range writes dw.
__attribute__((target("avx2,fma,avx512f,avx512vl"))) void grad_tile(const Conv2dGeom& g, const float* x,
                                                                      const float* dy, float* dw, float* part,
                                                                      int64_t c, int64_t i, int64_t o0,
                                                                      int64_t j0, int64_t n0, int64_t n1) {
  const int64_t C = g.c, H = g.h, W = g.w, OH = g.oh, OW = g.ow, P = OH * OW;
  int64_t ch[kGradChannels], col[kGradColumns];
  for (int o = 0; o < kGradChannels; ++o) ch[o] = std::min(o0 + o, g.k - 1);
  for (int j = 0; j < kGradColumns; ++j) col[j] = std::min(j0 + j, g.kw - 1);
  __m256 acc[kGradChannels][kGradColumns];
#pragma GCC unroll 5
  for (int o = 0; o < kGradChannels; ++o)
#pragma GCC unroll 5
    for (int j = 0; j < kGradColumns; ++j)
      acc[o][j] = n0 == 0 ? _mm256_setzero_ps() : _mm256_loadu_ps(part + (o * kGradColumns + j) * kRun);
  // One loop over the runs of 8 outputs (dy's are contiguous; the image's skip W - OW at each row
  // end): with LeNet's OW = 8 a loop per row would run once per 25 FMAs.
  const int64_t runs = OH * OW / kRun, runs_per_row = OW / kRun;
  for (int64_t n = n0; n < n1; ++n) {
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
  if (n1 < g.n) {
#pragma GCC unroll 5
    for (int o = 0; o < kGradChannels; ++o)
#pragma GCC unroll 5
      for (int j = 0; j < kGradColumns; ++j) _mm256_storeu_ps(part + (o * kGradColumns + j) * kRun, acc[o][j]);
    return;
  }
#pragma GCC unroll 5
  for (int o = 0; o < kGradChannels; ++o)
#pragma GCC unroll 5
    for (int j = 0; j < kGradColumns; ++j) dw[((ch[o] * C + c) * g.kh + i) * g.kw + col[j]] = lane_sum(acc[o][j]);
}

constexpr int kDataRows = 4, kDataColumns = 5;

// The kernel columns' 5 vectors of one row, column j moved up j lanes, added into the masked
// lanes at out (a run of 8 dy columns touches 12 dx columns). alignr(v, 0, 16 - j) is v moved up
// j lanes with zeros below. The masked forms with an explicit zero source are used because GCC 12's
// unmasked _mm512_zextps256_ps512 / _mm512_alignr_epi32 pass _mm512_undefined_*() to the builtin,
// which -Wmaybe-uninitialized reports in sanitizer builds (GCC bug 105593).
__attribute__((target("avx2,fma,avx512f,avx512vl"))) inline void add_shifted(const __m256 (&a)[kDataColumns],
                                                                               float* out, __mmask16 m) {
  static_assert(kDataColumns == 5, "add_shifted adds exactly 5 columns");
  const __m512d zd = _mm512_setzero_pd();
  const __m512i zero = _mm512_setzero_si512();
  __m512i v[kDataColumns];
#pragma GCC unroll 5
  for (int j = 0; j < kDataColumns; ++j)
    v[j] = _mm512_castpd_si512(_mm512_mask_insertf64x4(zd, 0xFF, zd, _mm256_castps_pd(a[j]), 0));
  __m512 s = _mm512_add_ps(_mm512_maskz_loadu_ps(m, out), _mm512_castsi512_ps(v[0]));
  s = _mm512_add_ps(s, _mm512_castsi512_ps(_mm512_mask_alignr_epi32(zero, 0xFFFF, v[1], zero, 15)));
  s = _mm512_add_ps(s, _mm512_castsi512_ps(_mm512_mask_alignr_epi32(zero, 0xFFFF, v[2], zero, 14)));
  s = _mm512_add_ps(s, _mm512_castsi512_ps(_mm512_mask_alignr_epi32(zero, 0xFFFF, v[3], zero, 13)));
  s = _mm512_add_ps(s, _mm512_castsi512_ps(_mm512_mask_alignr_epi32(zero, 0xFFFF, v[4], zero, 12)));
  _mm512_mask_storeu_ps(out, m, s);
}

// Data gradient, scattered from dy (so no work lands on the zero border a gathering kernel would
// pad dy with): for R dy rows r0.. of one 8-column run (columns q0..) and one kernel row kh,
// acc[r][j] = sum over output channels of dy row * w[o][c][kh][j0 + j], then dx row r0 + r + kh
// gets the 5 columns' vectors added at their shifts. wt holds w[o][c][kh][j0..j0+4] for every o,
// 5 floats per o, zero past the kernel's last column (packed by direct_conv_bp_data).
template <int R>
__attribute__((target("avx2,fma,avx512f,avx512vl"))) void data_tile(const Conv2dGeom& g, const float* dy,
                                                                      const float* wt, float* dx, int64_t r0,
                                                                      int64_t q0, int64_t kh, int64_t j0) {
  const int64_t P = g.oh * g.ow, OW = g.ow;
  __m256 acc[R][kDataColumns];
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 5
    for (int j = 0; j < kDataColumns; ++j) acc[r][j] = _mm256_setzero_ps();
  const float* d = dy + r0 * OW + q0;
  for (int64_t o = 0; o < g.k; ++o, d += P, wt += kDataColumns) {
    __m256 v[R];
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) v[r] = _mm256_loadu_ps(d + r * OW);
#pragma GCC unroll 5
    for (int j = 0; j < kDataColumns; ++j) {
      const __m256 wv = _mm256_broadcast_ss(wt + j);
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) acc[r][j] = _mm256_fmadd_ps(v[r], wv, acc[r][j]);
    }
  }
  const int64_t width = kRun + std::min<int64_t>(kDataColumns, g.kw - j0) - 1;  // dx columns touched
  const __mmask16 m = __mmask16((1u << width) - 1);
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) add_shifted(acc[r], dx + (r0 + r + kh) * g.w + q0 + j0, m);
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

bool direct_conv_pool_applies(const Conv2dGeom& g) { return direct_conv_applies(g) && g.oh % 2 == 0; }

void direct_conv_pool_fwd(const Conv2dGeom& g, const float* x, const float* w, const float* bias, float* y,
                          uint8_t* win) {
#if defined(__x86_64__)
  const int64_t ctiles = (g.k + kTileChannels - 1) / kTileChannels, pairs = (g.oh / 2 + 1) / 2, runs = g.ow / kRun;
  const int64_t per_image = ctiles * pairs * runs, in_image = g.c * g.h * g.w, out_image = g.k * (g.oh / 2) * (g.ow / 2);
  parallel_for(g.n * per_image, 16, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const int64_t n = t / per_image, ct = (t % per_image) / (pairs * runs), pr = (t / runs) % pairs, q = t % runs;
      pool_tile(g, x + n * in_image, w, bias, y + n * out_image, win + n * out_image, ct * kTileChannels, 2 * pr,
                q * kRun);
    }
  });
#else
  (void)g, (void)x, (void)w, (void)bias, (void)y, (void)win;
  fail(NDRT_ERR_INTERNAL, "conv2d_bias_max_pool2x2: the direct kernel needs x86-64");
#endif
}

void direct_conv_bp_weights(const Conv2dGeom& g, const float* x, const float* dy, float* dw) {
#if defined(__x86_64__)
  const int64_t otiles = (g.k + kGradChannels - 1) / kGradChannels, jtiles = (g.kw + kGradColumns - 1) / kGradColumns;
  const int64_t per_part = g.kh * jtiles, part_floats = kGradChannels * kGradColumns * kRun;
  // Images in chunks whose dy for 5 channels and image plane fit in L1 (LeNet's conv 2: 8): the
  // kh * jtiles tiles of one (channel block, input channel) run chunk by chunk, each reading the
  // chunk from L1 after the first, their running sums parked in `parts` between chunks.
  const int64_t per_image = (kGradChannels * g.oh * g.ow + g.h * g.w) * int64_t(sizeof(float));
  const int64_t chunk = std::clamp<int64_t>((int64_t(16) << 10) / per_image, 1, std::max<int64_t>(g.n, 1));
  // (No parking when one chunk is the whole batch.)
  Tensor parts = chunk < g.n ? scratch<float>(g, otiles * g.c * per_part * part_floats) : Tensor();
  // A part is one (channel block, input channel): kh * jtiles tiles of 25 FMAs of 8 lanes per run
  // of 8 outputs over the batch (LeNet's conv 2: 8 MFLOP).
  parallel_for(otiles * g.c, 1, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const int64_t o0 = (t / g.c) * kGradChannels, c = t % g.c;
      float* part = chunk < g.n ? parts.data<float>() + t * per_part * part_floats : nullptr;
      for (int64_t n0 = 0; n0 < g.n; n0 += chunk)
        for (int64_t r = 0; r < per_part; ++r)
          grad_tile(g, x, dy, dw, part ? part + r * part_floats : nullptr, c, r / jtiles, o0, (r % jtiles) * kGradColumns, n0,
                    std::min(g.n, n0 + chunk));
    }
  });
#else
  (void)g, (void)x, (void)dy, (void)dw;
  fail(NDRT_ERR_INTERNAL, "conv2d_bp_weights: the direct kernel needs x86-64");
#endif
}

void direct_conv_bp_data(const Conv2dGeom& g, const float* w, const float* dy, float* dx) {
#if defined(__x86_64__)
  const int64_t C = g.c, K = g.k, KH = g.kh, KW = g.kw, blocks = (KW + kDataColumns - 1) / kDataColumns;
  // wt[c][kh][block][o][5]: one tile's weights in the order it reads them, zero past column KW.
  Tensor packed = scratch<float>(g, C * KH * blocks * K * kDataColumns);
  float* wt = packed.data<float>();
  parallel_for(C * KH * blocks, 1, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const int64_t c = t / (KH * blocks), i = (t / blocks) % KH, j0 = (t % blocks) * kDataColumns;
      float* dst = wt + t * K * kDataColumns;
      for (int64_t o = 0; o < K; ++o)
        for (int64_t j = 0; j < kDataColumns; ++j)
          dst[o * kDataColumns + j] = j0 + j < KW ? w[((o * C + c) * KH + i) * KW + j0 + j] : 0.0f;
    }
  });
  const int64_t plane = g.h * g.w, P = g.oh * g.ow;
  // One part per (image, input channel): its dx plane is cleared, then every tile adds into it in
  // a fixed order. LeNet's conv 2: 10k FMAs of 8 lanes per part.
  parallel_for(g.n * C, 4, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const int64_t n = t / C, c = t % C;
      float* dxp = dx + t * plane;
      std::fill(dxp, dxp + plane, 0.0f);
      const float* dyn = dy + n * K * P;
      for (int64_t i = 0; i < KH; ++i)
        for (int64_t bl = 0; bl < blocks; ++bl) {
          const float* wtile = wt + ((c * KH + i) * blocks + bl) * K * kDataColumns;
          const int64_t j0 = bl * kDataColumns;
          for (int64_t r0 = 0; r0 < g.oh; r0 += kDataRows)
            for (int64_t q0 = 0; q0 < g.ow; q0 += kRun) switch (std::min<int64_t>(kDataRows, g.oh - r0)) {
                case 4: data_tile<4>(g, dyn, wtile, dxp, r0, q0, i, j0); break;
                case 3: data_tile<3>(g, dyn, wtile, dxp, r0, q0, i, j0); break;
                case 2: data_tile<2>(g, dyn, wtile, dxp, r0, q0, i, j0); break;
                default: data_tile<1>(g, dyn, wtile, dxp, r0, q0, i, j0); break;
              }
        }
    }
  });
#else
  (void)g, (void)w, (void)dy, (void)dx;
  fail(NDRT_ERR_INTERNAL, "conv2d_bp_data: the direct kernel needs x86-64");
#endif
}

}  // namespace ndrt
