// Gradients of the broadcasting binary ops (add_bp, sub_bp, mul_bp, div_bp, maximum_bp, minimum_bp,
// pow_bp): against float64 references (partials times dy, summed back over the broadcast axes) on
// every float dtype with broadcasting shapes, scalars, size-0 dims, large inputs, every layout and
// poisoned outputs (fresh, given, given strided views whose gaps must stay untouched); ties, NaN and
// the limits of pow; central differences in f64 through the forward ops; the errors.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ops/elementwise_testing.hpp"
#include "reduce_test_util.hpp"

using namespace nt;
using namespace elt_test;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();
const char* const kOps[] = {"add_bp", "sub_bp", "mul_bp", "div_bp", "maximum_bp", "minimum_bp", "pow_bp"};

std::string fwd_of(const std::string& bp) { return bp.substr(0, bp.size() - 3); }

// d(op)/da and d(op)/db at (a, b), times dy, as the docs define them (ties split for max/min).
void partials(const std::string& op, double a, double b, double g, double& ga, double& gb) {
  if (op == "add_bp") {
    ga = g, gb = g;
  } else if (op == "sub_bp") {
    ga = g, gb = -g;
  } else if (op == "mul_bp") {
    ga = g * b, gb = g * a;
  } else if (op == "div_bp") {
    ga = g / b, gb = -g * a / (b * b);
  } else if (op == "maximum_bp" || op == "minimum_bp") {
    if (a == b) {
      ga = gb = g / 2;
      return;
    }
    const bool a_wins = (op == "maximum_bp" ? a > b : a < b) || std::isnan(a);
    ga = a_wins ? g : 0;
    gb = a_wins ? 0 : g;
  } else {  // pow_bp
    ga = b == 0 ? 0 : g * b * std::pow(a, b - 1);
    gb = (a == 0 && b >= 0) ? 0 : g * std::pow(a, b) * std::log(a);
  }
}

struct Ref {
  std::vector<double> da, db, ea, eb;  // values and error allowances (summed |terms| * eps)
};

Ref reference(const std::string& op, ndrt_dtype d, const std::vector<double>& a, const Shape& sa,
              const std::vector<double>& b, const Shape& sb, const std::vector<double>& dy, const Shape& sy) {
  const std::vector<int64_t> ia = bcast_index_map(sy, sa), ib = bcast_index_map(sy, sb);
  Ref r;
  r.da.assign(a.size(), 0);
  r.ea.assign(a.size(), 0);
  r.db.assign(b.size(), 0);
  r.eb.assign(b.size(), 0);
  // Terms in the compute type (f32 for f16/bf16) carry a few ulp; pow/log a few more.
  const double eps = (d == NDRT_F64 ? 1.2e-16 : 6e-8) * (op == "pow_bp" ? 16 : 4);
  for (size_t i = 0; i < dy.size(); ++i) {
    double ga, gb;
    partials(op, a[size_t(ia[i])], b[size_t(ib[i])], dy[i], ga, gb);
    r.da[size_t(ia[i])] += ga;
    r.ea[size_t(ia[i])] += eps * std::fabs(ga);
    r.db[size_t(ib[i])] += gb;
    r.eb[size_t(ib[i])] += eps * std::fabs(gb);
  }
  return r;
}

// Inputs per op: b away from 0 for div, a positive for pow, few distinct values (ties) for max/min.
Gen gen_a(const std::string& op, ndrt_dtype d) {
  if (op == "pow_bp") return uniform_gen(d, 0.2, 3);
  if (op == "maximum_bp" || op == "minimum_bp") return list_gen(d, {-1.5, -0.5, 0.25, 1, 1.75});
  return default_gen(d);
}
Gen gen_b(const std::string& op, ndrt_dtype d) {
  if (op == "div_bp") return uniform_gen(d, -2, 2, 0.5);
  if (op == "pow_bp") return uniform_gen(d, -2, 2);
  return gen_a(op, d);
}

// Two outputs, each fresh (the cache poisoned first), given poisoned, or a given view of every other
// row of a poisoned base twice as tall: the rows between must stay poisoned.
struct Outs {
  std::vector<Tensor> keep, base;
  std::vector<ndrt_handle> h;
};
Outs make_outs(ndrt_dtype d, const std::vector<Shape>& shapes, OutKind k) {
  Outs o;
  for (const Shape& s : shapes) {
    Tensor t, base;
    if (k == OutKind::Fresh) {
      poison_cache(d, s);
    } else if (k == OutKind::Given || s.empty() || s[0] == 0) {
      t = create(d, s);
      write_bytes(t, poison_bytes(d, numel_of(s)));
    } else {
      Shape tall = s;
      tall[0] *= 2;
      base = create(d, tall);
      write_bytes(base, poison_bytes(d, numel_of(tall)));
      t = slice(base, 0, 0, tall[0], 2);
    }
    o.h.push_back(t.get());
    o.keep.push_back(std::move(t));
    o.base.push_back(std::move(base));
  }
  return o;
}

std::vector<std::vector<double>> run_bp(const char* op, const std::vector<const Tensor*>& in, ndrt_dtype d,
                                        const std::vector<Shape>& shapes, OutKind k) {
  Outs o = make_outs(d, shapes, k);
  std::vector<ndrt_handle> out = o.h, h;
  for (const Tensor* t : in) h.push_back(t->get());
  NT_CHECK(exec(op, h, out));
  std::vector<std::vector<double>> r;
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (!o.h[i]) o.keep[i] = Tensor(out[i]);
    r.push_back(read_values(o.keep[i]));
    if (o.base[i]) {  // the odd rows of the base are not the output's
      std::vector<double> all = read_values(o.base[i]);
      const int64_t row = numel_of(shapes[i]) / shapes[i][0];
      int64_t touched = 0;
      for (int64_t q = 0; q < int64_t(all.size()); ++q)
        if ((q / row) % 2 == 1 && !std::isnan(all[size_t(q)])) ++touched;
      EXPECT_EQ(touched, 0) << op << " output " << i << " wrote outside its view";
    }
  }
  return r;
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
    for (ndrt_dtype d : float_dtypes()) r.push_back({op, d});
  return r;
}

class BinaryBp : public ::testing::TestWithParam<OpDtype> {};

void check_case(const std::string& op, ndrt_dtype d, const Shape& sa, const Shape& sb, Kind ka, Kind kb, Kind kdy,
                OutKind ok, std::mt19937& rng) {
  const Shape sy = broadcast(sa, sb);
  const std::string what = op + " " + dtype_str(d) + " a " + shape_str(sa) + " " + kind_str(ka) + ", b " +
                           shape_str(sb) + " " + kind_str(kb) + ", dy " + kind_str(kdy) + ", " + out_kind_str(ok);
  SCOPED_TRACE(what);
  Operand A = make_operand(d, sa, ka, gen_a(op, d), rng);
  Operand B = make_operand(d, sb, kb, gen_b(op, d), rng);
  Operand DY = make_operand(d, sy, kdy, default_gen(d), rng);
  Ref r = reference(op, d, A.vals, sa, B.vals, sb, DY.vals, sy);
  auto got = run_bp(op.c_str(), {&A.view, &B.view, &DY.view}, d, {sa, sb}, ok);
  expect_close(got[0], r.da, d, default_tol(d), what + ": da", &r.ea);
  expect_close(got[1], r.db, d, default_tol(d), what + ": db", &r.eb);
}

TEST_P(BinaryBp, BroadcastingShapesLayoutsAndPoisonedOutputs) {
  const std::string op = GetParam().op;
  const ndrt_dtype d = GetParam().dtype;
  std::mt19937 rng(900 + unsigned(d) * 13 + unsigned(op[0]) * 7 + unsigned(op.size()));
  const std::pair<Shape, Shape> cases[] = {
      {{3, 5, 7}, {3, 5, 7}},     // no broadcasting: written directly
      {{3, 1, 7}, {5, 1}},        // both summed back
      {{}, {4, 6}},               // a scalar
      {{4, 6}, {}},               // b scalar
      {{2, 3, 4, 5}, {3, 1, 5}},  // rank 4 against rank 3
      {{4, 1}, {1, 6}},           // outer product
      {{6, 1, 1}, {6, 9, 11}},    // a summed over inner axes (rows)
      {{0, 3}, {1, 3}},           // size 0: db = 0
      {{3, 1}, {3, 0}},           // size 0 the other way: da = 0
      {{2, 0, 4}, {2, 0, 4}},     // empty everywhere
  };
  int v = 0;
  for (const auto& c : cases) {
    for (int rep = 0; rep < 3; ++rep, ++v)
      check_case(op, d, c.first, c.second, kAllKinds[v % 5], kAllKinds[(v + 1) % 5], kAllKinds[(v + 3) % 5],
                 kAllOutKinds[v % 3], rng);
  }
}

TEST_P(BinaryBp, LargeInputsTakeTheParallelAndColumnPaths) {
  const std::string op = GetParam().op;
  const ndrt_dtype d = GetParam().dtype;
  std::mt19937 rng(950 + unsigned(d) * 13 + unsigned(op[0]) * 7 + unsigned(op.size()));
  check_case(op, d, {257, 1031}, {1031}, Kind::Contig, Kind::Contig, Kind::Contig, OutKind::Given, rng);
  check_case(op, d, {257, 1}, {257, 1031}, Kind::Contig, Kind::Strided, Kind::Contig, OutKind::Fresh, rng);
  check_case(op, d, {129, 1, 515}, {1, 7, 1}, Kind::Permuted, Kind::Contig, Kind::Offset, OutKind::GivenView, rng);
}

INSTANTIATE_TEST_SUITE_P(Ops, BinaryBp, ::testing::ValuesIn(params()), param_name);

// ---------------------------------------------------------------------------------------------
// Special values
// ---------------------------------------------------------------------------------------------
std::vector<std::vector<double>> run_plain(const char* op, ndrt_dtype d, const Shape& sa, const std::vector<double>& a,
                                           const Shape& sb, const std::vector<double>& b,
                                           const std::vector<double>& dy) {
  Tensor ta = from_values(d, sa, a), tb = from_values(d, sb, b), tdy = from_values(d, broadcast(sa, sb), dy);
  return run_bp(op, {&ta, &tb, &tdy}, d, {sa, sb}, OutKind::Given);
}

TEST(BinaryBpSpecial, MaximumMinimumTiesNaNAndInfiniteGradients) {
  for (ndrt_dtype d : float_dtypes()) {
    SCOPED_TRACE(dtype_str(d));
    const std::vector<double> a = {1, 2, 3, kNaN, 5, kNaN, kInf}, b = {2, 2, 1, 4, kNaN, kNaN, kInf};
    const std::vector<double> dy = {8, 8, 8, 8, 8, 8, 8};
    auto g = run_plain("maximum_bp", d, {7}, a, {7}, b, dy);
    EXPECT_EQ(g[0], (std::vector<double>{0, 4, 8, 8, 0, 8, 4}));
    EXPECT_EQ(g[1], (std::vector<double>{8, 4, 0, 0, 8, 0, 4}));
    g = run_plain("minimum_bp", d, {7}, a, {7}, b, dy);
    EXPECT_EQ(g[0], (std::vector<double>{8, 4, 0, 8, 0, 8, 4}));
    EXPECT_EQ(g[1], (std::vector<double>{0, 4, 8, 0, 8, 0, 4}));
    // The side that gets nothing gets exactly 0, even for an infinite or NaN dy.
    g = run_plain("maximum_bp", d, {3}, {1, 5, 2}, {3}, {4, 0, 7}, {kInf, kNaN, -kInf});
    EXPECT_EQ(g[0][0], 0.0);
    EXPECT_TRUE(std::isnan(g[0][1]));
    EXPECT_EQ(g[0][2], 0.0);
    EXPECT_EQ(g[1][0], kInf);
    EXPECT_EQ(g[1][1], 0.0);
    EXPECT_EQ(g[1][2], -kInf);
    // Broadcast ties: the scalar b collects half of each tie and all of its wins.
    g = run_plain("maximum_bp", d, {4}, {1, 3, 3, 5}, {}, {3}, {2, 2, 2, 2});
    EXPECT_EQ(g[0], (std::vector<double>{0, 1, 1, 2}));
    EXPECT_EQ(g[1], (std::vector<double>{4}));
  }
}

TEST(BinaryBpSpecial, PowLimitsAtZeroAndNegativeBases) {
  for (ndrt_dtype d : float_dtypes()) {
    SCOPED_TRACE(dtype_str(d));
    // a = 0: b > 0 gives db = 0 (not 0 * -inf); b = 0 gives da = 0 and db = 0; b = 2 gives da = 0.
    auto g = run_plain("pow_bp", d, {4}, {0, 0, 0, 2}, {4}, {2, 0, 0.5, 0}, {1, 1, 1, 1});
    EXPECT_EQ(g[0][0], 0.0);
    EXPECT_EQ(g[0][1], 0.0);
    EXPECT_EQ(g[0][2], kInf);  // 0.5 * 0^-0.5
    EXPECT_EQ(g[0][3], 0.0);   // b = 0: the exponent's derivative vanishes
    EXPECT_EQ(g[1][0], 0.0);
    EXPECT_EQ(g[1][1], 0.0);
    EXPECT_EQ(g[1][2], 0.0);
    EXPECT_NEAR(g[1][3], std::log(2.0), 0.01);  // 2^0 * ln 2
    // A negative base: da is fine for an integer exponent, db is NaN (ln of a negative number).
    g = run_plain("pow_bp", d, {1}, {-2}, {1}, {3}, {1});
    EXPECT_EQ(g[0][0], 12.0);
    EXPECT_TRUE(std::isnan(g[1][0]));
  }
}

TEST(BinaryBpSpecial, SubNegatesAndSumsBack) {
  for (ndrt_dtype d : float_dtypes()) {
    auto g = run_plain("sub_bp", d, {2, 1}, {5, 6}, {3}, {1, 2, 3}, {1, 2, 3, 4, 5, 6});
    EXPECT_EQ(g[0], (std::vector<double>{6, 15})) << dtype_str(d);
    EXPECT_EQ(g[1], (std::vector<double>{-5, -7, -9})) << dtype_str(d);
  }
}

// ---------------------------------------------------------------------------------------------
// Central differences in f64 of <w, op(a, b)> for both inputs, with broadcasting
// ---------------------------------------------------------------------------------------------
TEST(BinaryBpFiniteDifferences, BothInputsEveryOpBroadcastingShapes) {
  std::mt19937 rng(77);
  const std::pair<Shape, Shape> cases[] = {{{3, 1, 4}, {2, 1}}, {{}, {2, 3}}, {{2, 3}, {2, 3}}, {{4, 1}, {1, 3}}};
  for (const char* bp : kOps) {
    const std::string fwd = fwd_of(bp);
    for (const auto& c : cases) {
      std::vector<double> av = rt::randv(rng, numel_of(c.first)), bv = rt::randv(rng, numel_of(c.second));
      if (fwd == "div")
        for (double& x : bv) x = std::copysign(0.5 + std::fabs(x), x);
      if (fwd == "pow") {
        for (double& x : av) x = 0.3 + 0.8 * std::fabs(x);
        for (double& x : bv) x *= 0.75;
      }
      const std::vector<rt::In> ins = {{NDRT_F64, c.first, av}, {NDRT_F64, c.second, bv}};
      const Shape sy = broadcast(c.first, c.second);
      for (int k = 0; k < 2; ++k) {
        const std::string what =
            std::string(bp) + " " + shape_str(c.first) + " " + shape_str(c.second) + (k ? " d/db" : " d/da");
        rt::check_grad(
            what.c_str(), fwd.c_str(), 1, ins, k, {},
            [&](const std::vector<double>& w) {
              return rt::run_all(bp, {ins[0], ins[1], rt::In{NDRT_F64, sy, w}}, 2)[size_t(k)].v;
            },
            rng);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------
TEST(BinaryBpErrors, ShapesDtypesAndSharedOutputs) {
  Tensor a = create(NDRT_F32, {2, 3}), b = create(NDRT_F32, {3}), dy = create(NDRT_F32, {2, 3});
  Tensor dy_bad = create(NDRT_F32, {3}), b_bad = create(NDRT_F32, {4}), dy64 = create(NDRT_F64, {2, 3});
  Tensor ai = create(NDRT_I32, {3}), bi = create(NDRT_I32, {3}), dyi = create(NDRT_I32, {3});
  for (const char* op : kOps) {
    SCOPED_TRACE(op);
    const std::string o = op;
    rt::expect_error(NDRT_ERR_SHAPE_MISMATCH, o + ": dy has shape [3] but a [2,3] and b [3] broadcast to [2,3]", op,
                     {&a, &b, &dy_bad}, 2);
    rt::expect_error(NDRT_ERR_SHAPE_MISMATCH, o + ": shapes [2,3] and [4] do not broadcast", op, {&a, &b_bad, &dy}, 2);
    rt::expect_error(NDRT_ERR_DTYPE_MISMATCH, o + ": input 2 is f64 but input 0 is f32 (cast explicitly)", op,
                     {&a, &b, &dy64}, 2);
    rt::expect_error(NDRT_ERR_DTYPE_MISMATCH, o + ": needs a floating-point dtype, got i32", op, {&ai, &bi, &dyi}, 2);
    rt::expect_error(NDRT_ERR_INVALID_ARGUMENT, o + ": takes 3 input(s) and 2 output(s), got 2 and 2", op, {&a, &b}, 2);
  }
  // da and db on one tensor (same shapes), or da on an input's memory.
  Tensor s1 = create(NDRT_F32, {3}), s2 = create(NDRT_F32, {3}), sdy = create(NDRT_F32, {3}),
         both = create(NDRT_F32, {3});
  std::vector<ndrt_handle> out = {both.get(), both.get()};
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, exec("mul_bp", {s1.get(), s2.get(), sdy.get()}, out));
  EXPECT_EQ(std::string(ndrt_last_error()), "mul_bp: outputs da and db share memory");
  // Disjoint views of one buffer are independent outputs (a flat gradient vector).
  Tensor flat = create(NDRT_F32, {6});
  Tensor lo = slice(flat, 0, 0, 3, 1), hi = slice(flat, 0, 3, 6, 1);
  Tensor va = from_values(NDRT_F32, {3}, {1, 2, 3}), vb = from_values(NDRT_F32, {3}, {4, 5, 6}),
         vdy = from_values(NDRT_F32, {3}, {1, -1, 2});
  out = {lo.get(), hi.get()};
  ASSERT_OK(exec("mul_bp", {va.get(), vb.get(), vdy.get()}, out));
  EXPECT_EQ(read_values(flat), (std::vector<double>{4, -5, 12, 1, -2, 6}));
  Tensor mid = slice(flat, 0, 2, 5, 1);
  out = {lo.get(), mid.get()};
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, exec("mul_bp", {va.get(), vb.get(), vdy.get()}, out));
  EXPECT_EQ(std::string(ndrt_last_error()), "mul_bp: outputs da and db share memory");
  out = {sdy.get(), 0};
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, exec("add_bp", {s1.get(), s2.get(), sdy.get()}, out));
  EXPECT_EQ(std::string(ndrt_last_error()),
            "add_bp: output 0 shares memory with input 2 and the op does not run in place");
  EXPECT_EQ(out[1], 0);
  // A given output of the wrong shape.
  Tensor wrong = create(NDRT_F32, {1, 3});
  out = {0, wrong.get()};
  EXPECT_STATUS(NDRT_ERR_SHAPE_MISMATCH, exec("pow_bp", {a.get(), b.get(), dy.get()}, out));
  EXPECT_EQ(out[0], 0);
}

TEST(BinaryBpErrors, KernelDtypeListsAndDocs) {
  for (const char* op : kOps) {
    std::vector<ndrt_dtype> have = cpu_dtypes(op), want = float_dtypes();
    std::sort(have.begin(), have.end());
    std::sort(want.begin(), want.end());
    EXPECT_EQ(have, want) << op;
    EXPECT_NE(op_describe(op).find("summed over the axes its input was broadcast along"), std::string::npos) << op;
    EXPECT_NE(op_describe(fwd_of(op).c_str()).find("Gradient: " + std::string(op)), std::string::npos) << op;
  }
}

}  // namespace
