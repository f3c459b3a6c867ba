// Max pooling with 2x2 windows at stride 2 on cpu (LeNet's, and most CNNs'), forward and backward,
// NCHW and NHWC; conv_pool.cpp runs every other pooling. The windows do not overlap, so the
// backward writes each dx element once (dy at its window's maximum, else 0): no zero fill, no
// scatter. NCHW f32 runs AVX2 over two quads (4 adjacent windows of an output row) at a time:
// even/odd column shuffles put 8 windows' left and right elements in two vectors. NHWC vectorises
// over channels. f16/bf16 compute in f32.
//
// Both passes give exactly what the general loops give. Forward: pool_pick() over the window's four
// elements in row-major order is a reduction whose result (the last NaN, else the first maximum,
// -0 before +0 on a tie) does not depend on how the order is bracketed, so pairs are reduced
// first. Backward: the winner is the first NaN, else the first maximum (takes()), which brackets
// the same way; its dx gets 0 + dy (as the general loops' zero fill and add: -0 becomes +0).
#include <algorithm>
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

// Writes g to the window's winner and 0 to the other three (g already 0 + dy).
template <class A, class T>
void window_grad(A a, A b, A c, A d, A g, T* top, T* top_right, T* bot, T* bot_right) {
  const Winner win = window_winner(a, b, c, d);
  const A gt = select(win.down, A(0), g), gb = select(win.down, g, A(0));
  *top = T(select(win.right_top, A(0), gt));
  *top_right = T(select(win.right_top, gt, A(0)));
  *bot = T(select(win.right_bottom, A(0), gb));
  *bot_right = T(select(win.right_bottom, gb, A(0)));
}

#if defined(__AVX2__)
// Two quads (4 adjacent windows of one output row each): quad k reads the 8 columns at xk and
// xk + W (its two input rows) and writes its 4 outputs at yk. The quads may be the same one.
inline void fwd_quads(const float* x0, const float* x1, int64_t W, float* y0, float* y1) {
  const __m256 a0 = _mm256_loadu_ps(x0), a1 = _mm256_loadu_ps(x1);
  const __m256 b0 = _mm256_loadu_ps(x0 + W), b1 = _mm256_loadu_ps(x1 + W);
  // Lanes: windows [0 1 4 5 | 2 3 6 7] (4..7: quad 1), left column from shuffle 0x88, right 0xDD.
  const __m256 top = pick8(_mm256_shuffle_ps(a0, a1, 0x88), _mm256_shuffle_ps(a0, a1, 0xDD));
  const __m256 bot = pick8(_mm256_shuffle_ps(b0, b1, 0x88), _mm256_shuffle_ps(b0, b1, 0xDD));
  const __m256 m = swap_mid(pick8(top, bot));
  _mm_storeu_ps(y0, _mm256_castps256_ps128(m));
  _mm_storeu_ps(y1, _mm256_extractf128_ps(m, 1));
}

// Backward of two quads: dy at d0/d1, dx rows at g0 / g0 + W and g1 / g1 + W.
inline void bwd_quads(const float* x0, const float* x1, int64_t W, const float* d0, const float* d1, float* g0,
                      float* g1) {
  const __m256 a0 = _mm256_loadu_ps(x0), a1 = _mm256_loadu_ps(x1);
  const __m256 b0 = _mm256_loadu_ps(x0 + W), b1 = _mm256_loadu_ps(x1 + W);
  const __m256 al = _mm256_shuffle_ps(a0, a1, 0x88), ar = _mm256_shuffle_ps(a0, a1, 0xDD);
  const __m256 bl = _mm256_shuffle_ps(b0, b1, 0x88), br = _mm256_shuffle_ps(b0, b1, 0xDD);
  const Winner8 win = window_winner8(al, ar, bl, br);
  const __m256 ta = win.right_top, tb = win.right_bottom, down = win.down;
  const __m256 dy = _mm256_set_m128(_mm_loadu_ps(d1), _mm_loadu_ps(d0));
  const __m256 d = _mm256_add_ps(swap_mid(dy), _mm256_setzero_ps());  // window order, 0 + dy
  const __m256 gt = _mm256_andnot_ps(down, d), gb = _mm256_and_ps(down, d);
  const __m256 gtl = _mm256_andnot_ps(ta, gt), gtr = _mm256_and_ps(ta, gt);
  const __m256 gbl = _mm256_andnot_ps(tb, gb), gbr = _mm256_and_ps(tb, gb);
  // unpacklo/hi interleave left and right columns back into memory order: quad 0, then quad 1.
  _mm256_storeu_ps(g0, _mm256_unpacklo_ps(gtl, gtr));
  _mm256_storeu_ps(g0 + W, _mm256_unpacklo_ps(gbl, gbr));
  _mm256_storeu_ps(g1, _mm256_unpackhi_ps(gtl, gtr));
  _mm256_storeu_ps(g1 + W, _mm256_unpackhi_ps(gbl, gbr));
}
#endif

// A quad: 4 adjacent windows of one output row. `in` is the offset of its first input (and dx)
// element in the block, `out` of its first output (and dy) element, w its first column.
struct Quad {
  int64_t in, out, w;
};

// Work items per part, for items of `inputs` input elements each: a part reads at least 32768
// (2-4 us of work at these kernels' speed, well above the cost of handing it to another thread).
int64_t grain_2x2(int64_t inputs) { return std::max<int64_t>(1, 32768 / std::max<int64_t>(inputs, 1)); }

// Calls quads(q0, q1) for pairs of the quads of a block of output rows (see fwd2x2_rows) in
// row-major order (the last one paired with itself when their number is odd), then one(r, w) for
// each window of a row's last OW % 4; without AVX2 or for other dtypes than f32, one() for all.
template <class T, class Quads, class One>
void for_quads(int64_t rows, int64_t W, int64_t OW, Quads&& quads, One&& one) {
  int64_t w0 = 0;
#if defined(__AVX2__)
  if constexpr (std::is_same_v<T, float>) {
    const int64_t OW4 = OW / 4 * 4, nq = rows * (OW / 4);
    auto next = [&](Quad q) {
      q.in += 8, q.out += 4, q.w += 4;
      if (q.w == OW4) q.in += 2 * W - 2 * OW4, q.out += OW - OW4, q.w = 0;
      return q;
    };
    Quad q{0, 0, 0};
    for (int64_t k = 0; k + 1 < nq; k += 2) {
      const Quad q1 = next(q);
      quads(q, q1);
      q = next(q1);
    }
    if (nq % 2) quads(q, q);
    w0 = OW4;
  }
#endif
  (void)W, (void)quads;
  if (w0 < OW)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t w = w0; w < OW; ++w) one(r, w);
}

// NCHW, a block of output rows whose input rows follow each other: output row r (at y + r*OW)
// reads input rows 2r and 2r + 1 (at x + 2r*W).
template <class T>
void fwd2x2_rows(const T* x, T* y, int64_t rows, int64_t W, int64_t OW) {
  using A = compute_t<T>;
  for_quads<T>(
      rows, W, OW,
      [&](Quad q0, Quad q1) {
#if defined(__AVX2__)
        if constexpr (std::is_same_v<T, float>) fwd_quads(x + q0.in, x + q1.in, W, y + q0.out, y + q1.out);
#endif
        (void)q0, (void)q1;
      },
      [&](int64_t r, int64_t w) {
        const T* p = x + 2 * (r * W + w);
        y[r * OW + w] = T(window_max(A(p[0]), A(p[1]), A(p[W]), A(p[W + 1])));
      });
}

// Backward of the same block; also zeroes the input column no window reaches (odd W).
template <class T>
void bwd2x2_rows(const T* x, const T* dy, T* dx, int64_t rows, int64_t W, int64_t OW) {
  using A = compute_t<T>;
  for_quads<T>(
      rows, W, OW,
      [&](Quad q0, Quad q1) {
#if defined(__AVX2__)
        if constexpr (std::is_same_v<T, float>)
          bwd_quads(x + q0.in, x + q1.in, W, dy + q0.out, dy + q1.out, dx + q0.in, dx + q1.in);
#endif
        (void)q0, (void)q1;
      },
      [&](int64_t r, int64_t w) {
        const int64_t at = 2 * (r * W + w);
        const T* p = x + at;
        T* q = dx + at;
        window_grad(A(p[0]), A(p[1]), A(p[W]), A(p[W + 1]), A(dy[r * OW + w]) + A(0), q, q + 1, q + W, q + W + 1);
      });
  if (W > 2 * OW)
    for (int64_t h = 0; h < 2 * rows; ++h) dx[h * W + W - 1] = T(0);
}

// Runs block(first output row, rows) over all n*c*oh output rows: in row ranges when the planes'
// row pairs follow each other (even H), else plane by plane, with tail(plane) after each.
template <class Block, class Tail>
void for_row_blocks(const Conv2dGeom& g, Block&& block, Tail&& tail) {
  const int64_t planes = g.n * g.c;
  if (2 * g.oh == g.h) {
    parallel_for(planes * g.oh, grain_2x2(2 * g.w), [&](int64_t b, int64_t e) { block(b, e - b); });
    return;
  }
  parallel_for(planes, grain_2x2(g.h * g.w), [&](int64_t b, int64_t e) {
    for (int64_t pl = b; pl < e; ++pl) {
      block(pl * g.oh, g.oh);
      tail(pl);
    }
  });
}

template <class T>
void pool2x2_fwd_nchw(const Conv2dGeom& g, const T* x, T* y) {
  const int64_t W = g.w, OW = g.ow, HW = g.h * g.w;
  for_row_blocks(
      g,
      [&](int64_t r, int64_t rows) {
        fwd2x2_rows(x + (r / g.oh) * HW + 2 * (r % g.oh) * W, y + r * OW, rows, W, OW);
      },
      [](int64_t) {});
}

template <class T>
void pool2x2_bwd_nchw(const Conv2dGeom& g, const T* x, const T* dy, T* dx) {
  const int64_t W = g.w, OW = g.ow, HW = g.h * g.w;
  for_row_blocks(
      g,
      [&](int64_t r, int64_t rows) {
        const int64_t at = (r / g.oh) * HW + 2 * (r % g.oh) * W;
        bwd2x2_rows(x + at, dy + r * OW, dx + at, rows, W, OW);
      },
      [&](int64_t pl) { std::fill(dx + pl * HW + 2 * g.oh * W, dx + (pl + 1) * HW, T(0)); });  // odd H: last row
}

// One window position over C channels: inputs a b / c d, the maximum to y. (GCC 12 does not
// vectorise window_max's NaN-aware selects, hence AVX2 by hand for f32.)
template <class A, class T>
void max_channels(const T* a, const T* b, const T* c, const T* d, T* y, int64_t C) {
  int64_t ch = 0;
#if defined(__AVX2__)
  if constexpr (std::is_same_v<T, float>) {
    auto eight = [&](int64_t k) {
      const __m256 top = pick8(_mm256_loadu_ps(a + k), _mm256_loadu_ps(b + k));
      _mm256_storeu_ps(y + k, pick8(top, pick8(_mm256_loadu_ps(c + k), _mm256_loadu_ps(d + k))));
    };
    if (C >= 8) {
      for (; ch + 8 <= C; ch += 8) eight(ch);
      if (ch < C) eight(C - 8);  // overlaps the 8 before: those outputs are written twice, the same
      ch = C;
    }
  }
#endif
  for (; ch < C; ++ch) y[ch] = T(window_max(A(a[ch]), A(b[ch]), A(c[ch]), A(d[ch])));
}

// NHWC: one output row (n, oh) per work item, inner loops over channels.
template <class T>
void pool2x2_fwd_nhwc(const Conv2dGeom& g, const T* x, T* y) {
  using A = compute_t<T>;
  const int64_t C = g.c, WC = g.w * C;
  parallel_for(g.n * g.oh, grain_2x2(2 * WC), [&](int64_t b, int64_t e) {
    for (int64_t row = b; row < e; ++row) {
      const int64_t n = row / g.oh, oh = row % g.oh;
      const T* xr = x + (n * g.h + 2 * oh) * WC;
      T* yr = y + row * g.ow * C;
      for (int64_t ow = 0; ow < g.ow; ++ow) {
        const T *p = xr + 2 * ow * C, *q = p + WC;
        max_channels<A>(p, p + C, q, q + C, yr + ow * C, C);
      }
    }
  });
}

// One window position over C channels: inputs a b / c d, gradients ga gb / gc gd. (GCC 12 does not
// vectorise window_grad's selects, hence AVX2 by hand for f32.)
template <class A, class T>
void grad_channels(const T* a, const T* b, const T* c, const T* d, const T* dy, T* ga, T* gb, T* gc, T* gd,
                   int64_t C) {
  int64_t ch = 0;
#if defined(__AVX2__)
  if constexpr (std::is_same_v<T, float>) {
    auto eight = [&](int64_t k) {
      const __m256 va = _mm256_loadu_ps(a + k), vb = _mm256_loadu_ps(b + k);
      const __m256 vc = _mm256_loadu_ps(c + k), vd = _mm256_loadu_ps(d + k);
      const __m256 g = _mm256_add_ps(_mm256_loadu_ps(dy + k), _mm256_setzero_ps());
      const __m256 tb = takes8(vb, va), td = takes8(vd, vc);
      const __m256 down = takes8(_mm256_blendv_ps(vc, vd, td), _mm256_blendv_ps(va, vb, tb));
      const __m256 gtop = _mm256_andnot_ps(down, g), gbot = _mm256_and_ps(down, g);
      _mm256_storeu_ps(ga + k, _mm256_andnot_ps(tb, gtop));
      _mm256_storeu_ps(gb + k, _mm256_and_ps(tb, gtop));
      _mm256_storeu_ps(gc + k, _mm256_andnot_ps(td, gbot));
      _mm256_storeu_ps(gd + k, _mm256_and_ps(td, gbot));
    };
    if (C >= 8) {
      for (; ch + 8 <= C; ch += 8) eight(ch);
      if (ch < C) eight(C - 8);  // overlaps the 8 before: their dx is written twice, the same
      ch = C;
    }
  }
#endif
  for (; ch < C; ++ch)
    window_grad(A(a[ch]), A(b[ch]), A(c[ch]), A(d[ch]), A(dy[ch]) + A(0), ga + ch, gb + ch, gc + ch, gd + ch);
}

template <class T>
void pool2x2_bwd_nhwc(const Conv2dGeom& g, const T* x, const T* dy, T* dx) {
  using A = compute_t<T>;
  const int64_t C = g.c, WC = g.w * C;
  parallel_for(g.n * g.oh, grain_2x2(2 * WC), [&](int64_t b, int64_t e) {
    for (int64_t row = b; row < e; ++row) {
      const int64_t n = row / g.oh, oh = row % g.oh;
      const int64_t at = (n * g.h + 2 * oh) * WC;
      const T* xr = x + at;
      T* gr = dx + at;
      const T* dr = dy + row * g.ow * C;
      for (int64_t ow = 0; ow < g.ow; ++ow) {
        const T *p = xr + 2 * ow * C, *q = p + WC, *d = dr + ow * C;
        T *gp = gr + 2 * ow * C, *gq = gp + WC;
        grad_channels<A>(p, p + C, q, q + C, d, gp, gp + C, gq, gq + C, C);
      }
      // Elements no window reaches: the last column of both rows, the rows below the last window row.
      for (T* r : {gr, gr + WC}) std::fill(r + 2 * g.ow * C, r + WC, T(0));
      if (oh == g.oh - 1) std::fill(gr + 2 * WC, dx + (n + 1) * g.h * WC, T(0));
    }
  });
}

}  // namespace

// Windows fully inside the image (top/left padding 0; bottom/right padding that no window reaches
// is fine). A bottom row / right column that no window reaches (odd sizes) gets dx = 0.
bool pool2x2_applies(const Conv2dGeom& g) {
  return g.kh == 2 && g.kw == 2 && g.sh == 2 && g.sw == 2 && g.pt == 0 && g.pl == 0 && 2 * g.oh <= g.h &&
         2 * g.ow <= g.w;
}

template <class T>
void pool2x2_fwd(const Conv2dGeom& g, const T* x, T* y) {
  g.nhwc ? pool2x2_fwd_nhwc(g, x, y) : pool2x2_fwd_nchw(g, x, y);
}

template <class T>
void pool2x2_bwd(const Conv2dGeom& g, const T* x, const T* dy, T* dx) {
  g.nhwc ? pool2x2_bwd_nhwc(g, x, dy, dx) : pool2x2_bwd_nchw(g, x, dy, dx);
}

#define NDRT_POOL2X2_INSTANTIATE(T)                                \
  template void pool2x2_fwd<T>(const Conv2dGeom&, const T*, T*); \
  template void pool2x2_bwd<T>(const Conv2dGeom&, const T*, const T*, T*);
NDRT_POOL2X2_INSTANTIATE(float)
NDRT_POOL2X2_INSTANTIATE(double)
NDRT_POOL2X2_INSTANTIATE(Half)
NDRT_POOL2X2_INSTANTIATE(BFloat16)
#undef NDRT_POOL2X2_INSTANTIATE

}  // namespace ndrt
