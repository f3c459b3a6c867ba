// CUDA conv family against the CPU on the same inputs: conv2d, conv2d_bias and their gradients
// (cuDNN) in both layouts and every dtype, with strides, dilation, groups (depthwise too), padding
// cuDNN expresses (symmetric) and padding it cannot (asymmetric "same", explicit
// [top, bottom, left, right]: materialized); max/avg pooling forward/backward (ties, NaN,
// count_include_pad, asymmetric padding); im2col/col2im; non-contiguous inputs; empty tensors;
// outputs past one grid.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gpu/gpu_test.hpp"
#include "ops/conv_test_util.hpp"

namespace {

using ct::Geo;
using gt::Pair;
using nt::Attrs;
using nt::Shape;

const std::vector<ndrt_dtype> kFloats = {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16};
const double kNaN = std::numeric_limits<double>::quiet_NaN();

// cuda_tol widened by the reduction length R (cuDNN's algorithms -- implicit GEMM, Winograd, FFT --
// sum in other orders and, for Winograd/FFT, through transforms), and for f16/bf16 conv2d_bias by
// one more rounding (cuDNN's output is rounded before the bias is added).
nt::Tol conv_tol(ndrt_dtype d, int64_t R, bool bias = false) {
  nt::Tol t = gt::cuda_tol(d);
  switch (d) {
    case NDRT_F32: t = {5e-5, 1e-6 * double(R)}; break;
    case NDRT_F16: t = {5e-3, std::max(bias ? 8e-3 : 0.0, 1e-4 * double(R))}; break;
    case NDRT_BF16: t = {2e-2, std::max(bias ? 6e-2 : 0.0, 5e-4 * double(R))}; break;
    default: t.atol = std::max(t.atol, 1e-15 * double(R)); break;
  }
  return t;
}

std::string what(const std::string& op, ndrt_dtype d, const Geo& g) {
  return op + " " + nt::dtype_str(d) + " " + g.str();
}

// Runs conv2d, conv2d_bias, the three gradients on random inputs of geometry g0 (x, w, dy may be
// replaced by the given views).
void check_conv(ndrt_dtype d, const Geo& g0, std::mt19937& rng, const Pair* xv = nullptr, const Pair* wv = nullptr) {
  const Geo g = g0.resolve();
  SCOPED_TRACE(what("conv2d", d, g));
  const Attrs a = ct::conv_attrs(g, 0);
  Pair x_own, w_own;
  if (!xv) x_own = gt::random_pair(d, g.xs(), rng), xv = &x_own;
  if (!wv) w_own = gt::random_pair(d, g.ws(), rng), wv = &w_own;
  const Pair &x = *xv, &w = *wv;
  Pair b = gt::random_pair(d, {g.k}, rng), dy = gt::random_pair(d, g.ys(), rng);
  const int64_t R = g.cg() * g.kh * g.kw;
  const nt::Tol tf = conv_tol(d, R), tb = conv_tol(d, R, true), td = conv_tol(d, g.kg() * g.kh * g.kw),
                tw = conv_tol(d, g.n * g.oh * g.ow);
  gt::expect_same("conv2d", {&x, &w}, a, &tf);
  gt::expect_same("conv2d_bias", {&x, &w, &b}, a, &tb);
  gt::expect_same("conv2d_bp_data", {&x, &w, &dy}, a, &td);
  gt::expect_same("conv2d_bp_weights", {&x, &w, &dy}, a, &tw);
  const nt::Tol tbias = conv_tol(d, g.n * g.oh * g.ow);
  gt::expect_same("conv2d_bp_bias", {&dy}, Attrs{{g.nhwc ? 1 : 0}, {}}, &tbias);
}

TEST(CudaConv, EveryPassDtypeAndLayout) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(201);
  for (ndrt_dtype d : kFloats)
    for (bool nhwc : {false, true}) {
      check_conv(d, ct::geo(2, 6, 11, 9, 8, 3, 3).stride(2, 1).padding({1, 1}).group(2).layout(nhwc), rng);
      check_conv(d, ct::geo(3, 5, 7, 8, 4, 1, 1).layout(nhwc), rng);  // 1x1, odd sizes
    }
}

TEST(CudaConv, PaddingDilationGroups) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(202);
  for (ndrt_dtype d : {NDRT_F32, NDRT_F16})
    for (bool nhwc : {false, true}) {
      // "same" with an odd total padding (bottom/right get the extra row): materialized.
      check_conv(d, ct::geo(2, 4, 10, 12, 6, 3, 3).stride(2, 2).same_pad().layout(nhwc), rng);
      check_conv(d, ct::geo(1, 3, 9, 9, 5, 2, 2).same_pad().layout(nhwc), rng);
      // Explicit asymmetric padding, dilation.
      check_conv(d, ct::geo(2, 4, 9, 10, 4, 3, 2).padding({0, 2, 1, 0}).dilation(2, 1).layout(nhwc), rng);
      // Asymmetric padding whose extra row no window reaches (symmetric padding reproduces it).
      check_conv(d, ct::geo(2, 3, 9, 9, 4, 3, 3).stride(2, 2).padding({1, 2, 1, 2}).layout(nhwc), rng);
      // Depthwise, dilated, strided.
      check_conv(d, ct::geo(2, 6, 13, 11, 6, 3, 3).group(6).dilation(2, 2).stride(1, 2).padding({2, 2}).layout(nhwc),
                 rng);
      // "same" with stride 1 and an odd kernel: symmetric.
      check_conv(d, ct::geo(2, 8, 7, 7, 16, 5, 5).same_pad().layout(nhwc), rng);
    }
}

TEST(CudaConv, NonContiguousInputs) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(203);
  for (ndrt_dtype d : {NDRT_F32, NDRT_BF16}) {
    // NCHW x as a permuted NHWC buffer, w every other output channel of a bigger weight.
    const Geo g = ct::geo(2, 4, 9, 7, 5, 3, 3).padding({1, 1});
    Pair x = gt::random_pair(d, {2, 9, 7, 4}, rng).permute({0, 3, 1, 2});
    Pair w = gt::random_pair(d, {10, 4, 3, 3}, rng).slice(0, 0, 10, 2);
    check_conv(d, g, rng, &x, &w);
    // NHWC x with its width reversed, and with asymmetric padding (materialized from the view).
    const Geo gh = ct::geo(2, 3, 8, 6, 4, 3, 3).padding({0, 1, 2, 0}).layout(true);
    Pair xr = gt::random_pair(d, {2, 8, 6, 3}, rng).slice(2, -1, -1000000, -1);
    check_conv(d, gh, rng, &xr);
  }
}

TEST(CudaConv, EmptyTensors) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(204);
  for (ndrt_dtype d : {NDRT_F32, NDRT_F16})
    for (bool nhwc : {false, true}) {
      check_conv(d, ct::geo(2, 0, 5, 5, 3, 3, 3).layout(nhwc), rng);               // no input channel: y = bias / 0
      check_conv(d, ct::geo(0, 3, 5, 5, 4, 3, 3).layout(nhwc), rng);               // empty batch: dw = 0
      check_conv(d, ct::geo(2, 3, 5, 5, 0, 3, 3).layout(nhwc), rng);               // no output channel: dx = 0
      check_conv(d, ct::geo(2, 3, 0, 5, 4, 3, 3).same_pad().layout(nhwc), rng);    // empty image
    }
}

// ---- pooling ------------------------------------------------------------------------------------

Geo pool_geo(int64_t n, int64_t c, int64_t h, int64_t w, int64_t kh, int64_t kw) {
  return ct::geo(n, c, h, w, c, kh, kw);
}

void check_pool(ndrt_dtype d, const Geo& g0, const Pair& x, std::mt19937& rng) {
  const Geo g = g0.resolve();
  Pair dy = gt::random_pair(d, g.ys(), rng);
  for (int mode = 0; mode < 3; ++mode) {  // max, avg excluding padding, avg counting it
    const bool max = mode == 0;
    SCOPED_TRACE(what(max ? "max_pool2d" : "avg_pool2d", d, g) + " mode " + std::to_string(mode));
    const Attrs a = ct::pool_attrs(g, !max, mode == 2);
    gt::expect_same(max ? "max_pool2d" : "avg_pool2d", {&x}, a);
    gt::expect_same(max ? "max_pool2d_bp" : "avg_pool2d_bp", {&x, &dy}, a);
  }
}

TEST(CudaConv, PoolingEveryDtypeLayoutAndPadding) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(205);
  // Few distinct values: ties everywhere (the gradient goes to the first maximum).
  const nt::Gen ties = [](std::mt19937& r) { return double(std::uniform_int_distribution<int>(-2, 2)(r)); };
  for (ndrt_dtype d : kFloats)
    for (bool nhwc : {false, true}) {
      const std::vector<Geo> geos = {
          pool_geo(2, 3, 8, 9, 2, 2).layout(nhwc),                                // stride 1
          pool_geo(2, 3, 9, 11, 3, 3).stride(2, 2).padding({1, 1}).layout(nhwc),  // overlapping, padded
          pool_geo(1, 4, 10, 7, 3, 2).stride(2, 1).same_pad().layout(nhwc),       // asymmetric "same"
          pool_geo(2, 2, 7, 8, 3, 3).stride(1, 2).padding({0, 2, 1, 0}).layout(nhwc),
      };
      for (const Geo& g : geos) {
        const Geo r = g.resolve();
        check_pool(d, g, gt::random_pair(d, r.xs(), rng), rng);
        check_pool(d, g, gt::random_pair(d, r.xs(), rng, ties), rng);
      }
    }
}

TEST(CudaConv, PoolingNaNViewsAndEmpty) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(206);
  // Strides left empty: the windows tile the image (stride = kernel).
  {
    const Geo g = pool_geo(2, 3, 8, 9, 2, 3).resolve();
    Pair x = gt::random_pair(NDRT_F32, g.xs(), rng);
    const Geo t = pool_geo(2, 3, 8, 9, 2, 3).stride(2, 3).resolve();
    Pair dy = gt::random_pair(NDRT_F32, t.ys(), rng);
    const Attrs a{{2, 2, 3}, {}};  // kernel [2, 3]; every other attribute at its default
    gt::expect_same("max_pool2d", {&x}, a);
    gt::expect_same("max_pool2d_bp", {&x, &dy}, a);
  }
  for (ndrt_dtype d : {NDRT_F32, NDRT_F16}) {
    // NaN wins a max window (the first NaN takes the gradient).
    const Geo g = pool_geo(1, 2, 6, 6, 2, 2).stride(1, 1);
    std::vector<double> v(72);
    for (size_t i = 0; i < v.size(); ++i) v[i] = double(int(i % 7) - 3);
    v[7] = v[8] = v[40] = kNaN;
    check_pool(d, g, gt::values_pair(d, {1, 2, 6, 6}, v), rng);
    // x as a permuted and step-sliced view.
    const Geo gv = pool_geo(2, 3, 5, 6, 2, 3).stride(1, 2);
    check_pool(d, gv, gt::random_pair(d, {2, 5, 12, 3}, rng).slice(2, 0, 12, 2).permute({0, 3, 1, 2}), rng);
    // Empty batch, channels, image.
    for (const Geo& ge :
         {pool_geo(0, 3, 4, 4, 2, 2), pool_geo(2, 0, 4, 4, 2, 2), pool_geo(2, 3, 0, 4, 2, 2).same_pad()})
      check_pool(d, ge, gt::random_pair(d, ge.resolve().xs(), rng), rng);
  }
}

// ---- im2col / col2im ----------------------------------------------------------------------------

TEST(CudaConv, Im2colCol2imEveryDtypeAndLayout) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(207);
  for (ndrt_dtype d : kFloats)
    for (bool nhwc : {false, true}) {
      const std::vector<Geo> geos = {
          ct::geo(2, 3, 7, 9, 3, 3, 3).padding({1, 1}).layout(nhwc),
          ct::geo(1, 4, 10, 8, 4, 3, 2).stride(2, 3).dilation(2, 1).padding({0, 2, 1, 0}).layout(nhwc),
          ct::geo(2, 2, 6, 7, 2, 2, 2).stride(2, 2).same_pad().layout(nhwc),
      };
      for (const Geo& g0 : geos) {
        const Geo g = g0.resolve();
        SCOPED_TRACE(what("im2col/col2im", d, g));
        Pair x = gt::random_pair(d, g.xs(), rng);
        gt::expect_same("im2col", {&x}, ct::col_attrs(g, false));
        const Shape cs = nhwc ? Shape{g.n, g.oh, g.ow, g.kh, g.kw, g.c} : Shape{g.n, g.c, g.kh, g.kw, g.oh, g.ow};
        Pair col = gt::random_pair(d, cs, rng);
        const nt::Tol tol = conv_tol(d, g.kh * g.kw);
        gt::expect_same("col2im", {&col}, ct::col_attrs(g, true), &tol);
      }
      // Views: x permuted, col with a reversed axis.
      const Geo g = ct::geo(2, 3, 6, 5, 3, 2, 2).stride(1, 2).layout(nhwc).resolve();
      const Shape xs = g.xs();
      Pair xp = gt::random_pair(d, {xs[0], xs[2], xs[1], xs[3]}, rng).permute({0, 2, 1, 3});
      gt::expect_same("im2col", {&xp}, ct::col_attrs(g, false));
      const Shape cs = nhwc ? Shape{g.n, g.oh, g.ow, g.kh, g.kw, g.c} : Shape{g.n, g.c, g.kh, g.kw, g.oh, g.ow};
      Pair colr = gt::random_pair(d, cs, rng).slice(1, -1, -1000000, -1);
      gt::expect_same("col2im", {&colr}, ct::col_attrs(g, true));
    }
}

// Outputs of more than 65536 x 256 elements: every grid-stride loop must cover them.
TEST(CudaConv, PastOneGrid) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(208);
  const Geo g = ct::geo(8, 16, 128, 128, 16, 3, 3).padding({1, 1}).resolve();  // col: 18.9M elements
  Pair x = gt::random_pair(NDRT_F32, g.xs(), rng);
  gt::expect_same("im2col", {&x}, ct::col_attrs(g, false));
  const Geo p = pool_geo(4, 4, 1030, 1030, 2, 2).resolve();  // dx: 17M elements
  Pair xp = gt::random_pair(NDRT_F32, p.xs(), rng), dy = gt::random_pair(NDRT_F32, p.ys(), rng);
  gt::expect_same("max_pool2d_bp", {&xp, &dy}, ct::pool_attrs(p, false, false));
  gt::expect_same("avg_pool2d_bp", {&xp, &dy}, ct::pool_attrs(p, true, false));
}

}  // namespace
