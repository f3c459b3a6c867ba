// Op definitions: conv1d forward/backward, run as conv2d over a unit-height image.
//
// A [N, C, W] sequence is a [N, C, 1, W] image (NWC: [N, 1, W, C]) and a [K, C/g, kw] kernel a
// [K, C/g, 1, kw] one, both as views of the same memory; so every backend's conv2d kernel (oneDNN,
// im2col + GEMM, cuDNN) runs conv1d unchanged. The conv1d kernels are registered after all backends
// have registered theirs, for exactly the (backend, dtype) pairs where the matching conv2d op has
// a kernel: no backend claims a conv1d it cannot run.
#include <cstring>

#include "../error.hpp"
#include "conv_geom.hpp"
#include "ops.hpp"

namespace ndrt {

namespace {

// Attribute positions of conv1d, conv1d_bias and their _bp_data/_bp_weights ops.
enum Conv1dAttr { k1Stride = 0, k1Padding, k1Same, k1Dilation, k1Groups, k1Layout, k1Engine };

// The conv1d ops and the conv2d ops they run as, in one table; `shadow` is a copy of the conv2d
// op's definition (its kernels) under the conv1d op's name, so conv2d's checks and the profiler
// name conv1d.
struct Lowering {
  const char* conv1d;
  const char* conv2d;
  const OpDef* op = nullptr;
  OpDef* shadow = nullptr;
};
Lowering g_lowerings[] = {{"conv1d", "conv2d"},
                          {"conv1d_bias", "conv2d_bias"},
                          {"conv1d_bp_data", "conv2d_bp_data"},
                          {"conv1d_bp_weights", "conv2d_bp_weights"},
                          {"conv1d_bp_bias", "conv2d_bp_bias"}};

bool is_bp_bias(const OpContext& c) { return c.n_in == 1; }

bool nwc_attr(const OpContext& c) {
  int64_t v = c.attrs.get_int(is_bp_bias(c) ? 0 : k1Layout);
  if (v != kNCHW && v != kNHWC)
    fail(NDRT_ERR_INVALID_ARGUMENT, "%s: attribute 'layout' must be 0 (NCW) or 1 (NWC), got %lld", c.op->name,
         (long long)v);
  return v == kNHWC;
}

void require_rank3(const OpContext& c, const Tensor& t, const char* what, const char* layout) {
  if (t.rank() != 3)
    fail(NDRT_ERR_SHAPE_MISMATCH, "%s: %s must be rank 3 (%s), got %s", c.op->name, what, layout, t.shape.str().c_str());
}

// The 1-D checks, so that errors speak of sequences and [K, C/g, kw] kernels, not of images.
void check_conv1d(const OpContext& c) {
  const bool nwc = nwc_attr(c);
  if (is_bp_bias(c)) {
    require_float(c, c.in[0]->dtype);
    require_rank3(c, *c.in[0], "dy", nwc ? "NWC" : "NCW");
    return;
  }
  require_float(c, c.in[0]->dtype);
  require_same_dtype(c);
  const Tensor &x = *c.in[0], &w = *c.in[1];
  require_rank3(c, x, "x", nwc ? "NWC [batch, width, channels]" : "NCW [batch, channels, width]");
  require_rank3(c, w, "w", nwc ? "[out, kw, in/groups]" : "[out, in/groups, kw]");
  if (c.n_in == 3 && std::strcmp(c.op->inputs[2], "dy") == 0) require_rank3(c, *c.in[2], "dy", nwc ? "NWC" : "NCW");
  const int64_t stride = c.attrs.get_int(k1Stride), dilation = c.attrs.get_int(k1Dilation);
  const int64_t groups = c.attrs.get_int(k1Groups);
  if (stride < 1 || dilation < 1 || groups < 1)
    fail(NDRT_ERR_INVALID_ARGUMENT, "%s: stride, dilation and groups must be >= 1, got %lld, %lld, %lld", c.op->name,
         (long long)stride, (long long)dilation, (long long)groups);
  const int32_t np = c.attrs.list_size(k1Padding);
  const int64_t* p = c.attrs.list_data(k1Padding);
  if (np != 1 && np != 2)
    fail(NDRT_ERR_INVALID_ARGUMENT, "%s: attribute 'padding' takes [p] (both sides) or [left, right], got %d values",
         c.op->name, int(np));
  for (int i = 0; i < np; ++i)
    if (p[i] < 0 || (p[i] != 0 && c.attrs.get_bool(k1Same)))
      fail(NDRT_ERR_INVALID_ARGUMENT, "%s: padding %s must be >= 0, and zeros with same_padding", c.op->name,
           dims_str(p, np).c_str());
  const int64_t C = x.shape.d[nwc ? 2 : 1], K = w.shape.d[0], cg = w.shape.d[nwc ? 2 : 1], kw = w.shape.d[nwc ? 1 : 2];
  if (C % groups || K % groups)
    fail(NDRT_ERR_SHAPE_MISMATCH, "%s: %lld input and %lld output channels must both be divisible by groups=%lld",
         c.op->name, (long long)C, (long long)K, (long long)groups);
  if (cg != C / groups || kw < 1)
    fail(NDRT_ERR_SHAPE_MISMATCH, "%s: w has shape %s; for x %s with groups=%lld it must be %s with %lld input channels per group and a kernel of at least 1",
         c.op->name, w.shape.str().c_str(), x.shape.str().c_str(), (long long)groups,
         nwc ? "[out, kw, in/groups]" : "[out, in/groups, kw]", (long long)(C / groups));
}

// A rank-3 view as rank 4 with a unit axis at `at`: same memory, same element order.
Tensor with_unit_axis(const Tensor& t, int at) {
  Tensor v = t;
  v.shape.rank = v.strides.rank = 4;
  for (int i = 3; i > at; --i) {
    v.shape.d[i] = t.shape.d[i - 1];
    v.strides.d[i] = t.strides.d[i - 1];
  }
  v.shape.d[at] = 1;
  v.strides.d[at] = t.strides.d[at] * t.shape.d[at];  // what a dense tensor would have there
  return v;
}

// The conv2d call that is this conv1d call: views, attributes, and the shadow definition.
struct Lowered {
  OpContext c;
  Tensor in[3], out;
};

void lower(const OpContext& c, const OpDef& shadow, Lowered& L) {
  const bool nwc = nwc_attr(c);
  const int at = nwc ? 1 : 2;  // the height axis of NHWC / NCHW
  L.c.op = &shadow;
  L.c.device = c.device;
  L.c.key_dtype = c.key_dtype;
  L.c.n_in = c.n_in;
  L.c.n_out = c.n_out;
  for (int i = 0; i < c.n_in; ++i) {
    L.in[i] = c.in[i]->rank() == 3 ? with_unit_axis(*c.in[i], at) : *c.in[i];
    L.c.in[i] = &L.in[i];
  }
  L.c.out[0] = nullptr;
  if (c.out[0]) {
    L.out = c.out[0]->rank() == 3 ? with_unit_axis(*c.out[0], at) : *c.out[0];
    L.c.out[0] = &L.out;
  }
  Attrs& a = L.c.attrs;
  if (is_bp_bias(c)) {
    a.i[0] = c.attrs.get_int(0);
    return;
  }
  const int64_t* p = c.attrs.list_data(k1Padding);
  const bool two = c.attrs.list_size(k1Padding) == 2;
  const int64_t lists[3][4] = {{1, c.attrs.get_int(k1Stride)}, {0, 0, p[0], two ? p[1] : p[0]},
                               {1, c.attrs.get_int(k1Dilation)}};
  const int list_attr[3] = {kConvStrides, kConvPadding, kConvDilation};
  const int list_len[3] = {2, 4, 2};
  a.list_used = 0;
  for (int k = 0; k < 3; ++k) {
    a.list_begin[list_attr[k]] = a.list_used;
    a.list_len[list_attr[k]] = list_len[k];
    for (int j = 0; j < list_len[k]; ++j) a.list[a.list_used++] = lists[k][j];
  }
  a.i[kConvSame] = c.attrs.get_int(k1Same);
  a.i[kConvGroups] = c.attrs.get_int(k1Groups);
  a.i[kConvLayout] = c.attrs.get_int(k1Layout);
  a.i[kConvEngine] = c.attrs.get_int(k1Engine);
}

Lowering& lowering_of(const OpDef* op) {
  for (Lowering& l : g_lowerings)
    if (l.op == op) return l;
  fail(NDRT_ERR_INTERNAL, "%s: no conv2d lowering registered", op->name);
}

Dims dims3(int64_t a, int64_t b, int64_t c) {
  Dims s{};
  s.rank = 3;
  s.d[0] = a, s.d[1] = b, s.d[2] = c;
  return s;
}

void infer_conv1d(OpContext& c) {
  check_conv1d(c);
  const bool nwc = nwc_attr(c);
  const Tensor& x = *c.in[0];
  if (is_bp_bias(c)) {
    Dims s{};
    s.rank = 1;
    s.d[0] = x.shape.d[nwc ? 2 : 1];
    c.spec[0] = {x.dtype, s};
    return;
  }
  // The lowered call's conv2d geometry gives the output width and checks the window's extent.
  Lowered L;
  lower(c, *lowering_of(c.op).shadow, L);
  const Conv2dGeom g = conv2d_geom(L.c);
  const Dims y = nwc ? dims3(g.n, g.ow, g.k) : dims3(g.n, g.k, g.ow);
  const char* out = c.op->outputs[0];
  if (std::strcmp(out, "y") == 0) {
    if (c.n_in == 3) {
      const Tensor& b = *c.in[2];
      if (b.rank() != 1 || b.shape.d[0] != g.k)
        fail(NDRT_ERR_SHAPE_MISMATCH, "%s: b must have shape [%lld] (one value per output channel), got %s",
             c.op->name, (long long)g.k, b.shape.str().c_str());
    }
    c.spec[0] = {x.dtype, y};
    return;
  }
  const Tensor& dy = *c.in[2];
  if (dy.shape != y)
    fail(NDRT_ERR_SHAPE_MISMATCH, "%s: dy has shape %s but the forward output is %s", c.op->name,
         dy.shape.str().c_str(), y.str().c_str());
  c.spec[0] = {x.dtype, std::strcmp(out, "dx") == 0 ? x.shape : c.in[1]->shape};
}

// The kernel of every conv1d op on every backend: the conv2d kernel on the lowered call.
void conv1d_kernel(OpContext& c) {
  const OpDef& shadow = *lowering_of(c.op).shadow;
  Lowered L;
  lower(c, shadow, L);
  L.c.impl = c.impl;
  shadow.kernels[backend_of(c.device)][c.key_dtype](L.c);
  c.impl = L.c.impl;
}

}  // namespace

void define_conv1d_ops(Registry& r) {
  const std::vector<AttrDef> attrs = {attr_int("stride", 1),          attr_ints("padding", {0}),
                                      attr_bool("same_padding", false), attr_int("dilation", 1),
                                      attr_int("groups", 1),            attr_int("layout", kNCHW),
                                      attr_int("engine", kEngineAuto)};
#define NDRT_CONV1D_ATTRS_DOC                                                                                       \
  " Attributes: stride (>= 1); padding [p] on both sides or [left, right] (>= 0, zeros pad); same_padding: "      \
  "TF/Keras 'same' (output ceil(W/stride), the odd padding on the right; exclusive with explicit padding); "     \
  "dilation (>= 1); groups (input and output channels both divisible by it); layout 0 = NCW, x [N, C, W] and "   \
  "w [out, in/groups, kw] (DL4J's and PyTorch's), 1 = NWC, x [N, W, C] and w [out, kw, in/groups]; engine as "  \
  "conv2d's. Output width floor((W + left + right - ((kw-1)*dilation + 1)) / stride) + 1. Runs as conv2d over " \
  "a unit-height image (views of the same memory), so every conv2d implementation serves it and the profiler "   \
  "names the one that ran."
  r.define({"conv1d",
            "1-D convolution (cross-correlation), no bias: y[n, o, t] = sum over c in o's group and j of "
            "x[n, c, t*stride - left + j*dilation] * w[o, c, j] (NCW indices)." NDRT_CONV1D_ATTRS_DOC,
            {"x", "w"}, {"y"}, attrs, infer_conv1d});
  r.define({"conv1d_bias",
            "1-D convolution plus a per-output-channel bias b [out], fused: y = conv1d(x, w) + b." NDRT_CONV1D_ATTRS_DOC,
            {"x", "w", "b"}, {"y"}, attrs, infer_conv1d});
  r.define({"conv1d_bp_data",
            "Gradient of conv1d (and conv1d_bias) with respect to x. Takes the forward inputs x (only its shape "
            "and dtype are used) and w, and dy; same attributes as the forward call." NDRT_CONV1D_ATTRS_DOC,
            {"x", "w", "dy"}, {"dx"}, attrs, infer_conv1d});
  r.define({"conv1d_bp_weights",
            "Gradient of conv1d (and conv1d_bias) with respect to w. Takes the forward inputs x and w (only its "
            "shape and dtype are used) and dy; same attributes as the forward call." NDRT_CONV1D_ATTRS_DOC,
            {"x", "w", "dy"}, {"dw"}, attrs, infer_conv1d});
#undef NDRT_CONV1D_ATTRS_DOC
  r.define({"conv1d_bp_bias",
            "Gradient of conv1d_bias with respect to b: db[o] = sum of dy over batch and width. layout 0 = NCW "
            "(channels on axis 1), 1 = NWC (axis 2). f16/bf16 accumulate in f32, f32/f64 in f64.",
            {"dy"}, {"db"}, {attr_int("layout", kNCHW)}, infer_conv1d});
}

void register_conv1d_kernels(Registry& r) {
  for (Lowering& l : g_lowerings) {
    const int32_t id1 = r.find(l.conv1d), id2 = r.find(l.conv2d);
    if (id1 < 0 || id2 < 0) fail(NDRT_ERR_INTERNAL, "conv1d lowering: op '%s' or '%s' undefined", l.conv1d, l.conv2d);
    l.op = &r.get(id1);
    l.shadow = new OpDef(r.get(id2));  // lives as long as the registry (never destroyed)
    l.shadow->name = l.conv1d;
    for (int b = 0; b < kNumBackends; ++b)
      for (int d = 1; d < kNumDtypes; ++d)
        if (l.shadow->kernels[b][d])
          r.kernel(l.conv1d, Backend(b), {ndrt_dtype(d)}, conv1d_kernel, l.shadow->impl[b][d]);
  }
}

}  // namespace ndrt
