// Geometry of the conv family (conv2d, pooling, im2col/col2im): attribute positions, the resolved
// window geometry of one call, and the checks that turn attributes + shapes into it. Shape
// inference (runtime/ops/conv*.cpp) and the cpu kernels (kernels/cpu/conv*.cpp) both compute it
// from the same OpContext, so they can never disagree.
#pragma once
#include <cstdint>

#include "../registry.hpp"

namespace ndrt {

enum ConvLayout : int64_t { kNCHW = 0, kNHWC = 1 };
// The `engine` attribute (always the op's last attribute): which implementation may run.
enum ConvEngine : int64_t { kEngineAuto = 0, kEngineNdrt = 1, kEngineOnednn = 2 };

// Attribute positions of conv2d, conv2d_bias and their _bp ops.
enum ConvAttr { kConvStrides = 0, kConvPadding, kConvSame, kConvDilation, kConvGroups, kConvLayout, kConvEngine };
// Attribute positions of max_pool2d / avg_pool2d and their _bp ops (avg adds count_include_pad).
enum PoolAttr { kPoolKernel = 0, kPoolStrides, kPoolPadding, kPoolSame, kPoolLayout, kPoolIncludePad };
// Attribute positions of im2col (kernel) and col2im (size [H, W] of the image).
enum ColAttr { kColKernelOrSize = 0, kColStrides, kColPadding, kColSame, kColDilation, kColLayout };

// One 2-D sliding-window problem. Input x is [n, c, h, w] (NCHW) or [n, h, w, c] (NHWC); the
// output has k channels and oh x ow positions. Window position (oh, ow) covers input rows
// oh*sh - pt + i*dh (i < kh) and columns ow*sw - pl + j*dw (j < kw); outside is padding.
struct Conv2dGeom {
  bool nhwc = false;
  int64_t n = 0, c = 0, h = 0, w = 0;
  int64_t k = 0, kh = 1, kw = 1;
  int64_t oh = 0, ow = 0;
  int64_t sh = 1, sw = 1, dh = 1, dw = 1;
  int64_t pt = 0, pb = 0, pl = 0, pr = 0;
  int64_t groups = 1;
  int64_t engine = kEngineAuto;
  bool include_pad = false;  // avg pooling: divide by the full window (padding counted)
  ndrt_device device = NDRT_CPU;  // where kernels take their scratch memory (set by the kernel)

  // Logical shapes of the image side and the output side in the op's layout.
  Dims x_shape() const;
  Dims y_shape() const;
  Dims w_shape() const;  // conv weights: OIHW (NCHW) or OHWI (NHWC)
};

// conv2d family: x (input 0) and w (input 1) give the geometry. Validates everything (ranks,
// channels vs groups, weight shape, strides, padding, dilation, kernel vs padded input).
Conv2dGeom conv2d_geom(const OpContext& c);
// Pooling family: x (input 0) and the kernel attribute.
Conv2dGeom pool2d_geom(const OpContext& c);
// im2col: x (input 0) and the kernel attribute; col2im: col (input 0) and the size attribute.
Conv2dGeom im2col_geom(const OpContext& c);
Conv2dGeom col2im_geom(const OpContext& c);
// conv2d_bias_max_pool2x2 and its backward ops: x, w (valid convolution at stride 1, NCHW; its
// output's height and width even) and the third input's dtype (b or dy; b's shape is the forward's
// check). The pooled output is [n, k, oh / 2, ow / 2].
Conv2dGeom conv_pool2x2_geom(const OpContext& c);

// The pooling and im2col/col2im op definitions (runtime/ops/conv_pool.cpp).
void define_conv_pool_ops(Registry& r);

}  // namespace ndrt
