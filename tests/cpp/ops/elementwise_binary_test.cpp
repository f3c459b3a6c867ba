// Binary elementwise ops with numpy broadcasting against a float64 reference on fresh random data:
// arithmetic (add, sub, mul, div, pow, maximum, minimum), comparisons and logical ops (bool out),
// and where (three-way broadcasting), over every supported dtype, odd shapes, rank 0, size-0 axes,
// broadcasting both ways, non-contiguous inputs and outputs, large sizes, and in place.
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include "ops/elementwise_testing.hpp"

using namespace nt;
using namespace elt_test;

namespace {

struct BinDef {
  const char* op;
  std::function<double(double, double, ndrt_dtype)> ref;
  std::vector<ndrt_dtype> dtypes;
  bool bool_out;
  // Input values: nullptr = default_gen; else a generator per dtype.
  std::function<Gen(ndrt_dtype, int)> gen;
};

const double kNaN = std::nan("");

// Values with ties and specials so comparisons see equal elements, zeros and NaN.
Gen tie_gen(ndrt_dtype d, int) {
  if (d == NDRT_BOOL) return list_gen(d, {0, 1});
  if (d == NDRT_U8) return list_gen(d, {0, 1, 2, 3, 200});
  if (is_int(d)) return list_gen(d, {-3, -1, 0, 1, 2, 3});
  return list_gen(d, {-2, -1, -0.5, 0, 0.5, 1, 2, kNaN});
}
Gen pow_gen(ndrt_dtype d, int input) { return input == 0 ? uniform_gen(d, 0.1, 3) : uniform_gen(d, -3, 3); }
Gen minmax_gen(ndrt_dtype d, int) {
  if (!is_float(d)) return tie_gen(d, 0);
  return [d](std::mt19937& rng) {  // mostly random, sometimes NaN
    double v = uniform_gen(d, -2, 2, 0.05)(rng);
    return std::uniform_int_distribution<int>(0, 9)(rng) == 0 ? kNaN : v;
  };
}

double fmax_nan(double a, double b) { return std::isnan(a) || std::isnan(b) ? kNaN : std::max(a, b); }
double fmin_nan(double a, double b) { return std::isnan(a) || std::isnan(b) ? kNaN : std::min(a, b); }
bool truth(double v) { return v != 0; }  // NaN is true

const std::vector<ndrt_dtype> kNum = {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16, NDRT_I8, NDRT_U8, NDRT_I32, NDRT_I64};
const std::vector<ndrt_dtype> kAll = {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16, NDRT_I8,
                                      NDRT_U8,  NDRT_I32, NDRT_I64, NDRT_BOOL};

const std::vector<BinDef>& defs() {
  static const std::vector<BinDef> d = {
      {"add", [](double a, double b, ndrt_dtype t) { return to_dtype(a + b, t); }, kNum, false, nullptr},
      {"sub", [](double a, double b, ndrt_dtype t) { return to_dtype(a - b, t); }, kNum, false, nullptr},
      {"mul", [](double a, double b, ndrt_dtype t) { return to_dtype(a * b, t); }, kNum, false, nullptr},
      {"div",
       [](double a, double b, ndrt_dtype t) {
         return is_int(t) ? to_dtype(double(int64_t(a) / int64_t(b)), t) : a / b;
       },
       kNum, false, nullptr},
      {"pow", [](double a, double b, ndrt_dtype) { return std::pow(a, b); },
       {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16}, false, pow_gen},
      {"maximum", [](double a, double b, ndrt_dtype) { return fmax_nan(a, b); }, kNum, false, minmax_gen},
      {"minimum", [](double a, double b, ndrt_dtype) { return fmin_nan(a, b); }, kNum, false, minmax_gen},
      {"eq", [](double a, double b, ndrt_dtype) { return double(a == b); }, kAll, true, tie_gen},
      {"ne", [](double a, double b, ndrt_dtype) { return double(a != b); }, kAll, true, tie_gen},
      {"lt", [](double a, double b, ndrt_dtype) { return double(a < b); }, kAll, true, tie_gen},
      {"le", [](double a, double b, ndrt_dtype) { return double(a <= b); }, kAll, true, tie_gen},
      {"gt", [](double a, double b, ndrt_dtype) { return double(a > b); }, kAll, true, tie_gen},
      {"ge", [](double a, double b, ndrt_dtype) { return double(a >= b); }, kAll, true, tie_gen},
      {"logical_and", [](double a, double b, ndrt_dtype) { return double(truth(a) && truth(b)); }, kAll, true, tie_gen},
      {"logical_or", [](double a, double b, ndrt_dtype) { return double(truth(a) || truth(b)); }, kAll, true, tie_gen},
      {"logical_xor", [](double a, double b, ndrt_dtype) { return double(truth(a) != truth(b)); }, kAll, true, tie_gen},
  };
  return d;
}

struct BinCase {
  Shape a, b;
};
const BinCase kBinCases[] = {
    {{3, 5, 7}, {3, 5, 7}}, {{3, 5, 7}, {7}},   {{7}, {3, 5, 7}},   {{3, 1, 7}, {1, 5, 1}}, {{2, 3, 4, 5}, {3, 1, 5}},
    {{}, {}},               {{}, {4, 3}},       {{4, 3}, {}},       {{3, 0, 5}, {5}},       {{0}, {1}},
    {{1}, {6}},             {{5, 1}, {1, 37}},
};
struct KindPair {
  Kind a, b;
};
const KindPair kKindPairs[] = {
    {Kind::Contig, Kind::Contig},     {Kind::Permuted, Kind::Strided}, {Kind::Strided, Kind::Expanded},
    {Kind::Expanded, Kind::Permuted}, {Kind::Offset, Kind::Offset},    {Kind::Contig, Kind::Strided},
};

struct Param {
  size_t def;
  ndrt_dtype dtype;
};
void PrintTo(const Param& p, std::ostream* os) { *os << defs()[p.def].op << "/" << dtype_str(p.dtype); }
std::string param_name(const ::testing::TestParamInfo<Param>& i) {
  return param_safe(std::string(defs()[i.param.def].op) + "_" + dtype_str(i.param.dtype));
}

class Binary : public ::testing::TestWithParam<Param> {
 protected:
  const BinDef& def() const { return defs()[GetParam().def]; }
  ndrt_dtype dtype() const { return GetParam().dtype; }
  ndrt_dtype out_dtype() const { return def().bool_out ? NDRT_BOOL : dtype(); }
  Gen gen(int input) const { return def().gen ? def().gen(dtype(), input) : default_gen(dtype()); }

  void check(const Shape& sa, const Shape& sb, Kind ka, Kind kb, OutKind ok, std::mt19937& rng) {
    const ndrt_dtype d = dtype();
    std::string what = std::string(def().op) + " " + dtype_str(d) + " " + shape_str(sa) + " " + kind_str(ka) + " with " +
                       shape_str(sb) + " " + kind_str(kb) + ", " + out_kind_str(ok);
    SCOPED_TRACE(what);
    Operand A = make_operand(d, sa, ka, gen(0), rng);
    Operand B = make_operand(d, sb, kb, gen(1), rng);
    Shape os = broadcast(sa, sb);
    std::vector<double> want(size_t(numel_of(os)));
    std::vector<int64_t> ia = bcast_index_map(os, sa), ib = bcast_index_map(os, sb);
    for (size_t i = 0; i < want.size(); ++i) want[i] = def().ref(A.vals[size_t(ia[i])], B.vals[size_t(ib[i])], d);
    std::vector<double> got = run_out(def().op, {&A.view, &B.view}, {}, out_dtype(), os, ok);
    expect_close(got, want, out_dtype(), default_tol(out_dtype()), what);
  }
};

TEST_P(Binary, MatchesFloat64ReferenceOnAllLayoutsAndOutputs) {
  std::mt19937 rng(1234 + unsigned(GetParam().def) * 31 + unsigned(dtype()) * 7);
  for (const BinCase& c : kBinCases)
    for (const KindPair& kp : kKindPairs)
      for (OutKind ok : kAllOutKinds) check(c.a, c.b, kp.a, kp.b, ok, rng);
}

// Past the parallel grain: dense (direct path), scalar and row broadcasts (stride-0 fast paths),
// permuted (blocked path); odd lengths leave vector tails.
TEST_P(Binary, LargeInputsUseParallelAndVectorPathsCorrectly) {
  std::mt19937 rng(99 + unsigned(dtype()) + unsigned(GetParam().def) * 5);
  check({3, 40009}, {3, 40009}, Kind::Contig, Kind::Contig, OutKind::Fresh, rng);
  check({3, 40009}, {}, Kind::Contig, Kind::Contig, OutKind::Given, rng);
  check({}, {3, 40009}, Kind::Contig, Kind::Contig, OutKind::Fresh, rng);
  check({257, 1031}, {1031}, Kind::Permuted, Kind::Contig, OutKind::Given, rng);
  check({131, 1, 517}, {1, 263, 1}, Kind::Strided, Kind::Contig, OutKind::Fresh, rng);
}

// y written into input a's own view, dense and strided, with b broadcast (bool-valued ops on other
// dtypes: refused, since a given output must have the op's dtype).
TEST_P(Binary, RunsInPlaceOnTheSameView) {
  const ndrt_dtype d = dtype();
  std::mt19937 rng(5 + unsigned(d));
  if (def().bool_out && d != NDRT_BOOL) {  // the output is bool: an input of another dtype cannot hold it
    Operand A = make_operand(d, {9, 31}, Kind::Contig, gen(0), rng);
    std::vector<double> before = read_values(A.view);
    expect_error(NDRT_ERR_DTYPE_MISMATCH, try_run(def().op, {&A.view, &A.view}, &A.view),
                 {std::string(def().op) + ": output 0 has dtype " + dtype_str(d) + ", the op produces bool"});
    std::vector<double> after = read_values(A.view);
    for (size_t i = 0; i < after.size(); ++i)
      if (!(after[i] == before[i] || (std::isnan(after[i]) && std::isnan(before[i])))) {
        ADD_FAILURE() << "a refused call changed its input at " << i;
        break;
      }
    return;
  }
  for (Kind k : {Kind::Contig, Kind::Strided}) {
    SCOPED_TRACE(kind_str(k));
    Operand A = make_operand(d, {9, 301}, k, gen(0), rng);
    Operand B = make_operand(d, {301}, Kind::Contig, gen(1), rng);
    std::vector<double> want(A.vals.size());
    for (size_t i = 0; i < want.size(); ++i) want[i] = def().ref(A.vals[i], B.vals[i % 301], d);
    run_into(def().op, {&A.view, &B.view}, A.view);
    expect_close(read_values(A.view), want, out_dtype(), default_tol(out_dtype()), std::string(def().op) + " in place");
  }
}

std::vector<Param> params() {
  std::vector<Param> r;
  for (size_t i = 0; i < defs().size(); ++i)
    for (ndrt_dtype d : defs()[i].dtypes) r.push_back({i, d});
  return r;
}
INSTANTIATE_TEST_SUITE_P(Ops, Binary, ::testing::ValuesIn(params()), param_name);

TEST(BinaryDtypes, KernelListsAreExactlyTheDocumentedOnes) {
  for (const BinDef& b : defs()) {
    std::vector<ndrt_dtype> have = cpu_dtypes(b.op), w = b.dtypes;
    std::sort(have.begin(), have.end());
    std::sort(w.begin(), w.end());
    EXPECT_EQ(have, w) << b.op << ": " << op_describe(b.op);
  }
  std::vector<ndrt_dtype> where = cpu_dtypes("where"), all = kAll;
  std::sort(where.begin(), where.end());
  std::sort(all.begin(), all.end());
  EXPECT_EQ(where, all);
  std::vector<ndrt_dtype> lnot = cpu_dtypes("logical_not");
  std::sort(lnot.begin(), lnot.end());
  EXPECT_EQ(lnot, all);
}

// ---------------------------------------------------------------------------------------------
// logical_not (unary, bool out) and where (three inputs)
// ---------------------------------------------------------------------------------------------
class LogicalNot : public ::testing::TestWithParam<ndrt_dtype> {};
TEST_P(LogicalNot, IsTrueExactlyForZero) {
  const ndrt_dtype d = GetParam();
  std::mt19937 rng(17 + unsigned(d));
  const Shape shapes[] = {{3, 5, 7}, {}, {0, 4}, {2, 3, 4, 5}, {3, 40009}};
  for (const Shape& s : shapes)
    for (Kind k : kAllKinds)
      for (OutKind ok : kAllOutKinds) {
        if (numel_of(s) > 50000 && (k != Kind::Contig || ok != OutKind::Fresh)) continue;
        std::string what = std::string("logical_not ") + dtype_str(d) + " " + shape_str(s) + " " + kind_str(k);
        SCOPED_TRACE(what);
        Operand X = make_operand(d, s, k, tie_gen(d, 0), rng);
        std::vector<double> want(X.vals.size());
        for (size_t i = 0; i < want.size(); ++i) want[i] = X.vals[i] == 0 ? 1 : 0;
        expect_close(run_out("logical_not", {&X.view}, {}, NDRT_BOOL, s, ok), want, NDRT_BOOL, {}, what);
      }
}
std::string dtype_param_name(const ::testing::TestParamInfo<ndrt_dtype>& i) { return dtype_str(i.param); }
INSTANTIATE_TEST_SUITE_P(Ops, LogicalNot, ::testing::ValuesIn(kAll), dtype_param_name);

struct WhereCase {
  Shape c, a, b;
};
const WhereCase kWhereCases[] = {
    {{3, 5, 7}, {3, 5, 7}, {3, 5, 7}}, {{3, 5, 7}, {7}, {}},       {{7}, {3, 1, 7}, {5, 1}}, {{}, {4, 3}, {4, 3}},
    {{}, {}, {}},                      {{3, 0, 2}, {2}, {1, 1}},   {{1, 37}, {5, 1}, {37}},  {{2, 3, 4, 5}, {3, 1, 5}, {4, 1}},
    {{5, 1}, {5, 1}, {5, 1}},          {{3, 40009}, {3, 40009}, {3, 40009}},  // large: parallel
    {{3, 40009}, {3, 40009}, {}},    {{3, 40009}, {}, {3, 40009}},
};

class Where : public ::testing::TestWithParam<ndrt_dtype> {};
TEST_P(Where, SelectsWithThreeWayBroadcasting) {
  const ndrt_dtype d = GetParam();
  std::mt19937 rng(23 + unsigned(d));
  const Kind kinds[][3] = {{Kind::Contig, Kind::Contig, Kind::Contig},
                           {Kind::Strided, Kind::Permuted, Kind::Expanded},
                           {Kind::Expanded, Kind::Offset, Kind::Strided}};
  for (const WhereCase& wc : kWhereCases)
    for (const auto& ks : kinds)
      for (OutKind ok : kAllOutKinds) {
        Shape os = broadcast(wc.c, broadcast(wc.a, wc.b));
        if (numel_of(os) > 50000 && ok == OutKind::GivenView) continue;
        std::string what = std::string("where ") + dtype_str(d) + " " + shape_str(wc.c) + " " + shape_str(wc.a) + " " +
                           shape_str(wc.b) + " " + kind_str(ks[0]) + "," + kind_str(ks[1]) + "," + kind_str(ks[2]) + ", " +
                           out_kind_str(ok);
        SCOPED_TRACE(what);
        Operand C = make_operand(NDRT_BOOL, wc.c, ks[0], default_gen(NDRT_BOOL), rng);
        Operand A = make_operand(d, wc.a, ks[1], d == NDRT_BOOL ? tie_gen(d, 0) : default_gen(d), rng);
        Operand B = make_operand(d, wc.b, ks[2], d == NDRT_BOOL ? tie_gen(d, 0) : default_gen(d), rng);
        std::vector<double> want(size_t(numel_of(os)));
        std::vector<int64_t> ic = bcast_index_map(os, wc.c), ia = bcast_index_map(os, wc.a),
                             ib = bcast_index_map(os, wc.b);
        for (size_t i = 0; i < want.size(); ++i)
          want[i] = C.vals[size_t(ic[i])] != 0 ? A.vals[size_t(ia[i])] : B.vals[size_t(ib[i])];
        expect_close(run_out("where", {&C.view, &A.view, &B.view}, {}, d, os, ok), want, d, {}, what);
      }
}
INSTANTIATE_TEST_SUITE_P(Ops, Where, ::testing::ValuesIn(kAll), dtype_param_name);

// ---------------------------------------------------------------------------------------------
// Errors in the caller's terms
// ---------------------------------------------------------------------------------------------
TEST(BinaryErrors, MixedDtypesAndNonBroadcastingShapesAreRefused) {
  Tensor a = from_values(NDRT_F32, {2, 3}, std::vector<double>(6, 1.0));
  Tensor b = from_values(NDRT_F16, {2, 3}, std::vector<double>(6, 1.0));
  Tensor c = from_values(NDRT_F32, {4}, std::vector<double>(4, 1.0));
  for (const char* op : {"add", "maximum", "pow", "eq", "lt", "logical_and"}) {
    SCOPED_TRACE(op);
    int64_t live = live_handles();
    expect_error(NDRT_ERR_DTYPE_MISMATCH, try_run(op, {&a, &b}, nullptr),
                 {std::string(op) + ": input 1 is f16 but input 0 is f32"});
    expect_error(NDRT_ERR_SHAPE_MISMATCH, try_run(op, {&a, &c}, nullptr),
                 {std::string(op) + ": shapes [2,3] and [4] do not broadcast"});
    EXPECT_EQ(live_handles(), live);
  }
  Tensor i = from_values(NDRT_I32, {3}, {1, 2, 3});
  expect_error(NDRT_ERR_DTYPE_MISMATCH, try_run("pow", {&i, &i}, nullptr), {"pow: needs a floating-point dtype, got i32"});
  Tensor bo = from_values(NDRT_BOOL, {3}, {1, 0, 1});
  expect_error(NDRT_ERR_NOT_SUPPORTED, try_run("add", {&bo, &bo}, nullptr), {"add: no cpu kernel for dtype bool"});
  // A comparison writes bool: a given f32 output is the wrong dtype.
  Tensor out = create(NDRT_F32, {2, 3});
  expect_error(NDRT_ERR_DTYPE_MISMATCH, try_run("eq", {&a, &a}, &out), {"eq: output 0 has dtype f32, the op produces bool"});
}

TEST(BinaryErrors, WhereChecksCondDtypeBranchDtypesAndShapes) {
  Tensor cf = from_values(NDRT_F32, {3}, {1, 0, 1});
  Tensor cb = from_values(NDRT_BOOL, {3}, {1, 0, 1});
  Tensor a = from_values(NDRT_F32, {3}, {1, 2, 3});
  Tensor b64 = from_values(NDRT_F64, {3}, {1, 2, 3});
  Tensor b4 = from_values(NDRT_F32, {4}, {1, 2, 3, 4});
  std::vector<ndrt_handle> out = {0};
  expect_error(NDRT_ERR_DTYPE_MISMATCH, exec("where", {cf.get(), a.get(), a.get()}, out),
               {"where: cond must be bool, got f32"});
  expect_error(NDRT_ERR_DTYPE_MISMATCH, exec("where", {cb.get(), a.get(), b64.get()}, out),
               {"where: a is f32 but b is f64"});
  expect_error(NDRT_ERR_SHAPE_MISMATCH, exec("where", {cb.get(), a.get(), b4.get()}, out),
               {"where: shapes [3] and [4] do not broadcast"});
  Tensor cb4 = from_values(NDRT_BOOL, {4}, {1, 0, 1, 0});
  expect_error(NDRT_ERR_SHAPE_MISMATCH, exec("where", {cb4.get(), a.get(), a.get()}, out),
               {"where: shapes [4] and [3] do not broadcast"});
  EXPECT_EQ(out[0], 0);
}

TEST(BinaryErrors, IntegerDivisionByZeroIsInvalidArgumentForEveryIntegerDtype) {
  for (ndrt_dtype d : {NDRT_I8, NDRT_U8, NDRT_I32, NDRT_I64}) {
    SCOPED_TRACE(dtype_str(d));
    Tensor a = from_values(d, {2, 3}, {1, 2, 3, 4, 5, 6});
    Tensor b = from_values(d, {3}, {1, 0, 2});
    int64_t live = live_handles();
    expect_error(NDRT_ERR_INVALID_ARGUMENT, try_run("div", {&a, &b}, nullptr), {"div: integer division by zero"});
    EXPECT_EQ(live_handles(), live);
  }
  // i8: -128 / -1 wraps to -128 instead of trapping.
  Tensor a = from_values(NDRT_I8, {2}, {-128, 7});
  Tensor b = from_values(NDRT_I8, {2}, {-1, -2});
  EXPECT_EQ(read_values(run("div", {&a, &b})), (std::vector<double>{-128, -3}));
}

}  // namespace
