// Reductions against float64 references computed here: sum/mean/max (new dtypes f16, bf16) and
// min, prod, norm1, norm2, var, std, logsumexp over every axis subset with keepdims, every layout
// and output kind, rank 0, size-0 axes, rank 4, large (parallel) inputs; argmax/argmin along each
// axis with ties and NaN; sum_bp/mean_bp with a finite-difference check; the error cases.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "common/ndrt_test.hpp"
#include "reduce_test_util.hpp"

using namespace nt;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

// Elements of each output, in row-major order of the reduced axes.
struct Groups {
  Shape shape;  // output shape
  std::vector<std::vector<double>> g;
};

Groups group(const std::vector<double>& x, const Shape& s, uint32_t mask, bool keep) {
  Groups r;
  Shape full;
  for (size_t i = 0; i < s.size(); ++i) {
    bool red = mask & (1u << i);
    full.push_back(red ? 1 : s[i]);
    if (!red)
      r.shape.push_back(s[i]);
    else if (keep)
      r.shape.push_back(1);
  }
  r.g.resize(size_t(numel_of(full)));
  Shape fst = strides_of(full);
  for (size_t k = 0; k < x.size(); ++k) {
    std::vector<int64_t> idx = unravel(int64_t(k), s);
    int64_t o = 0;
    for (size_t i = 0; i < s.size(); ++i)
      if (!(mask & (1u << i))) o += idx[i] * fst[i];
    r.g[size_t(o)].push_back(x[k]);
  }
  return r;
}

// The two's-complement wrap of an integer result to dtype d.
double wrap_to(ndrt_dtype d, uint64_t v) {
  if (d == NDRT_I32) return double(int32_t(uint32_t(v)));
  return double(int64_t(v));
}

double reference(const std::string& op, ndrt_dtype d, const std::vector<double>& v, int64_t correction = 1) {
  const double n = double(v.size());
  double s = 0, a = 0, q = 0;
  for (double x : v) {
    s += x;
    a += std::fabs(x);
    q += x * x;
  }
  if (op == "sum") return s;
  if (op == "mean") return s / n;
  if (op == "norm1") return a;
  if (op == "norm2") return std::sqrt(q);
  if (op == "max" || op == "min") {
    double m = op == "max" ? -kInf : kInf;
    for (double x : v) {
      if (std::isnan(x)) return x;
      m = op == "max" ? std::max(m, x) : std::min(m, x);
    }
    return m;
  }
  if (op == "prod") {
    if (is_int(d)) {
      uint64_t p = 1;
      for (double x : v) p *= uint64_t(int64_t(x));
      return wrap_to(d, p);
    }
    double p = 1;
    for (double x : v) p *= x;
    return p;
  }
  if (op == "var" || op == "std") {
    if (n - double(correction) <= 0) return kNaN;
    double mean = s / n, dev = 0;
    for (double x : v) dev += (x - mean) * (x - mean);
    double var = dev / (n - double(correction));
    return op == "var" ? var : std::sqrt(var);
  }
  if (op == "logsumexp") {
    double m = -kInf;
    for (double x : v) {
      if (std::isnan(x)) return x;
      m = std::max(m, x);
    }
    if (std::isinf(m)) return m;
    double e = 0;
    for (double x : v) e += std::exp(x - m);
    return m + std::log(e);
  }
  if (op == "argmax" || op == "argmin") {
    size_t best = 0;
    for (size_t i = 0; i < v.size(); ++i) {
      if (std::isnan(v[best])) break;
      if (std::isnan(v[i]) || (op == "argmax" ? v[i] > v[best] : v[i] < v[best])) best = i;
    }
    return double(best);
  }
  throw Failure(NDRT_ERR_INTERNAL, "no reference for " + op);
}

bool is_arg(const std::string& op) { return op == "argmax" || op == "argmin"; }

// Values for an op's tests: products stay in range; integers small so products wrap predictably.
Gen gen_for(const std::string& op, ndrt_dtype d) {
  if (op == "prod") {
    if (is_int(d)) return uniform_gen(d, -3, 3);
    return [d](std::mt19937& rng) {
      double v = uniform_gen(d, 0.7, 1.3)(rng);
      return rng() % 2 ? -v : v;
    };
  }
  return default_gen(d);
}

// Tolerance allowance for accumulated rounding (f32 accumulators for f16/bf16, f64 otherwise).
std::vector<double> extra_tol(const std::string& op, ndrt_dtype d, const Groups& g) {
  std::vector<double> e(g.g.size(), 0.0);
  const double acc_eps = (d == NDRT_F16 || d == NDRT_BF16) ? 1.2e-7 : 1e-15;
  for (size_t i = 0; i < e.size(); ++i) {
    double maxabs = 0;
    for (double x : g.g[i]) maxabs = std::max(maxabs, std::fabs(x));
    double n = double(g.g[i].size());
    if (op == "sum" || op == "norm1") e[i] = acc_eps * n * maxabs;
    if (op == "mean") e[i] = acc_eps * maxabs;
    if (op == "var" || op == "std") e[i] = acc_eps * 10 * maxabs * maxabs;
  }
  return e;
}

void check_reduce(const std::string& op, ndrt_dtype d, const Operand& x, const Shape& s, const Attrs& attrs,
                  uint32_t mask, bool keep, OutKind ok, const std::string& what, int64_t correction = 1) {
  SCOPED_TRACE(what);
  Groups g = group(x.vals, s, mask, keep);
  std::vector<double> want(g.g.size());
  for (size_t i = 0; i < want.size(); ++i) {
    want[i] = reference(op, d, g.g[i], correction);
    if (d == NDRT_F16 && std::fabs(want[i]) >= 65520) want[i] = std::copysign(kInf, want[i]);  // overflows f16
  }
  const ndrt_dtype od = is_arg(op) ? NDRT_I64 : d;
  std::vector<double> got = run_out(op.c_str(), {&x.view}, attrs, od, g.shape, ok);
  if (is_arg(op) || is_int(d)) {
    expect_close(got, want, od, {0, 0}, what);
    return;
  }
  std::vector<double> extra = extra_tol(op, d, g);
  expect_close(got, want, d, default_tol(d), what, &extra);
}

Attrs attrs_for(const std::string& op, const std::vector<int64_t>& axes, bool keep, int64_t correction = 1) {
  Attrs a = reduce_attrs(axes, keep);
  if (op == "var" || op == "std") a.ints.push_back(correction);
  return a;
}

Attrs arg_attrs(int64_t axis, bool keep) { return Attrs{{axis, keep ? 1 : 0}, {}}; }

struct OpDtype {
  const char* op;
  ndrt_dtype dtype;
};
std::string param_name(const ::testing::TestParamInfo<OpDtype>& i) {
  return std::string(i.param.op) + "_" + dtype_str(i.param.dtype);
}

const std::vector<ndrt_dtype> kFloats = {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16};
const std::vector<ndrt_dtype> kMinMaxTypes = {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16,
                                              NDRT_I8,  NDRT_U8,  NDRT_I32, NDRT_I64};

std::vector<OpDtype> reduce_params() {
  std::vector<OpDtype> r;
  for (ndrt_dtype d : {NDRT_F16, NDRT_BF16})
    for (const char* op : {"sum", "mean", "max"}) r.push_back({op, d});
  for (ndrt_dtype d : kMinMaxTypes) r.push_back({"min", d});
  for (ndrt_dtype d : {NDRT_I8, NDRT_U8}) r.push_back({"max", d});
  for (ndrt_dtype d : {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16, NDRT_I32, NDRT_I64}) r.push_back({"prod", d});
  for (const char* op : {"norm1", "norm2", "var", "std", "logsumexp"})
    for (ndrt_dtype d : kFloats) r.push_back({op, d});
  return r;
}

class Reduce : public ::testing::TestWithParam<OpDtype> {};

TEST_P(Reduce, EveryAxisSubsetOfARank3TensorKeepdimsBothWays) {
  const OpDtype p = GetParam();
  std::mt19937 rng(777 + p.dtype * 31 + p.op[0] * 7 + p.op[1]);
  const Shape s = {3, 5, 7};
  int variant = 0;
  for (uint32_t mask = 0; mask < 8; ++mask)
    for (int keep = 0; keep < 2; ++keep)
      for (Kind k : kAllKinds) {
        ++variant;
        std::vector<int64_t> axes;
        for (int i = 0; i < 3; ++i)
          if (mask & (1u << i)) axes.push_back(variant % 2 ? i - 3 : i);
        if (variant % 3 == 0) std::reverse(axes.begin(), axes.end());
        uint32_t means = mask ? mask : 7u;
        OutKind ok = kAllOutKinds[variant % 3];
        Operand x = make_operand(p.dtype, s, k, gen_for(p.op, p.dtype), rng);
        std::string axes_s;
        for (int64_t a : axes) axes_s += std::to_string(a) + " ";
        check_reduce(p.op, p.dtype, x, s, attrs_for(p.op, axes, keep), means, keep, ok,
                     std::string(p.op) + " " + dtype_str(p.dtype) + " axes {" + axes_s + "} keepdims " +
                         std::to_string(keep) + " " + kind_str(k) + ", " + out_kind_str(ok));
      }
}

TEST_P(Reduce, RankZeroSizeZeroAndRankFour) {
  const OpDtype p = GetParam();
  const std::string op = p.op;
  std::mt19937 rng(99 + p.dtype + p.op[2]);
  const bool needs_elements = op == "max" || op == "min";
  {  // rank 0
    Operand x = make_operand(p.dtype, {}, Kind::Contig, gen_for(op, p.dtype), rng);
    for (int keep = 0; keep < 2; ++keep)
      for (OutKind ok : kAllOutKinds)
        check_reduce(op, p.dtype, x, {}, attrs_for(op, {}, keep, 0), 0, keep, ok, op + " rank 0", 0);
  }
  {  // non-empty axes of a tensor with a size-0 axis: empty result
    Operand x = make_operand(p.dtype, {4, 0, 3}, Kind::Strided, gen_for(op, p.dtype), rng);
    for (int keep = 0; keep < 2; ++keep)
      check_reduce(op, p.dtype, x, {4, 0, 3}, attrs_for(op, {2}, keep), 4u, keep, OutKind::Fresh,
                   op + " [4,0,3] axis 2");
  }
  if (!needs_elements) {  // over a size-0 axis: the identity (sum 0, prod 1, lse -inf) or NaN
    Operand x = make_operand(p.dtype, {4, 0, 3}, Kind::Permuted, gen_for(op, p.dtype), rng);
    for (int keep = 0; keep < 2; ++keep)
      for (OutKind ok : kAllOutKinds) {
        check_reduce(op, p.dtype, x, {4, 0, 3}, attrs_for(op, {1}, keep), 2u, keep, ok,
                     op + " [4,0,3] over the empty axis");
        check_reduce(op, p.dtype, x, {4, 0, 3}, attrs_for(op, {}, keep), 7u, keep, ok, op + " [4,0,3] over all axes");
      }
  }
  {
    Operand x = make_operand(p.dtype, {2, 3, 4, 5}, Kind::Expanded, gen_for(op, p.dtype), rng);
    check_reduce(op, p.dtype, x, {2, 3, 4, 5}, attrs_for(op, {0, 3}, false), 9u, false, OutKind::GivenView,
                 op + " rank 4 axes {0,3}");
    check_reduce(op, p.dtype, x, {2, 3, 4, 5}, attrs_for(op, {-1, -2, -3}, true), 14u, true, OutKind::Given,
                 op + " rank 4 axes {-1,-2,-3}");
    Operand y = make_operand(p.dtype, {2, 3, 4, 5}, Kind::Strided, gen_for(op, p.dtype), rng);
    check_reduce(op, p.dtype, y, {2, 3, 4, 5}, attrs_for(op, {1, 2}, true), 6u, true, OutKind::GivenView,
                 op + " strided rank 4 axes {1,2}");
  }
}

TEST_P(Reduce, LargeInputsUseParallelPathsCorrectly) {
  const OpDtype p = GetParam();
  const std::string op = p.op;
  if (op == "prod" && !is_int(p.dtype)) return;  // products of 10^5 values leave every float range
  std::mt19937 rng(7 + p.dtype + p.op[1]);
  const Shape s = {1000, 333};
  Operand x = make_operand(p.dtype, s, Kind::Contig, gen_for(op, p.dtype), rng);
  check_reduce(op, p.dtype, x, s, attrs_for(op, {}, false), 3u, false, OutKind::Fresh, "all axes of [1000,333]");
  check_reduce(op, p.dtype, x, s, attrs_for(op, {0}, false), 1u, false, OutKind::Fresh, "axis 0 of [1000,333]");
  check_reduce(op, p.dtype, x, s, attrs_for(op, {1}, true), 2u, true, OutKind::Fresh, "axis 1 of [1000,333]");
  Operand y = make_operand(p.dtype, {64, 1031, 3}, Kind::Permuted, gen_for(op, p.dtype), rng);
  check_reduce(op, p.dtype, y, {64, 1031, 3}, attrs_for(op, {1}, false), 2u, false, OutKind::Given,
               "axis 1 of permuted [64,1031,3]");
}

INSTANTIATE_TEST_SUITE_P(Ops, Reduce, ::testing::ValuesIn(reduce_params()), param_name);

// ---------------------------------------------------------------------------------------------
// argmax / argmin
// ---------------------------------------------------------------------------------------------
std::vector<OpDtype> arg_params() {
  std::vector<OpDtype> r;
  for (const char* op : {"argmax", "argmin"})
    for (ndrt_dtype d : kMinMaxTypes) r.push_back({op, d});
  return r;
}

class ArgReduce : public ::testing::TestWithParam<OpDtype> {};

// Small integer-valued data so ties are common (the first index must win).
Gen tie_gen(ndrt_dtype d) { return d == NDRT_U8 ? uniform_gen(d, 1, 6) : uniform_gen(d, -3, 3); }

TEST_P(ArgReduce, EveryAxisEveryLayoutWithTies) {
  const OpDtype p = GetParam();
  std::mt19937 rng(31 + p.dtype * 3 + p.op[4]);
  const Shape s = {4, 6, 9};
  int variant = 0;
  for (int axis = -3; axis < 3; ++axis)
    for (int keep = 0; keep < 2; ++keep)
      for (Kind k : kAllKinds) {
        ++variant;
        OutKind ok = kAllOutKinds[variant % 3];
        Operand x = make_operand(p.dtype, s, k, variant % 2 ? tie_gen(p.dtype) : default_gen(p.dtype), rng);
        int a = axis < 0 ? axis + 3 : axis;
        check_reduce(p.op, p.dtype, x, s, arg_attrs(axis, keep), 1u << a, keep, ok,
                     std::string(p.op) + " axis " + std::to_string(axis) + " keepdims " + std::to_string(keep) + " " +
                         kind_str(k) + ", " + out_kind_str(ok));
      }
}

TEST_P(ArgReduce, RankZeroSizeZeroLargeAndDefaultAxis) {
  const OpDtype p = GetParam();
  std::mt19937 rng(5 + p.dtype);
  Operand s0 = make_operand(p.dtype, {}, Kind::Contig, default_gen(p.dtype), rng);
  for (int64_t axis : {0, -1})
    for (int keep = 0; keep < 2; ++keep)
      check_reduce(p.op, p.dtype, s0, {}, arg_attrs(axis, keep), 0, keep, OutKind::GivenView, "rank 0");
  Operand e = make_operand(p.dtype, {0, 5}, Kind::Contig, default_gen(p.dtype), rng);
  check_reduce(p.op, p.dtype, e, {0, 5}, arg_attrs(1, false), 2u, false, OutKind::Fresh, "[0,5] axis 1");
  Operand big = make_operand(p.dtype, {3, 100000}, Kind::Contig, tie_gen(p.dtype), rng);
  check_reduce(p.op, p.dtype, big, {3, 100000}, arg_attrs(1, false), 2u, false, OutKind::Fresh, "[3,100000] axis 1");
  Operand flat = make_operand(p.dtype, {300000}, Kind::Contig, default_gen(p.dtype), rng);
  check_reduce(p.op, p.dtype, flat, {300000}, Attrs{}, 1u, false, OutKind::Fresh, "[300000], default attributes");
  Operand col = make_operand(p.dtype, {2000, 70}, Kind::Contig, tie_gen(p.dtype), rng);
  check_reduce(p.op, p.dtype, col, {2000, 70}, arg_attrs(0, true), 1u, true, OutKind::Given, "[2000,70] axis 0");
}

INSTANTIATE_TEST_SUITE_P(Ops, ArgReduce, ::testing::ValuesIn(arg_params()), param_name);

TEST(ArgReduction, NaNWinsAndTheFirstNaNIsReported) {
  for (ndrt_dtype d : kFloats) {
    SCOPED_TRACE(dtype_str(d));
    Tensor x = from_values(d, {3, 5}, {1, kNaN, 3, kNaN, 0, -kInf, -kInf, -kInf, -kInf, -kInf, 2, 7, kInf, 7, kInf});
    EXPECT_EQ(read_values(run("argmax", {&x}, arg_attrs(1, false))), (std::vector<double>{1, 0, 2}));
    EXPECT_EQ(read_values(run("argmin", {&x}, arg_attrs(1, false))), (std::vector<double>{1, 0, 0}));
    EXPECT_EQ(read_values(run("argmax", {&x}, arg_attrs(0, true))), (std::vector<double>{2, 0, 2, 0, 2}));
  }
}

// ---------------------------------------------------------------------------------------------
// Special values and attribute semantics
// ---------------------------------------------------------------------------------------------
TEST(Reduction, LogsumexpIsStableAndHandlesInfinitiesAndNaN) {
  for (ndrt_dtype d : {NDRT_F32, NDRT_F64}) {
    SCOPED_TRACE(dtype_str(d));
    Tensor x =
        from_values(d, {5, 3}, {1000, 1000, 999, -1000, -1001, -1000, -kInf, -kInf, -kInf, 1, kInf, 2, 1, kNaN, 2});
    std::vector<double> y = read_values(run("logsumexp", {&x}, reduce_attrs({1}, false)));
    ASSERT_EQ(y.size(), 5u);
    EXPECT_NEAR(y[0], 1000 + std::log(2 + std::exp(-1.0)), 1e-4);
    EXPECT_NEAR(y[1], -1000 + std::log(2 + std::exp(-1.0)), 1e-4);
    EXPECT_EQ(y[2], -kInf);
    EXPECT_EQ(y[3], kInf);
    EXPECT_TRUE(std::isnan(y[4]));
    Tensor e = create(d, {0, 4});
    EXPECT_EQ(read_values(run("logsumexp", {&e}, reduce_attrs({0}, false))), std::vector<double>(4, -kInf));
  }
}

TEST(Reduction, VarCorrectionAttribute) {
  std::mt19937 rng(3);
  std::vector<double> v = rt::randv(rng, 24);
  Tensor x = from_values(NDRT_F64, {4, 6}, v);
  for (int64_t corr : {0, 1, 2, 5, 6, 9}) {
    SCOPED_TRACE("correction " + std::to_string(corr));
    for (const char* op : {"var", "std"}) {
      std::vector<double> got = read_values(run(op, {&x}, attrs_for(op, {1}, false, corr)));
      Groups g = group(v, {4, 6}, 2u, false);
      for (size_t i = 0; i < 4; ++i) {
        double want = reference(op, NDRT_F64, g.g[i], corr);
        if (std::isnan(want))
          EXPECT_TRUE(std::isnan(got[i])) << got[i];
        else
          EXPECT_NEAR(got[i], want, 1e-12 * std::fabs(want));
      }
    }
  }
  // Default is the bias-corrected (n - 1) estimator.
  Tensor y = from_values(NDRT_F32, {4}, {1, 2, 3, 4});
  EXPECT_NEAR(read_values(run("var", {&y}))[0], 5.0 / 3.0, 1e-6);
  EXPECT_NEAR(read_values(run("std", {&y}))[0], std::sqrt(5.0 / 3.0), 1e-6);
}

TEST(Reduction, MinPropagatesNaNAndHandlesInfinities) {
  for (ndrt_dtype d : kFloats) {
    SCOPED_TRACE(dtype_str(d));
    Tensor x = from_values(d, {3, 4}, {1, kNaN, 3, kInf, kInf, kInf, kInf, kInf, 5, 2, -kInf, 4});
    std::vector<double> r = read_values(run("min", {&x}, reduce_attrs({1}, false)));
    EXPECT_TRUE(std::isnan(r[0]));
    EXPECT_EQ(r[1], kInf);
    EXPECT_EQ(r[2], -kInf);
    Tensor y = from_values(d, {2, 3}, {1, 2, kNaN, kNaN, 2, 1});
    std::vector<double> c = read_values(run("min", {&y}, reduce_attrs({1}, false)));
    EXPECT_TRUE(std::isnan(c[0]) && std::isnan(c[1]));
    std::vector<double> m = read_values(run("max", {&y}, reduce_attrs({1}, false)));
    EXPECT_TRUE(std::isnan(m[0]) && std::isnan(m[1]));
  }
}

TEST(Reduction, IntegerProductsWrapAndIntegerMinMaxAreExact) {
  Tensor x = from_values(NDRT_I32, {2, 3}, {65536, 65536, 3, -7, 1000, 2});
  EXPECT_EQ(read_values(run("prod", {&x}, reduce_attrs({1}, false))), (std::vector<double>{0, -14000}));
  Tensor y = from_values(NDRT_I64, {3}, {9007199254740991.0, -1, 1});
  EXPECT_EQ(read_values(run("min", {&y})), std::vector<double>{-1});
  EXPECT_EQ(read_values(run("max", {&y})), std::vector<double>{9007199254740991.0});
  Tensor u = from_values(NDRT_U8, {4}, {0, 255, 7, 255});
  EXPECT_EQ(read_values(run("max", {&u})), std::vector<double>{255});
  EXPECT_EQ(read_values(run("argmax", {&u})), std::vector<double>{1});
  EXPECT_EQ(read_values(run("argmin", {&u})), std::vector<double>{0});
}

TEST(Reduction, HalfSumsAccumulateInFloat) {
  // 4096 x 1.0 plus small values: an f16 accumulator would stall at 2048.
  std::vector<double> v(5000, 1.0);
  for (ndrt_dtype d : {NDRT_F16, NDRT_BF16}) {
    Tensor x = from_values(d, {5000}, v);
    double got = read_values(run("sum", {&x}))[0];
    EXPECT_NEAR(got, 5000, d == NDRT_F16 ? 4 : 32) << dtype_str(d);
    EXPECT_NEAR(read_values(run("mean", {&x}))[0], 1.0, 0) << dtype_str(d);
  }
}

// ---------------------------------------------------------------------------------------------
// sum_bp / mean_bp
// ---------------------------------------------------------------------------------------------
TEST(ReduceGrad, SumAndMeanBpBroadcastDyBackEveryDtypeAndLayout) {
  std::mt19937 rng(11);
  const Shape s = {3, 4, 5};
  int variant = 0;
  for (const char* op : {"sum_bp", "mean_bp"})
    for (ndrt_dtype d : kFloats)
      for (uint32_t mask = 0; mask < 8; ++mask)
        for (int keep = 0; keep < 2; ++keep) {
          ++variant;
          std::vector<int64_t> axes;
          for (int i = 0; i < 3; ++i)
            if (mask & (1u << i)) axes.push_back(variant % 2 ? i - 3 : i);
          const uint32_t means = mask ? mask : 7u;
          Groups g = group(std::vector<double>(60, 0.0), s, means, keep);
          Operand x = make_operand(d, s, kAllKinds[variant % 5], default_gen(d), rng);
          Operand dy = make_operand(d, g.shape, kAllKinds[(variant + 2) % 5], default_gen(d), rng);
          double n = 1;
          for (int i = 0; i < 3; ++i)
            if (means & (1u << i)) n *= double(s[size_t(i)]);
          std::vector<double> want(60);
          Shape full;
          for (int i = 0; i < 3; ++i) full.push_back(means & (1u << i) ? 1 : s[size_t(i)]);
          for (int64_t k = 0; k < 60; ++k) {
            std::vector<int64_t> idx = unravel(k, s);
            int64_t o = 0;
            for (int i = 0; i < 3; ++i) o = o * full[size_t(i)] + (means & (1u << i) ? 0 : idx[size_t(i)]);
            want[size_t(k)] = dy.vals[size_t(o)] / (std::string(op) == "mean_bp" ? n : 1.0);
          }
          OutKind ok = kAllOutKinds[variant % 3];
          std::string what = std::string(op) + " " + dtype_str(d) + " mask " + std::to_string(mask) + " keep " +
                             std::to_string(keep) + ", " + out_kind_str(ok);
          std::vector<double> got = run_out(op, {&x.view, &dy.view}, reduce_attrs(axes, keep), d, s, ok);
          expect_close(got, want, d, default_tol(d), what);
        }
}

TEST(ReduceGrad, FiniteDifferencesOfSumAndMean) {
  std::mt19937 rng(12);
  const Shape s = {3, 4, 5};
  for (const char* fwd : {"sum", "mean"})
    for (const std::vector<int64_t>& axes : std::vector<std::vector<int64_t>>{{}, {1}, {0, 2}})
      for (int keep = 0; keep < 2; ++keep) {
        rt::In x{NDRT_F64, s, rt::randv(rng, 60)};
        Attrs a = reduce_attrs(axes, keep);
        const std::string bp = std::string(fwd) + "_bp";
        rt::check_grad((std::string(fwd) + " axes " + std::to_string(axes.size())).c_str(), fwd, 1, {x}, 0, a,
                       [&](const std::vector<double>& w) {
                         Shape ys = rt::run_all(fwd, {x}, 1, a)[0].s;
                         return rt::run_all(bp.c_str(), {x, rt::In{NDRT_F64, ys, w}}, 1, a)[0].v;
                       },
                       rng);
      }
}

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------
TEST(ReductionErrors, BadAttributesShapesAndDtypes) {
  Tensor x = from_values(NDRT_F32, {3, 5}, std::vector<double>(15, 1.0));
  rt::expect_error(NDRT_ERR_INVALID_ARGUMENT, "var: correction must be >= 0, got -1", "var", {&x}, 1,
                   attrs_for("var", {}, false, -1));
  rt::expect_error(NDRT_ERR_INVALID_ARGUMENT, "std: correction must be >= 0, got -3", "std", {&x}, 1,
                   attrs_for("std", {0}, true, -3));
  rt::expect_error(NDRT_ERR_INVALID_ARGUMENT, "argmax: axis 2 is out of range for rank 2", "argmax", {&x}, 1,
                   arg_attrs(2, false));
  rt::expect_error(NDRT_ERR_INVALID_ARGUMENT, "argmin: axis -3 is out of range for rank 2", "argmin", {&x}, 1,
                   arg_attrs(-3, false));
  Tensor s = from_values(NDRT_F32, {}, {1});
  rt::expect_error(NDRT_ERR_INVALID_ARGUMENT, "argmax: axis 1 is out of range for rank 0 (use 0 or -1)", "argmax", {&s},
                   1, arg_attrs(1, false));
  Tensor e = create(NDRT_F32, {3, 0});
  rt::expect_error(NDRT_ERR_INVALID_ARGUMENT, "min: cannot reduce over axis 1 of size 0", "min", {&e}, 1,
                   reduce_attrs({1}, false));
  rt::expect_error(NDRT_ERR_INVALID_ARGUMENT, "argmax: cannot reduce over axis 1 of size 0", "argmax", {&e}, 1,
                   arg_attrs(-1, false));
  rt::expect_error(NDRT_ERR_INVALID_ARGUMENT, "logsumexp: axis -2 is listed twice", "logsumexp", {&x}, 1,
                   reduce_attrs({0, -2}, false));
  rt::expect_error(NDRT_ERR_INVALID_ARGUMENT, "norm2: axis 2 is out of range for rank 2", "norm2", {&x}, 1,
                   reduce_attrs({2}, false));
  Tensor i = from_values(NDRT_I32, {3}, {1, 2, 3});
  for (const char* op : {"norm1", "norm2", "var", "std", "logsumexp", "mean"})
    rt::expect_error(NDRT_ERR_DTYPE_MISMATCH, std::string(op) + ": needs a floating-point dtype, got i32", op, {&i}, 1);
  Tensor b = from_values(NDRT_BOOL, {3}, {1, 0, 1});
  rt::expect_error(NDRT_ERR_NOT_SUPPORTED,
                   "prod: no cpu kernel for dtype bool (cpu has: f32, f64, f16, bf16, i32, i64)", "prod", {&b}, 1);
  rt::expect_error(NDRT_ERR_NOT_SUPPORTED, "", "argmax", {&b}, 1);
  // sum_bp / mean_bp: dy must have the reduced shape and x's dtype.
  Tensor dy_bad = create(NDRT_F32, {3});
  rt::expect_error(NDRT_ERR_SHAPE_MISMATCH,
                   "sum_bp: dy has shape [3] but x [3,5] reduced over the axes (keepdims 1) has shape [3,1]", "sum_bp",
                   {&x, &dy_bad}, 1, reduce_attrs({1}, true));
  Tensor dy_f64 = create(NDRT_F64, {3});
  rt::expect_error(NDRT_ERR_DTYPE_MISMATCH, "mean_bp: input 1 is f64 but input 0 is f32 (cast explicitly)", "mean_bp",
                   {&x, &dy_f64}, 1, reduce_attrs({1}, false));
  // A given output of the wrong dtype (argmax produces i64).
  Tensor wrong = create(NDRT_I32, {3});
  std::vector<ndrt_handle> out = {wrong.get()};
  EXPECT_STATUS(NDRT_ERR_DTYPE_MISMATCH, exec("argmax", {x.get()}, out, arg_attrs(1, false)));
}

TEST(ReductionErrors, KernelDtypeListsAreTheDocumentedOnes) {
  auto names = [](const std::vector<ndrt_dtype>& v) {
    std::string s;
    for (ndrt_dtype d : v) s += std::string(dtype_str(d)) + " ";
    return s;
  };
  EXPECT_EQ(names(cpu_dtypes("sum")), "f32 f64 f16 bf16 i32 i64 ");
  EXPECT_EQ(names(cpu_dtypes("prod")), "f32 f64 f16 bf16 i32 i64 ");
  EXPECT_EQ(names(cpu_dtypes("mean")), "f32 f64 f16 bf16 ");
  for (const char* op : {"max", "min", "argmax", "argmin"})
    EXPECT_EQ(names(cpu_dtypes(op)), "f32 f64 f16 bf16 i8 u8 i32 i64 ") << op;
  for (const char* op : {"norm1", "norm2", "var", "std", "logsumexp", "sum_bp", "mean_bp"})
    EXPECT_EQ(names(cpu_dtypes(op)), "f32 f64 f16 bf16 ") << op;
}

}  // namespace
