// conv2d_max_pool2x2_bp_weights and conv2d_max_pool2x2_bp_data on cpu: the backward of
// conv2d_bias_max_pool2x2 from the pooled output's gradient and the forward's index (each window's
// winner). Of the convolution's output gradient only each 2x2 window's winner is not zero, so these
// visit the windows instead of the output: a quarter of the multiply-adds of conv2d_bp_weights /
// _bp_data on max_pool2x2_bp_index's dx, the same sums without their zero terms.
//
// Both run on channels-last copies (x NHWC; w as [kh][out][kw * channels]), where one kernel row of
// a window's patch is kw * channels contiguous values (LeNet's conv 2: 100 floats; conv 1: 5):
//  - weights: dw[o] row i (OHWI order) += dy * the patch's row i. For one output channel and a
//    group of kernel rows the sums stay in registers while the batch goes by in chunks that fit L1.
//  - data: dx (channels-last, image by image) at the patch's row i += dy * w[o] row i. The output
//    channels whose windows at one position share a winner share the patch, so each such group's
//    sum of dy * weight row is made in registers and added into dx once (not once per channel).
// Each multiply-add reads its own vector (a patch row, a weight row): on the Zen 4 measured that
// caps them at about 1.3 per cycle, two thirds of the FMA units' rate.
// f32 on AVX-512 CPUs with a kernel row of at most 128 floats runs these register tiles
// ("ndrt:sparse+avx512"); anything else the same sums window by window in plain C++
// ("ndrt:sparse"). Each output element is summed in an order fixed by the shapes, whatever the
// thread count. With one input channel the data gradient is slower than conv2d_bp_data on the
// unpooled gradient (conv 1's shape: 1.1 against 0.45 ms), its rows being a vector each; LeNet does
// not compute it (the first layer's input needs no gradient).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "conv_util.hpp"
#include "cores.hpp"
#include "kernels.hpp"

namespace ndrt {

namespace {

// The pooled windows' geometry: x [n, c, h, w] (worked on channels-last), dy and index [n, k, ph, pw].
struct PoolBp {
  int64_t n, c, h, w, k, kh, kw, ph, pw;
  explicit PoolBp(const Conv2dGeom& g)
      : n(g.n), c(g.c), h(g.h), w(g.w), k(g.k), kh(g.kh), kw(g.kw), ph(g.oh / 2), pw(g.ow / 2) {}
  int64_t row() const { return kw * c; }    // one kernel row of a patch, channels-last
  int64_t stride() const { return w * c; }  // one image row, channels-last
  int64_t image() const { return h * stride(); }
  int64_t windows() const { return ph * pw; }  // per image and output channel
};

bool index_valid(const uint8_t* win, int64_t n) {
  uint8_t over = 0;
  for (int64_t i = 0; i < n; ++i) over |= uint8_t(win[i] > 3);
  return !over;
}

// Where a window's patch lies in its image (channels-last): the window's top left corner
// (corner[p * pw + q], the same in every image) plus its winner's place in it (winner[index]).
struct Patches {
  int64_t winner[4];
  std::vector<int64_t> corner;
  explicit Patches(const PoolBp& g) : winner{0, g.c, g.stride(), g.stride() + g.c}, corner(size_t(g.windows())) {
    for (int64_t p = 0; p < g.ph; ++p)
      for (int64_t q = 0; q < g.pw; ++q) corner[size_t(p * g.pw + q)] = 2 * p * g.stride() + 2 * q * g.c;
  }
  int64_t at(int64_t window, uint8_t index) const { return corner[size_t(window)] + winner[index]; }
};

// dst[i][s][ch] = src[i][ch][s] for `blocks` blocks of c planes of hw values (x NCHW -> NHWC,
// w OIHW -> OHWI), and back for one block.
template <class T>
void to_channels_last(const T* src, int64_t blocks, int64_t c, int64_t hw, T* dst) {
  parallel_for(blocks, 1, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i)
      for (int64_t ch = 0; ch < c; ++ch)
        for (int64_t s = 0; s < hw; ++s) dst[(i * hw + s) * c + ch] = src[(i * c + ch) * hw + s];
  });
}
template <class T>
void from_channels_last(const T* src, int64_t c, int64_t hw, T* dst) {
  for (int64_t ch = 0; ch < c; ++ch)
    for (int64_t s = 0; s < hw; ++s) dst[ch * hw + s] = src[s * c + ch];
}

// w (OIHW) as rows [kh][k][kw * c]: kernel row i of every output channel together, channels-last.
template <class T>
void weight_rows(const PoolBp& g, const T* w, T* rows) {
  for (int64_t i = 0; i < g.kh; ++i)
    for (int64_t o = 0; o < g.k; ++o)
      for (int64_t j = 0; j < g.kw; ++j)
        for (int64_t ch = 0; ch < g.c; ++ch)
          rows[((i * g.k + o) * g.kw + j) * g.c + ch] = w[((o * g.c + ch) * g.kh + i) * g.kw + j];
}

// dw[o] (OIHW) rows i0 .. i0 + rows - 1 from their sums in OHWI order, a row every `step` values.
template <class T>
void store_ohwi(const PoolBp& g, const T* sums, int64_t step, int64_t i0, int64_t rows, T* dw_o) {
  for (int64_t i = i0; i < i0 + rows; ++i)
    for (int64_t j = 0; j < g.kw; ++j)
      for (int64_t ch = 0; ch < g.c; ++ch) dw_o[(ch * g.kh + i) * g.kw + j] = sums[(i - i0) * step + j * g.c + ch];
}

// ---- plain C++ (any dtype, any size) ----

template <class T>
void weights_plain(const PoolBp& g, const Patches& pt, const T* xt, const T* dy, const uint8_t* win, T* dw) {
  const int64_t L = g.row();
  parallel_for(g.k, 1, [&](int64_t b, int64_t e) {
    std::vector<T> sums(size_t(g.kh * L));
    for (int64_t o = b; o < e; ++o) {
      std::fill(sums.begin(), sums.end(), T(0));
      for (int64_t n = 0; n < g.n; ++n) {
        const int64_t at = (n * g.k + o) * g.windows();
        for (int64_t j = 0; j < g.windows(); ++j) {
          const T d = dy[at + j];
          const T* patch = xt + n * g.image() + pt.at(j, win[at + j]);
          for (int64_t i = 0; i < g.kh; ++i) {
            T* s = sums.data() + i * L;
            const T* xr = patch + i * g.stride();
            for (int64_t t = 0; t < L; ++t) s[t] += d * xr[t];
          }
        }
      }
      store_ohwi(g, sums.data(), L, 0, g.kh, dw + o * g.c * g.kh * g.kw);
    }
  });
}

// dxt: image n's gradient, channels-last, zeroed by the caller; wt: weight_rows.
template <class T>
void data_plain_image(const PoolBp& g, const Patches& pt, const T* wt, const T* dy, const uint8_t* win, int64_t n,
                      T* dxt) {
  const int64_t L = g.row();
  for (int64_t o = 0; o < g.k; ++o) {
    const int64_t at = (n * g.k + o) * g.windows();
    for (int64_t j = 0; j < g.windows(); ++j) {
      const T d = dy[at + j];
      T* patch = dxt + pt.at(j, win[at + j]);
      for (int64_t i = 0; i < g.kh; ++i) {
        T* xr = patch + i * g.stride();
        const T* wr = wt + (i * g.k + o) * L;
        for (int64_t t = 0; t < L; ++t) xr[t] += d * wr[t];
      }
    }
  }
}

// ---- AVX-512 register tiles (f32) ----

#if defined(__x86_64__)
#define NDRT_SPARSE_TARGET __attribute__((target("avx2,fma,avx512f,avx512vl")))

// Vectors of 8 floats: a patch row starts anywhere, and a 64-byte load there nearly always spans two
// cache lines, a 32-byte one half the time (conv 1's weight gradient ran 1.45x faster with 8 lanes
// than with 16). AVX-512's 32 registers and masks (VL) still serve: 28 hold sums or weights.
constexpr int kLanes = 8;
constexpr int kTileVectors = 28;
constexpr int kMaxRowVectors = 16;  // a kernel row of up to 128 floats
// Windows whose patch offsets a tile works out ahead of their multiply-adds, so that the loads do
// not wait on index -> offset -> address one window at a time (conv 2's weight gradient: 1.35x).
constexpr int kOffsetBlock = 64;

bool sparse_avx512_applies(const PoolBp& g) { return cpu_has_avx512() && g.row() <= kLanes * kMaxRowVectors; }

// A row of L floats is V vectors, the last one with the lanes `tail` sets.
inline __mmask8 tail_mask(int64_t L, int V) { return __mmask8((1u << (L - kLanes * (V - 1))) - 1); }

// Sets of accumulators a weight tile keeps: short rows (conv 1: one vector) make too few independent
// sums to hide the FMA's latency, so windows alternate between two sets.
constexpr int sets_for(int V) { return V <= 4 ? 2 : 1; }
template <int V>
constexpr int rows_for() {
  return kTileVectors / (V * sets_for(V));
}

// dw[o] rows i0 .. i0 + R - 1 (R <= rows_for<V>()), images n0 .. n1 - 1: the sums of R * V vectors
// (per set) in registers over those images' windows, taken from and parked back in `parked`
// (S * kRows * V vectors) between calls.
template <int V>
NDRT_SPARSE_TARGET void weights_tile(const PoolBp& g, const Patches& pt, const float* xt, const float* dy,
                                     const uint8_t* win, int64_t o, int64_t i0, int64_t R, int64_t n0, int64_t n1,
                                     float* parked) {
  constexpr int S = sets_for(V), kRows = rows_for<V>();
  const int64_t rs = g.stride();
  const __mmask8 tail = tail_mask(g.row(), V);
  int64_t offs[kOffsetBlock];
  __m256 acc[S][kRows][V];
#pragma GCC unroll 2
  for (int s = 0; s < S; ++s)
#pragma GCC unroll 28
    for (int r = 0; r < kRows; ++r)
#pragma GCC unroll 16
      for (int v = 0; v < V; ++v) acc[s][r][v] = _mm256_loadu_ps(parked + ((s * kRows + r) * V + v) * kLanes);
  for (int64_t n = n0; n < n1; ++n)
    for (int64_t b = 0; b < g.windows(); b += kOffsetBlock) {
      const int64_t at = (n * g.k + o) * g.windows() + b, m = std::min<int64_t>(kOffsetBlock, g.windows() - b);
      for (int64_t j = 0; j < m; ++j) offs[j] = pt.at(b + j, win[at + j]);
      const float* xn = xt + n * g.image() + i0 * rs;
      for (int64_t j = 0; j < m; j += S) {
#pragma GCC unroll 2
        for (int s = 0; s < S; ++s) {
          if (j + s >= m) break;
          const __m256 d = _mm256_set1_ps(dy[at + j + s]);
          const float* patch = xn + offs[j + s];
#pragma GCC unroll 28
          for (int r = 0; r < kRows; ++r) {
            if (r >= R) break;
            const float* xr = patch + r * rs;
#pragma GCC unroll 16
            for (int v = 0; v < V; ++v) {
              const __m256 xv =
                  v + 1 < V ? _mm256_loadu_ps(xr + kLanes * v) : _mm256_maskz_loadu_ps(tail, xr + kLanes * v);
              acc[s][r][v] = _mm256_fmadd_ps(d, xv, acc[s][r][v]);
            }
          }
        }
      }
    }
#pragma GCC unroll 2
  for (int s = 0; s < S; ++s)
#pragma GCC unroll 28
    for (int r = 0; r < kRows; ++r)
#pragma GCC unroll 16
      for (int v = 0; v < V; ++v) _mm256_storeu_ps(parked + ((s * kRows + r) * V + v) * kLanes, acc[s][r][v]);
}

// One image's windows grouped by where their patch lies: for each window position (p, q) and winner,
// the output channels whose window there has that winner, with their gradients. All of a group's
// patches are the same patch, so its data gradient is one sum of weight rows added into dx once.
struct WindowGroups {
  std::vector<int64_t> first;  // group (position * 4 + winner) is members [first[gi], first[gi + 1])
  std::vector<int32_t> channel;
  std::vector<float> grad;
  explicit WindowGroups(const PoolBp& g)
      : first(size_t(g.windows() * 4 + 1)), channel(size_t(g.k * g.windows())), grad(channel.size()) {}
  void fill(const PoolBp& g, const float* dy, const uint8_t* win, int64_t n) {
    const int64_t W = g.windows();
    std::fill(first.begin(), first.end(), 0);
    for (int64_t o = 0; o < g.k; ++o)
      for (int64_t j = 0; j < W; ++j) ++first[size_t(j * 4 + win[(n * g.k + o) * W + j] + 1)];
    for (size_t i = 1; i < first.size(); ++i) first[i] += first[i - 1];
    next_.assign(first.begin(), first.end() - 1);
    for (int64_t o = 0; o < g.k; ++o)  // in channel order within a group
      for (int64_t j = 0; j < W; ++j) {
        const int64_t at = (n * g.k + o) * W + j, slot = next_[size_t(j * 4 + win[at])]++;
        channel[size_t(slot)] = int32_t(o);
        grad[size_t(slot)] = dy[at];
      }
  }

 private:
  std::vector<int64_t> next_;  // fill's next free member slot of each group
};

// Kernel rows a data pass takes together: short rows (one channel: a vector each) give one
// group member too few independent sums to hide the FMA's latency; long ones keep the pass's weight
// rows ([rows][k][row]) within L1.
template <int V>
constexpr int data_rows_for() {
  return V >= 8 ? 1 : 8 / V;
}

// Image n's dx (channels-last, zeroed by the caller) from its window groups, a few kernel rows at a
// time (those rows of every output channel's weights, wt: [kh][k][row], stay in L1): each group's
// sums of gradient * weight row in registers, then added into the patch's rows.
template <int V>
NDRT_SPARSE_TARGET void data_groups(const PoolBp& g, const Patches& pt, const WindowGroups& wg, const float* wt,
                                    float* dxt) {
  constexpr int kRows = data_rows_for<V>();
  const int64_t L = g.row(), rs = g.stride(), plane = g.k * L;
  const __mmask8 tail = tail_mask(L, V);
  for (int64_t i0 = 0; i0 < g.kh; i0 += kRows) {
    const int64_t R = std::min<int64_t>(kRows, g.kh - i0);
    const float* wr = wt + i0 * plane;
    for (int64_t gi = 0; gi < g.windows() * 4; ++gi) {
      const int64_t b = wg.first[size_t(gi)], e = wg.first[size_t(gi) + 1];
      if (b == e) continue;
      __m256 acc[kRows][V];
#pragma GCC unroll 8
      for (int r = 0; r < kRows; ++r)
#pragma GCC unroll 16
        for (int v = 0; v < V; ++v) acc[r][v] = _mm256_setzero_ps();
      for (int64_t t = b; t < e; ++t) {
        const __m256 d = _mm256_set1_ps(wg.grad[size_t(t)]);
        const float* w = wr + wg.channel[size_t(t)] * L;
#pragma GCC unroll 8
        for (int r = 0; r < kRows; ++r) {
          if (r >= R) break;
#pragma GCC unroll 16
          for (int v = 0; v < V; ++v) {
            const float* at = w + r * plane + kLanes * v;
            acc[r][v] =
                _mm256_fmadd_ps(d, v + 1 < V ? _mm256_loadu_ps(at) : _mm256_maskz_loadu_ps(tail, at), acc[r][v]);
          }
        }
      }
      float* patch = dxt + pt.at(gi / 4, uint8_t(gi % 4)) + i0 * rs;
#pragma GCC unroll 8
      for (int r = 0; r < kRows; ++r) {
        if (r >= R) break;
        float* xr = patch + r * rs;
#pragma GCC unroll 16
        for (int v = 0; v < V; ++v) {
          if (v + 1 < V) {
            _mm256_storeu_ps(xr + kLanes * v, _mm256_add_ps(_mm256_loadu_ps(xr + kLanes * v), acc[r][v]));
          } else {
            _mm256_mask_storeu_ps(xr + kLanes * v, tail,
                                  _mm256_add_ps(_mm256_maskz_loadu_ps(tail, xr + kLanes * v), acc[r][v]));
          }
        }
      }
    }
  }
}

// Calls f(V) with the row's vector count, 1..kMaxRowVectors, as a compile-time constant.
template <int V = 1, class F>
void with_row_vectors(int64_t L, F&& f) {
  if constexpr (V < kMaxRowVectors) {
    if ((L + kLanes - 1) / kLanes > V) return with_row_vectors<V + 1>(L, std::forward<F>(f));
  }
  f(std::integral_constant<int, V>{});
}

// Threads take (output channel, row group) tiles; each part of them runs the batch in chunks of
// images whose x fits half of L1 (every tile of the part on one chunk before the next), the sums
// parked in between.
void weights_avx512(const PoolBp& g, const Patches& pt, const float* xt, const float* dy, const uint8_t* win,
                    float* dw) {
  with_row_vectors(g.row(), [&](auto vc) {
    constexpr int V = decltype(vc)::value, S = sets_for(V), kRows = rows_for<V>();
    constexpr int64_t kSet = kRows * V * kLanes;
    const int64_t groups = (g.kh + kRows - 1) / kRows;
    const int64_t chunk = std::max<int64_t>(1, (16 << 10) / std::max<int64_t>(1, g.image() * 4));
    parallel_for(g.k * groups, 1, [&](int64_t b, int64_t e) {
      std::vector<float> parked(size_t((e - b) * S * kSet), 0.0f);
      for (int64_t n0 = 0; n0 < g.n; n0 += chunk)
        for (int64_t t = b; t < e; ++t) {
          const int64_t i0 = (t % groups) * kRows;
          weights_tile<V>(g, pt, xt, dy, win, t / groups, i0, std::min<int64_t>(kRows, g.kh - i0), n0,
                          std::min(g.n, n0 + chunk), parked.data() + (t - b) * S * kSet);
        }
      for (int64_t t = b; t < e; ++t) {
        float* sums = parked.data() + (t - b) * S * kSet;
        for (int s = 1; s < S; ++s)
          for (int64_t i = 0; i < kSet; ++i) sums[i] += sums[s * kSet + i];
        const int64_t i0 = (t % groups) * kRows;
        store_ohwi(g, sums, V * kLanes, i0, std::min<int64_t>(kRows, g.kh - i0), dw + (t / groups) * g.c * g.kh * g.kw);
      }
    });
  });
}

void data_avx512_image(const PoolBp& g, const Patches& pt, const WindowGroups& wg, const float* wt, float* dxt) {
  with_row_vectors(g.row(), [&](auto vc) { data_groups<decltype(vc)::value>(g, pt, wg, wt, dxt); });
}
#else
bool sparse_avx512_applies(const PoolBp&) { return false; }
#endif

// What both kernels start from: the geometry, dense inputs, each window's patch, the path.
struct BpInputs {
  Conv2dGeom geom;
  Tensor x, w, dy, win;
  bool fast;
};
template <class T>
BpInputs bp_inputs(OpContext& c) {
  BpInputs in;
  in.geom = conv_pool2x2_geom(c);
  in.geom.device = c.device;
  in.x = conv_dense(*c.in[0]);
  in.w = conv_dense(*c.in[1]);
  in.dy = conv_dense(*c.in[2]);
  in.win = conv_dense(*c.in[3]);
  if (!index_valid(in.win.data<uint8_t>(), in.win.numel()))
    fail(NDRT_ERR_INVALID_ARGUMENT, "%s: index holds a value above 3 (a window has 4 elements, 0..3)", c.op->name);
  in.fast = std::is_same_v<T, float> && sparse_avx512_applies(PoolBp(in.geom));
  c.impl = in.fast ? "ndrt:sparse+avx512" : "ndrt:sparse";
  return in;
}

template <class T>
void bp_weights_kernel(OpContext& c) {
  const Tensor& dw = *c.out[0];
  if (dw.numel() == 0) return;
  const BpInputs in = bp_inputs<T>(c);
  const PoolBp g(in.geom);
  const Patches pt(g);
  ConvOut out(dw, dtype_of<T>());
  // One channel: x is channels-last already.
  Tensor xt = g.c == 1 ? in.x : scratch<T>(in.geom, g.n * g.image());
  if (g.c != 1) to_channels_last(in.x.data<T>(), g.n, g.c, g.h * g.w, xt.data<T>());
  const uint8_t* win = in.win.data<uint8_t>();
#if defined(__x86_64__)
  if constexpr (std::is_same_v<T, float>) {
    if (in.fast) {
      weights_avx512(g, pt, xt.data<float>(), in.dy.data<float>(), win, out.data<float>());
      out.finish();
      return;
    }
  }
#endif
  weights_plain<T>(g, pt, xt.data<T>(), in.dy.data<T>(), win, out.data<T>());
  out.finish();
}

template <class T>
void bp_data_kernel(OpContext& c) {
  const Tensor& dx = *c.out[0];
  if (dx.numel() == 0) return;
  const BpInputs in = bp_inputs<T>(c);
  const PoolBp g(in.geom);
  const Patches pt(g);
  ConvOut out(dx, dtype_of<T>());
  Tensor wt = scratch<T>(in.geom, g.kh * g.k * g.row());
  weight_rows(g, in.w.data<T>(), wt.data<T>());
  // Image by image: summed channels-last, then transposed into dx (one channel: summed in dx).
  Tensor dxt = g.c == 1 ? Tensor() : scratch<T>(in.geom, g.n * g.image());
  const uint8_t* win = in.win.data<uint8_t>();
  T* dxp = out.data<T>();
  parallel_for(g.n, 1, [&](int64_t b, int64_t e) {
#if defined(__x86_64__)
    std::unique_ptr<WindowGroups> groups;
    if (in.fast) groups = std::make_unique<WindowGroups>(g);
#endif
    for (int64_t n = b; n < e; ++n) {
      T* dn = (g.c == 1 ? dxp : dxt.data<T>()) + n * g.image();
      std::fill(dn, dn + g.image(), T(0));
      bool done = false;
#if defined(__x86_64__)
      if constexpr (std::is_same_v<T, float>) {
        if (in.fast) {
          groups->fill(g, in.dy.data<float>(), win, n);
          data_avx512_image(g, pt, *groups, wt.data<float>(), dn);
          done = true;
        }
      }
#endif
      if (!done) data_plain_image<T>(g, pt, wt.data<T>(), in.dy.data<T>(), win, n, dn);
      if (g.c != 1) from_channels_last(dn, g.c, g.h * g.w, dxp + n * g.image());
    }
  });
  out.finish();
}

}  // namespace

void register_cpu_conv_pool_bp(Registry& r) {
  r.kernel("conv2d_max_pool2x2_bp_weights", kCpu, {NDRT_F32}, bp_weights_kernel<float>, "ndrt:sparse+avx512");
  r.kernel("conv2d_max_pool2x2_bp_weights", kCpu, {NDRT_F64}, bp_weights_kernel<double>, "ndrt:sparse");
  r.kernel("conv2d_max_pool2x2_bp_data", kCpu, {NDRT_F32}, bp_data_kernel<float>, "ndrt:sparse+avx512");
  r.kernel("conv2d_max_pool2x2_bp_data", kCpu, {NDRT_F64}, bp_data_kernel<double>, "ndrt:sparse");
}

}  // namespace ndrt
