// Shared by the conv family tests: an independent window geometry (TF/Keras "same" rule included),
// attribute encoders, float64 direct-loop references (convolution and its gradients, pooling,
// im2col), and the profiler probe that tells which implementation ran.
#pragma once
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common/ndrt_test.hpp"

namespace ct {

using nt::Shape;

// One convolution / pooling / im2col problem in logical NCHW terms; `nhwc` picks the memory layout
// of the tensors (x [N,H,W,C], weights OHWI, y [N,OH,OW,K]).
struct Geo {
  int64_t n = 1, c = 1, h = 1, w = 1, k = 1, kh = 1, kw = 1;
  int64_t sh = 1, sw = 1, dh = 1, dw = 1, groups = 1;
  std::vector<int64_t> pad = {0, 0};  // attribute value: [ph, pw] or [t, b, l, r]
  bool same = false, nhwc = false;
  // Resolved by resolve().
  int64_t pt = 0, pb = 0, pl = 0, pr = 0, oh = 0, ow = 0;

  Geo& stride(int64_t a, int64_t b) { sh = a, sw = b; return *this; }
  Geo& padding(std::vector<int64_t> p) { pad = std::move(p); return *this; }
  Geo& same_pad() { same = true; return *this; }
  Geo& dilation(int64_t a, int64_t b) { dh = a, dw = b; return *this; }
  Geo& group(int64_t g) { groups = g; return *this; }
  Geo& layout(bool h_w_c) { nhwc = h_w_c; return *this; }

  Geo resolve() const {
    Geo g = *this;
    g.pt = g.pb = pad.size() == 4 ? 0 : pad[0];
    g.pl = g.pr = pad.size() == 4 ? 0 : pad[1];
    if (pad.size() == 4) g.pt = pad[0], g.pb = pad[1], g.pl = pad[2], g.pr = pad[3];
    axis(h, kh, sh, dh, g.pt, g.pb, g.oh);
    axis(w, kw, sw, dw, g.pl, g.pr, g.ow);
    return g;
  }
  void axis(int64_t in, int64_t kk, int64_t s, int64_t d, int64_t& lo, int64_t& hi, int64_t& out) const {
    const int64_t ext = (kk - 1) * d + 1;
    if (same) {
      out = (in + s - 1) / s;
      const int64_t total = std::max<int64_t>((out - 1) * s + ext - in, 0);
      lo = in ? total / 2 : 0;
      hi = in ? total - total / 2 : 0;
    } else {
      out = (in + lo + hi - ext) / s + 1;
    }
  }
  int64_t cg() const { return c / groups; }
  int64_t kg() const { return k / groups; }
  Shape xs() const { return nhwc ? Shape{n, h, w, c} : Shape{n, c, h, w}; }
  Shape ws() const { return nhwc ? Shape{k, kh, kw, cg()} : Shape{k, cg(), kh, kw}; }
  Shape ys() const { return nhwc ? Shape{n, oh, ow, k} : Shape{n, k, oh, ow}; }
  size_t xi(int64_t b, int64_t ch, int64_t y, int64_t x) const {
    return size_t(nhwc ? ((b * h + y) * w + x) * c + ch : ((b * c + ch) * h + y) * w + x);
  }
  size_t wi(int64_t o, int64_t ci, int64_t i, int64_t j) const {
    return size_t(nhwc ? ((o * kh + i) * kw + j) * cg() + ci : ((o * cg() + ci) * kh + i) * kw + j);
  }
  size_t yi(int64_t b, int64_t o, int64_t p, int64_t q) const {
    return size_t(nhwc ? ((b * oh + p) * ow + q) * k + o : ((b * k + o) * oh + p) * ow + q);
  }
  std::string str() const {
    std::string s = "x" + nt::shape_str(xs()) + " k=" + std::to_string(k) + " kernel " + std::to_string(kh) + "x" +
                    std::to_string(kw) + " stride " + std::to_string(sh) + "," + std::to_string(sw) + " pad " +
                    nt::shape_str(pad) + (same ? " same" : "") + " dil " + std::to_string(dh) + "," +
                    std::to_string(dw) + " groups " + std::to_string(groups) + (nhwc ? " NHWC" : " NCHW");
    return s;
  }
};

inline Geo geo(int64_t n, int64_t c, int64_t h, int64_t w, int64_t k, int64_t kh, int64_t kw) {
  Geo g;
  g.n = n, g.c = c, g.h = h, g.w = w, g.k = k, g.kh = kh, g.kw = kw;
  return g;
}

inline void push_list(std::vector<int64_t>& v, const std::vector<int64_t>& l) {
  v.push_back(int64_t(l.size()));
  v.insert(v.end(), l.begin(), l.end());
}

// conv2d family attributes: strides, padding, same_padding, dilation, groups, layout, engine.
inline nt::Attrs conv_attrs(const Geo& g, int engine) {
  nt::Attrs a;
  push_list(a.ints, {g.sh, g.sw});
  push_list(a.ints, g.pad);
  a.ints.push_back(g.same);
  push_list(a.ints, {g.dh, g.dw});
  a.ints.push_back(g.groups);
  a.ints.push_back(g.nhwc);
  a.ints.push_back(engine);
  return a;
}

// Pooling attributes: kernel, strides, padding, same_padding, layout (+ count_include_pad).
inline nt::Attrs pool_attrs(const Geo& g, bool avg, bool include_pad) {
  nt::Attrs a;
  push_list(a.ints, {g.kh, g.kw});
  push_list(a.ints, {g.sh, g.sw});
  push_list(a.ints, g.pad);
  a.ints.push_back(g.same);
  a.ints.push_back(g.nhwc);
  if (avg) a.ints.push_back(include_pad);
  return a;
}

// im2col (first = kernel) / col2im (first = image size) attributes.
inline nt::Attrs col_attrs(const Geo& g, bool col2im) {
  nt::Attrs a;
  push_list(a.ints, col2im ? std::vector<int64_t>{g.h, g.w} : std::vector<int64_t>{g.kh, g.kw});
  push_list(a.ints, {g.sh, g.sw});
  push_list(a.ints, g.pad);
  a.ints.push_back(g.same);
  push_list(a.ints, {g.dh, g.dw});
  a.ints.push_back(g.nhwc);
  return a;
}

// A reference result: values plus, per element, the sum of |terms| (rounding-error scale).
struct Ref {
  std::vector<double> want, mag;
  std::vector<double> extra(double eps, int64_t terms) const {
    std::vector<double> e(mag.size());
    for (size_t i = 0; i < e.size(); ++i) e[i] = eps * std::sqrt(double(std::max<int64_t>(terms, 1))) * mag[i];
    return e;
  }
};

// Calls f(b, o, p, q, ci, i, j, x_index) for every in-image term of the convolution (resolved g).
template <class F>
void for_terms(const Geo& g, F&& f) {
  for (int64_t b = 0; b < g.n; ++b)
    for (int64_t o = 0; o < g.k; ++o) {
      const int64_t gi = o / g.kg();
      for (int64_t p = 0; p < g.oh; ++p)
        for (int64_t q = 0; q < g.ow; ++q)
          for (int64_t ci = 0; ci < g.cg(); ++ci)
            for (int64_t i = 0; i < g.kh; ++i) {
              const int64_t y = p * g.sh - g.pt + i * g.dh;
              if (y < 0 || y >= g.h) continue;
              for (int64_t j = 0; j < g.kw; ++j) {
                const int64_t x = q * g.sw - g.pl + j * g.dw;
                if (x < 0 || x >= g.w) continue;
                f(b, o, p, q, ci, i, j, g.xi(b, gi * g.cg() + ci, y, x));
              }
            }
    }
}

inline Ref conv_ref(const Geo& g, const std::vector<double>& x, const std::vector<double>& w,
                    const std::vector<double>* bias) {
  Ref r;
  r.want.assign(size_t(nt::numel_of(g.ys())), 0);
  r.mag.assign(r.want.size(), 0);
  for_terms(g, [&](int64_t b, int64_t o, int64_t p, int64_t q, int64_t ci, int64_t i, int64_t j, size_t xi) {
    const double t = x[xi] * w[g.wi(o, ci, i, j)];
    r.want[g.yi(b, o, p, q)] += t;
    r.mag[g.yi(b, o, p, q)] += std::fabs(t);
  });
  if (bias)
    for (int64_t b = 0; b < g.n; ++b)
      for (int64_t o = 0; o < g.k; ++o)
        for (int64_t p = 0; p < g.oh; ++p)
          for (int64_t q = 0; q < g.ow; ++q) {
            r.want[g.yi(b, o, p, q)] += (*bias)[size_t(o)];
            r.mag[g.yi(b, o, p, q)] += std::fabs((*bias)[size_t(o)]);
          }
  return r;
}

inline Ref conv_bp_data_ref(const Geo& g, const std::vector<double>& w, const std::vector<double>& dy) {
  Ref r;
  r.want.assign(size_t(nt::numel_of(g.xs())), 0);
  r.mag.assign(r.want.size(), 0);
  for_terms(g, [&](int64_t b, int64_t o, int64_t p, int64_t q, int64_t ci, int64_t i, int64_t j, size_t xi) {
    const double t = dy[g.yi(b, o, p, q)] * w[g.wi(o, ci, i, j)];
    r.want[xi] += t;
    r.mag[xi] += std::fabs(t);
  });
  return r;
}

inline Ref conv_bp_weights_ref(const Geo& g, const std::vector<double>& x, const std::vector<double>& dy) {
  Ref r;
  r.want.assign(size_t(nt::numel_of(g.ws())), 0);
  r.mag.assign(r.want.size(), 0);
  for_terms(g, [&](int64_t b, int64_t o, int64_t p, int64_t q, int64_t ci, int64_t i, int64_t j, size_t xi) {
    const double t = dy[g.yi(b, o, p, q)] * x[xi];
    r.want[g.wi(o, ci, i, j)] += t;
    r.mag[g.wi(o, ci, i, j)] += std::fabs(t);
  });
  return r;
}

inline Ref conv_bp_bias_ref(const Geo& g, const std::vector<double>& dy) {
  Ref r;
  r.want.assign(size_t(g.k), 0);
  r.mag.assign(size_t(g.k), 0);
  for (int64_t b = 0; b < g.n; ++b)
    for (int64_t o = 0; o < g.k; ++o)
      for (int64_t p = 0; p < g.oh; ++p)
        for (int64_t q = 0; q < g.ow; ++q) {
          r.want[size_t(o)] += dy[g.yi(b, o, p, q)];
          r.mag[size_t(o)] += std::fabs(dy[g.yi(b, o, p, q)]);
        }
  return r;
}

// Rounding-error scale per dtype for Ref::extra (accumulation happens in f32 for 16-bit types).
inline double acc_eps(ndrt_dtype d) {
  switch (d) {
    case NDRT_F64: return 1e-14;
    case NDRT_F32: return 2e-6;
    default: return 1e-5;
  }
}

// The implementation names the profiler recorded for `op` since the last clear (its summary table).
inline std::string profiled_impls() {
  size_t needed = 0;
  NT_CHECK(ndrt_profiler_summary(nullptr, 0, &needed));
  std::string buf(needed + 1, '\0');
  NT_CHECK(ndrt_profiler_summary(&buf[0], buf.size(), &needed));
  buf.resize(std::strlen(buf.c_str()));
  return buf;
}

// Runs a one-output op with the profiler on and returns its summary (which names the impl).
inline std::string impl_of(const char* op, const std::vector<const nt::Tensor*>& in, const nt::Attrs& a) {
  NT_CHECK(ndrt_profiler_clear());
  NT_CHECK(ndrt_profiler_enable(1));
  nt::Tensor out = nt::run(op, in, a);
  NT_CHECK(ndrt_profiler_enable(0));
  std::string s = profiled_impls();
  NT_CHECK(ndrt_profiler_clear());
  return s;
}

inline bool contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

// Whether this build has oneDNN: an f32 conv2d with engine=2 (oneDNN only) runs.
inline bool have_onednn() {
  static const bool have = [] {
    Geo g = geo(1, 1, 3, 3, 1, 2, 2);
    nt::Tensor x = nt::from_values(NDRT_F32, g.xs(), std::vector<double>(9, 1.0));
    nt::Tensor w = nt::from_values(NDRT_F32, g.ws(), std::vector<double>(4, 1.0));
    return nt::try_run("conv2d", {&x, &w}, nullptr, conv_attrs(g.resolve(), 2)) == NDRT_OK;
  }();
  return have;
}

}  // namespace ct
