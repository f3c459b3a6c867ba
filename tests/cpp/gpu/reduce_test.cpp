// CUDA reductions against the CPU ones on the same inputs: every op x registered dtype over axis
// subsets with keepdims, non-contiguous and broadcast inputs, column reductions (one thread per
// output), long reductions cut into parts, more groups than one grid, size 0, rank 0, argmax/argmin
// ties and NaN, a strided output; the gradients (*_bp) likewise, with ties and zeros.
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "gpu/gpu_test.hpp"

namespace {

using gt::Pair;
using nt::Attrs;
using nt::Gen;
using nt::Shape;

const std::vector<ndrt_dtype> kFloats = {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16};
const std::vector<ndrt_dtype> kSumTypes = {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16, NDRT_I32, NDRT_I64};
const std::vector<ndrt_dtype> kNumeric = {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16,
                                          NDRT_I8,  NDRT_U8,  NDRT_I32, NDRT_I64};
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

Gen gen_for(ndrt_dtype d, double lo, double hi) {
  return nt::is_float(d) ? nt::uniform_gen(d, lo, hi) : nt::default_gen(d);
}
Gen list_gen(std::vector<double> vals) {
  return [vals](std::mt19937& rng) {
    std::uniform_int_distribution<size_t> u(0, vals.size() - 1);
    return vals[u(rng)];
  };
}
std::string what(const std::string& op, ndrt_dtype d) { return op + " " + nt::dtype_str(d); }

bool has_correction(const std::string& op) { return op == "var" || op == "std" || op == "var_bp" || op == "std_bp"; }

Attrs red_attrs(const std::string& op, const std::vector<int64_t>& axes, bool keep, int64_t correction = 1) {
  Attrs a = nt::reduce_attrs(axes, keep);
  if (has_correction(op)) a.ints.push_back(correction);
  return a;
}
Attrs arg_attrs(int64_t axis, bool keep) { return Attrs{{axis, keep ? 1 : 0}, {}}; }

// The shape of x reduced over `axes` (empty: all).
Shape reduced(const Shape& s, const std::vector<int64_t>& axes, bool keep) {
  std::vector<bool> r(s.size(), axes.empty());
  for (int64_t a : axes) r[size_t(a < 0 ? a + int64_t(s.size()) : a)] = true;
  Shape out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (!r[i])
      out.push_back(s[i]);
    else if (keep)
      out.push_back(1);
  }
  return out;
}

struct Case {
  const char* op;
  std::vector<ndrt_dtype> dtypes;
  double lo, hi;
};
const std::vector<Case>& forward_cases() {
  static const std::vector<Case> v = {
      {"sum", kSumTypes, -2, 2},     {"prod", kSumTypes, 0.8, 1.25}, {"mean", kFloats, -2, 2},
      {"max", kNumeric, -2, 2},      {"min", kNumeric, -2, 2},       {"norm1", kFloats, -2, 2},
      {"norm2", kFloats, -2, 2},     {"var", kFloats, -2, 2},        {"std", kFloats, -2, 2},
      {"logsumexp", kFloats, -5, 5},
  };
  return v;
}
const std::vector<std::vector<int64_t>> kAxisSets = {{}, {0}, {2}, {-2}, {0, 2}, {1, 2}, {0, 1, 2}};

TEST(CudaReduce, EveryOpDtypeAxesAndKeepdims) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(11);
  for (const Case& k : forward_cases())
    for (ndrt_dtype d : k.dtypes) {
      SCOPED_TRACE(what(k.op, d));
      Pair x = gt::random_pair(d, {5, 7, 9}, rng, gen_for(d, k.lo, k.hi));
      for (const auto& axes : kAxisSets)
        for (bool keep : {false, true}) gt::expect_same(k.op, {&x}, red_attrs(k.op, axes, keep));
    }
}

TEST(CudaReduce, VarAndStdCorrections) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(12);
  for (const char* op : {"var", "std"})
    for (ndrt_dtype d : kFloats) {
      SCOPED_TRACE(what(op, d));
      Pair x = gt::random_pair(d, {4, 3, 6}, rng);
      for (int64_t corr : {0, 1, 2, 3, 5})  // 3 and 5: n - correction <= 0 over axis 1 gives NaN
        for (const auto& axes : std::vector<std::vector<int64_t>>{{1}, {0, 2}, {}})
          gt::expect_same(op, {&x}, red_attrs(op, axes, false, corr));
    }
}

TEST(CudaReduce, NonContiguousAndBroadcastInputs) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(13);
  for (const Case& k : forward_cases())
    for (ndrt_dtype d : {NDRT_F32, NDRT_F16, NDRT_I32}) {
      bool listed = false;
      for (ndrt_dtype e : k.dtypes) listed |= e == d;
      if (!listed) continue;
      SCOPED_TRACE(what(k.op, d));
      const Gen g = gen_for(d, k.lo, k.hi);
      Pair base = gt::random_pair(d, {9, 5, 7}, rng, g);
      Pair permuted = base.permute({2, 0, 1});                       // [7, 9, 5]
      Pair stepped = gt::random_pair(d, {6, 11, 4}, rng, g).slice(1, 10, -1000000, -2);  // reversed, step -2
      Pair expanded = gt::random_pair(d, {6, 1, 4}, rng, g).expand({6, 5, 4});       // stride 0
      for (const Pair* x : {&permuted, &stepped, &expanded})
        for (const auto& axes : std::vector<std::vector<int64_t>>{{1}, {0, 2}, {2}, {}})
          gt::expect_same(k.op, {x}, red_attrs(k.op, axes, true));
    }
}

// Column reductions (one thread per output), narrow columns (a group per output), long reductions
// cut into parts combined by a second kernel.
TEST(CudaReduce, ColumnsNarrowColumnsAndLongReductions) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(14);
  const std::vector<std::pair<Shape, std::vector<int64_t>>> shapes = {
      {{300, 64}, {0}}, {{4097, 33}, {0}}, {{3, 5001}, {0}}, {{1 << 20}, {}},
      {{2, 300001}, {1}}, {{300001, 2}, {0}}, {{37, 3, 2049}, {0, 2}}};
  for (const auto& [shape, axes] : shapes)
    for (const char* op : {"sum", "mean", "max", "min", "prod", "norm1", "norm2", "var", "std", "logsumexp"}) {
      SCOPED_TRACE(std::string(op) + " " + nt::shape_str(shape));
      const bool prod = std::string(op) == "prod";
      // Biased away from a zero sum, so the relative tolerance means something for long sums.
      Pair x = gt::random_pair(NDRT_F32, shape, rng, nt::uniform_gen(NDRT_F32, prod ? 0.999 : -1, prod ? 1.001 : 3));
      gt::expect_same(op, {&x}, red_attrs(op, axes, false));
    }
  for (const auto& [shape, axes] : shapes) {
    Pair x = gt::random_pair(NDRT_F32, shape, rng, list_gen({-1, 0, 1, 2, 3}));  // many ties
    const int64_t axis = axes.empty() ? 0 : axes[0];
    gt::expect_same("argmax", {&x}, arg_attrs(axis, false));
    gt::expect_same("argmin", {&x}, arg_attrs(axis, true));
  }
}

// More groups than one grid holds (grid-stride loops), and one reduction of > 65536 * 256 elements.
TEST(CudaReduce, LargerThanOneGrid) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(15);
  Pair x = gt::random_pair(NDRT_F32, {4200000, 4}, rng, nt::uniform_gen(NDRT_F32, 0.05, 1));
  gt::expect_same("sum", {&x}, red_attrs("sum", {1}, false));
  gt::expect_same("argmax", {&x}, arg_attrs(1, false));
  gt::expect_same("sum", {&x}, red_attrs("sum", {}, false));
  gt::expect_same("max", {&x}, red_attrs("max", {}, false));
  gt::expect_same("var", {&x}, red_attrs("var", {0}, false));
}

TEST(CudaReduce, SizeZeroAndRankZero) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(16);
  for (ndrt_dtype d : kFloats) {
    SCOPED_TRACE(nt::dtype_str(d));
    Pair empty = gt::random_pair(d, {0, 5}, rng);
    // Over the size-0 axis: identities (sum 0, prod 1), NaN (mean, var), -inf (logsumexp).
    for (const char* op : {"sum", "prod", "mean", "norm1", "norm2", "var", "std", "logsumexp"}) {
      gt::expect_same(op, {&empty}, red_attrs(op, {0}, false));
      gt::expect_same(op, {&empty}, red_attrs(op, {1}, true));  // no outputs
    }
    for (const char* op : {"max", "min"}) gt::expect_same(op, {&empty}, red_attrs(op, {1}, false));
    gt::expect_same("argmax", {&empty}, arg_attrs(1, false));
    Pair scalar = gt::random_pair(d, {}, rng);
    for (const Case& k : forward_cases()) gt::expect_same(k.op, {&scalar}, red_attrs(k.op, {}, false));
    gt::expect_same("argmax", {&scalar}, arg_attrs(-1, false));
    gt::expect_same("argmin", {&scalar}, arg_attrs(0, true));
  }
}

TEST(CudaReduce, ArgmaxArgminTiesAndNaNEveryDtype) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(17);
  for (ndrt_dtype d : kNumeric) {
    SCOPED_TRACE(nt::dtype_str(d));
    Pair x = gt::random_pair(d, {6, 9, 33}, rng, list_gen({1, 2, 5, 5, 7, 7}));
    for (int64_t axis : {-1, 0, 1, 2})
      for (bool keep : {false, true}) {
        gt::expect_same("argmax", {&x}, arg_attrs(axis, keep));
        gt::expect_same("argmin", {&x}, arg_attrs(axis, keep));
      }
    Pair p = x.permute({2, 0, 1});
    gt::expect_same("argmax", {&p}, arg_attrs(0, false));
    if (!nt::is_float(d)) continue;
    Pair nan = gt::random_pair(d, {5, 40}, rng, list_gen({1, -1, 3, kNaN, kInf, -kInf}));
    for (const char* op : {"argmax", "argmin"})
      for (int64_t axis : {0, 1}) gt::expect_same(op, {&nan}, arg_attrs(axis, false));
  }
}

TEST(CudaReduce, NaNAndInfinitiesPropagate) {
  NDRT_REQUIRE_CUDA();
  for (ndrt_dtype d : kFloats) {
    SCOPED_TRACE(nt::dtype_str(d));
    // Rows: plain, one NaN, +inf, -inf, all -inf.
    Pair x = gt::values_pair(d, {5, 4}, {1, 2, 3, 4,  1, kNaN, 3, 4,  1, kInf, 3, 4,  1, -kInf, 3, 4,
                                         -kInf, -kInf, -kInf, -kInf});
    for (const char* op : {"sum", "mean", "max", "min", "prod", "norm1", "norm2", "var", "std", "logsumexp"})
      gt::expect_same(op, {&x}, red_attrs(op, {1}, false));
  }
}

TEST(CudaReduce, IntoAStridedOutputView) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(18);
  Pair x = gt::random_pair(NDRT_F32, {6, 5, 9}, rng);
  for (const char* op : {"sum", "var", "logsumexp", "max"}) {
    SCOPED_TRACE(op);
    nt::Tensor want;
    {
      gt::OnDevice on(NDRT_CPU);
      want = nt::run(op, {&x.cpu}, red_attrs(op, {1}, false));  // [6, 9]
    }
    std::vector<uint8_t> poison = nt::poison_bytes(NDRT_F32, 18 * 6);
    nt::Tensor big = gt::to_device(nt::from_bytes(NDRT_F32, {18, 6}, poison.data(), poison.size(), NDRT_CPU), gt::kCuda0);
    nt::Tensor view = nt::permute(nt::slice(big, 0, 0, 18, 2), {1, 0});  // [6, 9], strides (1, 12)
    {
      gt::OnDevice on(gt::kCuda0);
      nt::run_into(op, {&x.gpu}, view, red_attrs(op, {1}, false));
      NT_CHECK(ndrt_synchronize(gt::kCuda0));
    }
    nt::expect_close(nt::read_values(view), nt::read_values(want), NDRT_F32, gt::cuda_tol(NDRT_F32), "into a view");
    const std::vector<double> all = nt::read_values(big);
    for (size_t row = 1; row < 18; row += 2)
      for (size_t j = 0; j < 6; ++j) EXPECT_TRUE(std::isnan(all[row * 6 + j])) << "row " << row << " was written";
  }
}

// ---- gradients -------------------------------------------------------------------------------------
const std::vector<const char*> kGradOps = {"sum_bp",   "mean_bp",  "max_bp", "min_bp", "prod_bp",
                                           "norm1_bp", "norm2_bp", "var_bp", "std_bp", "logsumexp_bp"};

void expect_grad(const char* op, const Pair& x, const std::vector<int64_t>& axes, bool keep, std::mt19937& rng,
                 int64_t correction = 1) {
  Shape ys = reduced(x.cpu.shape(), axes, keep);
  Pair dy = gt::random_pair(x.cpu.dtype(), ys, rng);
  gt::expect_same(op, {&x, &dy}, red_attrs(op, axes, keep, correction));
}

TEST(CudaReduceBp, EveryOpDtypeAxesAndKeepdims) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(21);
  for (const char* op : kGradOps)
    for (ndrt_dtype d : kFloats) {
      SCOPED_TRACE(what(op, d));
      const bool prod = std::string(op) == "prod_bp";
      Pair x = gt::random_pair(d, {5, 7, 9}, rng, prod ? nt::uniform_gen(d, 0.8, 1.25) : nt::default_gen(d));
      for (const auto& axes : kAxisSets)
        for (bool keep : {false, true}) expect_grad(op, x, axes, keep, rng);
    }
}

TEST(CudaReduceBp, TiesZerosCorrectionsAndLayouts) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(22);
  for (ndrt_dtype d : kFloats) {
    SCOPED_TRACE(nt::dtype_str(d));
    Pair ties = gt::random_pair(d, {6, 8, 5}, rng, list_gen({-1, 0.5, 2, 2}));  // max 2 and min -1 repeat
    for (const char* op : {"max_bp", "min_bp"})
      for (const auto& axes : std::vector<std::vector<int64_t>>{{1}, {0, 2}, {}}) expect_grad(op, ties, axes, false, rng);
    // Groups with no, one and several zeros.
    Pair zeros = gt::random_pair(d, {12, 4}, rng, list_gen({0, 1.5, -0.5, 1.25, 0.75, 2}));
    expect_grad("prod_bp", zeros, {1}, false, rng);
    expect_grad("prod_bp", zeros, {0}, true, rng);
    for (const char* op : {"var_bp", "std_bp"})
      for (int64_t corr : {0, 2, 8}) expect_grad(op, ties, {1}, false, rng, corr);  // 8: NaN
    Pair permuted = gt::random_pair(d, {9, 4, 6}, rng).permute({2, 0, 1});
    Pair stepped = gt::random_pair(d, {6, 11, 4}, rng).slice(1, 10, -1000000, -2);
    for (const char* op : kGradOps)
      for (const Pair* x : {&permuted, &stepped}) expect_grad(op, *x, {1}, true, rng);
  }
  // dy non-contiguous and broadcast.
  Pair x = gt::random_pair(NDRT_F32, {5, 6, 7}, rng);
  Pair dy_t = gt::random_pair(NDRT_F32, {7, 5}, rng).permute({1, 0});  // [5, 7]
  Pair dy_b = gt::random_pair(NDRT_F32, {1, 7}, rng).expand({5, 7});
  for (const char* op : kGradOps)
    for (const Pair* dy : {&dy_t, &dy_b}) gt::expect_same(op, {&x, dy}, red_attrs(op, {1}, false));
}

TEST(CudaReduceBp, SizeZeroRankZeroAndLarge) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(23);
  Pair empty = gt::random_pair(NDRT_F32, {0, 5}, rng);
  Pair scalar = gt::random_pair(NDRT_F32, {}, rng);
  for (const char* op : kGradOps) {
    SCOPED_TRACE(op);
    const std::string name = op;
    if (name != "max_bp" && name != "min_bp") expect_grad(op, empty, {0}, false, rng);  // those need elements
    expect_grad(op, empty, {1}, true, rng);
    expect_grad(op, scalar, {}, false, rng);
  }
  Pair big = gt::random_pair(NDRT_F32, {4200000, 4}, rng);  // more groups than one grid
  for (const char* op : {"sum_bp", "logsumexp_bp", "max_bp"}) expect_grad(op, big, {1}, false, rng);
  Pair long_rows = gt::random_pair(NDRT_F32, {2, 400000}, rng);  // parts per group
  for (const char* op : {"std_bp", "norm2_bp", "logsumexp_bp"}) expect_grad(op, long_rows, {1}, false, rng);
}

}  // namespace
