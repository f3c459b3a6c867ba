// Op definitions: 2-D max/avg pooling forward and backward, im2col and col2im. The window
// geometry and its checks are shared with conv2d (conv.cpp, conv_geom.hpp).
#include "../error.hpp"
#include "conv_geom.hpp"
#include "ops.hpp"

namespace ndrt {

namespace {

AttrDef required(AttrDef a) {
  a.required = true;
  return a;
}

Dims col_shape(const Conv2dGeom& g) {
  Dims s{};
  s.rank = 6;
  const int64_t nchw[6] = {g.n, g.c, g.kh, g.kw, g.oh, g.ow}, nhwc[6] = {g.n, g.oh, g.ow, g.kh, g.kw, g.c};
  for (int i = 0; i < 6; ++i) s.d[i] = g.nhwc ? nhwc[i] : nchw[i];
  return s;
}

void infer_pool(OpContext& c) {
  require_float(c, c.in[0]->dtype);
  Conv2dGeom g = pool2d_geom(c);
  c.spec[0] = {c.in[0]->dtype, g.y_shape()};
}

void infer_pool_bp(OpContext& c) {
  require_float(c, c.in[0]->dtype);
  require_same_dtype(c);
  Conv2dGeom g = pool2d_geom(c);
  if (c.in[1]->shape != g.y_shape())
    fail(NDRT_ERR_SHAPE_MISMATCH, "%s: dy has shape %s but the forward output is %s", c.op->name,
         c.in[1]->shape.str().c_str(), g.y_shape().str().c_str());
  c.spec[0] = {c.in[0]->dtype, c.in[0]->shape};
}

void infer_im2col(OpContext& c) {
  require_float(c, c.in[0]->dtype);
  c.spec[0] = {c.in[0]->dtype, col_shape(im2col_geom(c))};
}

void infer_col2im(OpContext& c) {
  require_float(c, c.in[0]->dtype);
  c.spec[0] = {c.in[0]->dtype, col2im_geom(c).x_shape()};
}

#define NDRT_POOL_ATTRS_DOC                                                                                       \
  " Attributes: kernel [kh, kw] (required, >= 1); strides [sh, sw] (empty = the kernel: windows do not "          \
  "overlap); padding [ph, pw] on both sides or [top, bottom, left, right], each smaller than the kernel so every " \
  "window holds an input element; same_padding: TF/Keras 'same' (output ceil(in/stride), the odd padding at the " \
  "bottom/right; exclusive with explicit padding); layout 0 = NCHW, 1 = NHWC. Output size per axis: floor((in + "  \
  "pad_lo + pad_hi - k) / stride) + 1. f16/bf16 compute in f32."

#define NDRT_COL_ATTRS_DOC                                                                                          \
  " strides [sh, sw] (>= 1), padding [ph, pw] or [top, bottom, left, right] (>= 0), same_padding (TF/Keras rule, " \
  "exclusive with padding), dilation [dh, dw] (>= 1), layout 0 = NCHW: image [N, C, H, W], col [N, C, kh, kw, OH, " \
  "OW]; 1 = NHWC: image [N, H, W, C], col [N, OH, OW, kh, kw, C]. col[.., c, i, j, p, q] = image[.., c, p*sh - "     \
  "pad_top + i*dh, q*sw - pad_left + j*dw], 0 in the padding."

}  // namespace

void define_conv_pool_ops(Registry& r) {
  std::vector<AttrDef> pool = {required(attr_ints("kernel", {})), attr_ints("strides", {}), attr_ints("padding", {0, 0}),
                               attr_bool("same_padding", false), attr_int("layout", kNCHW)};
  std::vector<AttrDef> avg = pool;
  avg.push_back(attr_bool("count_include_pad", false));
  r.define({"max_pool2d",
            "2-D max pooling: y[n, c, p, q] = max of x over the window of (p, q); padding never wins (it is -inf). "
            "NaN propagates." NDRT_POOL_ATTRS_DOC,
            {"x"}, {"y"}, pool, infer_pool});
  r.define({"max_pool2d_bp",
            "Gradient of max_pool2d: each dy element goes to the position of its window's maximum in x (the first "
            "one in row-major window order on ties; a NaN counts as the maximum); contributions of overlapping "
            "windows add. Takes the forward input x and dy (shaped as the forward output)." NDRT_POOL_ATTRS_DOC,
            {"x", "dy"}, {"dx"}, pool, infer_pool_bp});
  r.define({"avg_pool2d",
            "2-D average pooling: y = sum of x over the window / divisor. The divisor counts only the window's "
            "elements inside the input (padding excluded: TF/Keras 'same', cuDNN EXCLUDE_PADDING) unless "
            "count_include_pad is set, when it is kh*kw always (PyTorch's default)." NDRT_POOL_ATTRS_DOC
            " count_include_pad: see above (default false).",
            {"x"}, {"y"}, avg, infer_pool});
  r.define({"avg_pool2d_bp",
            "Gradient of avg_pool2d: dx[e] = sum over the windows w holding e of dy[w] / divisor(w). Takes the "
            "forward input x (only its shape and dtype are used) and dy (shaped as the forward "
            "output)." NDRT_POOL_ATTRS_DOC " count_include_pad as in avg_pool2d.",
            {"x", "dy"}, {"dx"}, avg, infer_pool_bp});

  std::vector<AttrDef> col = {required(attr_ints("kernel", {})), attr_ints("strides", {1, 1}),
                              attr_ints("padding", {0, 0}), attr_bool("same_padding", false),
                              attr_ints("dilation", {1, 1}), attr_int("layout", kNCHW)};
  r.define({"im2col",
            "Unfolds every sliding window of an image into columns (the matrix a convolution multiplies): "
            "kernel [kh, kw] (required)," NDRT_COL_ATTRS_DOC
            " Its gradient is col2im with the same attributes and size = [H, W].",
            {"x"}, {"col"}, col, infer_im2col});
  col[0] = required(attr_ints("size", {}));
  r.define({"col2im",
            "Folds columns back into an image, adding the values that land on the same pixel (the adjoint of "
            "im2col; the kernel size comes from col's shape): size [H, W] (required, the image size),"
            NDRT_COL_ATTRS_DOC " Its gradient is im2col with the same attributes.",
            {"col"}, {"x"}, col, infer_col2im});
}

}  // namespace ndrt
