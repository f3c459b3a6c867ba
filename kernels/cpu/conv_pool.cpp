// 2-D max/avg pooling on cpu: direct loops, as fast as oneDNN's pooling for the usual small windows
// (measured on LeNet's 2x2 max pool over [64,20,24,24]), so no oneDNN path. NCHW works per (n, c)
// plane and output row, with inner loops along memory; NHWC per output position, vectorised over
// channels. Backward work items own the gradient elements they write (planes, or samples for
// NHWC), so no atomics. f16/bf16 compute in f32.
//
// Max pooling with 2x2 windows at stride 2 (LeNet's, and most CNNs') has its own path in
// conv_pool_2x2.cpp.
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "conv_util.hpp"
#include "kernels.hpp"

namespace ndrt {

// conv_pool_2x2.cpp: max pooling with 2x2 windows at stride 2, for the geometries where
// pool2x2_applies(); T in float, double, Half, BFloat16; operands dense in g's layout.
bool pool2x2_applies(const Conv2dGeom& g);
template <class T> void pool2x2_fwd(const Conv2dGeom& g, const T* x, T* y);
template <class T> void pool2x2_bwd(const Conv2dGeom& g, const T* x, const T* dy, T* dx);

namespace {

// Window rows of output row oh, clipped to the image: [h0, h1).
struct Rows {
  int64_t h0, h1;
};
Rows rows(const Conv2dGeom& g, int64_t oh) {
  const int64_t h = oh * g.sh - g.pt;
  return {std::max<int64_t>(h, 0), std::min(h + g.kh, g.h)};
}

// Column geometry shared by every output row: kernel column j reads input column ow*sw + off[j],
// inside the image for output columns [lo[j], hi[j]); count[ow] valid columns per window.
struct Cols {
  std::vector<int64_t> lo, hi, off, count;
  explicit Cols(const Conv2dGeom& g) : lo(size_t(g.kw)), hi(size_t(g.kw)), off(size_t(g.kw)), count(size_t(g.ow), 0) {
    for (int64_t j = 0; j < g.kw; ++j) {
      const int64_t o = j - g.pl;
      off[size_t(j)] = o;
      int64_t a = o >= 0 ? 0 : (-o + g.sw - 1) / g.sw, b = g.w - 1 - o < 0 ? 0 : (g.w - 1 - o) / g.sw + 1;
      a = std::min(a, g.ow), b = std::max(std::min(b, g.ow), a);
      lo[size_t(j)] = a, hi[size_t(j)] = b;
      for (int64_t ow = a; ow < b; ++ow) ++count[size_t(ow)];
    }
  }
  int64_t first(const Conv2dGeom& g, int64_t ow) const { return std::max<int64_t>(ow * g.sw - g.pl, 0); }
};

template <class A>
A divisor(const Conv2dGeom& g, const Rows& r, const Cols& cl, int64_t ow) {
  return g.include_pad ? A(g.kh * g.kw) : A((r.h1 - r.h0) * cl.count[size_t(ow)]);
}


// Whether p[0..n) holds a NaN; f32 tests the bits so the loop vectorises.
template <class T>
bool any_nan(const T* p, int64_t n) {
  if constexpr (std::is_same_v<T, float>) {
    uint32_t any = 0;
    for (int64_t i = 0; i < n; ++i) {
      uint32_t u;
      std::memcpy(&u, p + i, 4);
      any |= uint32_t((u & 0x7fffffffu) > 0x7f800000u);
    }
    return any != 0;
  } else {
    for (int64_t i = 0; i < n; ++i)
      if (float(p[i]) != float(p[i])) return true;
    return false;
  }
}

int64_t plane_grain(const Conv2dGeom& g) { return std::max<int64_t>(1, 8192 / std::max<int64_t>(g.h * g.w, 1)); }

// Accumulation target for one region of n elements of the gradient: the region itself (zeroed)
// when T is its own compute type, else a zeroed f32 buffer that store() rounds into the region.
template <class T>
struct Accum {
  using A = compute_t<T>;
  std::vector<A> buf;
  A* begin(T* region, int64_t n) {
    if constexpr (std::is_same_v<A, T>) {
      std::fill(region, region + n, T(0));
      return region;
    } else {
      buf.assign(size_t(n), A(0));
      return buf.data();
    }
  }
  void store(T* region, int64_t n) const {
    if constexpr (!std::is_same_v<A, T>)
      for (int64_t i = 0; i < n; ++i) region[i] = T(buf[size_t(i)]);
    else
      (void)region, (void)n;
  }
};

// NCHW: one (n, c) plane per work item, one output row at a time: every window row adds its
// kernel columns to the whole output row, so the inner loops run along memory.
template <class T, bool Max>
void pool_fwd_nchw(const Conv2dGeom& g, const T* x, T* y) {
  using A = compute_t<T>;
  const Cols cl(g);
  const int64_t HW = g.h * g.w, P = g.oh * g.ow, OW = g.ow, sw = g.sw;
  parallel_for(g.n * g.c, plane_grain(g), [&](int64_t b, int64_t e) {
    std::vector<A> rowbuf(static_cast<size_t>(OW));
    A* row = rowbuf.data();
    for (int64_t pl = b; pl < e; ++pl) {
      const T* xp = x + pl * HW;
      T* yp = y + pl * P;
      for (int64_t oh = 0; oh < g.oh; ++oh) {
        const Rows r = rows(g, oh);
        std::fill(row, row + OW, Max ? -std::numeric_limits<A>::infinity() : A(0));
        for (int64_t h = r.h0; h < r.h1; ++h) {
          const T* xr = xp + h * g.w;
          for (int64_t j = 0; j < g.kw; ++j) {
            const int64_t o = cl.off[size_t(j)], lo = cl.lo[size_t(j)], hi = cl.hi[size_t(j)];
            if (sw == 1) {
              for (int64_t ow = lo; ow < hi; ++ow)
                row[ow] = Max ? pool_pick(row[ow], A(xr[ow + o])) : row[ow] + A(xr[ow + o]);
            } else {
              for (int64_t ow = lo; ow < hi; ++ow)
                row[ow] = Max ? pool_pick(row[ow], A(xr[ow * sw + o])) : row[ow] + A(xr[ow * sw + o]);
            }
          }
        }
        T* yr = yp + oh * OW;
        if constexpr (Max) {
          for (int64_t ow = 0; ow < OW; ++ow) yr[ow] = T(row[ow]);
        } else {
          for (int64_t ow = 0; ow < OW; ++ow) yr[ow] = T(row[ow] / divisor<A>(g, r, cl, ow));
        }
      }
    }
  });
}

template <class T, bool Max>
void pool_bwd_nchw(const Conv2dGeom& g, const T* x, const T* dy, T* dx) {
  using A = compute_t<T>;
  const Cols cl(g);
  const int64_t HW = g.h * g.w, P = g.oh * g.ow, OW = g.ow, W = g.w, sw = g.sw;
  parallel_for(g.n * g.c, plane_grain(g), [&](int64_t b, int64_t e) {
    std::vector<A> best(static_cast<size_t>(OW)), share(static_cast<size_t>(OW));
    std::vector<int64_t> idx(static_cast<size_t>(OW));
    Accum<T> accum;
    for (int64_t pl = b; pl < e; ++pl) {
      const T* xp = x + pl * HW;
      const T* dyp = dy + pl * P;
      A* acc = accum.begin(dx + pl * HW, HW);
      const bool has_nan = Max && any_nan(xp, HW);
      for (int64_t oh = 0; oh < g.oh; ++oh) {
        const Rows r = rows(g, oh);
        const T* dyr = dyp + oh * OW;
        if constexpr (Max) {
          // Window elements arrive in row-major order, so a strict > keeps the first maximum.
          for (int64_t ow = 0; ow < OW; ++ow) {
            best[size_t(ow)] = -std::numeric_limits<A>::infinity();
            idx[size_t(ow)] = r.h0 * W + cl.first(g, ow);
          }
          for (int64_t h = r.h0; h < r.h1; ++h)
            for (int64_t j = 0; j < g.kw; ++j) {
              // Locals, so the index stores below cannot alias the geometry (and force reloads).
              const int64_t base = h * W + cl.off[size_t(j)], lo = cl.lo[size_t(j)], hi = cl.hi[size_t(j)];
              A* bp = best.data();
              int64_t* ip = idx.data();
              if (!has_nan) {
                // Strict greater keeps the first maximum; max + masks, so random data costs no
                // branch mispredictions.
                for (int64_t ow = lo; ow < hi; ++ow) {
                  const int64_t at = base + ow * sw;
                  const A v = A(xp[at]), bv = bp[ow];
                  const int64_t take = -int64_t(v > bv);
                  bp[ow] = std::max(bv, v);
                  ip[ow] = (at & take) | (ip[ow] & ~take);
                }
                continue;
              }
              for (int64_t ow = lo; ow < hi; ++ow) {  // greater, or the first NaN
                const int64_t at = base + ow * sw;
                const A v = A(xp[at]), bv = bp[ow];
                if (v > bv || (v != v && bv == bv)) bp[ow] = v, ip[ow] = at;
              }
            }
          for (int64_t ow = 0; ow < OW; ++ow) acc[idx[size_t(ow)]] += A(dyr[ow]);
        } else {
          (void)xp;
          for (int64_t ow = 0; ow < OW; ++ow) share[size_t(ow)] = A(dyr[ow]) / divisor<A>(g, r, cl, ow);
          for (int64_t h = r.h0; h < r.h1; ++h) {
            A* ar = acc + h * g.w;
            for (int64_t j = 0; j < g.kw; ++j) {
              const int64_t o = cl.off[size_t(j)];
              for (int64_t ow = cl.lo[size_t(j)]; ow < cl.hi[size_t(j)]; ++ow) ar[ow * sw + o] += share[size_t(ow)];
            }
          }
        }
      }
      accum.store(dx + pl * HW, HW);
    }
  });
}

// NHWC: per output position, vectorised over channels.
template <class T, bool Max>
void pool_fwd_nhwc(const Conv2dGeom& g, const T* x, T* y) {
  using A = compute_t<T>;
  const int64_t C = g.c;
  const Cols cl(g);
  parallel_for(g.n * g.oh, std::max<int64_t>(1, 8192 / std::max<int64_t>(g.ow * C, 1)), [&](int64_t b, int64_t e) {
    std::vector<A> acc(static_cast<size_t>(C));
    for (int64_t row = b; row < e; ++row) {
      const int64_t n = row / g.oh, oh = row % g.oh;
      const Rows r = rows(g, oh);
      for (int64_t ow = 0; ow < g.ow; ++ow) {
        const int64_t w0 = cl.first(g, ow), w1 = std::min(ow * g.sw - g.pl + g.kw, g.w);
        std::fill(acc.begin(), acc.end(), Max ? -std::numeric_limits<A>::infinity() : A(0));
        for (int64_t h = r.h0; h < r.h1; ++h)
          for (int64_t w = w0; w < w1; ++w) {
            const T* xs = x + ((n * g.h + h) * g.w + w) * C;
            for (int64_t ch = 0; ch < C; ++ch)
              acc[size_t(ch)] = Max ? pool_pick(acc[size_t(ch)], A(xs[ch])) : acc[size_t(ch)] + A(xs[ch]);
          }
        T* ys = y + ((n * g.oh + oh) * g.ow + ow) * C;
        const A d = Max ? A(1) : divisor<A>(g, r, cl, ow);
        for (int64_t ch = 0; ch < C; ++ch) ys[ch] = T(Max ? acc[size_t(ch)] : acc[size_t(ch)] / d);
      }
    }
  });
}

// NHWC backward: one sample per work item (windows overlap across rows and columns).
template <class T, bool Max>
void pool_bwd_nhwc(const Conv2dGeom& g, const T* x, const T* dy, T* dx) {
  using A = compute_t<T>;
  const int64_t C = g.c, HWC = g.h * g.w * C;
  const Cols cl(g);
  parallel_for(g.n, 1, [&](int64_t b, int64_t e) {
    // The winner as its element number k in the window (exact in A), so best and k update in
    // lanes of one width (the loop vectorises, no branches); at[k] is its offset in the sample.
    std::vector<A> best(static_cast<size_t>(C)), kbest(static_cast<size_t>(C));
    std::vector<int64_t> at(static_cast<size_t>(g.kh * g.kw));
    Accum<T> accum;
    for (int64_t n = b; n < e; ++n) {
      const T* xn = x + n * HWC;
      A* acc = accum.begin(dx + n * HWC, HWC);
      for (int64_t oh = 0; oh < g.oh; ++oh) {
        const Rows r = rows(g, oh);
        for (int64_t ow = 0; ow < g.ow; ++ow) {
          const int64_t w0 = cl.first(g, ow), w1 = std::min(ow * g.sw - g.pl + g.kw, g.w);
          const T* d = dy + ((n * g.oh + oh) * g.ow + ow) * C;
          if constexpr (Max) {
            std::fill(best.begin(), best.end(), -std::numeric_limits<A>::infinity());
            std::fill(kbest.begin(), kbest.end(), A(0));
            int64_t k = 0;
            for (int64_t h = r.h0; h < r.h1; ++h)
              for (int64_t w = w0; w < w1; ++w, ++k) {
                const T* xs = xn + (h * g.w + w) * C;
                A *bp = best.data(), *kp = kbest.data();
                const A kf = A(k);
                at[size_t(k)] = (h * g.w + w) * C;
                for (int64_t ch = 0; ch < C; ++ch) {  // greater, or the first NaN
                  const A v = A(xs[ch]), bv = bp[ch];
                  const bool take = !(v <= bv) & (bv == bv);
                  bp[ch] = take ? v : bv;
                  kp[ch] = take ? kf : kp[ch];
                }
              }
            for (int64_t ch = 0; ch < C; ++ch) acc[at[size_t(kbest[size_t(ch)])] + ch] += A(d[ch]);
          } else {
            const A div = divisor<A>(g, r, cl, ow);
            for (int64_t h = r.h0; h < r.h1; ++h)
              for (int64_t w = w0; w < w1; ++w) {
                A* a = acc + (h * g.w + w) * C;
                for (int64_t ch = 0; ch < C; ++ch) a[ch] += A(d[ch]) / div;
              }
          }
        }
      }
      accum.store(dx + n * HWC, HWC);
    }
  });
}

template <class T, bool Max>
void pool_fwd_kernel(OpContext& c) {
  Conv2dGeom g = pool2d_geom(c);
  const Tensor& y = *c.out[0];
  if (y.numel() == 0) return;
  Tensor x = conv_dense(*c.in[0]);
  ConvOut o(y, dtype_of<T>());
  if (Max && pool2x2_applies(g)) {
    pool2x2_fwd<T>(g, x.data<T>(), o.data<T>());
    c.impl = "ndrt:pool_2x2";
  } else if (g.nhwc) {
    pool_fwd_nhwc<T, Max>(g, x.data<T>(), o.data<T>());
  } else {
    pool_fwd_nchw<T, Max>(g, x.data<T>(), o.data<T>());
  }
  o.finish();
}

template <class T, bool Max>
void pool_bwd_kernel(OpContext& c) {
  Conv2dGeom g = pool2d_geom(c);
  const Tensor& dx = *c.out[0];
  if (dx.numel() == 0) return;
  Tensor x = Max ? conv_dense(*c.in[0]) : *c.in[0];  // avg uses only x's shape
  Tensor dy = conv_dense(*c.in[1]);
  ConvOut o(dx, dtype_of<T>());
  if (Max && pool2x2_applies(g)) {
    pool2x2_bwd<T>(g, x.data<T>(), dy.data<T>(), o.data<T>());
    c.impl = "ndrt:pool_2x2";
  } else if (g.nhwc) {
    pool_bwd_nhwc<T, Max>(g, x.data<T>(), dy.data<T>(), o.data<T>());
  } else {
    pool_bwd_nchw<T, Max>(g, x.data<T>(), dy.data<T>(), o.data<T>());
  }
  o.finish();
}

}  // namespace

void register_cpu_conv_pool(Registry& r) {
  for_types<float, double, Half, BFloat16>([&](auto t) {
    using T = decltype(t);
    r.kernel("max_pool2d", kCpu, {dtype_of<T>()}, pool_fwd_kernel<T, true>, "ndrt:pool_direct");
    r.kernel("avg_pool2d", kCpu, {dtype_of<T>()}, pool_fwd_kernel<T, false>, "ndrt:pool_direct");
    r.kernel("max_pool2d_bp", kCpu, {dtype_of<T>()}, pool_bwd_kernel<T, true>, "ndrt:pool_direct");
    r.kernel("avg_pool2d_bp", kCpu, {dtype_of<T>()}, pool_bwd_kernel<T, false>, "ndrt:pool_direct");
  });
}

}  // namespace ndrt
