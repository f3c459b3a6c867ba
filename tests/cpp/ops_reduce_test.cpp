// Reductions (sum, mean, max) against a float64 reference: every subset of the axes of a rank-3
// tensor, keepdims both ways, negative axes, every layout and output kind, rank 0, size-0 axes,
// large (parallel) inputs, and the error cases (duplicate / out-of-range axes, max over nothing).
#include <algorithm>
#include <cmath>

#include "common/ndrt_test.hpp"

using namespace nt;

namespace {

struct Ref {
  Shape shape;                          // output shape
  std::vector<double> sum, max, maxabs;  // per output element
  std::vector<int64_t> count;
};

Ref reduce_ref(const std::vector<double>& x, const Shape& s, uint32_t mask, bool keep) {
  Ref r;
  Shape full;  // output shape with reduced axes as 1
  for (size_t i = 0; i < s.size(); ++i) {
    bool red = mask & (1u << i);
    full.push_back(red ? 1 : s[i]);
    if (!red)
      r.shape.push_back(s[i]);
    else if (keep)
      r.shape.push_back(1);
  }
  size_t n_out = size_t(numel_of(full));
  r.sum.assign(n_out, 0);
  r.max.assign(n_out, -HUGE_VAL);
  r.maxabs.assign(n_out, 0);
  r.count.assign(n_out, 0);
  Shape fst = strides_of(full);
  for (size_t k = 0; k < x.size(); ++k) {
    std::vector<int64_t> idx = unravel(int64_t(k), s);
    int64_t o = 0;
    for (size_t i = 0; i < s.size(); ++i)
      if (!(mask & (1u << i))) o += idx[i] * fst[i];
    r.sum[size_t(o)] += x[k];
    if (std::isnan(x[k]) || x[k] > r.max[size_t(o)]) r.max[size_t(o)] = std::isnan(r.max[size_t(o)]) ? r.max[size_t(o)] : x[k];
    r.maxabs[size_t(o)] = std::max(r.maxabs[size_t(o)], std::fabs(x[k]));
    r.count[size_t(o)]++;
  }
  return r;
}

uint32_t full_mask(size_t rank) { return rank ? (1u << rank) - 1 : 0; }

// Runs op over `axes` and compares with the reference. `mask` are the axes the list means.
void check_reduce(const std::string& op, ndrt_dtype d, const Operand& x, const Shape& s,
                  const std::vector<int64_t>& axes, uint32_t mask, bool keep, OutKind ok, const std::string& what) {
  SCOPED_TRACE(what);
  Ref r = reduce_ref(x.vals, s, mask, keep);
  std::vector<double> want(r.sum.size()), extra(r.sum.size(), 0.0);
  // f16/bf16 accumulate at least in f32 (then round once), so they get the f32 allowance.
  const double eps = d == NDRT_F64 ? 1e-12 : is_float(d) ? 1e-5 : 0.0;
  for (size_t i = 0; i < want.size(); ++i) {
    double n = double(r.count[i]);
    if (op == "sum") {
      want[i] = r.sum[i];
      extra[i] = eps * std::sqrt(n) * r.maxabs[i];
    } else if (op == "mean") {
      want[i] = n ? r.sum[i] / n : std::nan("");
      extra[i] = n ? eps * std::sqrt(n) * r.maxabs[i] / n : 0.0;
    } else {
      want[i] = r.max[i];
    }
  }
  std::vector<double> got = run_out(op.c_str(), {&x.view}, reduce_attrs(axes, keep), d, r.shape, ok);
  Tol tol = default_tol(d);
  expect_close(got, want, d, tol, what, is_float(d) ? &extra : nullptr);
}

struct OpDtype {
  const char* op;
  ndrt_dtype dtype;
};
void PrintTo(const OpDtype& p, std::ostream* os) { *os << p.op << " " << dtype_str(p.dtype); }
std::string param_name(const ::testing::TestParamInfo<OpDtype>& i) {
  return std::string(i.param.op) + "_" + dtype_str(i.param.dtype);
}

class Reduce : public ::testing::TestWithParam<OpDtype> {};

bool documented(const OpDtype& p) {
  return p.dtype == NDRT_F32 || p.dtype == NDRT_F64 || (std::string(p.op) != "mean" && (p.dtype == NDRT_I32 || p.dtype == NDRT_I64));
}

TEST_P(Reduce, EveryAxisSubsetOfARank3TensorKeepdimsBothWays) {
  const OpDtype p = GetParam();
  NT_REQUIRE_KERNEL_OR_SKIP(p.op, p.dtype, documented(p));
  std::mt19937 rng(4242 + p.dtype * 17 + p.op[1]);
  const Shape s = {3, 5, 7};
  int variant = 0;
  for (uint32_t mask = 0; mask < 8; ++mask)
    for (int keep = 0; keep < 2; ++keep)
      for (Kind k : kAllKinds) {
        ++variant;
        std::vector<int64_t> axes;
        for (int i = 0; i < 3; ++i)
          if (mask & (1u << i)) axes.push_back(variant % 2 ? i - 3 : i);  // negative axes on odd variants
        if (variant % 3 == 0) std::reverse(axes.begin(), axes.end());   // order does not matter
        uint32_t means = mask ? mask : full_mask(3);                     // empty list = all axes
        OutKind ok = kAllOutKinds[variant % 3];
        Operand x = make_operand(p.dtype, s, k, default_gen(p.dtype), rng);
        std::string axes_s;
        for (int64_t a : axes) axes_s += std::to_string(a) + " ";
        check_reduce(p.op, p.dtype, x, s, axes, means, keep, ok,
                     std::string(p.op) + " " + dtype_str(p.dtype) + " axes {" + axes_s + "} keepdims " +
                         std::to_string(keep) + " " + kind_str(k) + ", " + out_kind_str(ok));
      }
}

TEST_P(Reduce, RankZeroSizeZeroAndRankFour) {
  const OpDtype p = GetParam();
  NT_REQUIRE_KERNEL_OR_SKIP(p.op, p.dtype, documented(p));
  const std::string op = p.op;
  std::mt19937 rng(99 + p.dtype);
  {  // rank 0: the value itself
    Operand x = make_operand(p.dtype, {}, Kind::Contig, default_gen(p.dtype), rng);
    for (int keep = 0; keep < 2; ++keep)
      for (OutKind ok : kAllOutKinds) check_reduce(op, p.dtype, x, {}, {}, 0, keep, ok, op + " rank 0");
  }
  {  // reducing only non-empty axes of a tensor with a size-0 axis: empty result
    Operand x = make_operand(p.dtype, {4, 0, 3}, Kind::Strided, default_gen(p.dtype), rng);
    for (int keep = 0; keep < 2; ++keep) check_reduce(op, p.dtype, x, {4, 0, 3}, {2}, 4u, keep, OutKind::Fresh, op + " [4,0,3] axis 2");
  }
  if (op != "max") {  // reducing a size-0 axis: sum 0, mean NaN
    Operand x = make_operand(p.dtype, {4, 0, 3}, Kind::Permuted, default_gen(p.dtype), rng);
    for (int keep = 0; keep < 2; ++keep)
      for (OutKind ok : kAllOutKinds) {
        check_reduce(op, p.dtype, x, {4, 0, 3}, {1}, 2u, keep, ok, op + " [4,0,3] over the empty axis");
        check_reduce(op, p.dtype, x, {4, 0, 3}, {}, 7u, keep, ok, op + " [4,0,3] over all axes");
      }
  }
  {
    Operand x = make_operand(p.dtype, {2, 3, 4, 5}, Kind::Expanded, default_gen(p.dtype), rng);
    check_reduce(op, p.dtype, x, {2, 3, 4, 5}, {0, 3}, 9u, false, OutKind::GivenView, op + " rank 4 axes {0,3}");
    check_reduce(op, p.dtype, x, {2, 3, 4, 5}, {-1, -2, -3}, 14u, true, OutKind::Given, op + " rank 4 axes {-1,-2,-3}");
  }
}

TEST_P(Reduce, LargeInputsUseParallelPathsCorrectly) {
  const OpDtype p = GetParam();
  NT_REQUIRE_KERNEL_OR_SKIP(p.op, p.dtype, documented(p));
  std::mt19937 rng(7 + p.dtype);
  const Shape s = {1000, 333};
  Operand x = make_operand(p.dtype, s, Kind::Contig, default_gen(p.dtype), rng);
  check_reduce(p.op, p.dtype, x, s, {}, 3u, false, OutKind::Fresh, "all axes of [1000,333]");
  check_reduce(p.op, p.dtype, x, s, {0}, 1u, false, OutKind::Fresh, "axis 0 of [1000,333]");
  check_reduce(p.op, p.dtype, x, s, {1}, 2u, true, OutKind::Fresh, "axis 1 of [1000,333]");
  Operand y = make_operand(p.dtype, {64, 1031, 3}, Kind::Permuted, default_gen(p.dtype), rng);
  check_reduce(p.op, p.dtype, y, {64, 1031, 3}, {1}, 2u, false, OutKind::Given, "axis 1 of permuted [64,1031,3]");
}

TEST(Reduction, RankEightEveryOtherAxis) {
  std::mt19937 rng(8);
  const Shape s = {2, 3, 2, 1, 3, 2, 2, 3};
  for (Kind k : kAllKinds) {
    Operand x = make_operand(NDRT_F64, s, k, default_gen(NDRT_F64), rng);
    check_reduce("sum", NDRT_F64, x, s, {0, 2, 4, 6}, 0x55u, false, OutKind::GivenView, std::string("rank 8 ") + kind_str(k));
    check_reduce("max", NDRT_F64, x, s, {-1, -3, -5, -7}, 0xaau, true, OutKind::Fresh, std::string("rank 8 ") + kind_str(k));
  }
}

std::vector<OpDtype> reduce_params() {
  std::vector<OpDtype> r;
  for (const char* op : {"sum", "max"})
    for (ndrt_dtype d : {NDRT_F32, NDRT_F64, NDRT_I32, NDRT_I64}) r.push_back({op, d});
  for (ndrt_dtype d : {NDRT_F32, NDRT_F64}) r.push_back({"mean", d});
  return r;
}
// Other dtypes: the op-family suites in ops/ (instantiated as "Ops/").
INSTANTIATE_TEST_SUITE_P(Core, Reduce, ::testing::ValuesIn(reduce_params()), param_name);

// ---------------------------------------------------------------------------------------------
// Errors and special cases
// ---------------------------------------------------------------------------------------------
TEST(Reduction, DuplicateAndOutOfRangeAxesAreInvalidArgument) {
  Tensor x = from_values(NDRT_F32, {3, 5, 7}, std::vector<double>(105, 1.0));
  for (const char* op : {"sum", "mean", "max"}) {
    SCOPED_TRACE(op);
    int64_t live = live_handles();
    for (const std::vector<int64_t>& axes :
         std::vector<std::vector<int64_t>>{{0, 0}, {1, -2}, {2, 0, 2}, {3}, {-4}, {0, 1, 2, 0}}) {
      EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, try_run(op, {&x}, nullptr, reduce_attrs(axes, false)));
      EXPECT_GT(std::strlen(ndrt_last_error()), 0u);
    }
    EXPECT_EQ(live_handles(), live);
    Attrs bad_bool = reduce_attrs({0}, false);
    bad_bool.ints.back() = 2;
    EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, try_run(op, {&x}, nullptr, bad_bool));
    Attrs short_list;  // announces 3 values, gives 1
    short_list.ints = {3, 0};
    EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, try_run(op, {&x}, nullptr, short_list));
  }
  Tensor s = from_values(NDRT_F32, {}, {2});
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, try_run("sum", {&s}, nullptr, reduce_attrs({0}, false)));
}

TEST(Reduction, MaxOverASizeZeroAxisIsInvalidArgument) {
  for (ndrt_dtype d : {NDRT_F32, NDRT_I32}) {
    Tensor x = create(d, {4, 0, 3});
    EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, try_run("max", {&x}, nullptr, reduce_attrs({1}, false)));
    EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, try_run("max", {&x}, nullptr, reduce_attrs({}, true)));
    Tensor e = create(d, {0});
    EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, try_run("max", {&e}, nullptr));
  }
}

TEST(Reduction, MeanOverNothingIsNaNAndSumIsZero) {
  for (ndrt_dtype d : {NDRT_F32, NDRT_F64}) {
    Tensor e = create(d, {0});
    std::vector<double> m = read_values(run("mean", {&e}));
    ASSERT_EQ(m.size(), 1u);
    EXPECT_TRUE(std::isnan(m[0])) << m[0];
    EXPECT_EQ(read_values(run("sum", {&e})), std::vector<double>{0.0});
  }
  for (ndrt_dtype d : {NDRT_I32, NDRT_I64}) {
    Tensor e = create(d, {3, 0});
    EXPECT_EQ(read_values(run("sum", {&e}, reduce_attrs({1}, false))), std::vector<double>(3, 0.0));
  }
}

// A wrapped empty tensor given huge strides (they reach nothing) gets row-major ones, so kernels'
// stride arithmetic cannot overflow (the C ABI fuzzer found 9223372036854775807 * 3 in the
// reduction plan, 2 * 9223372036854775807 in flip; UBSan in CI catches a relapse).
TEST(Reduction, EmptyViewsWithHugeStridesReduce) {
  std::vector<double> buf(4, 0.0);
  const int64_t shape[2] = {3, 0}, strides[2] = {INT64_MAX, 1};
  Tensor x;
  NT_CHECK(ndrt_tensor_wrap(NDRT_F64, 2, shape, strides, buf.data(), sizeof(double) * buf.size(), nullptr, nullptr,
                            x.out()));
  const std::vector<double> m = read_values(run("mean", {&x}, reduce_attrs({1}, false)));
  ASSERT_EQ(m.size(), 3u);
  for (double v : m) EXPECT_TRUE(std::isnan(v)) << v;
  EXPECT_EQ(read_values(run("sum", {&x}, reduce_attrs({1}, true))), std::vector<double>(3, 0.0));
  EXPECT_EQ(read_values(run("sum", {&x}, reduce_attrs({0}, false))), std::vector<double>{});
  int64_t got[2] = {0, 0}, row_major[2] = {0, 0};
  Tensor fresh = create(NDRT_F64, {3, 0});
  NT_CHECK(ndrt_tensor_strides(x.get(), got, 2));
  NT_CHECK(ndrt_tensor_strides(fresh.get(), row_major, 2));
  EXPECT_EQ(got[0], row_major[0]);
  EXPECT_EQ(got[1], row_major[1]);
}

TEST(Reduction, MeanOfIntegersIsRefused) {
  Tensor x = from_values(NDRT_I32, {3}, {1, 2, 3});
  ndrt_status s = try_run("mean", {&x}, nullptr);
  EXPECT_TRUE(s == NDRT_ERR_DTYPE_MISMATCH || s == NDRT_ERR_NOT_SUPPORTED) << describe_status(s);
}

TEST(Reduction, MaxPropagatesNaNAndHandlesInfinities) {
  const double nan = std::nan(""), inf = HUGE_VAL;
  for (ndrt_dtype d : {NDRT_F32, NDRT_F64}) {
    SCOPED_TRACE(dtype_str(d));
    Tensor x = from_values(d, {3, 4}, {1, nan, 3, -inf, -inf, -inf, -inf, -inf, 5, 2, inf, 4});
    std::vector<double> rows = read_values(run("max", {&x}, reduce_attrs({1}, false)));
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_TRUE(std::isnan(rows[0])) << rows[0];
    EXPECT_EQ(rows[1], -inf);
    EXPECT_EQ(rows[2], inf);
    std::vector<double> all = read_values(run("max", {&x}));
    EXPECT_TRUE(std::isnan(all[0])) << all[0];
    // NaN last in its row too (a comparison-based max that keeps the first operand misses it).
    Tensor y = from_values(d, {2, 3}, {1, 2, nan, nan, 2, 1});
    std::vector<double> r = read_values(run("max", {&y}, reduce_attrs({1}, false)));
    EXPECT_TRUE(std::isnan(r[0]) && std::isnan(r[1])) << r[0] << " " << r[1];
  }
}

TEST(Reduction, IntegerSumsAreExact) {
  // Values whose float sum would round: exact in i64 accumulation.
  std::vector<double> v;
  for (int i = 0; i < 1000; ++i) v.push_back(i % 2 ? 1e9 + i : -1e9 + 3 * i);
  Tensor x = from_values(NDRT_I64, {1000}, v);
  double want = 0;
  for (double e : v) want += e;
  EXPECT_EQ(read_values(run("sum", {&x}))[0], want);
  std::vector<double> w(1000, 2000000);  // 2e9 total: fits i32 only as the dtype's own wrap
  Tensor y = from_values(NDRT_I32, {10, 100}, w);
  EXPECT_EQ(read_values(run("sum", {&y}, reduce_attrs({1}, false))), std::vector<double>(10, 2e8));
}

TEST(Reduction, GivenOutputOfTheWrongShapeIsRefused) {
  Tensor x = from_values(NDRT_F32, {2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor keep_shape = create(NDRT_F32, {2, 1});
  EXPECT_STATUS(NDRT_ERR_SHAPE_MISMATCH, try_run("sum", {&x}, &keep_shape, reduce_attrs({1}, false)));
  run_into("sum", {&x}, keep_shape, reduce_attrs({1}, true));
  EXPECT_EQ(read_values(keep_shape), (std::vector<double>{6, 15}));
  Tensor wrong = create(NDRT_F64, {2});
  EXPECT_STATUS(NDRT_ERR_DTYPE_MISMATCH, try_run("sum", {&x}, &wrong, reduce_attrs({1}, false)));
}

}  // namespace
