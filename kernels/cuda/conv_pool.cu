// CUDA conv family, ops without cuDNN: max/avg pooling forward and backward, im2col and col2im,
// and conv2d_bp_bias (per-channel sums; here so a module built without cuDNN keeps it). Own
// kernels rather than cuDNN pooling, to keep the cpu's exact semantics (kernels/cpu/conv_pool.cpp):
// asymmetric padding (cuDNN pads symmetrically), count_include_pad dividing by kh*kw even where a
// window hangs over the padded input, NaN winning max windows, and the gradient of a max going to
// the FIRST maximum of its window in row-major order.
//
// Every kernel owns the elements it writes (gathers, no atomics): the backward passes and col2im
// visit, per input element, the windows that cover it. Max backward first records each window's
// argmax (window-local index) in scratch. Tensors are read and written through their strides, so
// views need no packing. f16/bf16 accumulate in f32.
#include <climits>
#include <limits>

#include "channel_sums.cuh"
#include "conv_window.cuh"
#include "cuda_common.cuh"

namespace ndrt::cuda {

namespace {

using dense::first_index;
using dense::grid_step;
using win::Image;

// Window of output (oh, ow) clipped to the image: rows [h0, h1), columns [w0, w1).
struct Window {
  int64_t top, left;  // unclipped origin
  int64_t h0, h1, w0, w1;
};
__device__ inline Window window_of(const Conv2dGeom& g, int64_t oh, int64_t ow) {
  Window b;
  b.top = oh * g.sh - g.pt;
  b.left = ow * g.sw - g.pl;
  b.h0 = b.top > 0 ? b.top : 0;
  b.h1 = b.top + g.kh < g.h ? b.top + g.kh : g.h;
  b.w0 = b.left > 0 ? b.left : 0;
  b.w1 = b.left + g.kw < g.w ? b.left + g.kw : g.w;
  return b;
}

template <class A>
__device__ inline A divisor(const Conv2dGeom& g, const Window& b) {
  return g.include_pad ? A(g.kh * g.kw) : A((b.h1 - b.h0) * (b.w1 - b.w0));
}

// Output positions [lo, hi] along one axis whose windows (stride s, origin o*s - pad, extent k)
// cover input coordinate i.
__device__ inline void covering(int64_t i, int64_t pad, int64_t k, int64_t s, int64_t out, int64_t& lo,
                                int64_t& hi) {
  const int64_t a = i + pad - k + 1;  // smallest origin + pad that still covers i
  lo = a <= 0 ? 0 : (a + s - 1) / s;
  hi = (i + pad) / s;
  if (hi > out - 1) hi = out - 1;
}

template <class T, bool Max>
__global__ void pool_forward(Image x, Image y, Conv2dGeom g, int64_t total) {
  using A = compute_t<T>;
  for (int64_t i = first_index(); i < total; i += grid_step()) {
    int64_t n, c, oh, ow;
    y.coords(i, g.nhwc, n, c, oh, ow);
    const Window b = window_of(g, oh, ow);
    A acc = Max ? -std::numeric_limits<A>::infinity() : A(0);
    for (int64_t h = b.h0; h < b.h1; ++h)
      for (int64_t w = b.w0; w < b.w1; ++w) {
        const A v = convert<A>(x.at<T>(n, c, h, w));
        if (Max)
          acc = (v > acc || v != v) ? v : acc;  // a NaN wins and stays
        else
          acc += v;
      }
    y.at<T>(n, c, oh, ow) = convert<T>(Max ? acc : acc / divisor<A>(g, b));
  }
}

// arg[((n * C + c) * OH + oh) * OW + ow] = window-local index (row-major in the kh x kw window) of
// the window's first maximum; a NaN counts as the maximum (the first one).
template <class T>
__global__ void pool_argmax(Image x, Conv2dGeom g, int32_t* arg, int64_t total) {
  using A = compute_t<T>;
  for (int64_t i = first_index(); i < total; i += grid_step()) {
    int64_t r = i;
    const int64_t ow = r % g.ow;
    r /= g.ow;
    const int64_t oh = r % g.oh;
    r /= g.oh;
    const int64_t c = r % g.c, n = r / g.c;
    const Window b = window_of(g, oh, ow);
    A best = -std::numeric_limits<A>::infinity();
    int64_t at = (b.h0 - b.top) * g.kw + (b.w0 - b.left);
    for (int64_t h = b.h0; h < b.h1; ++h)
      for (int64_t w = b.w0; w < b.w1; ++w) {
        const A v = convert<A>(x.at<T>(n, c, h, w));
        if (v > best || (v != v && best == best)) {
          best = v;
          at = (h - b.top) * g.kw + (w - b.left);
        }
      }
    arg[i] = int32_t(at);
  }
}

// dx(n, c, h, w) = sum over the windows covering (h, w) of their share of dy: all of it where
// (h, w) is the window's argmax (max), dy / divisor (avg).
template <class T, bool Max>
__global__ void pool_backward(Image dy, Image dx, Conv2dGeom g, const int32_t* arg, int64_t total) {
  using A = compute_t<T>;
  for (int64_t i = first_index(); i < total; i += grid_step()) {
    int64_t n, c, h, w;
    dx.coords(i, g.nhwc, n, c, h, w);
    int64_t oh0, oh1, ow0, ow1;
    covering(h, g.pt, g.kh, g.sh, g.oh, oh0, oh1);
    covering(w, g.pl, g.kw, g.sw, g.ow, ow0, ow1);
    A acc = A(0);
    for (int64_t oh = oh0; oh <= oh1; ++oh)
      for (int64_t ow = ow0; ow <= ow1; ++ow) {
        const Window b = window_of(g, oh, ow);
        const A d = convert<A>(dy.at<T>(n, c, oh, ow));
        if (Max) {
          const int64_t local = (h - b.top) * g.kw + (w - b.left);
          if (arg[((n * g.c + c) * g.oh + oh) * g.ow + ow] == local) acc += d;
        } else {
          acc += d / divisor<A>(g, b);
        }
      }
    dx.at<T>(n, c, h, w) = convert<T>(acc);
  }
}

template <class T, bool Max>
void pool_forward_run(OpContext& c) {
  const Conv2dGeom g = win::pool(c);
  const Tensor& y = *c.out[0];
  const int64_t total = y.numel();
  if (total == 0) return;
  const Launch l = launch_for(total);
  pool_forward<T, Max><<<l.grid, l.block, 0, stream(c)>>>(win::image_of(*c.in[0], g.nhwc), win::image_of(y, g.nhwc),
                                                          g, total);
  check_launch(c.op->name);
}

template <class T, bool Max>
void pool_backward_run(OpContext& c) {
  const Conv2dGeom g = win::pool(c);
  const Tensor& dx = *c.out[0];
  const int64_t total = dx.numel();
  if (total == 0) return;
  cudaStream_t st = stream(c);
  std::optional<Scratch> arg;
  const int64_t windows = g.n * g.c * g.oh * g.ow;
  if (Max && windows > 0) {
    if (g.kh * g.kw > INT32_MAX) fail(NDRT_ERR_NOT_SUPPORTED, "%s: pooling window too large", c.op->name);
    arg.emplace(c.device, size_t(windows) * sizeof(int32_t));
    const Launch l = launch_for(windows);
    pool_argmax<T><<<l.grid, l.block, 0, st>>>(win::image_of(*c.in[0], g.nhwc), g, arg->as<int32_t>(), windows);
    check_launch(c.op->name);
  }
  const Launch l = launch_for(total);
  pool_backward<T, Max><<<l.grid, l.block, 0, st>>>(win::image_of(*c.in[1], g.nhwc), win::image_of(dx, g.nhwc), g,
                                                    arg ? arg->as<int32_t>() : nullptr, total);
  check_launch(c.op->name);
}

// ---- im2col / col2im ----------------------------------------------------------------------------

// A rank-6 col tensor addressed by (n, c, i, j, oh, ow): NCHW col [N, C, kh, kw, OH, OW], NHWC col
// [N, OH, OW, kh, kw, C].
struct Col {
  char* base;
  int64_t s[6];
  bool nhwc;
  template <class T>
  __device__ T& at(int64_t n, int64_t c, int64_t i, int64_t j, int64_t oh, int64_t ow) const {
    const int64_t off = nhwc ? n * s[0] + oh * s[1] + ow * s[2] + i * s[3] + j * s[4] + c * s[5]
                             : n * s[0] + c * s[1] + i * s[2] + j * s[3] + oh * s[4] + ow * s[5];
    return reinterpret_cast<T*>(base)[off];
  }
};
Col col_of(const Tensor& t, bool nhwc) {
  Col col;
  col.base = dense::base_of(t);
  for (int i = 0; i < 6; ++i) col.s[i] = t.strides.d[i];
  col.nhwc = nhwc;
  return col;
}

// col[n, c, i, j, oh, ow] = x[n, c, oh*sh - pt + i*dh, ow*sw - pl + j*dw], 0 in the padding.
template <class T>
__global__ void im2col_kernel(Image x, Col col, Conv2dGeom g, int64_t total) {
  for (int64_t e = first_index(); e < total; e += grid_step()) {
    int64_t r = e, n, c, i, j, oh, ow;
    if (g.nhwc) {
      c = r % g.c, r /= g.c;
      j = r % g.kw, r /= g.kw;
      i = r % g.kh, r /= g.kh;
      ow = r % g.ow, r /= g.ow;
      oh = r % g.oh, n = r / g.oh;
    } else {
      ow = r % g.ow, r /= g.ow;
      oh = r % g.oh, r /= g.oh;
      j = r % g.kw, r /= g.kw;
      i = r % g.kh, r /= g.kh;
      c = r % g.c, n = r / g.c;
    }
    const int64_t h = oh * g.sh - g.pt + i * g.dh, w = ow * g.sw - g.pl + j * g.dw;
    const bool inside = h >= 0 && h < g.h && w >= 0 && w < g.w;
    col.at<T>(n, c, i, j, oh, ow) = inside ? x.at<T>(n, c, h, w) : convert<T>(0.0f);
  }
}

// x(n, c, h, w) = sum of the col entries that im2col would read from (h, w).
template <class T>
__global__ void col2im_kernel(Col col, Image x, Conv2dGeom g, int64_t total) {
  using A = compute_t<T>;
  for (int64_t e = first_index(); e < total; e += grid_step()) {
    int64_t n, c, h, w;
    x.coords(e, g.nhwc, n, c, h, w);
    A acc = A(0);
    for (int64_t i = 0; i < g.kh; ++i) {
      const int64_t th = h + g.pt - i * g.dh;
      if (th < 0 || th % g.sh) continue;
      const int64_t oh = th / g.sh;
      if (oh >= g.oh) continue;
      for (int64_t j = 0; j < g.kw; ++j) {
        const int64_t tw = w + g.pl - j * g.dw;
        if (tw < 0 || tw % g.sw) continue;
        const int64_t ow = tw / g.sw;
        if (ow >= g.ow) continue;
        acc += convert<A>(col.at<T>(n, c, i, j, oh, ow));
      }
    }
    x.at<T>(n, c, h, w) = convert<T>(acc);
  }
}

template <class T>
void im2col_run(OpContext& c) {
  const Conv2dGeom g = win::im2col(c);
  const Tensor& col = *c.out[0];
  const int64_t total = col.numel();
  if (total == 0) return;
  const Launch l = launch_for(total);
  im2col_kernel<T><<<l.grid, l.block, 0, stream(c)>>>(win::image_of(*c.in[0], g.nhwc), col_of(col, g.nhwc), g, total);
  check_launch("im2col");
}

template <class T>
void col2im_run(OpContext& c) {
  const Conv2dGeom g = win::col2im(c);
  const Tensor& x = *c.out[0];
  const int64_t total = x.numel();
  if (total == 0) return;
  const Launch l = launch_for(total);
  col2im_kernel<T><<<l.grid, l.block, 0, stream(c)>>>(col_of(*c.in[0], g.nhwc), win::image_of(x, g.nhwc), g, total);
  check_launch("col2im");
}

// ---- conv2d_bp_bias -----------------------------------------------------------------------------

template <class T>
struct SumOf {
  const T* x;
  __device__ void operator()(int64_t e, int64_t, double* v) const { v[0] = double(convert<compute_t<T>>(x[e])); }
};
template <class T>
struct StoreSum {
  T* out;
  int64_t stride;
  __device__ void operator()(int64_t c, const double* s) const { out[c * stride] = convert<T>(s[0]); }
};

// db[k] = sum of dy over n, h, w, in f64 (as the cpu).
template <class T>
void bp_bias_run(OpContext& c) {
  const bool nhwc = c.attrs.get_int(0) == kNHWC;
  const Tensor &dy = *c.in[0], &db = *c.out[0];
  const int64_t K = db.numel();
  if (K == 0) return;
  const int64_t N = dy.shape.d[0], P = nhwc ? dy.shape.d[1] * dy.shape.d[2] : dy.shape.d[2] * dy.shape.d[3];
  const dense::In DY(c, dy);
  const StoreSum<T> store{reinterpret_cast<T*>(dense::base_of(db)), db.strides.d[0]};
  if (nhwc)
    chan::channel_sums<1>(c, N * P, K, 1, SumOf<T>{DY.as<T>()}, store);
  else
    chan::channel_sums<1>(c, N, K, P, SumOf<T>{DY.as<T>()}, store);
}

void conv_bp_bias(OpContext& c) {
  c.impl = "cuda";
  visit<NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16>(c.in[0]->dtype, "conv2d_bp_bias",
                                                  [&](auto t) { bp_bias_run<decltype(t)>(c); });
}

// ---- registration -------------------------------------------------------------------------------

template <template <class> class Run>
void by_dtype(OpContext& c) {
  c.impl = "cuda";
  visit<NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16>(c.in[0]->dtype, c.op->name, [&](auto t) { Run<decltype(t)>::go(c); });
}
template <class T> struct MaxPool { static void go(OpContext& c) { pool_forward_run<T, true>(c); } };
template <class T> struct AvgPool { static void go(OpContext& c) { pool_forward_run<T, false>(c); } };
template <class T> struct MaxPoolBp { static void go(OpContext& c) { pool_backward_run<T, true>(c); } };
template <class T> struct AvgPoolBp { static void go(OpContext& c) { pool_backward_run<T, false>(c); } };
template <class T> struct Im2col { static void go(OpContext& c) { im2col_run<T>(c); } };
template <class T> struct Col2im { static void go(OpContext& c) { col2im_run<T>(c); } };

}  // namespace

void register_cuda_conv_pool() {
  const std::initializer_list<ndrt_dtype> floats = {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16};
  reg("max_pool2d", floats, by_dtype<MaxPool>, "cuda");
  reg("avg_pool2d", floats, by_dtype<AvgPool>, "cuda");
  reg("max_pool2d_bp", floats, by_dtype<MaxPoolBp>, "cuda");
  reg("avg_pool2d_bp", floats, by_dtype<AvgPoolBp>, "cuda");
  reg("im2col", floats, by_dtype<Im2col>, "cuda");
  reg("col2im", floats, by_dtype<Col2im>, "cuda");
  reg("conv2d_bp_bias", floats, conv_bp_bias, "cuda");
}

}  // namespace ndrt::cuda
