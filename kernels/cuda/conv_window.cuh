// What conv.cu and conv_pool.cu share: the window geometry of a call, resolved from the attributes
// and shapes exactly as runtime/ops/conv.cpp does (conv2d_geom & co. live in libndrt, which the
// module cannot call; inference already validated everything, so no checks here), and 4-D image
// addressing in either layout.
#pragma once
#include <algorithm>

#include "dense_copy.cuh"
#include "ops/conv_geom.hpp"

namespace ndrt::cuda {


namespace win {

inline void pair_attr(const OpContext& c, int k, int64_t out[2]) {
  const int64_t* v = c.attrs.list_data(k);
  out[0] = v[0];
  out[1] = v[1];
}

// [ph, pw] (both sides) or [top, bottom, left, right].
inline void padding_attr(const OpContext& c, int k, int64_t pad[4]) {
  const int32_t n = c.attrs.list_size(k);
  const int64_t* v = c.attrs.list_data(k);
  if (n == 2) {
    pad[0] = pad[1] = v[0];
    pad[2] = pad[3] = v[1];
  } else {
    for (int i = 0; i < 4; ++i) pad[i] = v[i];
  }
}

// One spatial axis (TF/Keras "same" rule when `same`), as resolve_axis in runtime/ops/conv.cpp.
inline void resolve_axis(int64_t in, int64_t k, int64_t s, int64_t d, bool same, int64_t& lo, int64_t& hi,
                         int64_t& out) {
  const int64_t ext = (k - 1) * d + 1;
  if (same) {
    out = (in + s - 1) / s;
    const int64_t total = std::max<int64_t>((out - 1) * s + ext - in, 0);
    lo = total / 2;
    hi = total - lo;
    if (in == 0) lo = hi = out = 0;
    return;
  }
  out = (in + lo + hi - ext) / s + 1;
}

inline void resolve_window(Conv2dGeom& g, bool same) {
  resolve_axis(g.h, g.kh, g.sh, g.dh, same, g.pt, g.pb, g.oh);
  resolve_axis(g.w, g.kw, g.sw, g.dw, same, g.pl, g.pr, g.ow);
}

inline void image_dims(const Tensor& x, Conv2dGeom& g) {
  g.n = x.shape.d[0];
  g.c = x.shape.d[g.nhwc ? 3 : 1];
  g.h = x.shape.d[g.nhwc ? 1 : 2];
  g.w = x.shape.d[g.nhwc ? 2 : 3];
}

inline Conv2dGeom conv(const OpContext& c) {
  Conv2dGeom g;
  g.nhwc = c.attrs.get_int(kConvLayout) == kNHWC;
  g.engine = c.attrs.get_int(kConvEngine);
  image_dims(*c.in[0], g);
  const Tensor& w = *c.in[1];
  g.groups = c.attrs.get_int(kConvGroups);
  g.k = w.shape.d[0];
  g.kh = w.shape.d[g.nhwc ? 1 : 2];
  g.kw = w.shape.d[g.nhwc ? 2 : 3];
  int64_t s[2], d[2], p[4];
  pair_attr(c, kConvStrides, s);
  pair_attr(c, kConvDilation, d);
  padding_attr(c, kConvPadding, p);
  g.sh = s[0], g.sw = s[1], g.dh = d[0], g.dw = d[1];
  g.pt = p[0], g.pb = p[1], g.pl = p[2], g.pr = p[3];
  resolve_window(g, c.attrs.get_bool(kConvSame));
  g.device = c.device;
  return g;
}

inline Conv2dGeom pool(const OpContext& c) {
  Conv2dGeom g;
  g.nhwc = c.attrs.get_int(kPoolLayout) == kNHWC;
  image_dims(*c.in[0], g);
  g.k = g.c;
  int64_t kr[2], p[4];
  pair_attr(c, kPoolKernel, kr);
  g.kh = kr[0], g.kw = kr[1];
  if (c.attrs.list_size(kPoolStrides) == 0) {  // default: non-overlapping windows
    g.sh = g.kh, g.sw = g.kw;
  } else {
    int64_t s[2];
    pair_attr(c, kPoolStrides, s);
    g.sh = s[0], g.sw = s[1];
  }
  padding_attr(c, kPoolPadding, p);
  g.pt = p[0], g.pb = p[1], g.pl = p[2], g.pr = p[3];
  resolve_window(g, c.attrs.get_bool(kPoolSame));
  if (c.op->attrs.size() > size_t(kPoolIncludePad)) g.include_pad = c.attrs.get_bool(kPoolIncludePad);
  g.device = c.device;
  return g;
}

inline void col_common(const OpContext& c, Conv2dGeom& g) {
  int64_t s[2], d[2], p[4];
  pair_attr(c, kColStrides, s);
  pair_attr(c, kColDilation, d);
  padding_attr(c, kColPadding, p);
  g.sh = s[0], g.sw = s[1], g.dh = d[0], g.dw = d[1];
  g.pt = p[0], g.pb = p[1], g.pl = p[2], g.pr = p[3];
}

inline Conv2dGeom im2col(const OpContext& c) {
  Conv2dGeom g;
  g.nhwc = c.attrs.get_int(kColLayout) == kNHWC;
  image_dims(*c.in[0], g);
  int64_t kr[2];
  pair_attr(c, kColKernelOrSize, kr);
  g.kh = kr[0], g.kw = kr[1];
  col_common(c, g);
  resolve_window(g, c.attrs.get_bool(kColSame));
  g.k = g.c;
  g.device = c.device;
  return g;
}

inline Conv2dGeom col2im(const OpContext& c) {
  Conv2dGeom g;
  g.nhwc = c.attrs.get_int(kColLayout) == kNHWC;
  const int64_t* d = c.in[0]->shape.d;
  g.n = d[0];
  g.c = g.k = g.nhwc ? d[5] : d[1];
  g.kh = g.nhwc ? d[3] : d[2];
  g.kw = g.nhwc ? d[4] : d[3];
  int64_t sz[2];
  pair_attr(c, kColKernelOrSize, sz);
  g.h = sz[0], g.w = sz[1];
  col_common(c, g);
  resolve_window(g, c.attrs.get_bool(kColSame));
  g.device = c.device;
  return g;
}

// A rank-4 image tensor addressed by logical (n, c, h, w) whatever its layout and strides.
struct Image {
  char* base;
  int64_t n, c, h, w;      // extents
  int64_t sn, sc, sh, sw;  // strides in elements
  template <class T>
  __device__ T& at(int64_t in, int64_t ic, int64_t ih, int64_t iw) const {
    return reinterpret_cast<T*>(base)[in * sn + ic * sc + ih * sh + iw * sw];
  }
  // Logical coordinates of the i-th element in the layout's memory order (NCHW or NHWC).
  __device__ void coords(int64_t i, bool nhwc, int64_t& in, int64_t& ic, int64_t& ih, int64_t& iw) const {
    if (nhwc) {
      ic = i % c, i /= c;
      iw = i % w, i /= w;
      ih = i % h, in = i / h;
    } else {
      iw = i % w, i /= w;
      ih = i % h, i /= h;
      ic = i % c, in = i / c;
    }
  }
};

// t ([n, c, h, w] in NCHW, [n, h, w, c] in NHWC) as an Image.
inline Image image_of(const Tensor& t, bool nhwc) {
  const int64_t* d = t.shape.d;
  const int64_t* s = t.strides.d;
  Image m;
  m.base = dense::base_of(t);
  m.n = d[0], m.sn = s[0];
  if (nhwc) {
    m.h = d[1], m.w = d[2], m.c = d[3];
    m.sh = s[1], m.sw = s[2], m.sc = s[3];
  } else {
    m.c = d[1], m.h = d[2], m.w = d[3];
    m.sc = s[1], m.sh = s[2], m.sw = s[3];
  }
  return m;
}

// A packed image of the given extents at p, in the layout.
inline Image packed_image(void* p, bool nhwc, int64_t n, int64_t c, int64_t h, int64_t w) {
  Image m;
  m.base = static_cast<char*>(p);
  m.n = n, m.c = c, m.h = h, m.w = w;
  if (nhwc) {
    m.sc = 1, m.sw = c, m.sh = w * c, m.sn = h * w * c;
  } else {
    m.sw = 1, m.sh = w, m.sc = h * w, m.sn = c * h * w;
  }
  return m;
}

}  // namespace win
}  // namespace ndrt::cuda
