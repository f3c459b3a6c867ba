// Elementwise ops (add, sub, mul, div, neg, relu, exp, log) against a float64 reference on fresh
// random data: odd shapes, rank 0, size-0 axes, broadcasting both ways, non-contiguous inputs
// (permuted, strided with negative steps, expanded, offset), outputs runtime-allocated, given, and
// given as non-contiguous views of a bigger tensor (whose other elements must stay untouched).
#include <algorithm>
#include <climits>
#include <cmath>

#include "../../runtime/fp_mode.hpp"
#include "common/ndrt_test.hpp"

using namespace nt;

namespace {

// The op's arithmetic in float64 (integers: C++ division truncates toward zero).
std::function<double(double, double)> binary_fn(const std::string& op, ndrt_dtype d) {
  if (op == "add") return [](double a, double b) { return a + b; };
  if (op == "sub") return [](double a, double b) { return a - b; };
  if (op == "mul") return [](double a, double b) { return a * b; };
  if (is_int(d)) return [](double a, double b) { return double(int64_t(a) / int64_t(b)); };
  return [](double a, double b) { return a / b; };
}

double apply_unary(const std::string& op, double x) {
  if (op == "neg") return -x;
  if (op == "relu") return x > 0 ? x : 0;
  if (op == "exp") return std::exp(x);
  return std::log(x);
}

std::string name_of(const std::string& op, ndrt_dtype d) { return op + "_" + dtype_str(d); }

bool documented(ndrt_dtype d) { return d == NDRT_F32 || d == NDRT_F64 || d == NDRT_I32 || d == NDRT_I64; }

// Operand generators that keep every result inside the dtype's range (no wrap-around to define).
Gen binary_gen(const std::string& op, ndrt_dtype d, int operand) {
  if (d == NDRT_U8) {
    if (op == "sub") return operand == 0 ? uniform_gen(d, 100, 200) : uniform_gen(d, 1, 99);
    if (op == "mul") return uniform_gen(d, 1, 15);
    if (op == "div") return operand == 0 ? uniform_gen(d, 1, 255) : uniform_gen(d, 1, 20);
    return uniform_gen(d, 1, 100);
  }
  if (d == NDRT_I8) {
    if (op == "mul") return uniform_gen(d, -11, 11);
    if (op == "div") return operand == 0 ? uniform_gen(d, -127, 127) : uniform_gen(d, -10, 10);
    return uniform_gen(d, -50, 50);
  }
  return default_gen(d);
}

struct BinCase {
  Shape a, b;
};
const BinCase kBinCases[] = {
    {{3, 5, 7}, {3, 5, 7}},     // odd shape, no broadcast
    {{3, 5, 7}, {7}},           // b broadcasts
    {{7}, {3, 5, 7}},           // a broadcasts
    {{3, 1, 7}, {1, 5, 1}},     // both directions
    {{2, 3, 4, 5}, {3, 1, 5}},  // rank 4 with rank 3
    {{}, {}},                   // rank 0
    {{}, {4, 3}},               // scalar with a matrix
    {{4, 3}, {}},               // matrix with a scalar
    {{3, 0, 5}, {5}},           // size-0 axis
    {{0}, {1}},                 // size 0 with size 1
    {{1}, {6}},                 // size 1 with size 6
};

struct KindPair {
  Kind a, b;
};
const KindPair kKindPairs[] = {
    {Kind::Contig, Kind::Contig},     {Kind::Permuted, Kind::Strided}, {Kind::Strided, Kind::Expanded},
    {Kind::Expanded, Kind::Permuted}, {Kind::Offset, Kind::Offset},    {Kind::Contig, Kind::Strided},
};

void check_binary(const std::string& op, ndrt_dtype d, const Shape& sa, const Shape& sb, Kind ka, Kind kb, OutKind ok,
                  std::mt19937& rng) {
  std::string what = op + " " + dtype_str(d) + " " + shape_str(sa) + " " + kind_str(ka) + " with " + shape_str(sb) +
                     " " + kind_str(kb) + ", " + out_kind_str(ok);
  SCOPED_TRACE(what);
  Operand A = make_operand(d, sa, ka, binary_gen(op, d, 0), rng);
  Operand B = make_operand(d, sb, kb, binary_gen(op, d, 1), rng);
  Shape os = broadcast(sa, sb);
  std::vector<double> av = broadcast_values(A.vals, sa, os), bv = broadcast_values(B.vals, sb, os);
  std::vector<double> want(av.size());
  const auto f = binary_fn(op, d);
  for (size_t i = 0; i < want.size(); ++i) want[i] = f(av[i], bv[i]);
  std::vector<double> got = run_out(op.c_str(), {&A.view, &B.view}, {}, d, os, ok);
  expect_close(got, want, d, default_tol(d), what);
}

// ---------------------------------------------------------------------------------------------
// Binary ops, one test per (op, dtype)
// ---------------------------------------------------------------------------------------------
struct OpDtype {
  const char* op;
  ndrt_dtype dtype;
};
void PrintTo(const OpDtype& p, std::ostream* os) { *os << p.op << " " << dtype_str(p.dtype); }
std::string param_name(const ::testing::TestParamInfo<OpDtype>& i) { return name_of(i.param.op, i.param.dtype); }

class Binary : public ::testing::TestWithParam<OpDtype> {};

TEST_P(Binary, MatchesFloat64ReferenceOnAllLayoutsAndOutputs) {
  const OpDtype p = GetParam();
  NT_REQUIRE_KERNEL_OR_SKIP(p.op, p.dtype, documented(p.dtype));
  std::mt19937 rng(1234 + p.dtype * 31 + int(std::string(p.op).size()) * 7 + p.op[0]);
  for (const BinCase& c : kBinCases)
    for (const KindPair& kp : kKindPairs)
      for (OutKind ok : kAllOutKinds) check_binary(p.op, p.dtype, c.a, c.b, kp.a, kp.b, ok, rng);
}

// Sizes past any parallel grain, so the multi-threaded paths run too.
TEST_P(Binary, LargeInputsUseParallelPathsCorrectly) {
  const OpDtype p = GetParam();
  NT_REQUIRE_KERNEL_OR_SKIP(p.op, p.dtype, documented(p.dtype));
  std::mt19937 rng(99 + p.dtype);
  check_binary(p.op, p.dtype, {257, 1031}, {257, 1031}, Kind::Contig, Kind::Contig, OutKind::Fresh, rng);
  check_binary(p.op, p.dtype, {257, 1031}, {1031}, Kind::Permuted, Kind::Contig, OutKind::Given, rng);
  check_binary(p.op, p.dtype, {131, 1, 517}, {1, 263, 1}, Kind::Strided, Kind::Contig, OutKind::Fresh, rng);
}

std::vector<OpDtype> binary_params() {
  std::vector<OpDtype> r;
  for (const char* op : {"add", "sub", "mul", "div"})
    for (ndrt_dtype d : {NDRT_F32, NDRT_F64, NDRT_I32, NDRT_I64}) r.push_back({op, d});
  return r;
}
// f16, bf16, i8 and u8 kernels are covered by the op-family suites in ops/ (instantiated as "Ops/").
INSTANTIATE_TEST_SUITE_P(Core, Binary, ::testing::ValuesIn(binary_params()), param_name);

// ---------------------------------------------------------------------------------------------
// Unary ops
// ---------------------------------------------------------------------------------------------
class Unary : public ::testing::TestWithParam<OpDtype> {};

TEST_P(Unary, MatchesFloat64ReferenceOnAllLayoutsAndOutputs) {
  const OpDtype p = GetParam();
  const std::string op = p.op;
  const ndrt_dtype d = p.dtype;
  NT_REQUIRE_KERNEL_OR_SKIP(p.op, d, documented(d));
  std::mt19937 rng(777 + d * 13 + p.op[0] + p.op[1]);
  Gen gen = op == "exp" ? uniform_gen(d, -5, 5) : op == "log" ? uniform_gen(d, 0.01, 10) : default_gen(d);
  if (d == NDRT_I8) gen = uniform_gen(d, -127, 127);  // -128 has no negation
  const Shape shapes[] = {{3, 5, 7}, {}, {0, 4}, {1}, {2, 3, 4, 5}, {5, 0}};
  for (const Shape& s : shapes)
    for (Kind k : kAllKinds)
      for (OutKind ok : kAllOutKinds) {
        std::string what = op + " " + dtype_str(d) + " " + shape_str(s) + " " + kind_str(k) + ", " + out_kind_str(ok);
        SCOPED_TRACE(what);
        Operand X = make_operand(d, s, k, gen, rng);
        std::vector<double> want(X.vals.size());
        for (size_t i = 0; i < want.size(); ++i) want[i] = apply_unary(op, X.vals[i]);
        std::vector<double> got = run_out(p.op, {&X.view}, {}, d, s, ok);
        expect_close(got, want, d, default_tol(d), what);
      }
  // Large, parallel paths.
  Operand X = make_operand(d, {257, 1031}, Kind::Permuted, gen, rng);
  std::vector<double> want(X.vals.size());
  for (size_t i = 0; i < want.size(); ++i) want[i] = apply_unary(op, X.vals[i]);
  expect_close(run_out(p.op, {&X.view}, {}, d, {257, 1031}, OutKind::Fresh), want, d, default_tol(d), op + " large");
}

std::vector<OpDtype> unary_params() {
  std::vector<OpDtype> r;
  for (const char* op : {"neg", "relu"})
    for (ndrt_dtype d : {NDRT_F32, NDRT_F64, NDRT_I32, NDRT_I64}) r.push_back({op, d});
  for (const char* op : {"exp", "log"})
    for (ndrt_dtype d : {NDRT_F32, NDRT_F64}) r.push_back({op, d});
  return r;
}
INSTANTIATE_TEST_SUITE_P(Core, Unary, ::testing::ValuesIn(unary_params()), param_name);

// ---------------------------------------------------------------------------------------------
// Dtype coverage, errors, special values
// ---------------------------------------------------------------------------------------------
TEST(Elementwise, KernelListsCoverTheDocumentedDtypesAndOthersAreRefused) {
  struct Expect {
    const char* op;
    std::vector<ndrt_dtype> must;
    int arity;
  };
  const Expect ex[] = {
      {"add", {NDRT_F32, NDRT_F64, NDRT_I32, NDRT_I64}, 2}, {"sub", {NDRT_F32, NDRT_F64, NDRT_I32, NDRT_I64}, 2},
      {"mul", {NDRT_F32, NDRT_F64, NDRT_I32, NDRT_I64}, 2}, {"div", {NDRT_F32, NDRT_F64, NDRT_I32, NDRT_I64}, 2},
      {"neg", {NDRT_F32, NDRT_F64, NDRT_I32, NDRT_I64}, 1}, {"relu", {NDRT_F32, NDRT_F64, NDRT_I32, NDRT_I64}, 1},
      {"exp", {NDRT_F32, NDRT_F64}, 1},                      {"log", {NDRT_F32, NDRT_F64}, 1},
  };
  for (const Expect& e : ex) {
    std::vector<ndrt_dtype> have = cpu_dtypes(e.op);
    for (ndrt_dtype d : e.must)
      EXPECT_NE(std::find(have.begin(), have.end(), d), have.end())
          << e.op << " has no cpu kernel for " << dtype_str(d) << ": " << op_describe(e.op);
    for (ndrt_dtype d : kAllDtypes) {
      if (std::find(have.begin(), have.end(), d) != have.end()) continue;
      SCOPED_TRACE(std::string(e.op) + " on " + dtype_str(d));
      Tensor x = from_values(d, {2, 3}, std::vector<double>(6, 1.0));
      std::vector<const Tensor*> in(size_t(e.arity), &x);
      int64_t live = live_handles();
      ndrt_status s = try_run(e.op, in, nullptr);
      EXPECT_TRUE(s == NDRT_ERR_NOT_SUPPORTED || s == NDRT_ERR_DTYPE_MISMATCH)
          << e.op << " on " << dtype_str(d) << " returned " << describe_status(s);
      EXPECT_GT(std::strlen(ndrt_last_error()), 0u);
      EXPECT_EQ(live_handles(), live);
    }
  }
}

// The highest rank, with broadcasting on alternate axes and every layout.
TEST(Elementwise, RankEightWithBroadcasting) {
  std::mt19937 rng(88);
  const Shape a = {2, 1, 3, 1, 2, 1, 2, 3}, b = {1, 2, 1, 3, 1, 2, 2, 1};
  for (const char* op : {"add", "mul"})
    for (ndrt_dtype d : {NDRT_F64, NDRT_I32})
      for (const KindPair& kp : kKindPairs) check_binary(op, d, a, b, kp.a, kp.b, OutKind::GivenView, rng);
  const Shape full = {2, 2, 3, 3, 2, 2, 2, 3};
  for (Kind k : kAllKinds) {
    Operand x = make_operand(NDRT_F32, full, k, default_gen(NDRT_F32), rng);
    std::vector<double> want(x.vals.size());
    for (size_t i = 0; i < want.size(); ++i) want[i] = -x.vals[i];
    expect_close(run_out("neg", {&x.view}, {}, NDRT_F32, full, OutKind::GivenView), want, NDRT_F32, {0, 0},
                 std::string("neg rank 8 ") + kind_str(k));
  }
}

TEST(Elementwise, MixedDtypesAreRefused) {
  Tensor a = from_values(NDRT_F32, {3}, {1, 2, 3});
  Tensor b = from_values(NDRT_F64, {3}, {1, 2, 3});
  for (const char* op : {"add", "sub", "mul", "div"}) EXPECT_STATUS(NDRT_ERR_DTYPE_MISMATCH, try_run(op, {&a, &b}, nullptr));
}

TEST(Elementwise, ShapesThatDoNotBroadcastAreRefusedWithAMessageInTheCallersTerms) {
  Tensor a = from_values(NDRT_F32, {2, 3}, std::vector<double>(6, 1.0));
  Tensor b = from_values(NDRT_F32, {4}, std::vector<double>(4, 1.0));
  int64_t live = live_handles();
  EXPECT_STATUS(NDRT_ERR_SHAPE_MISMATCH, try_run("add", {&a, &b}, nullptr));
  std::string msg = ndrt_last_error();
  EXPECT_NE(msg.find("add"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[2,3]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[4]"), std::string::npos) << msg;
  EXPECT_EQ(live_handles(), live);
  Tensor z = from_values(NDRT_F32, {0}, {});
  Tensor two = from_values(NDRT_F32, {2}, {1, 2});
  EXPECT_STATUS(NDRT_ERR_SHAPE_MISMATCH, try_run("mul", {&z, &two}, nullptr));
}

TEST(Elementwise, GivenOutputOfWrongShapeOrDtypeIsRefusedAndLeftUntouched) {
  Tensor a = from_values(NDRT_F32, {2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor wrong_shape = from_values(NDRT_F32, {3, 2}, {9, 9, 9, 9, 9, 9});
  EXPECT_STATUS(NDRT_ERR_SHAPE_MISMATCH, try_run("add", {&a, &a}, &wrong_shape));
  Tensor wrong_dtype = from_values(NDRT_F64, {2, 3}, {9, 9, 9, 9, 9, 9});
  EXPECT_STATUS(NDRT_ERR_DTYPE_MISMATCH, try_run("add", {&a, &a}, &wrong_dtype));
  EXPECT_EQ(read_values(wrong_shape), std::vector<double>(6, 9.0));
  EXPECT_EQ(read_values(wrong_dtype), std::vector<double>(6, 9.0));
  // A broadcast view (stride 0) cannot be written.
  Tensor row = from_values(NDRT_F32, {1, 3}, {0, 0, 0});
  Tensor bview = expand(row, {2, 3});
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, try_run("add", {&a, &a}, &bview));
}

TEST(Elementwise, InPlaceOnTheSameViewWorksOtherAliasingIsRefused) {
  std::vector<double> av = {1, 2, 3, 4, 5, 6}, bv = {10, 20, 30, 40, 50, 60};
  Tensor a = from_values(NDRT_F64, {2, 3}, av);
  Tensor b = from_values(NDRT_F64, {2, 3}, bv);
  run_into("add", {&a, &b}, a);  // a += b
  EXPECT_EQ(read_values(a), (std::vector<double>{11, 22, 33, 44, 55, 66}));
  Tensor a2 = retain(a);  // another handle to the very same view
  run_into("mul", {&b, &a}, a2);
  EXPECT_EQ(read_values(a), (std::vector<double>{110, 440, 990, 1760, 2750, 3960}));
  // An output overlapping an input without being the same view: either refused, or computed as if
  // the inputs were read before any output was written.
  std::vector<double> sqv = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  Tensor sq = from_values(NDRT_F64, {3, 3}, sqv);
  Tensor sqt = transpose(sq, 0, 1);
  ndrt_status s = try_run("add", {&sq, &sq}, &sqt);
  EXPECT_TRUE(s == NDRT_ERR_INVALID_ARGUMENT || s == NDRT_OK) << describe_status(s);
  if (s == NDRT_OK) {  // sqt[i][j] = 2*sq[i][j]  =>  sq[j][i] = 2*old[i][j]
    EXPECT_EQ(read_values(sq), (std::vector<double>{2, 8, 14, 4, 10, 16, 6, 12, 18}));
  }
  write_values(sq, sqv);
  run_into("neg", {&sq}, sq);
  EXPECT_EQ(read_values(sq), (std::vector<double>{-1, -2, -3, -4, -5, -6, -7, -8, -9}));
  // Row 0 broadcast into the whole tensor of the same storage.
  Tensor row0 = slice(sq, 0, 0, 1, 1);
  s = try_run("add", {&sq, &row0}, &sq);
  EXPECT_TRUE(s == NDRT_ERR_INVALID_ARGUMENT || s == NDRT_OK) << describe_status(s);
  if (s == NDRT_OK) {
    EXPECT_EQ(read_values(sq), (std::vector<double>{-2, -4, -6, -5, -7, -9, -8, -10, -12}));
  }
}

TEST(Elementwise, IntegerDivisionTruncatesTowardZero) {
  for (ndrt_dtype d : {NDRT_I32, NDRT_I64}) {
    SCOPED_TRACE(dtype_str(d));
    Tensor a = from_values(d, {8}, {7, -7, 7, -7, 1, -1, 0, 100});
    Tensor b = from_values(d, {8}, {2, 2, -2, -2, 3, 3, 5, -7});
    EXPECT_EQ(read_values(run("div", {&a, &b})), (std::vector<double>{3, -3, -3, 3, 0, 0, 0, -14}));
  }
}

TEST(Elementwise, IntegerDivisionByZeroIsInvalidArgument) {
  for (ndrt_dtype d : {NDRT_I32, NDRT_I64}) {
    SCOPED_TRACE(dtype_str(d));
    Tensor a = from_values(d, {2, 3}, {1, 2, 3, 4, 5, 6});
    Tensor b = from_values(d, {3}, {1, 0, 2});
    int64_t live = live_handles();
    ndrt_memory_stats before = stats();
    EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, try_run("div", {&a, &b}, nullptr));
    EXPECT_NE(std::string(ndrt_last_error()).find("div"), std::string::npos) << ndrt_last_error();
    EXPECT_EQ(live_handles(), live) << "a failed exec left a handle behind";
    EXPECT_EQ(stats().in_use, before.in_use) << "a failed exec kept its output memory";
    Tensor out = create(d, {2, 3});
    EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, try_run("div", {&a, &b}, &out));
    Tensor zero = from_values(d, {}, {0});
    EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, try_run("div", {&a, &zero}, nullptr));
  }
}

// INT_MIN / -1 overflows (SIGFPE on x86 idiv): it must not bring the process down.
TEST(Elementwise, IntegerDivisionOverflowDoesNotCrash) {
  Tensor a = from_values(NDRT_I32, {2}, {-2147483648.0, 6});
  Tensor b = from_values(NDRT_I32, {2}, {-1, -1});
  Tensor out;
  ndrt_status s = try_run("div", {&a, &b}, &out);
  EXPECT_TRUE(s == NDRT_OK || s == NDRT_ERR_INVALID_ARGUMENT) << describe_status(s);
  if (s == NDRT_OK) {
    EXPECT_EQ(read_values(out)[1], -6);
  }
  std::vector<int64_t> big = {INT64_MIN, 6};
  Tensor a64 = from_bytes(NDRT_I64, {2}, big.data(), 16);
  Tensor b64 = from_values(NDRT_I64, {2}, {-1, -1});
  Tensor out64;
  s = try_run("div", {&a64, &b64}, &out64);
  EXPECT_TRUE(s == NDRT_OK || s == NDRT_ERR_INVALID_ARGUMENT) << describe_status(s);
}

TEST(Elementwise, FloatSpecialValues) {
  const double inf = HUGE_VAL, nan = std::nan("");
  for (ndrt_dtype d : {NDRT_F32, NDRT_F64}) {
    SCOPED_TRACE(dtype_str(d));
    Tensor a = from_values(d, {5}, {inf, -inf, nan, 1, 0});
    Tensor b = from_values(d, {5}, {-inf, 1, 1, 0, 0});
    std::vector<double> add = read_values(run("add", {&a, &b}));
    EXPECT_TRUE(std::isnan(add[0]));
    EXPECT_EQ(add[1], -inf);
    EXPECT_TRUE(std::isnan(add[2]));
    std::vector<double> div = read_values(run("div", {&a, &b}));
    EXPECT_EQ(div[3], inf);        // 1/0
    EXPECT_TRUE(std::isnan(div[4]));  // 0/0
    Tensor e = from_values(d, {4}, {1000, -1000, 0, -inf});
    EXPECT_EQ(read_values(run("exp", {&e})), (std::vector<double>{inf, 0, 1, 0}));
    Tensor l = from_values(d, {4}, {0, -1, inf, 1});
    std::vector<double> lg = read_values(run("log", {&l}));
    EXPECT_EQ(lg[0], -inf);
    EXPECT_TRUE(std::isnan(lg[1]));
    EXPECT_EQ(lg[2], inf);
    EXPECT_EQ(lg[3], 0);
  }
}

TEST(Elementwise, WrongArityAndUnknownOpsAreRefused) {
  Tensor a = from_values(NDRT_F32, {2}, {1, 2});
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, try_run("add", {&a}, nullptr));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, try_run("neg", {&a, &a}, nullptr));
  std::vector<ndrt_handle> in = {a.get(), a.get()}, out = {0, 0};
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, exec("add", in, out));
  EXPECT_EQ(out[0], 0);
  EXPECT_EQ(out[1], 0);
  int32_t n = 0;
  ASSERT_OK(ndrt_op_count(&n));
  std::vector<ndrt_handle> o1 = {0};
  EXPECT_STATUS(NDRT_ERR_UNKNOWN_OP, ndrt_exec(n, in.data(), 2, o1.data(), 1, nullptr, 0, nullptr, 0));
  EXPECT_STATUS(NDRT_ERR_UNKNOWN_OP, ndrt_exec(-1, in.data(), 2, o1.data(), 1, nullptr, 0, nullptr, 0));
  int32_t id = 0;
  EXPECT_STATUS(NDRT_ERR_UNKNOWN_OP, ndrt_op_find("no_such_op", &id));
  // Attributes to an op that has none.
  int64_t extra = 1;
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_exec(op_id("add"), in.data(), 2, o1.data(), 1, &extra, 1, nullptr, 0));
  EXPECT_EQ(o1[0], 0);
}

}  // namespace

// cpu.flush_denormals: off (the default), subnormals follow IEEE 754; on, CPU kernels flush them to
// zero, inputs (DAZ) and results (FTZ), on the pool's threads too (a large op), and the calling
// thread's own floating-point mode is what it was after every call, failed ones included.
TEST(Elementwise, FlushDenormalsIsOptInAndLeavesTheCallersModeAlone) {
  const double sub = 1e-40;  // an f32 subnormal (the smallest normal is 1.18e-38)
  for (int64_t n : {int64_t(7), int64_t(1) << 20}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    Tensor x = from_values(NDRT_F32, {n}, std::vector<double>(size_t(n), sub));
    Tensor one = from_values(NDRT_F32, {1}, {1.0});
    const uint32_t before = ndrt::fp_mode();
    std::vector<double> kept = read_values(run("mul", {&x, &one}));  // a subnormal input
    EXPECT_NEAR(kept[0], sub, 1e-45);
    EXPECT_NEAR(kept[size_t(n - 1)], sub, 1e-45);
    EXPECT_OK(ndrt_config_set("cpu.flush_denormals", "1"));
    std::vector<double> flushed = read_values(run("mul", {&x, &one}));
    Tensor halfMin = from_values(NDRT_F32, {1}, {1e-19});
    std::vector<double> product = read_values(run("mul", {&halfMin, &halfMin}));  // 1e-38: subnormal result
    Tensor wrong = from_values(NDRT_F32, {3}, {1, 2, 3});
    EXPECT_STATUS(NDRT_ERR_SHAPE_MISMATCH, try_run("mul", {&x, &wrong}, nullptr));
    EXPECT_OK(ndrt_config_set("cpu.flush_denormals", "0"));
    // The control bits (rounding, masks, FTZ, DAZ); the low six are sticky status flags the test's own
    // arithmetic may raise.
    EXPECT_EQ(ndrt::fp_mode() & ~0x3Fu, before & ~0x3Fu) << "the caller's MXCSR after the calls";
    int64_t nonzero = 0;
    for (double v : flushed) nonzero += v != 0;
    EXPECT_EQ(nonzero, 0) << "every element flushed, the pool's parts too";
    EXPECT_EQ(product[0], 0.0);
    std::vector<double> again = read_values(run("mul", {&halfMin, &halfMin}));
    EXPECT_NEAR(again[0], 1e-38, 1e-44) << "off again: IEEE";
  }
}
