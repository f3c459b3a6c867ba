// Elementwise special cases: f32 accuracy in ulps of the vectorised transcendental functions over
// the whole float range, IEEE special values (NaN, +-inf, -0, overflow, underflow), round-half-even,
// f16/bf16 overflow, subnormals and vector tails, integer wrap and saturation, attribute errors.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

#include "ops/elementwise_testing.hpp"

using namespace nt;
using namespace elt_test;

namespace {

const double kInf = HUGE_VAL;
const double kNaN = std::nan("");

std::vector<double> run1(const char* op, ndrt_dtype d, const std::vector<double>& x, const Attrs& a = {}) {
  Tensor t = from_values(d, {int64_t(x.size())}, x);
  return read_values(run(op, {&t}, a));
}

// Distance in units in the last place between two floats (ordered bit patterns).
int64_t ulps(float a, float b) {
  auto key = [](float f) {
    int32_t i;
    std::memcpy(&i, &f, 4);
    return i < 0 ? int64_t(INT32_MIN) - i : int64_t(i);
  };
  return std::llabs(key(a) - key(b));
}

// Worst distance over normal results, in ulps; subnormal results are checked in absolute terms.
// Inputs over the whole float range: +-10^k for k in [-45, 38] at fine steps, plus a dense grid.
std::vector<double> sweep(double lo, double hi) {
  std::vector<double> x;
  for (double e = -45; e <= 38.6; e += 0.01)
    for (double s : {1.0, -1.0}) {
      double v = s * std::pow(10.0, e);
      if (v >= lo && v <= hi) x.push_back(double(float(v)));
    }
  for (double v = std::max(lo, -120.0); v <= std::min(hi, 120.0); v += 0.0037) x.push_back(double(float(v)));
  return x;
}

struct AccDef {
  const char* op;
  std::function<double(double)> ref;
  double lo, hi;
  int64_t max_ulps;
};

class F32Accuracy : public ::testing::TestWithParam<AccDef> {};

TEST_P(F32Accuracy, WithinAFewUlpOverTheWholeRange) {
  const AccDef& a = GetParam();
  std::vector<double> x = sweep(a.lo, a.hi);
  std::vector<double> got = run1(a.op, NDRT_F32, x);
  int64_t worst = 0;
  double worst_x = 0;
  int bad = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    float want = float(a.ref(x[i]));
    float g = float(got[i]);
    if (std::isnan(want) || std::isnan(g)) {
      if (std::isnan(want) != std::isnan(g) && bad++ < 5) ADD_FAILURE() << a.op << "(" << x[i] << ") = " << g << ", want " << want;
      continue;
    }
    int64_t u = ulps(g, want);
    // Subnormal results carry fewer bits and intermediate underflow costs a few more: they get a
    // fixed absolute budget of 16 steps of 2^-149 instead.
    if (std::fabs(want) < std::numeric_limits<float>::min()) {
      EXPECT_LE(u, 16) << a.op << "(" << x[i] << ") = " << g << " (subnormal), want " << want;
      continue;
    }
    if (u > worst) {
      worst = u;
      worst_x = x[i];
    }
  }
  EXPECT_LE(worst, a.max_ulps) << a.op << ": worst at x = " << worst_x;
  std::printf("%s: %zu inputs, worst %lld ulp at x = %.9g\n", a.op, x.size(), (long long)worst, worst_x);
}

const AccDef kAcc[] = {
    {"exp", [](double x) { return std::exp(x); }, -110, 100, 2},
    {"expm1", [](double x) { return std::expm1(x); }, -110, 100, 2},
    {"log", [](double x) { return std::log(x); }, 0, 4e38, 2},
    {"log1p", [](double x) { return std::log1p(x); }, -1, 4e38, 3},
    {"tanh", [](double x) { return std::tanh(x); }, -1e38, 1e38, 3},
    {"sigmoid", [](double x) { return 1 / (1 + std::exp(-x)); }, -1e38, 1e38, 3},
    {"gelu", [](double x) { return 0.5 * x * std::erfc(-x * 0.70710678118654752440); }, -1e38, 1e38, 6},
};
void PrintTo(const AccDef& a, std::ostream* os) { *os << a.op; }
std::string acc_name(const ::testing::TestParamInfo<AccDef>& i) { return i.param.op; }
INSTANTIATE_TEST_SUITE_P(Ops, F32Accuracy, ::testing::ValuesIn(kAcc), acc_name);

// Exact expected outputs for special inputs, f32 and f64 (f16/bf16 where they can hold them).
struct SpecialCase {
  const char* op;
  Attrs attrs;
  std::vector<double> x, y;
};

TEST(Special, IeeeSpecialValuesOfTheUnaryOps) {
  const double big = 1e30, p70 = std::ldexp(1.0, 70);  // p70: an integer every dtype but f16 holds
  const SpecialCase cases[] = {
      {"exp", {}, {kNaN, kInf, -kInf, 0, 1000, -1000}, {kNaN, kInf, 0, 1, kInf, 0}},
      {"expm1", {}, {kNaN, kInf, -kInf, 0, 1000, -1000}, {kNaN, kInf, -1, 0, kInf, -1}},
      {"log", {}, {kNaN, kInf, 0, -1, 1, -kInf}, {kNaN, kInf, -kInf, kNaN, 0, kNaN}},
      {"log1p", {}, {kNaN, kInf, -1, -2, 0}, {kNaN, kInf, -kInf, kNaN, 0}},
      {"sqrt", {}, {kNaN, kInf, 0, -1, 4}, {kNaN, kInf, 0, kNaN, 2}},
      {"rsqrt", {}, {kNaN, kInf, 0, -1, 4}, {kNaN, 0, kInf, kNaN, 0.5}},
      {"reciprocal", {}, {kNaN, kInf, 0, 4}, {kNaN, 0, kInf, 0.25}},
      {"tanh", {}, {kNaN, kInf, -kInf, 0, big, -big}, {kNaN, 1, -1, 0, 1, -1}},
      {"sigmoid", {}, {kNaN, kInf, -kInf, 0, big, -big}, {kNaN, 1, 0, 0.5, 1, 0}},
      {"relu", {}, {kNaN, kInf, -kInf, 0}, {kNaN, kInf, 0, 0}},
      {"sign", {}, {kNaN, kInf, -kInf, 0, -3}, {kNaN, 1, -1, 0, -1}},
      {"abs", {}, {kNaN, -kInf, -2}, {kNaN, kInf, 2}},
      {"floor", {}, {kNaN, kInf, -kInf, -0.5, 2.5, -2.5, p70}, {kNaN, kInf, -kInf, -1, 2, -3, p70}},
      {"ceil", {}, {kNaN, kInf, -kInf, -0.5, 2.5, -2.5, p70}, {kNaN, kInf, -kInf, -0.0, 3, -2, p70}},
      {"round", {}, {0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5, kNaN, kInf, p70}, {0, 2, 2, -0.0, -2, -2, 4, kNaN, kInf, p70}},
      {"leaky_relu", {}, {kNaN, kInf, -kInf}, {kNaN, kInf, -kInf}},
      {"elu", {{}, {2.0}}, {kNaN, kInf, -kInf, 0}, {kNaN, kInf, -2, 0}},
      {"softplus", {}, {kNaN, kInf, -kInf, 1000, -1000}, {kNaN, kInf, 0, 1000, 0}},
      {"gelu", {}, {kNaN, kInf, 0, -40}, {kNaN, kInf, 0, -0.0}},
      {"gelu", {{1}, {}}, {kNaN, kInf, 0}, {kNaN, kInf, 0}},
      {"clip", {{}, {-1, 1}}, {kNaN, kInf, -kInf, 0.5}, {kNaN, 1, -1, 0.5}},
      {"sin", {}, {kNaN, kInf, 0}, {kNaN, kNaN, 0}},
      {"cos", {}, {kNaN, -kInf, 0}, {kNaN, kNaN, 1}},
  };
  for (ndrt_dtype d : {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16})
    for (const SpecialCase& c : cases) {
      std::string what = std::string(c.op) + " " + dtype_str(d);
      SCOPED_TRACE(what);
      std::vector<double> x = c.x, y = c.y;
      if (d == NDRT_F16)  // f16 cannot hold 2^70 or 1e30: those become inf
        for (std::vector<double>* v : {&x, &y})
          for (double& e : *v)
            if (std::isfinite(e) && std::fabs(e) > 65504) e = e > 0 ? kInf : -kInf;
      if (d == NDRT_F16 && (std::string(c.op) == "tanh" || std::string(c.op) == "sigmoid" || std::string(c.op) == "exp" ||
                            std::string(c.op) == "softplus" || std::string(c.op) == "expm1"))
        continue;  // 1000 and 1e30 are inf in f16: covered by the inf entries of the other dtypes
      std::vector<double> got = run1(c.op, d, x, c.attrs);
      ASSERT_EQ(got.size(), y.size());
      for (size_t i = 0; i < y.size(); ++i) {
        if (std::isnan(y[i])) {
          EXPECT_TRUE(std::isnan(got[i])) << what << "(" << x[i] << ") = " << got[i] << ", want NaN";
        } else {
          EXPECT_EQ(got[i], y[i]) << what << "(" << x[i] << ")";
          if (y[i] == 0 && std::string(c.op) != "softplus" && std::string(c.op) != "sigmoid" &&
              std::string(c.op) != "gelu") {
            EXPECT_EQ(std::signbit(got[i]), std::signbit(y[i])) << what << "(" << x[i] << "): sign of zero";
          }
        }
      }
    }
}

TEST(Special, SmallFloatOverflowSubnormalsAndNaNs) {
  // f16: e^12 = 162755 > 65504 overflows to inf; e^-16 = 1.1e-7 is an f16 subnormal (step 6e-8).
  EXPECT_EQ(run1("exp", NDRT_F16, {12, 11})[0], kInf);
  EXPECT_NEAR(run1("exp", NDRT_F16, {-16})[0], std::exp(-16.0), 3e-8);
  Tensor a = from_values(NDRT_F16, {2}, {300, 6e-5});
  Tensor b = from_values(NDRT_F16, {2}, {300, 0.25});
  std::vector<double> m = read_values(run("mul", {&a, &b}));
  EXPECT_EQ(m[0], kInf);                                 // 90000 overflows
  EXPECT_NEAR(m[1], 6e-5 * 0.25, 6e-8);                  // a subnormal product
  for (ndrt_dtype d : {NDRT_F16, NDRT_BF16}) {
    SCOPED_TRACE(dtype_str(d));
    for (const char* op : {"exp", "tanh", "sigmoid", "neg", "abs", "relu", "sqrt", "log"})
      EXPECT_TRUE(std::isnan(run1(op, d, {kNaN})[0])) << op;
    Tensor n = from_values(d, {1}, {kNaN});
    Tensor one = from_values(d, {1}, {1});
    EXPECT_TRUE(std::isnan(read_values(run("add", {&n, &one}))[0]));
    EXPECT_TRUE(std::isnan(read_values(run("maximum", {&one, &n}))[0]));
  }
  // bf16 keeps f32's range: e^80 is finite.
  EXPECT_TRUE(std::isfinite(run1("exp", NDRT_BF16, {80})[0]));
}

// Every length from 0 to 40 (vector bodies of 8 and all tails), dense f16/bf16/f32.
TEST(Special, VectorTailsOfEveryLength) {
  std::mt19937 rng(5);
  for (ndrt_dtype d : {NDRT_F32, NDRT_F16, NDRT_BF16, NDRT_F64})
    for (int64_t n = 0; n <= 40; ++n) {
      SCOPED_TRACE(std::string(dtype_str(d)) + " n=" + std::to_string(n));
      Operand A = make_operand(d, {n}, Kind::Contig, uniform_gen(d, -3, 3), rng);
      Operand B = make_operand(d, {n}, Kind::Contig, uniform_gen(d, -3, 3), rng);
      std::vector<double> we(static_cast<size_t>(n)), wa(static_cast<size_t>(n));
      for (size_t i = 0; i < size_t(n); ++i) {
        we[i] = std::exp(A.vals[i]);
        wa[i] = A.vals[i] + B.vals[i];
      }
      expect_close(run_out("exp", {&A.view}, {}, d, {n}, OutKind::Given), we, d, default_tol(d), "exp");
      expect_close(run_out("add", {&A.view, &B.view}, {}, d, {n}, OutKind::Fresh), wa, d, default_tol(d), "add");
    }
}

TEST(Special, IntegerWrapAndClipSaturation) {
  EXPECT_EQ(run1("neg", NDRT_I8, {-128, 127, 0}), (std::vector<double>{-128, -127, 0}));
  EXPECT_EQ(run1("abs", NDRT_I8, {-128, -5}), (std::vector<double>{-128, 5}));
  EXPECT_EQ(run1("square", NDRT_U8, {16, 15}), (std::vector<double>{0, 225}));
  EXPECT_EQ(run1("sign", NDRT_U8, {0, 7}), (std::vector<double>{0, 1}));
  EXPECT_EQ(run1("clip", NDRT_I8, {-128, 127, 5}, {{}, {-1000, 1000}}), (std::vector<double>{-128, 127, 5}));
  EXPECT_EQ(run1("clip", NDRT_U8, {0, 255, 5}, {{}, {-5, 3.5}}), (std::vector<double>{0, 3, 3}));
  EXPECT_EQ(run1("clip", NDRT_I64, {-9e15, 9e15}, {{}, {-1e300, 1e300}}), (std::vector<double>{-9e15, 9e15}));
  EXPECT_EQ(run1("clip", NDRT_I32, {-7, 7}, {{}, {-2.5, -0.5}}), (std::vector<double>{-2, -1}));
  Tensor a = from_values(NDRT_U8, {2}, {250, 3});
  Tensor b = from_values(NDRT_U8, {2}, {10, 5});
  EXPECT_EQ(read_values(run("add", {&a, &b})), (std::vector<double>{4, 8}));
  EXPECT_EQ(read_values(run("sub", {&b, &a})), (std::vector<double>{16, 2}));
}

TEST(Special, AttributeErrorsAreInvalidArgumentWithTheReason) {
  Tensor x = from_values(NDRT_F32, {3}, {1, 2, 3});
  int64_t live = live_handles();
  const double nan = kNaN;
  struct E {
    const char* op;
    Attrs a;
    std::string msg;
  };
  const E errors[] = {
      {"leaky_relu", {{}, {nan}}, "leaky_relu: attribute 'alpha' must be a finite number, got nan"},
      {"elu", {{}, {-kInf}}, "elu: attribute 'alpha' must be a finite number, got -inf"},
      {"softplus", {{}, {-1.0}}, "softplus: attribute 'beta' must be a finite positive number, got -1"},
      {"softplus", {{}, {kInf}}, "softplus: attribute 'beta' must be a finite positive number, got inf"},
      {"clip", {{}, {1.0, -1.0}}, "clip: min (1) is greater than max (-1)"},
      {"clip", {{}, {nan, 1.0}}, "clip: the bounds min and max must not be NaN"},
      {"gelu", {{3}, {}}, "gelu: attribute 'approximate' is a bool, got 3"},
      {"relu", {{}, {1.0}}, "relu: 0 int and 1 float attribute values given, 0 and 0 used"},
  };
  for (const E& e : errors) {
    SCOPED_TRACE(e.op);
    Tensor out = create(NDRT_F32, {3});
    write_values(out, {7, 7, 7});
    expect_error(NDRT_ERR_INVALID_ARGUMENT, try_run(e.op, {&x}, nullptr, e.a), {e.msg});
    expect_error(NDRT_ERR_INVALID_ARGUMENT, try_run(e.op, {&x}, &out, e.a), {e.msg});
    EXPECT_EQ(read_values(out), (std::vector<double>{7, 7, 7})) << "a refused call wrote its output";
  }
  EXPECT_EQ(live_handles(), live + 0);
  // A finite f64 attribute beyond the f32 range saturates to inf for f32 (and stays as is for f64).
  EXPECT_EQ(run1("leaky_relu", NDRT_F32, {-1, 2}, {{}, {1e300}}), (std::vector<double>{-kInf, 2}));
  EXPECT_EQ(run1("leaky_relu", NDRT_F64, {-1, 2}, {{}, {1e300}}), (std::vector<double>{-1e300, 2}));
  EXPECT_EQ(run1("clip", NDRT_F32, {-1e300, 5}, {{}, {-1e300, 1e300}}), (std::vector<double>{-kInf, 5}));
  // Bounds may be equal or infinite.
  EXPECT_EQ(run1("clip", NDRT_F32, {-5, 5}, {{}, {2, 2}}), (std::vector<double>{2, 2}));
  EXPECT_EQ(run1("clip", NDRT_F32, {-5, 5}, {{}, {-kInf, 0}}), (std::vector<double>{-5, 0}));
}

TEST(Special, DescribeListsAttributesWithDefaultsAndValidJsonNumbers) {
  std::string clip = op_describe("clip");
  EXPECT_NE(clip.find("\"name\":\"min\",\"type\":\"float\",\"default\":-1.7976931348623157e+308"), std::string::npos) << clip;
  EXPECT_NE(clip.find("\"inplace\":true"), std::string::npos) << clip;
  std::string gelu = op_describe("gelu");
  EXPECT_NE(gelu.find("\"name\":\"approximate\",\"type\":\"bool\",\"default\":false"), std::string::npos) << gelu;
  std::string sig = op_describe("sigmoid_bp");
  EXPECT_NE(sig.find("\"inputs\":[{\"name\":\"y\"},{\"name\":\"dy\"}]"), std::string::npos) << sig;
  EXPECT_NE(op_describe("where").find("\"inputs\":[{\"name\":\"cond\"},{\"name\":\"a\"},{\"name\":\"b\"}]"),
            std::string::npos);
}

}  // namespace
