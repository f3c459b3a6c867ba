// Op definitions: conv2d forward/backward. Pooling and im2col/col2im live in conv_pool.cpp; the
// window geometry (attributes -> sizes, paddings, every check) is resolved here for all of them.
#include <algorithm>

#include "../error.hpp"
#include "conv_geom.hpp"
#include "ops.hpp"

namespace ndrt {

namespace {

const char* layout_name(bool nhwc) { return nhwc ? "NHWC" : "NCHW"; }

// A two-value list attribute ([h, w]); `min` is the smallest allowed value.
void pair_attr(const OpContext& c, int k, int64_t min, int64_t out[2]) {
  const char* name = c.op->attrs[size_t(k)].name;
  int32_t n = c.attrs.list_size(k);
  const int64_t* v = c.attrs.list_data(k);
  if (n != 2)
    fail(NDRT_ERR_INVALID_ARGUMENT, "%s: attribute '%s' takes 2 values [h, w], got %d", c.op->name, name, int(n));
  if (v[0] < min || v[1] < min)
    fail(NDRT_ERR_INVALID_ARGUMENT, "%s: attribute '%s' must be >= %lld, got [%lld,%lld]", c.op->name, name,
         (long long)min, (long long)v[0], (long long)v[1]);
  out[0] = v[0];
  out[1] = v[1];
}

// Explicit padding [ph, pw] (both sides) or [top, bottom, left, right]; zeros when same padding.
void padding_attr(const OpContext& c, int k, bool same, int64_t pad[4]) {
  int32_t n = c.attrs.list_size(k);
  const int64_t* v = c.attrs.list_data(k);
  if (n != 2 && n != 4)
    fail(NDRT_ERR_INVALID_ARGUMENT, "%s: attribute 'padding' takes [ph, pw] or [top, bottom, left, right], got %d values",
         c.op->name, int(n));
  for (int i = 0; i < n; ++i)
    if (v[i] < 0)
      fail(NDRT_ERR_INVALID_ARGUMENT, "%s: attribute 'padding' must be >= 0, got %s", c.op->name, dims_str(v, n).c_str());
  for (int i = 0; i < n; ++i)
    if (same && v[i] != 0)
      fail(NDRT_ERR_INVALID_ARGUMENT, "%s: explicit padding %s and same_padding are exclusive (leave padding at zeros)",
           c.op->name, dims_str(v, n).c_str());
  if (n == 2) {
    pad[0] = pad[1] = v[0];
    pad[2] = pad[3] = v[1];
  } else {
    for (int i = 0; i < 4; ++i) pad[i] = v[i];
  }
}

// One spatial axis: padding (TF/Keras "same" rule when `same`) and output size; the dilated
// window must fit the padded input.
void resolve_axis(const OpContext& c, const char* axis, int64_t in, int64_t k, int64_t s, int64_t d, bool same,
                  int64_t& lo, int64_t& hi, int64_t& out) {
  const int64_t ext = (k - 1) * d + 1;
  if (same) {
    out = (in + s - 1) / s;
    int64_t total = std::max<int64_t>((out - 1) * s + ext - in, 0);
    lo = total / 2;
    hi = total - lo;
    if (in == 0) {
      lo = hi = 0;
      out = 0;
    }
    return;
  }
  if (in + lo + hi < ext)
    fail(NDRT_ERR_SHAPE_MISMATCH, "%s: the %s window (kernel %lld, dilation %lld: extent %lld) is larger than the padded input (%lld + %lld + %lld)",
         c.op->name, axis, (long long)k, (long long)d, (long long)ext, (long long)lo, (long long)in, (long long)hi);
  out = (in + lo + hi - ext) / s + 1;
}

void resolve_window(const OpContext& c, Conv2dGeom& g, bool same) {
  resolve_axis(c, "height", g.h, g.kh, g.sh, g.dh, same, g.pt, g.pb, g.oh);
  resolve_axis(c, "width", g.w, g.kw, g.sw, g.dw, same, g.pl, g.pr, g.ow);
}

bool layout_attr(const OpContext& c, int k) {
  int64_t v = c.attrs.get_int(k);
  if (v != kNCHW && v != kNHWC)
    fail(NDRT_ERR_INVALID_ARGUMENT, "%s: attribute 'layout' must be 0 (NCHW) or 1 (NHWC), got %lld", c.op->name, (long long)v);
  return v == kNHWC;
}

// x as a rank-4 image in the layout: fills n, c, h, w.
void image_dims(const OpContext& c, const Tensor& x, const char* what, Conv2dGeom& g) {
  if (x.rank() != 4)
    fail(NDRT_ERR_SHAPE_MISMATCH, "%s: %s must be rank 4 (%s), got %s", c.op->name, what, layout_name(g.nhwc),
         x.shape.str().c_str());
  g.n = x.shape.d[0];
  g.c = x.shape.d[g.nhwc ? 3 : 1];
  g.h = x.shape.d[g.nhwc ? 1 : 2];
  g.w = x.shape.d[g.nhwc ? 2 : 3];
}

Dims dims4(int64_t a, int64_t b, int64_t c, int64_t d) {
  Dims s{};
  s.rank = 4;
  s.d[0] = a;
  s.d[1] = b;
  s.d[2] = c;
  s.d[3] = d;
  return s;
}

// Forward-output shape check for the _bp ops: dy must be exactly what the forward produced.
void check_dy(const OpContext& c, const Tensor& dy, const Dims& want) {
  if (dy.shape != want)
    fail(NDRT_ERR_SHAPE_MISMATCH, "%s: dy has shape %s but the forward output is %s", c.op->name,
         dy.shape.str().c_str(), want.str().c_str());
}

void require_conv_dtypes(const OpContext& c) {
  require_float(c, c.in[0]->dtype);
  require_same_dtype(c);
}

void check_bias(const OpContext& c, const Tensor& b, int64_t k) {
  if (b.rank() != 1 || b.shape.d[0] != k)
    fail(NDRT_ERR_SHAPE_MISMATCH, "%s: b must have shape [%lld] (one value per output channel), got %s", c.op->name,
         (long long)k, b.shape.str().c_str());
}

void infer_conv2d(OpContext& c) {
  require_conv_dtypes(c);
  Conv2dGeom g = conv2d_geom(c);
  if (c.n_in == 3) check_bias(c, *c.in[2], g.k);  // conv2d_bias
  c.spec[0] = {c.in[0]->dtype, g.y_shape()};
}

void infer_conv2d_bp_data(OpContext& c) {
  require_conv_dtypes(c);
  Conv2dGeom g = conv2d_geom(c);
  check_dy(c, *c.in[2], g.y_shape());
  c.spec[0] = {c.in[0]->dtype, c.in[0]->shape};
}

void infer_conv2d_bp_weights(OpContext& c) {
  require_conv_dtypes(c);
  Conv2dGeom g = conv2d_geom(c);
  check_dy(c, *c.in[2], g.y_shape());
  c.spec[0] = {c.in[1]->dtype, c.in[1]->shape};
}

void infer_conv2d_bp_bias(OpContext& c) {
  const Tensor& dy = *c.in[0];
  require_float(c, dy.dtype);
  bool nhwc = layout_attr(c, 0);
  if (dy.rank() != 4)
    fail(NDRT_ERR_SHAPE_MISMATCH, "%s: dy must be rank 4 (%s), got %s", c.op->name, layout_name(nhwc),
         dy.shape.str().c_str());
  Dims s{};
  s.rank = 1;
  s.d[0] = dy.shape.d[nhwc ? 3 : 1];
  c.spec[0] = {dy.dtype, s};
}

}  // namespace

Dims Conv2dGeom::x_shape() const { return nhwc ? dims4(n, h, w, c) : dims4(n, c, h, w); }
Dims Conv2dGeom::y_shape() const { return nhwc ? dims4(n, oh, ow, k) : dims4(n, k, oh, ow); }
Dims Conv2dGeom::w_shape() const {
  int64_t cg = groups > 0 ? c / groups : c;
  return nhwc ? dims4(k, kh, kw, cg) : dims4(k, cg, kh, kw);
}

Conv2dGeom conv2d_geom(const OpContext& c) {
  Conv2dGeom g;
  g.nhwc = layout_attr(c, kConvLayout);
  g.engine = c.attrs.get_int(kConvEngine);
  if (g.engine < kEngineAuto || g.engine > kEngineOnednn)
    fail(NDRT_ERR_INVALID_ARGUMENT, "%s: attribute 'engine' must be 0 (auto), 1 (ndrt) or 2 (onednn), got %lld",
         c.op->name, (long long)g.engine);
  image_dims(c, *c.in[0], "x", g);
  const Tensor& w = *c.in[1];
  g.groups = c.attrs.get_int(kConvGroups);
  if (g.groups < 1)
    fail(NDRT_ERR_INVALID_ARGUMENT, "%s: attribute 'groups' must be >= 1, got %lld", c.op->name, (long long)g.groups);
  if (w.rank() != 4)
    fail(NDRT_ERR_SHAPE_MISMATCH, "%s: w must be rank 4 (%s), got %s", c.op->name, g.nhwc ? "OHWI" : "OIHW",
         w.shape.str().c_str());
  g.k = w.shape.d[0];
  g.kh = w.shape.d[g.nhwc ? 1 : 2];
  g.kw = w.shape.d[g.nhwc ? 2 : 3];
  if (g.c % g.groups)
    fail(NDRT_ERR_SHAPE_MISMATCH, "%s: %lld input channels are not divisible by groups=%lld", c.op->name,
         (long long)g.c, (long long)g.groups);
  if (g.k % g.groups)
    fail(NDRT_ERR_SHAPE_MISMATCH, "%s: %lld output channels (w's first axis) are not divisible by groups=%lld",
         c.op->name, (long long)g.k, (long long)g.groups);
  if (w.shape.d[g.nhwc ? 3 : 1] != g.c / g.groups || g.kh < 1 || g.kw < 1)
    fail(NDRT_ERR_SHAPE_MISMATCH, "%s: w has shape %s; for x %s with groups=%lld it must be %s [out, %s] with %lld input channels per group and a kernel of at least 1x1",
         c.op->name, w.shape.str().c_str(), c.in[0]->shape.str().c_str(), (long long)g.groups,
         g.nhwc ? "OHWI" : "OIHW", g.nhwc ? "kh, kw, in/groups" : "in/groups, kh, kw", (long long)(g.c / g.groups));
  int64_t s[2], d[2], p[4];
  pair_attr(c, kConvStrides, 1, s);
  pair_attr(c, kConvDilation, 1, d);
  bool same = c.attrs.get_bool(kConvSame);
  padding_attr(c, kConvPadding, same, p);
  g.sh = s[0], g.sw = s[1], g.dh = d[0], g.dw = d[1];
  g.pt = p[0], g.pb = p[1], g.pl = p[2], g.pr = p[3];
  resolve_window(c, g, same);
  return g;
}

Conv2dGeom pool2d_geom(const OpContext& c) {
  Conv2dGeom g;
  g.nhwc = layout_attr(c, kPoolLayout);
  image_dims(c, *c.in[0], "x", g);
  g.k = g.c;
  int64_t kr[2], p[4];
  pair_attr(c, kPoolKernel, 1, kr);
  g.kh = kr[0], g.kw = kr[1];
  if (c.attrs.list_size(kPoolStrides) == 0) {  // default: non-overlapping windows
    g.sh = g.kh, g.sw = g.kw;
  } else {
    int64_t s[2];
    pair_attr(c, kPoolStrides, 1, s);
    g.sh = s[0], g.sw = s[1];
  }
  bool same = c.attrs.get_bool(kPoolSame);
  padding_attr(c, kPoolPadding, same, p);
  g.pt = p[0], g.pb = p[1], g.pl = p[2], g.pr = p[3];
  // Every window must hold at least one input element (else max is undefined, avg divides by 0).
  if (g.pt >= g.kh || g.pb >= g.kh || g.pl >= g.kw || g.pr >= g.kw)
    fail(NDRT_ERR_INVALID_ARGUMENT, "%s: padding %s must be smaller than the kernel [%lld,%lld] on every side",
         c.op->name, dims_str(p, 4).c_str(), (long long)g.kh, (long long)g.kw);
  resolve_window(c, g, same);
  if (c.op->attrs.size() > size_t(kPoolIncludePad)) g.include_pad = c.attrs.get_bool(kPoolIncludePad);
  return g;
}

namespace {

void col_common(const OpContext& c, Conv2dGeom& g, int64_t* p) {
  int64_t s[2], d[2];
  pair_attr(c, kColStrides, 1, s);
  pair_attr(c, kColDilation, 1, d);
  padding_attr(c, kColPadding, c.attrs.get_bool(kColSame), p);
  g.sh = s[0], g.sw = s[1], g.dh = d[0], g.dw = d[1];
  g.pt = p[0], g.pb = p[1], g.pl = p[2], g.pr = p[3];
}

}  // namespace

Conv2dGeom im2col_geom(const OpContext& c) {
  Conv2dGeom g;
  g.nhwc = layout_attr(c, kColLayout);
  image_dims(c, *c.in[0], "x", g);
  int64_t kr[2], p[4];
  pair_attr(c, kColKernelOrSize, 1, kr);
  g.kh = kr[0], g.kw = kr[1];
  col_common(c, g, p);
  resolve_window(c, g, c.attrs.get_bool(kColSame));
  g.k = g.c;
  return g;
}

Conv2dGeom col2im_geom(const OpContext& c) {
  Conv2dGeom g;
  g.nhwc = layout_attr(c, kColLayout);
  const Tensor& col = *c.in[0];
  if (col.rank() != 6)
    fail(NDRT_ERR_SHAPE_MISMATCH, "%s: col must be rank 6 (%s), got %s", c.op->name,
         g.nhwc ? "[N, OH, OW, kh, kw, C]" : "[N, C, kh, kw, OH, OW]", col.shape.str().c_str());
  const int64_t* d = col.shape.d;
  g.n = d[0];
  g.c = g.k = g.nhwc ? d[5] : d[1];
  g.kh = g.nhwc ? d[3] : d[2];
  g.kw = g.nhwc ? d[4] : d[3];
  if (g.kh < 1 || g.kw < 1)
    fail(NDRT_ERR_SHAPE_MISMATCH, "%s: col %s has an empty kernel window", c.op->name, col.shape.str().c_str());
  int64_t sz[2], p[4];
  pair_attr(c, kColKernelOrSize, 0, sz);
  g.h = sz[0], g.w = sz[1];
  col_common(c, g, p);
  resolve_window(c, g, c.attrs.get_bool(kColSame));
  int64_t oh = g.nhwc ? d[1] : d[4], ow = g.nhwc ? d[2] : d[5];
  if (oh != g.oh || ow != g.ow)
    fail(NDRT_ERR_SHAPE_MISMATCH, "%s: col %s has %lldx%lld window positions but an image of %lldx%lld with these strides/padding/dilation gives %lldx%lld",
         c.op->name, col.shape.str().c_str(), (long long)oh, (long long)ow, (long long)g.h, (long long)g.w,
         (long long)g.oh, (long long)g.ow);
  return g;
}

Conv2dGeom conv_pool2x2_geom(const OpContext& c) {
  // x, w and b (forward) or dy (backward) share a floating-point dtype; the backward's index is u8.
  require_float(c, c.in[0]->dtype);
  for (int i = 1; i < 3; ++i)
    if (c.in[i]->dtype != c.in[0]->dtype)
      fail(NDRT_ERR_DTYPE_MISMATCH, "%s: input %d is %s but input 0 is %s (cast explicitly)", c.op->name, i,
           dtype_name(c.in[i]->dtype), dtype_name(c.in[0]->dtype));
  Conv2dGeom g;
  const Tensor &x = *c.in[0], &w = *c.in[1];
  image_dims(c, x, "x", g);
  if (w.rank() != 4 || w.shape.d[1] != g.c)
    fail(NDRT_ERR_SHAPE_MISMATCH, "%s: w must have shape [out, %lld, kh, kw] (OIHW, x has %lld channels), got %s",
         c.op->name, (long long)g.c, (long long)g.c, w.shape.str().c_str());
  g.k = w.shape.d[0], g.kh = w.shape.d[2], g.kw = w.shape.d[3];
  if (g.kh < 1 || g.kw < 1 || g.kh > g.h || g.kw > g.w)
    fail(NDRT_ERR_SHAPE_MISMATCH, "%s: the %lldx%lld kernel does not fit the %lldx%lld image", c.op->name,
         (long long)g.kh, (long long)g.kw, (long long)g.h, (long long)g.w);
  g.oh = g.h - g.kh + 1, g.ow = g.w - g.kw + 1;
  if (g.oh % 2 || g.ow % 2)
    fail(NDRT_ERR_SHAPE_MISMATCH, "%s: the convolution's output is %lldx%lld; 2x2 windows at stride 2 need both even",
         c.op->name, (long long)g.oh, (long long)g.ow);
  return g;
}

namespace {

void infer_conv2d_bias_max_pool2x2(OpContext& c) {
  Conv2dGeom g = conv_pool2x2_geom(c);
  check_bias(c, *c.in[2], g.k);
  const Dims pooled = dims4(g.n, g.k, g.oh / 2, g.ow / 2);
  c.spec[0] = {c.in[0]->dtype, pooled};
  c.spec[1] = {NDRT_U8, pooled};
}

void infer_max_pool2x2_bp_index(OpContext& c) {
  const Tensor &dy = *c.in[0], &win = *c.in[1];
  if (win.dtype != NDRT_U8)
    fail(NDRT_ERR_DTYPE_MISMATCH, "%s: index must be u8 (as conv2d_bias_max_pool2x2 writes it), got %s", c.op->name,
         dtype_name(win.dtype));
  require_float(c, dy.dtype);
  if (dy.rank() != 4 || win.shape != dy.shape)
    fail(NDRT_ERR_SHAPE_MISMATCH, "%s: index %s and dy %s must both be the pooled shape [N, C, PH, PW]", c.op->name,
         win.shape.str().c_str(), dy.shape.str().c_str());
  c.spec[0] = {dy.dtype, dims4(dy.shape.d[0], dy.shape.d[1], 2 * dy.shape.d[2], 2 * dy.shape.d[3])};
}

// conv2d_max_pool2x2_bp_weights / _bp_data (x, w, dy, index): the forward's geometry; dy and
// index have its pooled shape.
Conv2dGeom infer_conv_pool2x2_bp(OpContext& c) {
  Conv2dGeom g = conv_pool2x2_geom(c);
  const Tensor &dy = *c.in[2], &win = *c.in[3];
  if (win.dtype != NDRT_U8)
    fail(NDRT_ERR_DTYPE_MISMATCH, "%s: index must be u8 (as conv2d_bias_max_pool2x2 writes it), got %s", c.op->name,
         dtype_name(win.dtype));
  const Dims pooled = dims4(g.n, g.k, g.oh / 2, g.ow / 2);
  if (dy.shape != pooled || win.shape != pooled)
    fail(NDRT_ERR_SHAPE_MISMATCH, "%s: dy %s and index %s must both be the pooled output's shape %s", c.op->name,
         dy.shape.str().c_str(), win.shape.str().c_str(), pooled.str().c_str());
  return g;
}

void infer_conv2d_max_pool2x2_bp_weights(OpContext& c) {
  infer_conv_pool2x2_bp(c);
  c.spec[0] = {c.in[1]->dtype, c.in[1]->shape};
}

void infer_conv2d_max_pool2x2_bp_data(OpContext& c) {
  infer_conv_pool2x2_bp(c);
  c.spec[0] = {c.in[0]->dtype, c.in[0]->shape};
}

}  // namespace

void define_conv_ops(Registry& r) {
  const std::vector<AttrDef> attrs = {attr_ints("strides", {1, 1}), attr_ints("padding", {0, 0}),
                                      attr_bool("same_padding", false), attr_ints("dilation", {1, 1}),
                                      attr_int("groups", 1), attr_int("layout", kNCHW), attr_int("engine", kEngineAuto)};
#define NDRT_CONV_ATTRS_DOC                                                                                          \
  " Attributes: strides [sh, sw] (>= 1); padding [ph, pw] on both sides or [top, bottom, left, right] (>= 0, "     \
  "zeros pad); same_padding: TF/Keras 'same' (output ceil(in/stride), total padding max((out-1)*stride + "         \
  "(k-1)*dilation + 1 - in, 0), the odd one at the bottom/right; exclusive with explicit padding); dilation "       \
  "[dh, dw] (>= 1); groups (input and output channels both divisible by it; groups = channels is depthwise); "     \
  "layout 0 = NCHW with weights OIHW [out, in/groups, kh, kw], 1 = NHWC with weights OHWI [out, kh, kw, "          \
  "in/groups]; engine 0 = auto (oneDNN where available and faster, else ndrt's im2col + BLAS), 1 = ndrt kernels " \
  "only, 2 = oneDNN only (NDRT_ERR_NOT_SUPPORTED where oneDNN cannot run it, e.g. f64). Output size per axis: "    \
  "floor((in + pad_lo + pad_hi - ((k-1)*dilation + 1)) / stride) + 1. f16/bf16 accumulate in f32."
  r.define({"conv2d",
            "2-D convolution (cross-correlation, no kernel flip), no bias: y[n, o, p, q] = sum over c in o's group, "
            "i, j of x[n, c, p*sh - pad_top + i*dh, q*sw - pad_left + j*dw] * w[o, c, i, j] (NCHW indices). "
            "For a bias use conv2d_bias, which fuses it." NDRT_CONV_ATTRS_DOC,
            {"x", "w"}, {"y"}, attrs, infer_conv2d});
  r.define({"conv2d_bias",
            "2-D convolution plus a per-output-channel bias b [out]: y = conv2d(x, w) + b (broadcast over batch "
            "and space), fused in one kernel." NDRT_CONV_ATTRS_DOC,
            {"x", "w", "b"}, {"y"}, attrs, infer_conv2d});
  r.define({"conv2d_bp_data",
            "Gradient of conv2d (and conv2d_bias) with respect to x: dx = conv2d's transpose applied to dy. Takes the "
            "forward inputs x (only its shape and dtype are used) and w, and dy (the gradient of the forward "
            "output, same shape). Same attributes as the forward call." NDRT_CONV_ATTRS_DOC,
            {"x", "w", "dy"}, {"dx"}, attrs, infer_conv2d_bp_data});
  r.define({"conv2d_bp_weights",
            "Gradient of conv2d (and conv2d_bias) with respect to w: dw[o, c, i, j] = sum over n, p, q of dy[n, o, "
            "p, q] * x[n, c, p*sh - pad_top + i*dh, q*sw - pad_left + j*dw]. Takes the forward inputs x and w "
            "(only w's shape and dtype are used) and dy. Same attributes as the forward call." NDRT_CONV_ATTRS_DOC,
            {"x", "w", "dy"}, {"dw"}, attrs, infer_conv2d_bp_weights});
#undef NDRT_CONV_ATTRS_DOC
  r.define({"conv2d_bp_bias",
            "Gradient of conv2d_bias with respect to b: db[o] = sum of dy over batch, height and width. dy is the "
            "gradient of the forward output; layout 0 = NCHW (channels on axis 1), 1 = NHWC (axis 3). f16/bf16 "
            "accumulate in f32, f32/f64 in f64.",
            {"dy"}, {"db"}, {attr_int("layout", kNCHW)}, infer_conv2d_bp_bias});
  r.define({"conv2d_bias_max_pool2x2",
            "conv2d_bias (stride 1, no padding, NCHW, weights OIHW) followed by max_pool2d over 2x2 windows at "
            "stride 2, in one pass: y is exactly max_pool2d(conv2d_bias(x, w, b)) and index[n, o, p, q] (u8) is the "
            "row-major position (0 top left, 1 top right, 2 bottom left, 3 bottom right) of the window element "
            "max_pool2d_bp would send the gradient to (the first NaN, else the first maximum). The convolution's "
            "output must have even height and width (2x2 windows cover it exactly). ndrt's direct kernel pools in "
            "registers and never stores the convolution's output where it applies (f32, AVX-512, output width a "
            "multiple of 8; impl ndrt:direct+pool); elsewhere the convolution runs first (ndrt:conv+pool). "
            "Backward: conv2d_max_pool2x2_bp_weights / _bp_data from the pooled gradient and index, and "
            "conv2d_bp_bias on the pooled gradient (the zeros of the convolution's gradient add nothing); or "
            "max_pool2x2_bp_index, then conv2d_bp_weights / _bp_bias / _bp_data.",
            {"x", "w", "b"}, {"y", "index"}, {}, infer_conv2d_bias_max_pool2x2});
  r.define({"max_pool2x2_bp_index",
            "Gradient of 2x2 max pooling at stride 2 from the window winners conv2d_bias_max_pool2x2 wrote: dx [N, C, "
            "2*PH, 2*PW] holds 0 + dy[n, c, p, q] at row 2p + index/2, column 2q + index%2 of each window and 0 "
            "elsewhere, exactly what max_pool2d_bp gives from the pooled input. index (u8, values 0..3; others are "
            "an error) and dy have the pooled shape. dtypes f32, f64 (dy's).",
            {"dy", "index"}, {"dx"}, {}, infer_max_pool2x2_bp_index});
  r.define({"conv2d_max_pool2x2_bp_weights",
            "Gradient of conv2d_bias_max_pool2x2 with respect to w, from dy (the gradient of its pooled output y) "
            "and the index it wrote: dw[o, c, i, j] = sum over n, p, q of dy[n, o, p, q] * x[n, c, 2p + index/2 + "
            "i, 2q + index%2 + j] (index at [n, o, p, q]), which is conv2d_bp_weights(x, w, max_pool2x2_bp_index("
            "dy, index)) without the terms of the zeros: a quarter of the multiply-adds. Takes the forward's x and w "
            "(only w's shape and dtype are used); dy and index have y's shape; an index above 3 is an error. dtypes "
            "f32 (AVX-512 register tiles where a kernel row of x channels-last, kw * channels, is at most 112 "
            "floats: impl ndrt:sparse+avx512; else ndrt:sparse), f64.",
            {"x", "w", "dy", "index"}, {"dw"}, {}, infer_conv2d_max_pool2x2_bp_weights});
  r.define({"conv2d_max_pool2x2_bp_data",
            "Gradient of conv2d_bias_max_pool2x2 with respect to x, from dy (the gradient of its pooled output y) "
            "and the index it wrote: dx[n, c, 2p + index/2 + i, 2q + index%2 + j] accumulates dy[n, o, p, q] * "
            "w[o, c, i, j] over o, p, q, i, j (index at [n, o, p, q]), which is conv2d_bp_data(x, w, "
            "max_pool2x2_bp_index(dy, index)) without the terms of the zeros: a quarter of the multiply-adds. Takes "
            "the forward's x (only its shape and dtype are used) and w; dy and index have y's shape; an index above "
            "3 is an error. dtypes and implementations as conv2d_max_pool2x2_bp_weights.",
            {"x", "w", "dy", "index"}, {"dx"}, {}, infer_conv2d_max_pool2x2_bp_data});
  define_conv_pool_ops(r);
}

}  // namespace ndrt
