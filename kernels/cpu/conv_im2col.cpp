// im2col / col2im loops (layouts in conv_util.hpp). im2col copies whole runs of a window row at
// once (memcpy for stride 1) and zero-fills the padding; col2im gathers per output row or plane, so
// every thread owns the image elements it writes and no atomics are needed. f16/bf16 fold in f32.
#include <cstring>
#include <vector>

#include "conv_util.hpp"

namespace ndrt {

namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Output columns ow whose input column ow*s + off lies in [0, w): [lo, hi).
void valid_range(int64_t off, int64_t s, int64_t w, int64_t out, int64_t& lo, int64_t& hi) {
  lo = off >= 0 ? 0 : ceil_div(-off, s);
  hi = (w - 1 - off) < 0 ? 0 : (w - 1 - off) / s + 1;
  lo = std::min(lo, out);
  hi = std::max(std::min(hi, out), lo);
}

template <class T>
void zero(T* p, int64_t n) {
  std::memset(static_cast<void*>(p), 0, size_t(n) * sizeof(T));
}

// An accumulator buffer of compute type for f16/bf16 (T itself otherwise: no buffer).
template <class T>
struct AccBuf {
  using A = compute_t<T>;
  std::vector<A> buf;
  A* get(T* dst, int64_t n) {
    if constexpr (std::is_same_v<A, T>) {
      (void)n;
      return dst;
    } else {
      buf.assign(size_t(n), A(0));
      return buf.data();
    }
  }
  void put(T* dst, const A* acc, int64_t n, int64_t stride = 1) {
    if constexpr (!std::is_same_v<A, T>)
      for (int64_t i = 0; i < n; ++i) dst[i * stride] = T(acc[i * stride]);
    else
      (void)dst, (void)acc, (void)n, (void)stride;
  }
};

}  // namespace

template <class T>
void im2col_nchw(const Conv2dGeom& g, const T* x, int64_t n0, int64_t nb, int64_t c0, int64_t cg, T* col,
                 int64_t rs, int64_t bs) {
  const int64_t H = g.h, W = g.w, OH = g.oh, OW = g.ow, P = OH * OW, R = cg * g.kh * g.kw;
  parallel_for(R * nb, std::max<int64_t>(1, 16384 / std::max<int64_t>(P, 1)), [&](int64_t b, int64_t e) {
    for (int64_t item = b; item < e; ++item) {
      const int64_t r = item / nb, bi = item % nb;
      const int64_t j = r % g.kw, i = (r / g.kw) % g.kh, ci = r / (g.kw * g.kh);
      const T* xp = x + ((n0 + bi) * g.c + c0 + ci) * H * W;
      T* cp = col + r * rs + bi * bs;
      const int64_t off_w = j * g.dw - g.pl;
      int64_t lo, hi;
      valid_range(off_w, g.sw, W, OW, lo, hi);
      for (int64_t oh = 0; oh < OH; ++oh) {
        T* row = cp + oh * OW;
        const int64_t ih = oh * g.sh - g.pt + i * g.dh;
        if (ih < 0 || ih >= H) {
          zero(row, OW);
          continue;
        }
        zero(row, lo);
        // Input column of ow is ow*sw + off_w; only [lo, hi) is inside the image.
        const T* src = xp + ih * W;
        if (g.sw == 1)
          std::memcpy(static_cast<void*>(row + lo), src + lo + off_w, size_t(hi - lo) * sizeof(T));
        else
          for (int64_t ow = lo; ow < hi; ++ow) row[ow] = src[ow * g.sw + off_w];
        zero(row + hi, OW - hi);
      }
    }
  });
}

template <class T>
void col2im_nchw(const Conv2dGeom& g, const T* col, int64_t n0, int64_t nb, int64_t c0, int64_t cg, T* x,
                 int64_t rs, int64_t bs) {
  using A = compute_t<T>;
  const int64_t H = g.h, W = g.w, OH = g.oh, OW = g.ow, KK = g.kh * g.kw;
  parallel_for(nb * cg, std::max<int64_t>(1, 16384 / std::max<int64_t>(KK * OH * OW, 1)), [&](int64_t b, int64_t e) {
    AccBuf<T> acc;
    for (int64_t item = b; item < e; ++item) {
      const int64_t bi = item / cg, ci = item % cg;
      T* plane = x + ((n0 + bi) * g.c + c0 + ci) * H * W;
      zero(plane, H * W);
      A* ap = acc.get(plane, H * W);
      for (int64_t i = 0; i < g.kh; ++i)
        for (int64_t j = 0; j < g.kw; ++j) {
          const T* cp = col + ((ci * g.kh + i) * g.kw + j) * rs + bi * bs;
          const int64_t off_w = j * g.dw - g.pl;
          int64_t lo, hi;
          valid_range(off_w, g.sw, W, OW, lo, hi);
          for (int64_t oh = 0; oh < OH; ++oh) {
            const int64_t ih = oh * g.sh - g.pt + i * g.dh;
            if (ih < 0 || ih >= H) continue;
            A* dst = ap + ih * W;
            const T* src = cp + oh * OW;
            if (g.sw == 1)
              for (int64_t ow = lo; ow < hi; ++ow) dst[ow + off_w] += A(src[ow]);
            else
              for (int64_t ow = lo; ow < hi; ++ow) dst[ow * g.sw + off_w] += A(src[ow]);
          }
        }
      acc.put(plane, ap, H * W);
    }
  });
}

template <class T>
void im2col_nhwc(const Conv2dGeom& g, const T* x, int64_t n0, int64_t nb, int64_t c0, int64_t cg, T* col) {
  const int64_t H = g.h, W = g.w, OW = g.ow, P = g.oh * OW, L = g.kh * g.kw * cg;
  parallel_for(nb * P, std::max<int64_t>(1, 16384 / std::max<int64_t>(L, 1)), [&](int64_t b, int64_t e) {
    for (int64_t q = b; q < e; ++q) {
      const int64_t bi = q / P, p = q % P, oh = p / OW, ow = p % OW;
      T* crow = col + q * L;
      const T* xs = x + (n0 + bi) * H * W * g.c + c0;
      for (int64_t i = 0; i < g.kh; ++i) {
        const int64_t ih = oh * g.sh - g.pt + i * g.dh;
        for (int64_t j = 0; j < g.kw; ++j) {
          const int64_t iw = ow * g.sw - g.pl + j * g.dw;
          T* dst = crow + (i * g.kw + j) * cg;
          if (ih < 0 || ih >= H || iw < 0 || iw >= W)
            zero(dst, cg);
          else
            std::memcpy(static_cast<void*>(dst), xs + (ih * W + iw) * g.c, size_t(cg) * sizeof(T));
        }
      }
    }
  });
}

template <class T>
void col2im_nhwc(const Conv2dGeom& g, const T* col, int64_t n0, int64_t nb, int64_t c0, int64_t cg, T* x) {
  using A = compute_t<T>;
  const int64_t H = g.h, W = g.w, C = g.c, OH = g.oh, OW = g.ow, P = OH * OW, L = g.kh * g.kw * cg;
  parallel_for(nb * H, std::max<int64_t>(1, 16384 / std::max<int64_t>(W * cg * g.kh, 1)), [&](int64_t b, int64_t e) {
    std::vector<A> rowbuf;
    for (int64_t item = b; item < e; ++item) {
      const int64_t bi = item / H, ih = item % H;
      T* xrow = x + ((n0 + bi) * H + ih) * W * C + c0;
      // Accumulate the row's channel slice densely ([W, cg]), then write it out.
      rowbuf.assign(size_t(W * cg), A(0));
      A* acc = rowbuf.data();
      for (int64_t i = 0; i < g.kh; ++i) {
        const int64_t t = ih + g.pt - i * g.dh;
        if (t < 0 || t % g.sh) continue;
        const int64_t oh = t / g.sh;
        if (oh >= OH) continue;
        for (int64_t ow = 0; ow < OW; ++ow) {
          const T* crow = col + ((bi * P + oh * OW + ow) * L) + i * g.kw * cg;
          for (int64_t j = 0; j < g.kw; ++j) {
            const int64_t iw = ow * g.sw - g.pl + j * g.dw;
            if (iw < 0 || iw >= W) continue;
            A* dst = acc + iw * cg;
            const T* src = crow + j * cg;
            for (int64_t ci = 0; ci < cg; ++ci) dst[ci] += A(src[ci]);
          }
        }
      }
      for (int64_t iw = 0; iw < W; ++iw)
        for (int64_t ci = 0; ci < cg; ++ci) xrow[iw * C + ci] = T(acc[iw * cg + ci]);
    }
  });
}

#define NDRT_IM2COL_INSTANTIATE(T)                                                                                   \
  template void im2col_nchw<T>(const Conv2dGeom&, const T*, int64_t, int64_t, int64_t, int64_t, T*, int64_t, int64_t); \
  template void col2im_nchw<T>(const Conv2dGeom&, const T*, int64_t, int64_t, int64_t, int64_t, T*, int64_t, int64_t); \
  template void im2col_nhwc<T>(const Conv2dGeom&, const T*, int64_t, int64_t, int64_t, int64_t, T*);                  \
  template void col2im_nhwc<T>(const Conv2dGeom&, const T*, int64_t, int64_t, int64_t, int64_t, T*);
NDRT_IM2COL_INSTANTIATE(float)
NDRT_IM2COL_INSTANTIATE(double)
NDRT_IM2COL_INSTANTIATE(Half)
NDRT_IM2COL_INSTANTIATE(BFloat16)
#undef NDRT_IM2COL_INSTANTIATE

}  // namespace ndrt
