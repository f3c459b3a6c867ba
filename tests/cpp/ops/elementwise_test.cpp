// Unary elementwise ops against a float64 reference on fresh random data: every supported dtype
// (f16/bf16 included), odd shapes, rank 0, size-0 axes, non-contiguous inputs (permuted, strided
// with negative steps, expanded, offset), outputs runtime-allocated, given, and given as strided
// views of a bigger tensor, large sizes (parallel and vector paths), and in place.
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include "ops/elementwise_testing.hpp"

using namespace nt;
using namespace elt_test;

namespace {

struct UnaryDef {
  std::string label;  // test name part (op plus a variant)
  const char* op;
  std::function<double(double)> ref;
  Attrs attrs;
  std::vector<ndrt_dtype> dtypes;
  double lo, hi, min_abs;  // random input range (floats); integers use default_gen
  double tol_scale = 1;    // on default_tol
};

const double kSqrt1_2 = 0.70710678118654752440;

double gelu_tanh(double x) { return 0.5 * x * (1 + std::tanh(0.79788456080286535588 * (x + 0.044715 * x * x * x))); }
double softplus(double x, double b) { return (std::max(b * x, 0.0) + std::log1p(std::exp(-std::fabs(b * x)))) / b; }
double round_half_even(double x) {
  double r = std::round(x);  // halves away from zero
  if (std::fabs(x - std::trunc(x)) == 0.5) r = 2.0 * std::round(x / 2.0);
  return r;
}

const std::vector<ndrt_dtype> kAllNum = {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16, NDRT_I8, NDRT_U8, NDRT_I32, NDRT_I64};
const std::vector<ndrt_dtype> kFloats = {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16};

const std::vector<UnaryDef>& defs() {
  static const std::vector<UnaryDef> d = {
      {"neg", "neg", [](double x) { return -x; }, {}, {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16, NDRT_I8, NDRT_I32, NDRT_I64}, -2, 2, 0.05},
      {"relu", "relu", [](double x) { return x < 0 ? 0.0 : x; }, {}, kAllNum, -2, 2, 0.05},
      {"abs", "abs", [](double x) { return std::fabs(x); }, {}, kAllNum, -2, 2, 0.05},
      {"sign", "sign", [](double x) { return double((x > 0) - (x < 0)); }, {}, kAllNum, -2, 2, 0.05},
      {"square", "square", [](double x) { return x * x; }, {}, kAllNum, -3, 3, 0.05},
      {"clip", "clip", [](double x) { return std::min(std::max(x, -0.7), 1.3); }, {{}, {-0.7, 1.3}}, kFloats, -2, 2, 0.05},
      // Integer bounds round inward: [-20.5, 30.2] clips to [-20, 30].
      {"clip_int", "clip", [](double x) { return std::min(std::max(x, -20.0), 30.0); }, {{}, {-20.5, 30.2}},
       {NDRT_I8, NDRT_U8, NDRT_I32, NDRT_I64}, 0, 0, 0},
      {"clip_default", "clip", [](double x) { return x; }, {}, kAllNum, -2, 2, 0.05},
      {"exp", "exp", [](double x) { return std::exp(x); }, {}, kFloats, -10, 10, 0},
      {"log", "log", [](double x) { return std::log(x); }, {}, kFloats, 0.001, 1000, 0},
      {"expm1", "expm1", [](double x) { return std::expm1(x); }, {}, kFloats, -4, 4, 0},
      {"log1p", "log1p", [](double x) { return std::log1p(x); }, {}, kFloats, -0.99, 10, 0},
      {"sqrt", "sqrt", [](double x) { return std::sqrt(x); }, {}, kFloats, 0, 100, 0},
      {"rsqrt", "rsqrt", [](double x) { return 1 / std::sqrt(x); }, {}, kFloats, 0.01, 100, 0},
      {"reciprocal", "reciprocal", [](double x) { return 1 / x; }, {}, kFloats, -10, 10, 0.05},
      {"sin", "sin", [](double x) { return std::sin(x); }, {}, kFloats, -10, 10, 0},
      {"cos", "cos", [](double x) { return std::cos(x); }, {}, kFloats, -10, 10, 0},
      {"tanh", "tanh", [](double x) { return std::tanh(x); }, {}, kFloats, -6, 6, 0},
      {"sigmoid", "sigmoid", [](double x) { return 1 / (1 + std::exp(-x)); }, {}, kFloats, -20, 20, 0},
      {"floor", "floor", [](double x) { return std::floor(x); }, {}, kFloats, -20, 20, 0},
      {"ceil", "ceil", [](double x) { return std::ceil(x); }, {}, kFloats, -20, 20, 0},
      {"round", "round", round_half_even, {}, kFloats, -20, 20, 0},
      {"leaky_relu", "leaky_relu", [](double x) { return x < 0 ? 0.01 * x : x; }, {}, kFloats, -2, 2, 0.05},
      {"leaky_relu_a03", "leaky_relu", [](double x) { return x < 0 ? 0.3 * x : x; }, {{}, {0.3}}, kFloats, -2, 2, 0.05},
      {"elu", "elu", [](double x) { return x > 0 ? x : std::expm1(x); }, {}, kFloats, -4, 4, 0.05},
      {"elu_a15", "elu", [](double x) { return x > 0 ? x : 1.5 * std::expm1(x); }, {{}, {1.5}}, kFloats, -4, 4, 0.05},
      {"gelu", "gelu", [](double x) { return 0.5 * x * std::erfc(-x * kSqrt1_2); }, {}, kFloats, -5, 5, 0},
      {"gelu_tanh", "gelu", gelu_tanh, {{1}, {}}, kFloats, -5, 5, 0},
      {"softplus", "softplus", [](double x) { return softplus(x, 1); }, {}, kFloats, -20, 20, 0},
      {"softplus_b2", "softplus", [](double x) { return softplus(x, 2); }, {{}, {2.0}}, kFloats, -10, 10, 0},
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

class Unary : public ::testing::TestWithParam<Param> {
 protected:
  const UnaryDef& def() const { return defs()[GetParam().def]; }
  ndrt_dtype dtype() const { return GetParam().dtype; }
  Gen gen() const {
    const UnaryDef& u = def();
    return is_float(dtype()) ? uniform_gen(dtype(), u.lo, u.hi, u.min_abs) : default_gen(dtype());
  }
  std::vector<double> want(const std::vector<double>& x) const {
    std::vector<double> w(x.size());
    for (size_t i = 0; i < x.size(); ++i) w[i] = to_dtype(def().ref(x[i]), dtype());
    return w;
  }
  Tol tol() const { return scaled(default_tol(dtype()), def().tol_scale); }
};

TEST_P(Unary, MatchesFloat64ReferenceOnAllLayoutsAndOutputs) {
  const UnaryDef& u = def();
  const ndrt_dtype d = dtype();
  std::mt19937 rng(4242 + unsigned(GetParam().def) * 97 + unsigned(d) * 13);
  const Shape shapes[] = {{3, 5, 7}, {}, {0, 4}, {1}, {2, 3, 4, 5}, {5, 0}, {37}};
  for (const Shape& s : shapes)
    for (Kind k : kAllKinds)
      for (OutKind ok : kAllOutKinds) {
        std::string what = u.label + " " + dtype_str(d) + " " + shape_str(s) + " " + kind_str(k) + ", " + out_kind_str(ok);
        SCOPED_TRACE(what);
        Operand X = make_operand(d, s, k, gen(), rng);
        std::vector<double> got = run_out(u.op, {&X.view}, u.attrs, d, s, ok);
        expect_close(got, want(X.vals), d, tol(), what);
      }
}

// Past the parallel grain, with odd lengths (vector tails): dense (the direct path), permuted and
// strided (the blocked path).
TEST_P(Unary, LargeInputsUseParallelAndVectorPathsCorrectly) {
  const UnaryDef& u = def();
  const ndrt_dtype d = dtype();
  std::mt19937 rng(99 + unsigned(GetParam().def) + unsigned(d) * 7);
  const struct {
    Shape s;
    Kind k;
  } cases[] = {{{3, 40009}, Kind::Contig}, {{257, 1031}, Kind::Permuted}, {{131, 517}, Kind::Strided}};
  for (const auto& c : cases) {
    std::string what = u.label + " large " + shape_str(c.s) + " " + kind_str(c.k);
    Operand X = make_operand(d, c.s, c.k, gen(), rng);
    expect_close(run_out(u.op, {&X.view}, u.attrs, d, c.s, OutKind::Fresh), want(X.vals), d, tol(), what);
  }
}

// The op writes its own input view (dense and strided): every element read before it is written.
TEST_P(Unary, RunsInPlaceOnTheSameView) {
  const UnaryDef& u = def();
  const ndrt_dtype d = dtype();
  std::mt19937 rng(7 + unsigned(d));
  for (Kind k : {Kind::Contig, Kind::Strided, Kind::Permuted}) {
    SCOPED_TRACE(kind_str(k));
    Operand X = make_operand(d, {9, 301}, k, gen(), rng);
    run_into(u.op, {&X.view}, X.view, u.attrs);
    expect_close(read_values(X.view), want(X.vals), d, tol(), u.label + " in place");
  }
}

std::vector<Param> params() {
  std::vector<Param> r;
  for (size_t i = 0; i < defs().size(); ++i)
    for (ndrt_dtype d : defs()[i].dtypes) r.push_back({i, d});
  return r;
}
INSTANTIATE_TEST_SUITE_P(Ops, Unary, ::testing::ValuesIn(params()), param_name);

// Every dtype an op does not list is refused: float-only ops with DTYPE_MISMATCH, the others with
// NOT_SUPPORTED, and describe lists exactly the documented kernels.
TEST(UnaryDtypes, KernelListsAreExactlyTheDocumentedOnes) {
  std::map<std::string, std::vector<ndrt_dtype>> want;
  for (const UnaryDef& u : defs()) {
    std::vector<ndrt_dtype>& w = want[u.op];
    for (ndrt_dtype d : u.dtypes)
      if (std::find(w.begin(), w.end(), d) == w.end()) w.push_back(d);
  }
  for (auto& [op, w] : want) {
    std::vector<ndrt_dtype> have = cpu_dtypes(op.c_str());
    std::sort(have.begin(), have.end());
    std::sort(w.begin(), w.end());
    EXPECT_EQ(have, w) << op << ": " << op_describe(op.c_str());
    for (ndrt_dtype d : kAllDtypes) {
      if (std::find(w.begin(), w.end(), d) != w.end()) continue;
      SCOPED_TRACE(op + " on " + dtype_str(d));
      Tensor x = from_values(d, {2, 3}, std::vector<double>(6, 1.0));
      ndrt_status s = try_run(op.c_str(), {&x}, nullptr);
      bool float_only = std::find(w.begin(), w.end(), NDRT_I32) == w.end();
      if (float_only) {
        expect_error(NDRT_ERR_DTYPE_MISMATCH, s, {op + ": needs a floating-point dtype, got " + dtype_str(d)});
      } else {
        expect_error(NDRT_ERR_NOT_SUPPORTED, s, {op + ": no cpu kernel for dtype " + dtype_str(d)});
      }
    }
  }
}

}  // namespace
