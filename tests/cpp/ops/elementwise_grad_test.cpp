// Gradient ops (<op>_bp) of the activations and unary maps (the binary ops' are in
// elementwise_grad_binary_test.cpp): against an f64 reference of the analytic derivative on every float dtype,
// layouts and output kinds; and in f64 against central finite differences of the forward op run
// through ndrt (elementwise and along a random projection <dy, f(x)>).
#include <algorithm>
#include <cmath>
#include <functional>

#include "ops/elementwise_testing.hpp"

using namespace nt;
using namespace elt_test;

namespace {

const double kSqrt1_2 = 0.70710678118654752440;
const double kK0 = 0.79788456080286535588, kK1 = 0.044715;

double sigm(double x) { return 1 / (1 + std::exp(-x)); }

struct GradDef {
  std::string label;
  const char* bp;
  const char* fwd;
  bool from_y;  // the bp op takes the forward output y instead of x
  Attrs attrs;
  std::function<double(double, double)> ref;  // (x or y, dy) -> dx
  double lo, hi, min_abs;                     // first input's range (x, or y when from_y)
  double xlo, xhi;                            // x range for the finite-difference check
  std::vector<double> kinks;                  // x values the finite-difference check keeps away from
};

const std::vector<GradDef>& defs() {
  static const std::vector<GradDef> d = {
      {"relu", "relu_bp", "relu", false, {}, [](double x, double g) { return x > 0 ? g : 0; }, -3, 3, 0.05, -3, 3, {0}},
      {"leaky_relu", "leaky_relu_bp", "leaky_relu", false, {{}, {0.2}},
       [](double x, double g) { return x > 0 ? g : 0.2 * g; }, -3, 3, 0.05, -3, 3, {0}},
      {"elu", "elu_bp", "elu", false, {{}, {1.5}}, [](double x, double g) { return x > 0 ? g : g * 1.5 * std::exp(x); },
       -4, 3, 0.05, -4, 3, {0}},
      {"gelu", "gelu_bp", "gelu", false, {},
       [](double x, double g) {
         return g * (0.5 * std::erfc(-x * kSqrt1_2) + x * std::exp(-0.5 * x * x) * 0.39894228040143267794);
       },
       -5, 5, 0, -5, 5, {}},
      {"gelu_tanh", "gelu_bp", "gelu", false, {{1}, {}},
       [](double x, double g) {
         double t = std::tanh(kK0 * (x + kK1 * x * x * x));
         return g * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * kK0 * (1 + 3 * kK1 * x * x));
       },
       -5, 5, 0, -5, 5, {}},
      {"sigmoid", "sigmoid_bp", "sigmoid", true, {}, [](double y, double g) { return g * y * (1 - y); }, 0.01, 0.99, 0,
       -8, 8, {}},
      {"tanh", "tanh_bp", "tanh", true, {}, [](double y, double g) { return g * (1 - y * y); }, -0.99, 0.99, 0, -4, 4, {}},
      {"softplus", "softplus_bp", "softplus", false, {}, [](double x, double g) { return g * sigm(x); }, -20, 20, 0, -20,
       20, {}},
      {"softplus_b3", "softplus_bp", "softplus", false, {{}, {3.0}}, [](double x, double g) { return g * sigm(3 * x); },
       -5, 5, 0, -5, 5, {}},
      {"exp", "exp_bp", "exp", true, {}, [](double y, double g) { return g * y; }, 0.01, 20, 0, -4, 3, {}},
      {"log", "log_bp", "log", false, {}, [](double x, double g) { return g / x; }, 0.05, 10, 0, 0.05, 10, {}},
      {"sqrt", "sqrt_bp", "sqrt", true, {}, [](double y, double g) { return g / (2 * y); }, 0.1, 10, 0, 0.05, 10, {}},
      {"abs", "abs_bp", "abs", false, {}, [](double x, double g) { return x > 0 ? g : x < 0 ? -g : 0; }, -3, 3, 0.05, -3,
       3, {0}},
      {"square", "square_bp", "square", false, {}, [](double x, double g) { return 2 * x * g; }, -3, 3, 0, -3, 3, {}},
      {"sin", "sin_bp", "sin", false, {}, [](double x, double g) { return g * std::cos(x); }, -4, 4, 0, -4, 4, {}},
      {"cos", "cos_bp", "cos", false, {}, [](double x, double g) { return -g * std::sin(x); }, -4, 4, 0, -4, 4, {}},
      {"expm1", "expm1_bp", "expm1", true, {}, [](double y, double g) { return g * (y + 1); }, -0.95, 20, 0, -3, 3, {}},
      {"log1p", "log1p_bp", "log1p", false, {}, [](double x, double g) { return g / (1 + x); }, -0.9, 5, 0, -0.9, 5,
       {}},
      {"rsqrt", "rsqrt_bp", "rsqrt", true, {}, [](double y, double g) { return -0.5 * g * y * y * y; }, 0.2, 5, 0, 0.1,
       10, {}},
      {"reciprocal", "reciprocal_bp", "reciprocal", true, {}, [](double y, double g) { return -g * y * y; }, -10, 10,
       0.1, -5, 5, {0}},
      {"clip", "clip_bp", "clip", false, {{}, {-0.7, 1.3}},
       [](double x, double g) { return x >= double(float(-0.7)) && x <= double(float(1.3)) ? g : 0; }, -2, 2, 0, -2, 2,
       {-0.7, 1.3}},
  };
  return d;
}

struct Param {
  size_t def;
  ndrt_dtype dtype;
};
void PrintTo(const Param& p, std::ostream* os) { *os << defs()[p.def].label << "/" << dtype_str(p.dtype); }
std::string param_name(const ::testing::TestParamInfo<Param>& i) {
  return param_safe(defs()[i.param.def].label + "_" + dtype_str(i.param.dtype));
}

class Grad : public ::testing::TestWithParam<Param> {
 protected:
  const GradDef& def() const { return defs()[GetParam().def]; }
};

TEST_P(Grad, MatchesTheAnalyticDerivativeOnAllLayoutsAndOutputs) {
  const GradDef& g = def();
  const ndrt_dtype d = GetParam().dtype;
  std::mt19937 rng(311 + unsigned(GetParam().def) * 17 + unsigned(d));
  Gen gx = uniform_gen(d, g.lo, g.hi, g.min_abs);
  Gen gdy = uniform_gen(d, -2, 2);
  // clip_bp on f64 compares x with the f64 bounds, not their f32 roundings.
  auto ref = [&](double x, double dy) {
    if (std::string(g.bp) == "clip_bp" && d == NDRT_F64) return x >= -0.7 && x <= 1.3 ? dy : 0.0;
    return g.ref(x, dy);
  };
  const Shape shapes[] = {{3, 5, 7}, {}, {0, 4}, {2, 3, 4, 5}, {37}, {257, 1031}};
  const Kind kinds[][2] = {{Kind::Contig, Kind::Contig},
                           {Kind::Permuted, Kind::Strided},
                           {Kind::Expanded, Kind::Offset},
                           {Kind::Strided, Kind::Contig}};
  for (const Shape& s : shapes)
    for (const auto& k : kinds)
      for (OutKind ok : kAllOutKinds) {
        if (numel_of(s) > 1000 && ok == OutKind::GivenView) continue;
        std::string what = g.label + " " + dtype_str(d) + " " + shape_str(s) + " " + kind_str(k[0]) + "," +
                           kind_str(k[1]) + ", " + out_kind_str(ok);
        SCOPED_TRACE(what);
        Operand X = make_operand(d, s, k[0], gx, rng);
        Operand DY = make_operand(d, s, k[1], gdy, rng);
        std::vector<double> want(X.vals.size());
        for (size_t i = 0; i < want.size(); ++i) want[i] = ref(X.vals[i], DY.vals[i]);
        expect_close(run_out(g.bp, {&X.view, &DY.view}, g.attrs, d, s, ok), want, d, default_tol(d), what);
      }
  // In place: dx overwrites dy.
  Operand X = make_operand(d, {9, 301}, Kind::Contig, gx, rng);
  Operand DY = make_operand(d, {9, 301}, Kind::Strided, gdy, rng);
  std::vector<double> want(X.vals.size());
  for (size_t i = 0; i < want.size(); ++i) want[i] = ref(X.vals[i], DY.vals[i]);
  run_into(g.bp, {&X.view, &DY.view}, DY.view, g.attrs);
  expect_close(read_values(DY.view), want, d, default_tol(d), g.label + " in place");
}

std::vector<Param> params() {
  std::vector<Param> r;
  for (size_t i = 0; i < defs().size(); ++i)
    for (ndrt_dtype d : float_dtypes()) r.push_back({i, d});
  return r;
}
INSTANTIATE_TEST_SUITE_P(Ops, Grad, ::testing::ValuesIn(params()), param_name);

// ---------------------------------------------------------------------------------------------
// Finite differences in f64 through the forward op
// ---------------------------------------------------------------------------------------------
class GradCheck : public ::testing::TestWithParam<size_t> {};

TEST_P(GradCheck, CentralDifferencesOfTheForwardOpAgreeWithTheBpOp) {
  const GradDef& g = defs()[GetParam()];
  std::mt19937 rng(1000 + unsigned(GetParam()));
  const Shape s = {7, 13};
  const size_t n = size_t(numel_of(s));
  // x away from kinks, so f is smooth within +-h.
  std::uniform_real_distribution<double> ux(g.xlo, g.xhi), u(-1, 1);
  std::vector<double> x(n), dy(n), v(n);
  for (size_t i = 0; i < n; ++i) {
    double t;
    do {
      t = ux(rng);
    } while (std::any_of(g.kinks.begin(), g.kinks.end(), [&](double k) { return std::fabs(t - k) < 0.02; }));
    x[i] = t;
    dy[i] = u(rng);
    v[i] = u(rng);
  }
  Tensor X = from_values(NDRT_F64, s, x);
  Tensor DY = from_values(NDRT_F64, s, dy);
  Tensor Y = run(g.fwd, {&X}, g.attrs);
  std::vector<double> dx = read_values(run(g.bp, {g.from_y ? &Y : &X, &DY}, g.attrs));
  auto forward = [&](const std::vector<double>& at) {
    Tensor T = from_values(NDRT_F64, s, at);
    return read_values(run(g.fwd, {&T}, g.attrs));
  };
  // Elementwise: dL/dx_i = dy_i * (f(x_i + h_i) - f(x_i - h_i)) / 2h_i for L = <dy, f(x)>.
  std::vector<double> xp(n), xm(n), h(n);
  for (size_t i = 0; i < n; ++i) {
    h[i] = 1e-6 * std::max(1.0, std::fabs(x[i]));
    xp[i] = x[i] + h[i];
    xm[i] = x[i] - h[i];
  }
  std::vector<double> fp = forward(xp), fm = forward(xm), num(n);
  for (size_t i = 0; i < n; ++i) num[i] = dy[i] * (fp[i] - fm[i]) / (2 * h[i]);
  expect_close(dx, num, NDRT_F64, {1e-6, 1e-8}, g.label + ": elementwise central differences");
  // Along a random direction v: (L(x + hv) - L(x - hv)) / 2h = <dx, v>.
  const double hv = 1e-6;
  for (size_t i = 0; i < n; ++i) {
    xp[i] = x[i] + hv * v[i];
    xm[i] = x[i] - hv * v[i];
  }
  fp = forward(xp);
  fm = forward(xm);
  double lp = 0, lm = 0, dir = 0, scale = 0;
  for (size_t i = 0; i < n; ++i) {
    lp += dy[i] * fp[i];
    lm += dy[i] * fm[i];
    dir += dx[i] * v[i];
    scale += std::fabs(dx[i] * v[i]);
  }
  EXPECT_NEAR((lp - lm) / (2 * hv), dir, 1e-6 * std::max(1.0, scale)) << g.label << ": projection <dy, f(x)>";
}

std::string fd_name(const ::testing::TestParamInfo<size_t>& i) { return param_safe(defs()[i.param].label); }
INSTANTIATE_TEST_SUITE_P(Ops, GradCheck, ::testing::Range(size_t(0), defs().size()), fd_name);

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------
TEST(GradErrors, ShapesDtypesAndAttributesAreCheckedInTheCallersTerms) {
  Tensor x = from_values(NDRT_F32, {2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor dy3 = from_values(NDRT_F32, {3}, {1, 2, 3});
  Tensor dy64 = from_values(NDRT_F64, {2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor xi = from_values(NDRT_I32, {2, 3}, {1, 2, 3, 4, 5, 6});
  int64_t live = live_handles();
  // No broadcasting between x and dy.
  expect_error(NDRT_ERR_SHAPE_MISMATCH, try_run("relu_bp", {&x, &dy3}, nullptr),
               {"relu_bp: x has shape [2,3] but dy has shape [3] (they must match)"});
  expect_error(NDRT_ERR_SHAPE_MISMATCH, try_run("sigmoid_bp", {&x, &dy3}, nullptr),
               {"sigmoid_bp: y has shape [2,3] but dy has shape [3]"});
  expect_error(NDRT_ERR_DTYPE_MISMATCH, try_run("tanh_bp", {&x, &dy64}, nullptr),
               {"tanh_bp: input 1 is f64 but input 0 is f32"});
  expect_error(NDRT_ERR_DTYPE_MISMATCH, try_run("relu_bp", {&xi, &xi}, nullptr),
               {"relu_bp: needs a floating-point dtype, got i32"});
  const double nan = std::nan(""), inf = HUGE_VAL;
  expect_error(NDRT_ERR_INVALID_ARGUMENT, try_run("leaky_relu_bp", {&x, &x}, nullptr, {{}, {nan}}),
               {"leaky_relu_bp: attribute 'alpha' must be a finite number, got nan"});
  expect_error(NDRT_ERR_INVALID_ARGUMENT, try_run("elu_bp", {&x, &x}, nullptr, {{}, {inf}}),
               {"elu_bp: attribute 'alpha' must be a finite number, got inf"});
  expect_error(NDRT_ERR_INVALID_ARGUMENT, try_run("softplus_bp", {&x, &x}, nullptr, {{}, {0.0}}),
               {"softplus_bp: attribute 'beta' must be a finite positive number, got 0"});
  expect_error(NDRT_ERR_INVALID_ARGUMENT, try_run("clip_bp", {&x, &x}, nullptr, {{}, {2.0, 1.0}}),
               {"clip_bp: min (2) is greater than max (1)"});
  expect_error(NDRT_ERR_INVALID_ARGUMENT, try_run("gelu_bp", {&x, &x}, nullptr, {{2}, {}}),
               {"gelu_bp: attribute 'approximate' is a bool, got 2"});
  expect_error(NDRT_ERR_INVALID_ARGUMENT, try_run("relu_bp", {&x}, nullptr), {"relu_bp: takes 2 input(s)"});
  EXPECT_EQ(live_handles(), live);
  for (const GradDef& g : defs()) {
    std::vector<ndrt_dtype> have = cpu_dtypes(g.bp), want = float_dtypes();
    std::sort(have.begin(), have.end());
    std::sort(want.begin(), want.end());
    EXPECT_EQ(have, want) << g.bp;
  }
}

}  // namespace
