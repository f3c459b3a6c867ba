// Reduction gradients max_bp, min_bp, prod_bp, norm1_bp, norm2_bp, var_bp, std_bp, logsumexp_bp:
// against float64 references of the documented formulas on every float dtype (every axis subset,
// keepdims both ways, every layout, poisoned outputs of every kind), special cases (ties, NaN,
// zeros in products, zero norms and deviations, infinities, rank 0, size-0 axes, large inputs on
// the parallel paths), central differences in f64 through the forward ops, and the errors.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "common/ndrt_test.hpp"
#include "reduce_test_util.hpp"

using namespace nt;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();
const std::vector<ndrt_dtype> kFloats = {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16};
const char* const kOps[] = {"max_bp", "min_bp", "prod_bp", "norm1_bp", "norm2_bp", "var_bp", "std_bp", "logsumexp_bp"};

bool has_correction(const std::string& op) { return op == "var_bp" || op == "std_bp"; }

Attrs bp_attrs(const std::string& op, const std::vector<int64_t>& axes, bool keep, int64_t correction = 1) {
  Attrs a = reduce_attrs(axes, keep);
  if (has_correction(op)) a.ints.push_back(correction);
  return a;
}

// Group (flat index over the kept axes, row-major: also dy's flat index) of each element of x.
std::vector<int64_t> group_of(const Shape& s, uint32_t mask, int64_t* n_groups) {
  std::vector<int64_t> g(size_t(numel_of(s)));
  int64_t groups = 1;
  for (size_t i = 0; i < s.size(); ++i)
    if (!(mask & (1u << i))) groups *= s[i];
  for (size_t k = 0; k < g.size(); ++k) {
    std::vector<int64_t> idx = unravel(int64_t(k), s);
    int64_t o = 0;
    for (size_t i = 0; i < s.size(); ++i)
      if (!(mask & (1u << i))) o = o * s[i] + idx[i];
    g[k] = o;
  }
  *n_groups = groups;
  return g;
}

Shape out_shape(const Shape& s, uint32_t mask, bool keep) {
  Shape o;
  for (size_t i = 0; i < s.size(); ++i) {
    if (!(mask & (1u << i)))
      o.push_back(s[i]);
    else if (keep)
      o.push_back(1);
  }
  return o;
}

double eps_of(ndrt_dtype d) { return d == NDRT_F64 ? 1.2e-16 : 6e-8; }  // f16/bf16 compute in f32

// The documented gradient in f64, and per element a bound for the compute type's rounding (on
// top of the dtype's tolerance, which covers the final rounding).
struct Expect {
  std::vector<double> dx, extra;
};

Expect reference(const std::string& op, ndrt_dtype d, const std::vector<double>& x, const Shape& s, uint32_t mask,
                 const std::vector<double>& dy, int64_t correction) {
  int64_t G = 0;
  const std::vector<int64_t> grp = group_of(s, mask, &G);
  std::vector<std::vector<size_t>> members(static_cast<size_t>(G));
  for (size_t k = 0; k < x.size(); ++k) members[size_t(grp[k])].push_back(k);
  Expect e;
  e.dx.assign(x.size(), 0.0);
  e.extra.assign(x.size(), 0.0);
  const double eps = eps_of(d);
  for (int64_t g = 0; g < G; ++g) {
    const std::vector<size_t>& m = members[size_t(g)];
    const double n = double(m.size()), gy = dy[size_t(g)];
    if (m.empty()) continue;
    if (op == "max_bp" || op == "min_bp") {
      double ext = x[m[0]];
      bool nan = false;
      for (size_t k : m) {
        nan |= std::isnan(x[k]);
        ext = op == "max_bp" ? std::max(ext, x[k]) : std::min(ext, x[k]);
      }
      auto hit = [&](double v) { return nan ? std::isnan(v) : v == ext; };
      double cnt = 0;
      for (size_t k : m) cnt += hit(x[k]);
      for (size_t k : m) e.dx[k] = hit(x[k]) ? gy / cnt : 0;
    } else if (op == "prod_bp") {
      double p = 1;
      int zeros = 0;
      for (size_t k : m) {
        if (x[k] == 0)
          ++zeros;
        else
          p *= x[k];
      }
      for (size_t k : m) {
        e.dx[k] = zeros == 0 ? gy * p / x[k] : zeros == 1 ? (x[k] == 0 ? gy * p : 0) : 0;
        e.extra[k] = 4 * (n + 2) * eps * std::fabs(e.dx[k]);
      }
    } else if (op == "norm1_bp") {
      for (size_t k : m) e.dx[k] = x[k] > 0 ? gy : x[k] < 0 ? -gy : 0;
    } else if (op == "norm2_bp") {
      double q = 0;
      for (size_t k : m) q += x[k] * x[k];
      const double nrm = std::sqrt(q);
      for (size_t k : m) {
        e.dx[k] = nrm == 0 ? 0 : gy * x[k] / nrm;
        e.extra[k] = 8 * (n + 2) * eps * std::fabs(e.dx[k]);
      }
    } else if (op == "var_bp" || op == "std_bp") {
      double mean = 0;
      for (size_t k : m) mean += x[k];
      mean /= n;
      double ss = 0;
      for (size_t k : m) ss += (x[k] - mean) * (x[k] - mean);
      const double denom = n - double(correction);
      const double sd = denom > 0 ? std::sqrt(ss / denom) : kNaN;
      for (size_t k : m) {
        if (denom <= 0) {
          e.dx[k] = kNaN;
          continue;
        }
        const double dev = x[k] - mean;
        if (op == "var_bp") {
          e.dx[k] = gy * 2 * dev / denom;
          e.extra[k] = 16 * (n + 2) * eps * std::fabs(gy * 2 / denom) * (std::fabs(x[k]) + std::fabs(mean));
        } else {
          e.dx[k] = sd == 0 ? 0 : gy * dev / (denom * sd);
          e.extra[k] = sd == 0 ? 0
                               : 16 * (n + 2) * eps * std::fabs(gy / (denom * sd)) *
                                     (std::fabs(x[k]) + std::fabs(mean) + std::fabs(dev));
        }
      }
    } else if (op == "logsumexp_bp") {
      double mx = -kInf;
      for (size_t k : m) mx = std::max(mx, x[k]);
      double se = 0;
      for (size_t k : m) se += std::exp(x[k] - mx);
      const double lse = mx + std::log(se);
      for (size_t k : m) {
        e.dx[k] = gy * std::exp(x[k] - lse);
        e.extra[k] = 16 * eps * (4 + std::fabs(lse) + std::fabs(x[k]) + n) * std::fabs(e.dx[k]);
      }
    }
  }
  return e;
}

// Inputs each op's reference test draws (ties for max/min, products that stay in range).
Gen gen_for(const std::string& op, ndrt_dtype d) {
  if (op == "max_bp" || op == "min_bp")
    return [d](std::mt19937& rng) {                             // few distinct values: ties in most groups
      static const double v[] = {-1.5, -0.5, 0.25, 1.0, 1.75};  // exact in every float dtype
      (void)d;
      return v[rng() % 5];
    };
  if (op == "prod_bp")
    return [d](std::mt19937& rng) {
      double v = uniform_gen(d, 0.7, 1.3)(rng);
      return rng() % 2 ? -v : v;
    };
  if (op == "logsumexp_bp") return uniform_gen(d, -6, 6);
  return default_gen(d);
}

struct OpDtype {
  const char* op;
  ndrt_dtype dtype;
};
void PrintTo(const OpDtype& p, std::ostream* os) { *os << p.op << "/" << dtype_str(p.dtype); }
std::string param_name(const ::testing::TestParamInfo<OpDtype>& i) {
  return std::string(i.param.op) + "_" + dtype_str(i.param.dtype);
}
std::vector<OpDtype> params() {
  std::vector<OpDtype> r;
  for (const char* op : kOps)
    for (ndrt_dtype d : kFloats) r.push_back({op, d});
  return r;
}

void check_case(const std::string& op, ndrt_dtype d, const Operand& x, const Shape& s, const std::vector<int64_t>& axes,
                uint32_t mask, bool keep, Kind kdy, OutKind ok, int64_t correction, std::mt19937& rng,
                const std::string& what) {
  SCOPED_TRACE(what);
  const Shape ys = out_shape(s, mask, keep);
  Operand dy = make_operand(d, ys, kdy, default_gen(d), rng);
  Expect e = reference(op, d, x.vals, s, mask, dy.vals, correction);
  std::vector<double> got = run_out(op.c_str(), {&x.view, &dy.view}, bp_attrs(op, axes, keep, correction), d, s, ok);
  expect_close(got, e.dx, d, default_tol(d), what, &e.extra);
}

class ReduceBp : public ::testing::TestWithParam<OpDtype> {};

TEST_P(ReduceBp, EveryAxisSubsetKeepdimsLayoutAndOutputKind) {
  const std::string op = GetParam().op;
  const ndrt_dtype d = GetParam().dtype;
  std::mt19937 rng(500 + unsigned(d) * 31 + unsigned(op.size()) * 7 + unsigned(op[1]));
  const Shape s = {3, 4, 5};
  int variant = 0;
  for (uint32_t m = 0; m < 8; ++m)
    for (int keep = 0; keep < 2; ++keep) {
      ++variant;
      std::vector<int64_t> axes;
      for (int i = 0; i < 3; ++i)
        if (m & (1u << i)) axes.push_back(variant % 2 ? i - 3 : i);
      const uint32_t mask = m ? m : 7u;
      const Kind kx = kAllKinds[variant % 5], kdy = kAllKinds[(variant + 2) % 5];
      const OutKind ok = kAllOutKinds[variant % 3];
      const int64_t corr = has_correction(op) ? variant % 3 : 1;
      Operand x = make_operand(d, s, kx, gen_for(op, d), rng);
      check_case(op, d, x, s, axes, mask, keep, kdy, ok, corr, rng,
                 op + " " + dtype_str(d) + " mask " + std::to_string(m) + " keep " + std::to_string(keep) + " x " +
                     kind_str(kx) + " dy " + kind_str(kdy) + ", " + out_kind_str(ok) + " corr " + std::to_string(corr));
    }
}

TEST_P(ReduceBp, RankZeroSizeZeroRankFourAndLarge) {
  const std::string op = GetParam().op;
  const ndrt_dtype d = GetParam().dtype;
  std::mt19937 rng(600 + unsigned(d) * 31 + unsigned(op[1]) + unsigned(op.size()));
  const Gen gen = gen_for(op, d);
  for (int64_t corr : {int64_t(0), int64_t(1)}) {
    if (!has_correction(op) && corr == 0) continue;
    for (OutKind ok : kAllOutKinds) {
      Operand x = make_operand(d, {}, Kind::Contig, gen, rng);  // rank 0: axes {} reduce nothing
      check_case(op, d, x, {}, {}, 0, false, Kind::Contig, ok, corr, rng, op + " rank 0, " + out_kind_str(ok));
    }
  }
  if (op != "max_bp" && op != "min_bp") {  // size-0 reduced axis (max/min refuse it)
    Operand x = make_operand(d, {0, 3}, Kind::Contig, gen, rng);
    check_case(op, d, x, {0, 3}, {0}, 1, true, Kind::Contig, OutKind::Given, 1, rng, op + " [0,3] over axis 0");
  }
  Operand e = make_operand(d, {0, 3}, Kind::Contig, gen, rng);  // size-0 kept axis
  check_case(op, d, e, {0, 3}, {1}, 2, false, Kind::Contig, OutKind::Fresh, 1, rng, op + " [0,3] over axis 1");
  Operand x4 = make_operand(d, {2, 3, 4, 5}, Kind::Strided, gen, rng);
  check_case(op, d, x4, {2, 3, 4, 5}, {1, 3}, 0b1010, true, Kind::Permuted, OutKind::GivenView, 1, rng,
             op + " rank 4 over axes 1, 3");
  // Large: the engine's row, column and split paths, and the parallel elementwise pass.
  const Shape big = {257, 1031};
  Operand xl = make_operand(d, big, Kind::Contig, gen, rng);
  check_case(op, d, xl, big, {1}, 2, false, Kind::Contig, OutKind::Given, 1, rng, op + " large over axis 1");
  check_case(op, d, xl, big, {0}, 1, true, Kind::Contig, OutKind::Fresh, 1, rng, op + " large over axis 0");
  if (op != "prod_bp") {  // a product of 265k factors in [0.7, 1.3] leaves the range of every dtype
    check_case(op, d, xl, big, {}, 3, false, Kind::Contig, OutKind::Fresh, 1, rng, op + " large over all");
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, ReduceBp, ::testing::ValuesIn(params()), param_name);

// ---------------------------------------------------------------------------------------------
// Special values
// ---------------------------------------------------------------------------------------------
std::vector<double> run_bp(const char* op, ndrt_dtype d, const Shape& s, const std::vector<double>& x, const Shape& ys,
                           const std::vector<double>& dy, const Attrs& a) {
  Tensor xt = from_values(d, s, x), dyt = from_values(d, ys, dy);
  return read_values(run(op, {&xt, &dyt}, a));
}

TEST(ReduceBpSpecial, MaxMinTiesShareEvenlyAndNaNTakesTheGradient) {
  for (ndrt_dtype d : kFloats) {
    SCOPED_TRACE(dtype_str(d));
    // Rows: three-way tie; unique maximum; NaN (two of them share); all equal.
    const std::vector<double> x = {1, 3, 3, 0, 3, 2, 5, 1, 0, 0, kNaN, 1, kNaN, 9, 0, 7, 7, 7, 7, 7};
    const std::vector<double> dy = {6, 2, 4, 2.5};
    std::vector<double> got = run_bp("max_bp", d, {4, 5}, x, {4}, dy, reduce_attrs({1}, false));
    EXPECT_EQ(got, (std::vector<double>{0, 2, 2, 0, 2, 0, 2, 0, 0, 0, 2, 0, 2, 0, 0, 0.5, 0.5, 0.5, 0.5, 0.5}));
    got = run_bp("min_bp", d, {4, 5}, x, {4}, dy, reduce_attrs({1}, false));
    EXPECT_EQ(got, (std::vector<double>{0, 0, 0, 6, 0, 0, 0, 0, 1, 1, 2, 0, 2, 0, 0, 0.5, 0.5, 0.5, 0.5, 0.5}));
    // Over all axes the maximum is NaN: the two NaNs share dy.
    got = run_bp("max_bp", d, {4, 5}, x, {}, {8}, reduce_attrs({}, false));
    for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(got[i], std::isnan(x[i]) ? 4.0 : 0.0) << i;
    // Infinities are ordinary maxima.
    got = run_bp("max_bp", d, {4}, {kInf, 1, kInf, -kInf}, {1}, {3}, reduce_attrs({}, true));
    EXPECT_EQ(got, (std::vector<double>{1.5, 0, 1.5, 0}));
  }
}

TEST(ReduceBpSpecial, ProdWithZeros) {
  for (ndrt_dtype d : kFloats) {
    SCOPED_TRACE(dtype_str(d));
    // Rows: no zero; one zero; two zeros; a negative zero counts as a zero.
    const std::vector<double> x = {2, -3, 0.5, 4, 2, 0, 0.5, 4, 0, -3, 0, 4, 2, -0.0, 0.5, -1};
    std::vector<double> got = run_bp("prod_bp", d, {4, 4}, x, {4}, {1, 2, 3, -1}, reduce_attrs({1}, false));
    EXPECT_EQ(got, (std::vector<double>{-6, 4, -24, -3, 0, 8, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0}));
  }
}

TEST(ReduceBpSpecial, ZeroNormsConstantGroupsAndTooFewElements) {
  for (ndrt_dtype d : kFloats) {
    SCOPED_TRACE(dtype_str(d));
    const std::vector<double> x = {0, 0, 0, 3, -4, 0, 2, 2, 2};
    const std::vector<double> dy = {5, 10, 1};
    const double r3 = 1 / std::sqrt(3.0);
    expect_close(run_bp("norm2_bp", d, {3, 3}, x, {3}, dy, reduce_attrs({1}, false)), {0, 0, 0, 6, -8, 0, r3, r3, r3},
                 d, default_tol(d), "norm2_bp: a zero norm gives 0");
    std::vector<double> s = run_bp("std_bp", d, {3, 3}, x, {3}, dy, bp_attrs("std_bp", {1}, false, 1));
    for (int i : {0, 1, 2, 6, 7, 8}) EXPECT_EQ(s[size_t(i)], 0.0) << "std_bp: constant group, element " << i;
    EXPECT_EQ(run_bp("norm1_bp", d, {3, 3}, x, {3}, dy, reduce_attrs({1}, false)),
              (std::vector<double>{0, 0, 0, 10, -10, 0, 1, 1, 1}));
    // n - correction <= 0: NaN, as var itself.
    for (const char* op : {"var_bp", "std_bp"}) {
      std::vector<double> v = run_bp(op, d, {3, 3}, x, {3}, dy, bp_attrs(op, {1}, false, 3));
      for (double e : v) EXPECT_TRUE(std::isnan(e)) << op;
    }
  }
}

TEST(ReduceBpSpecial, LogsumexpWithInfinities) {
  for (ndrt_dtype d : kFloats) {
    SCOPED_TRACE(dtype_str(d));
    // -inf elements get 0; a row of equal values shares evenly; all -inf or a +inf: NaN.
    const std::vector<double> x = {-kInf, 0, 0, -kInf, 1, 1, 1, 1, -kInf, -kInf, -kInf, -kInf, kInf, 0, 0, 0};
    std::vector<double> got = run_bp("logsumexp_bp", d, {4, 4}, x, {4}, {2, 4, 1, 1}, reduce_attrs({1}, false));
    for (int i = 0; i < 8; ++i)
      EXPECT_NEAR(got[size_t(i)], (std::vector<double>{0, 1, 1, 0, 1, 1, 1, 1})[size_t(i)], 1e-3) << i;
    for (int i = 8; i < 13; ++i) EXPECT_TRUE(std::isnan(got[size_t(i)])) << i;
    for (int i = 13; i < 16; ++i) EXPECT_EQ(got[size_t(i)], 0.0) << i;
  }
}

// Deviations from the mean and x - logsumexp are formed against the group value split into two
// f32 parts: far from zero they keep f32 accuracy relative to the (small) differences.
TEST(ReduceBpSpecial, F32DeviationsStayAccurateFarFromZero) {
  std::mt19937 rng(81);
  const Shape s = {8, 64};
  for (const char* op : {"var_bp", "std_bp", "logsumexp_bp"}) {
    SCOPED_TRACE(op);
    const double offset = std::string(op) == "logsumexp_bp" ? 1000 : 4096;
    Operand x = make_operand(NDRT_F32, s, Kind::Contig, uniform_gen(NDRT_F32, offset - 3, offset + 3), rng);
    Operand dy = make_operand(NDRT_F32, {8}, Kind::Contig, default_gen(NDRT_F32), rng);
    Expect e = reference(op, NDRT_F32, x.vals, s, 2, dy.vals, 1);
    std::vector<double> got = read_values(run(op, {&x.view, &dy.view}, bp_attrs(op, {1}, false)));
    expect_close(got, e.dx, NDRT_F32, {1e-5, 1e-7}, std::string(op) + " with an offset of " + std::to_string(offset));
  }
}

// ---------------------------------------------------------------------------------------------
// Central differences in f64 of <w, forward(x)>
// ---------------------------------------------------------------------------------------------
TEST(ReduceBpFiniteDifferences, EveryOpAxisSetAndKeepdims) {
  std::mt19937 rng(71);
  const Shape s = {3, 4, 5};
  for (const char* bp : kOps) {
    const std::string fwd = std::string(bp).substr(0, std::string(bp).size() - 3);
    for (const std::vector<int64_t>& axes : std::vector<std::vector<int64_t>>{{}, {1}, {0, 2}, {-1}})
      for (int keep = 0; keep < 2; ++keep)
        for (int64_t corr : {int64_t(0), int64_t(1)}) {
          if (!has_correction(bp) && corr == 0) continue;
          std::vector<double> xv = rt::randv(rng, 60, -2, 2);
          if (fwd == "prod")  // magnitudes near 1 keep the product of up to 60 factors moderate
            for (double& v : xv) v = std::copysign(0.6 + 0.3 * std::fabs(v), v);
          rt::In x{NDRT_F64, s, xv};
          const Attrs a = bp_attrs(bp, axes, keep, corr);
          const std::string what = std::string(bp) + " axes " + std::to_string(axes.size()) +
                                   (axes.empty() ? "" : ":" + std::to_string(axes[0])) + " keep " +
                                   std::to_string(keep) + " corr " + std::to_string(corr);
          rt::check_grad(
              what.c_str(), fwd.c_str(), 1, {x}, 0, a,
              [&](const std::vector<double>& w) {
                Shape ys = rt::run_all(fwd.c_str(), {x}, 1, a)[0].s;
                return rt::run_all(bp, {x, rt::In{NDRT_F64, ys, w}}, 1, a)[0].v;
              },
              rng);
        }
  }
}

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------
TEST(ReduceBpErrors, ShapesDtypesAndAttributes) {
  Tensor x = from_values(NDRT_F32, {3, 5}, std::vector<double>(15, 1.0));
  Tensor dy3 = create(NDRT_F32, {3}), dy31 = create(NDRT_F32, {3, 1}), dy64 = create(NDRT_F64, {3});
  for (const char* op : kOps) {
    SCOPED_TRACE(op);
    const std::string o = op;
    rt::expect_error(NDRT_ERR_SHAPE_MISMATCH,
                     o + ": dy has shape [3] but x [3,5] reduced over the axes (keepdims 1) has shape [3,1]", op,
                     {&x, &dy3}, 1, bp_attrs(o, {1}, true));
    rt::expect_error(NDRT_ERR_SHAPE_MISMATCH,
                     o + ": dy has shape [3,1] but x [3,5] reduced over the axes (keepdims 0) has shape [5]", op,
                     {&x, &dy31}, 1, bp_attrs(o, {0}, false));
    rt::expect_error(NDRT_ERR_DTYPE_MISMATCH, o + ": input 1 is f64 but input 0 is f32 (cast explicitly)", op,
                     {&x, &dy64}, 1, bp_attrs(o, {1}, false));
    rt::expect_error(NDRT_ERR_INVALID_ARGUMENT, o + ": axis 2 is out of range for rank 2", op, {&x, &dy3}, 1,
                     bp_attrs(o, {2}, false));
    rt::expect_error(NDRT_ERR_INVALID_ARGUMENT, o + ": axis -1 is listed twice", op, {&x, &dy3}, 1,
                     bp_attrs(o, {1, -1}, false));
    Tensor xi = from_values(NDRT_I32, {3}, {1, 2, 3}), di = from_values(NDRT_I32, {}, {1});
    rt::expect_error(NDRT_ERR_DTYPE_MISMATCH, o + ": needs a floating-point dtype, got i32", op, {&xi, &di}, 1,
                     bp_attrs(o, {}, false));
    rt::expect_error(NDRT_ERR_INVALID_ARGUMENT, o + ": takes 2 input(s) and 1 output(s), got 1 and 1", op, {&x}, 1);
  }
  Tensor e = create(NDRT_F32, {3, 0}), de = create(NDRT_F32, {3});
  for (const char* op : {"max_bp", "min_bp"})
    rt::expect_error(NDRT_ERR_INVALID_ARGUMENT, std::string(op) + ": cannot reduce over axis 1 of size 0", op,
                     {&e, &de}, 1, reduce_attrs({1}, false));
  for (const char* op : {"var_bp", "std_bp"})
    rt::expect_error(NDRT_ERR_INVALID_ARGUMENT, std::string(op) + ": correction must be >= 0, got -1", op, {&x, &dy3},
                     1, bp_attrs(op, {1}, false, -1));
  // A given output of the wrong shape.
  Tensor wrong = create(NDRT_F32, {5, 3});
  std::vector<ndrt_handle> out = {wrong.get()};
  EXPECT_STATUS(NDRT_ERR_SHAPE_MISMATCH, exec("norm2_bp", {x.get(), dy3.get()}, out, reduce_attrs({1}, false)));
  // dx may not be dy's memory (the op does not run in place).
  Tensor sq = from_values(NDRT_F32, {3, 3}, std::vector<double>(9, 2.0));
  out = {sq.get()};
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, exec("norm1_bp", {sq.get(), dy3.get()}, out, reduce_attrs({1}, false)));
  EXPECT_EQ(std::string(ndrt_last_error()),
            "norm1_bp: output 0 shares memory with input 0 and the op does not run in place");
}

TEST(ReduceBpErrors, KernelDtypeListsAreTheDocumentedOnes) {
  for (const char* op : kOps) {
    std::string s;
    for (ndrt_dtype d : cpu_dtypes(op)) s += std::string(dtype_str(d)) + " ";
    EXPECT_EQ(s, "f32 f64 f16 bf16 ") << op;
    EXPECT_NE(op_describe(op).find("Inputs: the forward input x and dy"), std::string::npos) << op;
  }
}

}  // namespace
