// conv1d, conv1d_bias, conv1d_bp_data, conv1d_bp_weights, conv1d_bp_bias against the float64
// direct-loop convolution reference of the conv family (a 1-D problem is its unit-height case:
// the row-major values of [N, C, W] and [N, C, 1, W] are the same): stride, symmetric and
// asymmetric padding, "same" padding, dilation, groups (depthwise too), NCW and NWC, non-contiguous
// operands, given / strided outputs poisoned beforehand, size-0 axes, every dtype with the auto
// and ndrt engines (and oneDNN for f32); finite differences in f64 through conv1d_bias; the
// profiler's name of the conv2d implementation that ran; errors in 1-D words.
#include <cstring>

#include "conv_test_util.hpp"

using namespace nt;
using ct::Geo;

namespace {

enum { kAuto = 0, kNdrt = 1, kOnednn = 2 };

// A 1-D problem as the conv family's Geo: h = kh = 1, padding [0, 0, left, right].
Geo seq(int64_t n, int64_t c, int64_t w, int64_t k, int64_t kw) { return ct::geo(n, c, 1, w, k, 1, kw).padding({0, 0, 0, 0}); }

Shape xs1(const Geo& g) { return g.nhwc ? Shape{g.n, g.w, g.c} : Shape{g.n, g.c, g.w}; }
Shape ws1(const Geo& g) { return g.nhwc ? Shape{g.k, g.kw, g.cg()} : Shape{g.k, g.cg(), g.kw}; }
Shape ys1(const Geo& g) { return g.nhwc ? Shape{g.n, g.ow, g.k} : Shape{g.n, g.k, g.ow}; }

// conv1d attributes: stride, padding [left, right], same_padding, dilation, groups, layout, engine.
Attrs conv1d_attrs(const Geo& g, int engine) {
  Attrs a;
  a.ints.push_back(g.sw);
  ct::push_list(a.ints, {g.pad[2], g.pad[3]});
  a.ints.push_back(g.same);
  a.ints.push_back(g.dw);
  a.ints.push_back(g.groups);
  a.ints.push_back(g.nhwc);
  a.ints.push_back(engine);
  return a;
}

Geo pads(Geo g, int64_t l, int64_t r) { return g.padding({0, 0, l, r}); }

std::vector<Geo> configs() {
  return {
      seq(1, 3, 7, 4, 3),
      pads(seq(3, 4, 19, 5, 3), 1, 1).stride(1, 2),
      pads(seq(2, 3, 11, 6, 4), 2, 1).stride(1, 3),
      seq(2, 5, 9, 3, 4).stride(1, 2).same_pad(),
      pads(seq(2, 3, 10, 4, 3), 2, 2).dilation(1, 3),
      pads(seq(2, 6, 7, 4, 3), 1, 1).group(2),
      pads(seq(3, 5, 8, 5, 3), 1, 1).group(5),   // depthwise
      seq(3, 7, 6, 9, 1),                        // 1-wide kernel: a per-step dense layer
      seq(2, 3, 4, 2, 4),                        // kernel covers the whole sequence
      pads(seq(2, 16, 33, 24, 5), 2, 2),
  };
}

struct Case {
  ndrt_dtype d;
  int32_t nwc;
};

std::string case_name(const ::testing::TestParamInfo<Case>& i) {
  return std::string(dtype_str(i.param.d)) + (i.param.nwc ? "_NWC" : "_NCW");
}

void check_config(ndrt_dtype d, Geo g0, int engine, int variant, std::mt19937& rng) {
  const Geo g = g0.resolve();
  const std::string what = std::string(dtype_str(d)) + " " + g.str() + " engine " + std::to_string(engine);
  SCOPED_TRACE(what);
  const Kind kx = kAllKinds[variant % 5], kw = kAllKinds[(variant + 1) % 5], kdy = kAllKinds[(variant + 3) % 5];
  const OutKind ok = kAllOutKinds[variant % 3];
  Operand X = make_operand(d, xs1(g), kx, default_gen(d), rng);
  Operand W = make_operand(d, ws1(g), kw, default_gen(d), rng);
  Operand B = make_operand(d, {g.k}, Kind::Contig, default_gen(d), rng);
  Operand DY = make_operand(d, ys1(g), kdy, default_gen(d), rng);
  const Attrs a = conv1d_attrs(g, engine);
  const double eps = ct::acc_eps(d);
  const Tol tol = default_tol(d);

  ct::Ref r = ct::conv_ref(g, X.vals, W.vals, nullptr);
  std::vector<double> got = run_out("conv1d", {&X.view, &W.view}, a, d, ys1(g), ok);
  std::vector<double> ex = r.extra(eps, g.cg() * g.kw);
  expect_close(got, r.want, d, tol, "conv1d " + what, &ex);

  r = ct::conv_ref(g, X.vals, W.vals, &B.vals);
  got = run_out("conv1d_bias", {&X.view, &W.view, &B.view}, a, d, ys1(g), kAllOutKinds[(variant + 1) % 3]);
  ex = r.extra(eps, g.cg() * g.kw + 1);
  expect_close(got, r.want, d, tol, "conv1d_bias " + what, &ex);

  r = ct::conv_bp_data_ref(g, W.vals, DY.vals);
  got = run_out("conv1d_bp_data", {&X.view, &W.view, &DY.view}, a, d, xs1(g), kAllOutKinds[(variant + 2) % 3]);
  ex = r.extra(eps, g.kg() * g.kw);
  expect_close(got, r.want, d, tol, "conv1d_bp_data " + what, &ex);

  r = ct::conv_bp_weights_ref(g, X.vals, DY.vals);
  got = run_out("conv1d_bp_weights", {&X.view, &W.view, &DY.view}, a, d, ws1(g), ok);
  ex = r.extra(eps, g.n * g.ow);
  expect_close(got, r.want, d, tol, "conv1d_bp_weights " + what, &ex);

  if (engine == kAuto) {
    r = ct::conv_bp_bias_ref(g, DY.vals);
    got = run_out("conv1d_bp_bias", {&DY.view}, Attrs{{g.nhwc}, {}}, d, {g.k}, kAllOutKinds[(variant + 1) % 3]);
    ex = r.extra(eps, g.n * g.ow);
    expect_close(got, r.want, d, tol, "conv1d_bp_bias " + what, &ex);
  }
}

class Conv1d : public ::testing::TestWithParam<Case> {};

TEST_P(Conv1d, EveryPassAgainstReference) {
  const Case c = GetParam();
  std::mt19937 rng(321 + 10 * c.d + c.nwc);
  int variant = 0;
  for (Geo g : configs()) {
    g.layout(c.nwc);
    for (int engine : {kAuto, kNdrt, kOnednn}) {
      if (engine == kOnednn && (c.d != NDRT_F32 || !ct::have_onednn())) continue;
      check_config(c.d, g, engine, variant++, rng);
    }
  }
}

TEST_P(Conv1d, SizeZeroAxes) {
  const Case c = GetParam();
  std::mt19937 rng(99 + c.d);
  int variant = 0;
  for (Geo g : {seq(0, 3, 5, 4, 3), seq(2, 0, 5, 4, 3), seq(2, 3, 5, 0, 3), seq(2, 3, 0, 4, 3).same_pad()}) {
    g.layout(c.nwc);
    check_config(c.d, g, kAuto, variant++, rng);
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, Conv1d,
                         ::testing::Values(Case{NDRT_F32, 0}, Case{NDRT_F32, 1}, Case{NDRT_F64, 0}, Case{NDRT_F64, 1},
                                           Case{NDRT_F16, 0}, Case{NDRT_F16, 1}, Case{NDRT_BF16, 0},
                                           Case{NDRT_BF16, 1}),
                         case_name);

// <dy, conv1d_bias(x, w, b)> by central differences against the three gradient ops (f64).
TEST(Conv1dGrad, FiniteDifferencesF64) {
  for (bool nwc : {false, true}) {
    const Geo g = pads(seq(2, 4, 9, 6, 3), 2, 1).stride(1, 2).dilation(1, 2).group(2).layout(nwc).resolve();
    SCOPED_TRACE(g.str());
    std::mt19937 rng(4242);
    const Gen gen = default_gen(NDRT_F64);
    Operand X = make_operand(NDRT_F64, xs1(g), Kind::Contig, gen, rng);
    Operand W = make_operand(NDRT_F64, ws1(g), Kind::Contig, gen, rng);
    Operand B = make_operand(NDRT_F64, {g.k}, Kind::Contig, gen, rng);
    Operand DY = make_operand(NDRT_F64, ys1(g), Kind::Contig, gen, rng);
    const Attrs a = conv1d_attrs(g, kAuto);
    auto loss = [&] {
      Tensor tx = from_values(NDRT_F64, xs1(g), X.vals), tw = from_values(NDRT_F64, ws1(g), W.vals);
      Tensor tb = from_values(NDRT_F64, {g.k}, B.vals);
      std::vector<double> y = read_values(run("conv1d_bias", {&tx, &tw, &tb}, a));
      double s = 0;
      for (size_t i = 0; i < y.size(); ++i) s += y[i] * DY.vals[i];
      return s;
    };
    const std::vector<double> dx = read_values(run("conv1d_bp_data", {&X.view, &W.view, &DY.view}, a));
    const std::vector<double> dw = read_values(run("conv1d_bp_weights", {&X.view, &W.view, &DY.view}, a));
    const std::vector<double> db = read_values(run("conv1d_bp_bias", {&DY.view}, Attrs{{g.nhwc}, {}}));
    const double h = 1e-5;
    auto check = [&](std::vector<double>& v, const std::vector<double>& grad, const char* name) {
      for (size_t i = 0; i < v.size(); ++i) {
        const double keep = v[i];
        v[i] = keep + h;
        const double up = loss();
        v[i] = keep - h;
        const double down = loss();
        v[i] = keep;
        const double fd = (up - down) / (2 * h);
        EXPECT_NEAR(grad[i], fd, 1e-7 * (1 + std::fabs(fd))) << name << "[" << i << "]";
      }
    };
    check(X.vals, dx, "dx");
    check(W.vals, dw, "dw");
    check(B.vals, db, "db");
  }
}

TEST(Conv1dImpl, ProfilerNamesConv1dAndTheConv2dImplementationThatRan) {
  std::mt19937 rng(8);
  const Geo g = seq(2, 3, 12, 4, 3).resolve();
  for (ndrt_dtype d : {NDRT_F32, NDRT_F64}) {
    Operand X = make_operand(d, xs1(g), Kind::Contig, default_gen(d), rng);
    Operand W = make_operand(d, ws1(g), Kind::Contig, default_gen(d), rng);
    const std::string own = ct::impl_of("conv1d", {&X.view, &W.view}, conv1d_attrs(g, kNdrt));
    EXPECT_TRUE(ct::contains(own, "conv1d")) << own;
    EXPECT_TRUE(ct::contains(own, d == NDRT_F64 ? "ndrt:im2col+dgemm" : "ndrt:im2col+sgemm")) << own;
    if (d == NDRT_F32 && ct::have_onednn()) {
      const std::string dnn = ct::impl_of("conv1d", {&X.view, &W.view}, conv1d_attrs(g, kOnednn));
      EXPECT_TRUE(ct::contains(dnn, "onednn:conv_fwd")) << dnn;
    }
  }
}

void expect_error(ndrt_status want, const char* op, const std::vector<const Tensor*>& in, const Attrs& a,
                  const std::string& msg) {
  EXPECT_STATUS(want, try_run(op, in, nullptr, a));
  EXPECT_NE(std::string(ndrt_last_error()).find(msg), std::string::npos)
      << "want '" << msg << "' in '" << ndrt_last_error() << "'";
}

TEST(Conv1dErrors, BadShapesAndAttributesSayWhatIsWrong) {
  Tensor x = create(NDRT_F32, {2, 4, 9}), w = create(NDRT_F32, {6, 2, 3}), x4 = create(NDRT_F32, {2, 4, 1, 9});
  Tensor wi = create(NDRT_F64, {6, 4, 3}), dy = create(NDRT_F32, {2, 6, 5});
  const Geo g = seq(2, 4, 9, 6, 3).group(2).resolve();
  const Attrs a = conv1d_attrs(g, kAuto);
  expect_error(NDRT_ERR_SHAPE_MISMATCH, "conv1d", {&x4, &w}, a, "conv1d: x must be rank 3 (NCW [batch, channels, width])");
  Tensor w1 = create(NDRT_F32, {6, 3, 3});
  expect_error(NDRT_ERR_SHAPE_MISMATCH, "conv1d", {&x, &w1}, a,
               "it must be [out, in/groups, kw] with 2 input channels per group");
  expect_error(NDRT_ERR_DTYPE_MISMATCH, "conv1d", {&x, &wi}, conv1d_attrs(seq(2, 4, 9, 6, 3).resolve(), kAuto),
               "input 1 is f64");
  Attrs bad = a;
  bad.ints[0] = 0;  // stride
  expect_error(NDRT_ERR_INVALID_ARGUMENT, "conv1d", {&x, &w}, bad, "stride, dilation and groups must be >= 1");
  Attrs neg = conv1d_attrs(pads(seq(2, 4, 9, 6, 3), -1, 0).group(2), kAuto);
  expect_error(NDRT_ERR_INVALID_ARGUMENT, "conv1d", {&x, &w}, neg, "padding [-1,0] must be >= 0");
  Tensor xs = create(NDRT_F32, {2, 4, 2});
  expect_error(NDRT_ERR_SHAPE_MISMATCH, "conv1d", {&xs, &w}, a, "width window (kernel 3, dilation 1: extent 3) is larger");
  expect_error(NDRT_ERR_SHAPE_MISMATCH, "conv1d_bp_data", {&x, &w, &dy}, a,
               "dy has shape [2,6,5] but the forward output is [2,6,7]");
  Attrs lay = a;
  lay.ints[lay.ints.size() - 2] = 2;
  expect_error(NDRT_ERR_INVALID_ARGUMENT, "conv1d", {&x, &w}, lay, "'layout' must be 0 (NCW) or 1 (NWC)");
  Attrs g3 = a;
  g3.ints[g3.ints.size() - 3] = 3;  // groups
  expect_error(NDRT_ERR_SHAPE_MISMATCH, "conv1d", {&x, &w}, g3,
               "4 input and 6 output channels must both be divisible by groups=3");
  Tensor b5 = create(NDRT_F32, {5});
  expect_error(NDRT_ERR_SHAPE_MISMATCH, "conv1d_bias", {&x, &w, &b5}, a,
               "b must have shape [6] (one value per output channel), got [5]");
  Attrs same = conv1d_attrs(pads(seq(2, 4, 9, 6, 3), 1, 0).group(2).same_pad(), kAuto);
  expect_error(NDRT_ERR_INVALID_ARGUMENT, "conv1d", {&x, &w}, same, "padding [1,0] must be >= 0, and zeros with same_padding");
  Tensor dy4 = create(NDRT_F32, {2, 6, 1, 5});
  expect_error(NDRT_ERR_SHAPE_MISMATCH, "conv1d_bp_bias", {&dy4}, Attrs{{0}, {}}, "conv1d_bp_bias: dy must be rank 3");
}

}  // namespace
