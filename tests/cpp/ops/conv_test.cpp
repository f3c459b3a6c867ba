// conv2d, conv2d_bias, conv2d_bp_data, conv2d_bp_weights, conv2d_bp_bias against a float64
// direct-loop reference: strides, explicit (also asymmetric) and "same" padding, dilation, groups
// (depthwise too), 1x1 kernels, NCHW and NHWC, batch 1 and 3, odd sizes, non-contiguous operands,
// given / strided outputs poisoned beforehand, size-0 axes, every dtype with each engine (auto,
// ndrt's im2col + BLAS, oneDNN); finite differences in f64; the LeNet shapes with both engines;
// which implementation ran; attribute, shape and dtype errors.
#include <atomic>
#include <cstring>
#include <thread>

#include "conv_test_util.hpp"

using namespace nt;
using ct::Geo;
using ct::geo;

namespace {

enum { kAuto = 0, kNdrt = 1, kOnednn = 2 };

std::vector<Geo> configs() {
  return {
      geo(1, 3, 7, 6, 4, 3, 3),
      geo(3, 4, 9, 8, 5, 3, 3).stride(2, 2).padding({1, 1}),
      geo(2, 3, 8, 11, 6, 2, 3).stride(2, 3).padding({1, 0, 2, 1}),
      geo(2, 5, 7, 9, 3, 4, 3).stride(2, 2).same_pad(),
      geo(1, 2, 6, 5, 3, 2, 2).same_pad(),
      geo(2, 3, 10, 9, 4, 3, 3).dilation(2, 3).padding({2, 1}),
      geo(2, 6, 7, 7, 4, 3, 3).group(2).padding({1, 1}),
      geo(3, 5, 8, 7, 5, 3, 3).group(5).padding({1, 1}),          // depthwise
      geo(2, 4, 6, 6, 8, 3, 3).group(4).stride(2, 2),             // depthwise, multiplier 2
      geo(3, 7, 5, 6, 9, 1, 1),                                   // 1x1: the image is the column matrix
      geo(2, 4, 7, 7, 3, 1, 1).stride(2, 2),
      geo(2, 3, 5, 4, 2, 5, 4),                                   // kernel covers the whole image
      geo(3, 13, 17, 15, 11, 5, 5).padding({2, 2}),
      geo(2, 3, 11, 10, 4, 3, 3).stride(2, 2).dilation(2, 2).same_pad(),
      geo(1, 2, 2, 3, 3, 4, 4).padding({1, 1}),                   // kernel larger than the image
      // Output width a multiple of 8, stride 1, no padding: NCHW f32 passes take the direct
      // kernels on AVX-512 CPUs (with a channel tail: 7 = 5 + 2, and a run tail: 10 runs = 4+4+2;
      // dy row tails 5 = 4 + 1 and 6 = 4 + 2; 8 kernel columns = 5 + 3 for the data gradient).
      geo(2, 3, 10, 12, 7, 3, 5),
      geo(3, 2, 6, 20, 11, 2, 5),
      geo(2, 3, 9, 15, 6, 4, 8),
  };
}

struct Case {
  ndrt_dtype d;
  int32_t nhwc;  // not bool: no padding bytes, so gtest prints the parameter the same in every run
};

std::string case_name(const ::testing::TestParamInfo<Case>& i) {
  return std::string(dtype_str(i.param.d)) + (i.param.nhwc ? "_NHWC" : "_NCHW");
}

// Runs every pass of one configuration with one engine and checks it against the reference.
void check_config(ndrt_dtype d, Geo g0, int engine, int variant, std::mt19937& rng) {
  const Geo g = g0.resolve();
  const std::string what = std::string(dtype_str(d)) + " " + g.str() + " engine " + std::to_string(engine);
  SCOPED_TRACE(what);
  const Kind kx = kAllKinds[variant % 5], kw = kAllKinds[(variant + 1) % 5], kdy = kAllKinds[(variant + 3) % 5];
  const OutKind ok = kAllOutKinds[variant % 3];
  Operand X = make_operand(d, g.xs(), kx, default_gen(d), rng);
  Operand W = make_operand(d, g.ws(), kw, default_gen(d), rng);
  Operand B = make_operand(d, {g.k}, Kind::Contig, default_gen(d), rng);
  Operand DY = make_operand(d, g.ys(), kdy, default_gen(d), rng);
  const Attrs a = ct::conv_attrs(g, engine);
  const double eps = ct::acc_eps(d);
  const Tol tol = default_tol(d);

  ct::Ref r = ct::conv_ref(g, X.vals, W.vals, nullptr);
  std::vector<double> got = run_out("conv2d", {&X.view, &W.view}, a, d, g.ys(), ok);
  std::vector<double> ex = r.extra(eps, g.cg() * g.kh * g.kw);
  expect_close(got, r.want, d, tol, "conv2d " + what, &ex);

  r = ct::conv_ref(g, X.vals, W.vals, &B.vals);
  got = run_out("conv2d_bias", {&X.view, &W.view, &B.view}, a, d, g.ys(), kAllOutKinds[(variant + 1) % 3]);
  ex = r.extra(eps, g.cg() * g.kh * g.kw + 1);
  expect_close(got, r.want, d, tol, "conv2d_bias " + what, &ex);

  r = ct::conv_bp_data_ref(g, W.vals, DY.vals);
  got = run_out("conv2d_bp_data", {&X.view, &W.view, &DY.view}, a, d, g.xs(), kAllOutKinds[(variant + 2) % 3]);
  ex = r.extra(eps, g.kg() * g.kh * g.kw);
  expect_close(got, r.want, d, tol, "conv2d_bp_data " + what, &ex);

  r = ct::conv_bp_weights_ref(g, X.vals, DY.vals);
  got = run_out("conv2d_bp_weights", {&X.view, &W.view, &DY.view}, a, d, g.ws(), ok);
  ex = r.extra(eps, g.n * g.oh * g.ow);
  expect_close(got, r.want, d, tol, "conv2d_bp_weights " + what, &ex);

  if (engine == kAuto) {  // bp_bias has one implementation
    r = ct::conv_bp_bias_ref(g, DY.vals);
    got = run_out("conv2d_bp_bias", {&DY.view}, Attrs{{g.nhwc}, {}}, d, {g.k}, kAllOutKinds[(variant + 1) % 3]);
    ex = r.extra(eps, g.n * g.oh * g.ow);
    expect_close(got, r.want, d, tol, "conv2d_bp_bias " + what, &ex);
  }
}

class Conv : public ::testing::TestWithParam<Case> {};

TEST_P(Conv, EveryPassEveryEngineAgainstReference) {
  const Case c = GetParam();
  std::mt19937 rng(1234 + 10 * c.d + c.nhwc);
  int variant = 0;
  for (Geo g : configs()) {
    g.layout(c.nhwc);
    for (int engine : {kAuto, kNdrt, kOnednn}) {
      if (engine == kOnednn && (c.d == NDRT_F64 || !ct::have_onednn())) continue;  // f64 refused: see Errors
      check_config(c.d, g, engine, variant++, rng);
    }
  }
}

TEST_P(Conv, SizeZeroAxes) {
  const Case c = GetParam();
  std::mt19937 rng(77 + c.d);
  std::vector<Geo> gs = {
      geo(0, 3, 5, 5, 4, 3, 3),                    // empty batch: dw is zeros
      geo(2, 0, 5, 5, 4, 3, 3),                    // no input channels: y is zeros (or the bias)
      geo(2, 3, 5, 5, 0, 3, 3),                    // no output channels: dx is zeros
      geo(2, 3, 0, 5, 4, 3, 3).same_pad(),         // empty image with same padding
  };
  int variant = 0;
  for (Geo g : gs)
    for (int engine : {kAuto, kNdrt, kOnednn}) {
      if (engine == kOnednn && (c.d == NDRT_F64 || !ct::have_onednn())) continue;
      g.layout(c.nhwc);
      check_config(c.d, g, engine, variant++, rng);
    }
}

INSTANTIATE_TEST_SUITE_P(Ops, Conv,
                         ::testing::Values(Case{NDRT_F32, false}, Case{NDRT_F32, true}, Case{NDRT_F64, false},
                                           Case{NDRT_F64, true}, Case{NDRT_F16, false}, Case{NDRT_F16, true},
                                           Case{NDRT_BF16, false}, Case{NDRT_BF16, true}),
                         case_name);

// <dy, conv(x, w) + b> by central differences against conv2d_bp_data / _bp_weights / _bp_bias (f64).
void finite_differences(Geo g0, int engine) {
  const Geo g = g0.resolve();
  SCOPED_TRACE(g.str());
  std::mt19937 rng(4242);
  const Gen gen = default_gen(NDRT_F64);
  Operand X = make_operand(NDRT_F64, g.xs(), Kind::Contig, gen, rng);
  Operand W = make_operand(NDRT_F64, g.ws(), Kind::Contig, gen, rng);
  Operand B = make_operand(NDRT_F64, {g.k}, Kind::Contig, gen, rng);
  Operand DY = make_operand(NDRT_F64, g.ys(), Kind::Contig, gen, rng);
  const Attrs a = ct::conv_attrs(g, engine);
  auto loss = [&](const std::vector<double>& x, const std::vector<double>& w, const std::vector<double>& b) {
    Tensor tx = from_values(NDRT_F64, g.xs(), x), tw = from_values(NDRT_F64, g.ws(), w);
    Tensor tb = from_values(NDRT_F64, {g.k}, b);
    std::vector<double> y = read_values(run("conv2d_bias", {&tx, &tw, &tb}, a));
    double s = 0;
    for (size_t i = 0; i < y.size(); ++i) s += y[i] * DY.vals[i];
    return s;
  };
  const std::vector<double> dx = read_values(run("conv2d_bp_data", {&X.view, &W.view, &DY.view}, a));
  const std::vector<double> dw = read_values(run("conv2d_bp_weights", {&X.view, &W.view, &DY.view}, a));
  const std::vector<double> db = read_values(run("conv2d_bp_bias", {&DY.view}, Attrs{{g.nhwc}, {}}));
  const double h = 1e-5;
  auto check = [&](std::vector<double>& v, const std::vector<double>& grad, const char* name) {
    for (size_t i = 0; i < v.size(); ++i) {
      const double keep = v[i];
      v[i] = keep + h;
      const double up = loss(X.vals, W.vals, B.vals);
      v[i] = keep - h;
      const double down = loss(X.vals, W.vals, B.vals);
      v[i] = keep;
      const double fd = (up - down) / (2 * h);
      EXPECT_NEAR(grad[i], fd, 1e-7 * (1 + std::fabs(fd))) << name << "[" << i << "]";
    }
  };
  check(X.vals, dx, "dx");
  check(W.vals, dw, "dw");
  check(B.vals, db, "db");
}

TEST(ConvGrad, FiniteDifferencesF64) {
  for (bool nhwc : {false, true})
    for (int engine : {kAuto, kNdrt}) {
      finite_differences(geo(2, 4, 6, 5, 6, 3, 2).stride(2, 1).padding({1, 0, 0, 1}).dilation(1, 2).group(2).layout(nhwc),
                         engine);
      finite_differences(geo(1, 3, 5, 5, 2, 3, 3).same_pad().layout(nhwc), engine);
    }
}

// LeNet (batch 64): conv 5x5 1->20 on 28x28, max pool 2, conv 5x5 20->50, max pool 2; forward and
// backward with oneDNN and with ndrt's kernels, each stage against the f64 reference on the
// stage's own f32 inputs, and the two engines against each other.
struct LeNetRun {
  std::vector<double> y1, p1, y2, p2, dy2, dw2, db2, dp1, dy1, dw1, db1;
};

TEST(ConvLeNet, ForwardBackwardBothEnginesAgainstReference) {
  std::mt19937 rng(5);
  const ndrt_dtype d = NDRT_F32;
  const Geo g1 = geo(64, 1, 28, 28, 20, 5, 5).resolve(), g2 = geo(64, 20, 12, 12, 50, 5, 5).resolve();
  const Gen gen = uniform_gen(d, -1, 1, 0.01);
  Operand X = make_operand(d, g1.xs(), Kind::Contig, gen, rng);
  Operand W1 = make_operand(d, g1.ws(), Kind::Contig, gen, rng), B1 = make_operand(d, {20}, Kind::Contig, gen, rng);
  Operand W2 = make_operand(d, g2.ws(), Kind::Contig, gen, rng), B2 = make_operand(d, {50}, Kind::Contig, gen, rng);
  Operand DP2 = make_operand(d, {64, 50, 4, 4}, Kind::Contig, gen, rng);
  Geo pool = geo(64, 20, 24, 24, 20, 2, 2).stride(2, 2);
  const Attrs pa = ct::pool_attrs(pool, false, false);
  const Tol tol = default_tol(d);
  LeNetRun runs[2];
  for (int e = 0; e < 2; ++e) {
    const int engine = e == 0 ? (ct::have_onednn() ? kOnednn : kAuto) : kNdrt;
    SCOPED_TRACE(engine == kOnednn ? "onednn" : "ndrt");
    const Attrs a1 = ct::conv_attrs(g1, engine), a2 = ct::conv_attrs(g2, engine);
    LeNetRun& r = runs[e];
    auto stage = [&](const char* name, const std::vector<double>& got, const ct::Ref& ref, int64_t terms) {
      std::vector<double> ex = ref.extra(ct::acc_eps(d), terms);
      expect_close(got, ref.want, d, tol, name, &ex);
    };
    Tensor y1 = run("conv2d_bias", {&X.view, &W1.view, &B1.view}, a1);
    r.y1 = read_values(y1);
    stage("y1", r.y1, ct::conv_ref(g1, X.vals, W1.vals, &B1.vals), 26);
    Tensor p1 = run("max_pool2d", {&y1}, pa);
    Tensor y2 = run("conv2d_bias", {&p1, &W2.view, &B2.view}, a2);
    r.p1 = read_values(p1);
    r.y2 = read_values(y2);
    stage("y2", r.y2, ct::conv_ref(g2, r.p1, W2.vals, &B2.vals), 501);
    Tensor p2 = run("max_pool2d", {&y2}, pa);
    Tensor dy2 = run("max_pool2d_bp", {&y2, &DP2.view}, pa);
    Tensor dw2 = run("conv2d_bp_weights", {&p1, &W2.view, &dy2}, a2);
    Tensor db2 = run("conv2d_bp_bias", {&dy2}, Attrs{{0}, {}});
    Tensor dp1 = run("conv2d_bp_data", {&p1, &W2.view, &dy2}, a2);
    Tensor dy1 = run("max_pool2d_bp", {&y1, &dp1}, pa);
    Tensor dw1 = run("conv2d_bp_weights", {&X.view, &W1.view, &dy1}, a1);
    Tensor db1 = run("conv2d_bp_bias", {&dy1}, Attrs{{0}, {}});
    r.dy2 = read_values(dy2), r.dw2 = read_values(dw2), r.db2 = read_values(db2);
    r.dp1 = read_values(dp1), r.dy1 = read_values(dy1), r.dw1 = read_values(dw1), r.db1 = read_values(db1);
    stage("dw2", r.dw2, ct::conv_bp_weights_ref(g2, r.p1, r.dy2), 64 * 64);
    stage("db2", r.db2, ct::conv_bp_bias_ref(g2, r.dy2), 64 * 64);
    stage("dp1", r.dp1, ct::conv_bp_data_ref(g2, W2.vals, r.dy2), 50 * 25);
    stage("dw1", r.dw1, ct::conv_bp_weights_ref(g1, X.vals, r.dy1), 64 * 576);
    stage("db1", r.db1, ct::conv_bp_bias_ref(g1, r.dy1), 64 * 576);
  }
  // The engines agree with each other to f32 accuracy.
  const Tol agree{1e-4, 1e-4};
  expect_close(runs[1].y1, runs[0].y1, d, agree, "y1 ndrt vs onednn");
  expect_close(runs[1].y2, runs[0].y2, d, agree, "y2 ndrt vs onednn");
  expect_close(runs[1].dp1, runs[0].dp1, d, agree, "dp1 ndrt vs onednn");
  expect_close(runs[1].dw2, runs[0].dw2, d, Tol{1e-4, 1e-3}, "dw2 ndrt vs onednn");
  expect_close(runs[1].dw1, runs[0].dw1, d, Tol{1e-4, 1e-3}, "dw1 ndrt vs onednn");
}

TEST(ConvImpl, ProfilerNamesTheImplementationThatRan) {
  std::mt19937 rng(9);
  const Geo g = geo(2, 3, 9, 9, 4, 3, 3).resolve();
  for (ndrt_dtype d : {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16}) {
    SCOPED_TRACE(dtype_str(d));
    Operand X = make_operand(d, g.xs(), Kind::Contig, default_gen(d), rng);
    Operand W = make_operand(d, g.ws(), Kind::Contig, default_gen(d), rng);
    const std::string own = ct::impl_of("conv2d", {&X.view, &W.view}, ct::conv_attrs(g, kNdrt));
    EXPECT_TRUE(ct::contains(own, d == NDRT_F64 ? "ndrt:im2col+dgemm" : "ndrt:im2col+sgemm")) << own;
    if (d == NDRT_F16 || d == NDRT_BF16) {
      EXPECT_TRUE(ct::contains(own, "via f32")) << own;
    }
    const std::string aut = ct::impl_of("conv2d", {&X.view, &W.view}, ct::conv_attrs(g, kAuto));
    if (d == NDRT_F64) {
      EXPECT_TRUE(ct::contains(aut, "ndrt:im2col+dgemm")) << aut;
      continue;
    }
    if (!ct::have_onednn()) {  // a build without oneDNN: auto runs ndrt's kernels
      EXPECT_TRUE(ct::contains(aut, "ndrt:im2col+sgemm")) << aut;
      continue;
    }
    const std::string dnn = ct::impl_of("conv2d", {&X.view, &W.view}, ct::conv_attrs(g, kOnednn));
    EXPECT_TRUE(ct::contains(dnn, "onednn:conv_fwd")) << dnn;
    // Auto times oneDNN's candidates against ndrt's own kernel (in f32, on converted data for
    // f16/bf16 when oneDNN has no native kernel) and runs the faster.
    EXPECT_TRUE(ct::contains(aut, "onednn:conv_fwd") || ct::contains(aut, "ndrt:im2col+sgemm")) << aut;
    Operand DY = make_operand(d, g.ys(), Kind::Contig, default_gen(d), rng);
    EXPECT_TRUE(ct::contains(ct::impl_of("conv2d_bp_data", {&X.view, &W.view, &DY.view}, ct::conv_attrs(g, kOnednn)),
                             "onednn:conv_bwd_data"));
    EXPECT_TRUE(ct::contains(
        ct::impl_of("conv2d_bp_weights", {&X.view, &W.view, &DY.view}, ct::conv_attrs(g, kOnednn)),
        "onednn:conv_bwd_weights"));
  }
}

// ndrt's direct kernels (conv_direct.cpp) run where they apply, and their results do not depend on
// the thread count (every output is one tile's, in a fixed order).
void direct_kernels_same_on_any_threads(const Geo& g) {
  SCOPED_TRACE(g.str());
  std::mt19937 rng(21);
  Operand X = make_operand(NDRT_F32, g.xs(), Kind::Contig, default_gen(NDRT_F32), rng);
  Operand W = make_operand(NDRT_F32, g.ws(), Kind::Contig, default_gen(NDRT_F32), rng);
  Operand B = make_operand(NDRT_F32, {g.k}, Kind::Contig, default_gen(NDRT_F32), rng);
  Operand DY = make_operand(NDRT_F32, g.ys(), Kind::Contig, default_gen(NDRT_F32), rng);
  char v[8] = {0};
  ASSERT_EQ(ndrt_config_get("cpu.direct_conv", v, sizeof v, nullptr), NDRT_OK);
  const bool direct = std::string(v) == "1";
  const std::string own = ct::impl_of("conv2d_bias", {&X.view, &W.view, &B.view}, ct::conv_attrs(g, kNdrt));
  EXPECT_TRUE(ct::contains(own, direct ? "ndrt:direct" : "ndrt:im2col+sgemm")) << own;
  const std::string grad = ct::impl_of("conv2d_bp_weights", {&X.view, &W.view, &DY.view}, ct::conv_attrs(g, kNdrt));
  EXPECT_TRUE(ct::contains(grad, direct ? "ndrt:direct" : "ndrt:im2col+sgemm")) << grad;
  const std::string data = ct::impl_of("conv2d_bp_data", {&X.view, &W.view, &DY.view}, ct::conv_attrs(g, kNdrt));
  EXPECT_TRUE(ct::contains(data, direct ? "ndrt:direct" : "ndrt:im2col+sgemm")) << data;
  EXPECT_EQ(ndrt_config_set("cpu.direct_conv", "0"), NDRT_ERR_INVALID_ARGUMENT) << "read-only";
  char threads[16] = {0};
  ASSERT_EQ(ndrt_config_get("cpu.threads", threads, sizeof threads, nullptr), NDRT_OK);
  std::vector<std::vector<double>> outs, grads, datas;
  for (const char* t : {"1", "2", "3"}) {
    ASSERT_EQ(ndrt_config_set("cpu.threads", t), NDRT_OK);
    outs.push_back(run_out("conv2d_bias", {&X.view, &W.view, &B.view}, ct::conv_attrs(g, kNdrt), NDRT_F32, g.ys(),
                           OutKind::Given));
    grads.push_back(run_out("conv2d_bp_weights", {&X.view, &W.view, &DY.view}, ct::conv_attrs(g, kNdrt), NDRT_F32,
                            g.ws(), OutKind::Given));
    datas.push_back(run_out("conv2d_bp_data", {&X.view, &W.view, &DY.view}, ct::conv_attrs(g, kNdrt), NDRT_F32,
                            g.xs(), OutKind::Given));
  }
  ASSERT_EQ(ndrt_config_set("cpu.threads", threads), NDRT_OK);
  ct::Ref r = ct::conv_ref(g, X.vals, W.vals, &B.vals);
  std::vector<double> ex = r.extra(ct::acc_eps(NDRT_F32), g.cg() * g.kh * g.kw + 1);
  expect_close(outs[0], r.want, NDRT_F32, default_tol(NDRT_F32), "direct conv2d_bias", &ex);
  EXPECT_EQ(outs[1], outs[0]);
  EXPECT_EQ(outs[2], outs[0]);
  r = ct::conv_bp_weights_ref(g, X.vals, DY.vals);
  ex = r.extra(ct::acc_eps(NDRT_F32), g.n * g.oh * g.ow);
  expect_close(grads[0], r.want, NDRT_F32, default_tol(NDRT_F32), "direct conv2d_bp_weights", &ex);
  EXPECT_EQ(grads[1], grads[0]);
  EXPECT_EQ(grads[2], grads[0]);
  r = ct::conv_bp_data_ref(g, W.vals, DY.vals);
  ex = r.extra(ct::acc_eps(NDRT_F32), g.k * g.kh * g.kw);
  expect_close(datas[0], r.want, NDRT_F32, default_tol(NDRT_F32), "direct conv2d_bp_data", &ex);
  EXPECT_EQ(datas[1], datas[0]);
  EXPECT_EQ(datas[2], datas[0]);
}

TEST(ConvImpl, DirectKernelsWhereTheyApplySameOnAnyThreads) {
  direct_kernels_same_on_any_threads(geo(3, 4, 7, 20, 11, 3, 5).resolve());  // OW 16, OH 5: 10 runs of 8, 11 channels
  // The weight gradient's batch in chunks of 2 images (7 = 2 + 2 + 2 + 1), sums carried between them.
  direct_kernels_same_on_any_threads(geo(7, 2, 12, 28, 7, 3, 5).resolve());
}

// Host threads calling at once: one gets oneDNN's cores, the others run single-threaded plans from
// the shared cache; every result matches the reference.
TEST(ConvThreads, ConcurrentCallersAllGetCorrectResults) {
  std::mt19937 rng(21);
  const Geo g = geo(3, 6, 11, 10, 8, 3, 3).stride(2, 1).padding({1, 1}).resolve();
  Operand X = make_operand(NDRT_F32, g.xs(), Kind::Contig, default_gen(NDRT_F32), rng);
  Operand W = make_operand(NDRT_F32, g.ws(), Kind::Contig, default_gen(NDRT_F32), rng);
  Operand DY = make_operand(NDRT_F32, g.ys(), Kind::Contig, default_gen(NDRT_F32), rng);
  const ct::Ref fwd = ct::conv_ref(g, X.vals, W.vals, nullptr), bw = ct::conv_bp_weights_ref(g, X.vals, DY.vals);
  const std::vector<double> efwd = fwd.extra(ct::acc_eps(NDRT_F32), 54), ebw = bw.extra(ct::acc_eps(NDRT_F32), 3 * 66);
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      ndrt_thread_attach(NDRT_CPU);
      const Attrs a = ct::conv_attrs(g, t % 2 ? kNdrt : kAuto);
      for (int i = 0; i < 20; ++i) {
        ndrt_handle y = 0, dw = 0;
        std::vector<ndrt_handle> in = {X.view.get(), W.view.get()}, out = {y};
        std::vector<ndrt_handle> in3 = {X.view.get(), W.view.get(), DY.view.get()}, out3 = {dw};
        if (exec("conv2d", in, out, a) != NDRT_OK || exec("conv2d_bp_weights", in3, out3, a) != NDRT_OK) {
          ++failures;
          continue;
        }
        Tensor ty(out[0]), tdw(out3[0]);
        std::vector<double> vy, vdw;
        try {  // no gtest assertions off the main thread: count instead
          vy = read_values(ty), vdw = read_values(tdw);
        } catch (...) {
          ++failures;
          continue;
        }
        for (size_t k = 0; k < vy.size(); ++k)
          if (std::fabs(vy[k] - fwd.want[k]) > 1e-5 * std::fabs(fwd.want[k]) + 1e-6 + efwd[k]) ++failures;
        for (size_t k = 0; k < vdw.size(); ++k)
          if (std::fabs(vdw[k] - bw.want[k]) > 1e-5 * std::fabs(bw.want[k]) + 1e-6 + ebw[k]) ++failures;
      }
    });
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

void expect_error(ndrt_status want, const char* op, const std::vector<const Tensor*>& in, const Attrs& a,
                  const std::string& msg) {
  EXPECT_STATUS(want, try_run(op, in, nullptr, a));
  EXPECT_EQ(std::string(ndrt_last_error()), msg);
}

TEST(ConvErrors, BadAttributesShapesAndDtypesSayWhatIsWrong) {
  Tensor x = create(NDRT_F32, {2, 4, 6, 6}), w = create(NDRT_F32, {6, 4, 3, 3}), b = create(NDRT_F32, {6});
  const Geo g = geo(2, 4, 6, 6, 6, 3, 3);
  Attrs a = ct::conv_attrs(g, kAuto);
  ASSERT_OK(try_run("conv2d", {&x, &w}, nullptr, a));

  Geo s0 = g;
  s0.stride(0, 1);
  expect_error(NDRT_ERR_INVALID_ARGUMENT, "conv2d", {&x, &w}, ct::conv_attrs(s0, kAuto),
               "conv2d: attribute 'strides' must be >= 1, got [0,1]");
  s0.stride(-2, 1);
  expect_error(NDRT_ERR_INVALID_ARGUMENT, "conv2d", {&x, &w}, ct::conv_attrs(s0, kAuto),
               "conv2d: attribute 'strides' must be >= 1, got [-2,1]");
  Attrs three = a;
  three.ints = {3, 1, 1, 1};
  expect_error(NDRT_ERR_INVALID_ARGUMENT, "conv2d", {&x, &w}, three,
               "conv2d: attribute 'strides' takes 2 values [h, w], got 3");
  Geo p = g;
  p.padding({-1, 0});
  expect_error(NDRT_ERR_INVALID_ARGUMENT, "conv2d", {&x, &w}, ct::conv_attrs(p, kAuto),
               "conv2d: attribute 'padding' must be >= 0, got [-1,0]");
  p.padding({1, 1, 1});
  expect_error(NDRT_ERR_INVALID_ARGUMENT, "conv2d", {&x, &w}, ct::conv_attrs(p, kAuto),
               "conv2d: attribute 'padding' takes [ph, pw] or [top, bottom, left, right], got 3 values");
  p.padding({1, 1}).same_pad();
  expect_error(NDRT_ERR_INVALID_ARGUMENT, "conv2d", {&x, &w}, ct::conv_attrs(p, kAuto),
               "conv2d: explicit padding [1,1] and same_padding are exclusive (leave padding at zeros)");
  Geo dl = g;
  dl.dilation(1, 0);
  expect_error(NDRT_ERR_INVALID_ARGUMENT, "conv2d", {&x, &w}, ct::conv_attrs(dl, kAuto),
               "conv2d: attribute 'dilation' must be >= 1, got [1,0]");
  dl.dilation(3, 1);  // extent 7 > 6
  expect_error(NDRT_ERR_SHAPE_MISMATCH, "conv2d", {&x, &w}, ct::conv_attrs(dl, kAuto),
               "conv2d: the height window (kernel 3, dilation 3: extent 7) is larger than the padded input (0 + 6 + 0)");
  Tensor big = create(NDRT_F32, {6, 4, 7, 3});
  expect_error(NDRT_ERR_SHAPE_MISMATCH, "conv2d", {&x, &big}, a,
               "conv2d: the height window (kernel 7, dilation 1: extent 7) is larger than the padded input (0 + 6 + 0)");
  Geo gr = g;
  gr.group(0);
  expect_error(NDRT_ERR_INVALID_ARGUMENT, "conv2d", {&x, &w}, ct::conv_attrs(gr, kAuto),
               "conv2d: attribute 'groups' must be >= 1, got 0");
  gr.group(3);
  expect_error(NDRT_ERR_SHAPE_MISMATCH, "conv2d", {&x, &w}, ct::conv_attrs(gr, kAuto),
               "conv2d: 4 input channels are not divisible by groups=3");
  gr.group(4);
  expect_error(NDRT_ERR_SHAPE_MISMATCH, "conv2d", {&x, &w}, ct::conv_attrs(gr, kAuto),
               "conv2d: 6 output channels (w's first axis) are not divisible by groups=4");
  gr.group(2);  // w must then be [6, 2, 3, 3]
  expect_error(NDRT_ERR_SHAPE_MISMATCH, "conv2d", {&x, &w}, ct::conv_attrs(gr, kAuto),
               "conv2d: w has shape [6,4,3,3]; for x [2,4,6,6] with groups=2 it must be OIHW [out, in/groups, kh, "
               "kw] with 2 input channels per group and a kernel of at least 1x1");
  Tensor w5 = create(NDRT_F32, {6, 5, 3, 3});
  expect_error(NDRT_ERR_SHAPE_MISMATCH, "conv2d", {&x, &w5}, a,
               "conv2d: w has shape [6,5,3,3]; for x [2,4,6,6] with groups=1 it must be OIHW [out, in/groups, kh, "
               "kw] with 4 input channels per group and a kernel of at least 1x1");
  Geo nh = g;
  nh.layout(true);  // x [2,4,6,6] as NHWC has 6 channels; w OHWI [6,4,3,3] has kernel 4x3, 3 in
  expect_error(NDRT_ERR_SHAPE_MISMATCH, "conv2d", {&x, &w}, ct::conv_attrs(nh, kAuto),
               "conv2d: w has shape [6,4,3,3]; for x [2,4,6,6] with groups=1 it must be OHWI [out, kh, kw, "
               "in/groups] with 6 input channels per group and a kernel of at least 1x1");
  Tensor x3 = create(NDRT_F32, {4, 6, 6});
  expect_error(NDRT_ERR_SHAPE_MISMATCH, "conv2d", {&x3, &w}, a, "conv2d: x must be rank 4 (NCHW), got [4,6,6]");
  Tensor w3 = create(NDRT_F32, {6, 4, 3});
  expect_error(NDRT_ERR_SHAPE_MISMATCH, "conv2d", {&x, &w3}, a, "conv2d: w must be rank 4 (OIHW), got [6,4,3]");
  Attrs lay = a;
  lay.ints[lay.ints.size() - 2] = 2;
  expect_error(NDRT_ERR_INVALID_ARGUMENT, "conv2d", {&x, &w}, lay,
               "conv2d: attribute 'layout' must be 0 (NCHW) or 1 (NHWC), got 2");
  Attrs eng = a;
  eng.ints.back() = 3;
  expect_error(NDRT_ERR_INVALID_ARGUMENT, "conv2d", {&x, &w}, eng,
               "conv2d: attribute 'engine' must be 0 (auto), 1 (ndrt) or 2 (onednn), got 3");
  Tensor b5 = create(NDRT_F32, {5});
  expect_error(NDRT_ERR_SHAPE_MISMATCH, "conv2d_bias", {&x, &w, &b5}, a,
               "conv2d_bias: b must have shape [6] (one value per output channel), got [5]");
  Tensor dy = create(NDRT_F32, {2, 6, 4, 5});
  expect_error(NDRT_ERR_SHAPE_MISMATCH, "conv2d_bp_data", {&x, &w, &dy}, a,
               "conv2d_bp_data: dy has shape [2,6,4,5] but the forward output is [2,6,4,4]");
  expect_error(NDRT_ERR_SHAPE_MISMATCH, "conv2d_bp_weights", {&x, &w, &dy}, a,
               "conv2d_bp_weights: dy has shape [2,6,4,5] but the forward output is [2,6,4,4]");
  Tensor dy3 = create(NDRT_F32, {6, 4, 4});
  expect_error(NDRT_ERR_SHAPE_MISMATCH, "conv2d_bp_bias", {&dy3}, Attrs{{0}, {}},
               "conv2d_bp_bias: dy must be rank 4 (NCHW), got [6,4,4]");

  // dtypes
  Tensor xi = create(NDRT_I32, {2, 4, 6, 6}), wi = create(NDRT_I32, {6, 4, 3, 3});
  expect_error(NDRT_ERR_DTYPE_MISMATCH, "conv2d", {&xi, &wi}, a, "conv2d: needs a floating-point dtype, got i32");
  Tensor w64 = create(NDRT_F64, {6, 4, 3, 3});
  expect_error(NDRT_ERR_DTYPE_MISMATCH, "conv2d", {&x, &w64}, a,
               "conv2d: input 1 is f64 but input 0 is f32 (cast explicitly)");
  Tensor x64 = create(NDRT_F64, {2, 4, 6, 6});
  expect_error(NDRT_ERR_NOT_SUPPORTED, "conv2d", {&x64, &w64}, ct::conv_attrs(g, kOnednn),
               "conv2d: oneDNN has no f64 convolution (engine=2); use engine 0 (auto) or 1 (ndrt)");
  if (!ct::have_onednn())
    expect_error(NDRT_ERR_NOT_SUPPORTED, "conv2d", {&x, &w}, ct::conv_attrs(g, kOnednn),
                 "conv2d: engine=2 asks for oneDNN, but this build of ndrt has no oneDNN");

  // A given output of the wrong shape or dtype.
  Tensor wrong = create(NDRT_F32, {2, 6, 4, 5});
  EXPECT_STATUS(NDRT_ERR_SHAPE_MISMATCH, try_run("conv2d", {&x, &w}, &wrong, a));
  Tensor wrong_dt = create(NDRT_F64, {2, 6, 4, 4});
  EXPECT_STATUS(NDRT_ERR_DTYPE_MISMATCH, try_run("conv2d", {&x, &w}, &wrong_dt, a));
}

}  // namespace
