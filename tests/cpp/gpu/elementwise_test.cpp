// CUDA elementwise kernels against the CPU ones on the same inputs: every op x registered dtype,
// broadcasting, non-contiguous inputs (permuted, reversed with step -2, expanded), odd sizes, a size
// past one grid, size 0, rank 0, in place and strided outputs; the gradient ops including the
// broadcast sums of add_bp ... pow_bp (one output element per thread, and groups of threads).
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gpu/gpu_test.hpp"

namespace {

using gt::Pair;
using nt::Attrs;
using nt::Gen;
using nt::Shape;

const std::vector<ndrt_dtype> kFloats = {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16};
const std::vector<ndrt_dtype> kInts = {NDRT_I8, NDRT_U8, NDRT_I32, NDRT_I64};
const std::vector<ndrt_dtype> kNumeric = {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16,
                                          NDRT_I8,  NDRT_U8,  NDRT_I32, NDRT_I64};
const std::vector<ndrt_dtype> kAll = {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16, NDRT_I8,
                                      NDRT_U8,  NDRT_I32, NDRT_I64, NDRT_BOOL};
const double kNaN = std::numeric_limits<double>::quiet_NaN();

// Floats uniform in [lo, hi] (|x| >= min_abs); integers and bool from the default generator.
Gen gen_for(ndrt_dtype d, double lo, double hi, double min_abs = 0) {
  return nt::is_float(d) ? nt::uniform_gen(d, lo, hi, min_abs) : nt::default_gen(d);
}

// Draws from a fixed list (ties and special values on purpose).
Gen list_gen(std::vector<double> vals) {
  return [vals](std::mt19937& rng) {
    std::uniform_int_distribution<size_t> u(0, vals.size() - 1);
    return vals[u(rng)];
  };
}

std::string what(const std::string& op, ndrt_dtype d) { return op + " " + nt::dtype_str(d); }

// ---- unary ---------------------------------------------------------------------------------------
struct UnaryCase {
  const char* op;
  std::vector<ndrt_dtype> dtypes;
  double lo, hi, min_abs;
  Attrs attrs;
};

const std::vector<UnaryCase>& unary_cases() {
  static const std::vector<UnaryCase> v = {
      {"neg", {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16, NDRT_I8, NDRT_I32, NDRT_I64}, -2, 2, 0, {}},
      {"relu", kNumeric, -2, 2, 0, {}},
      {"abs", kNumeric, -2, 2, 0, {}},
      {"sign", kNumeric, -2, 2, 0, {}},
      {"square", kNumeric, -3, 3, 0, {}},
      {"clip", kNumeric, -2, 2, 0, {{}, {-0.7, 1.3}}},
      {"clip", kInts, 0, 0, 0, {{}, {-20.5, 30.2}}},
      {"clip", kNumeric, -2, 2, 0, {}},
      {"exp", kFloats, -10, 10, 0, {}},
      {"log", kFloats, 0.001, 1000, 0, {}},
      {"expm1", kFloats, -4, 4, 0, {}},
      {"log1p", kFloats, -0.99, 10, 0, {}},
      {"sqrt", kFloats, 0, 100, 0, {}},
      {"rsqrt", kFloats, 0.01, 100, 0, {}},
      {"reciprocal", kFloats, -10, 10, 0.05, {}},
      {"sin", kFloats, -10, 10, 0, {}},
      {"cos", kFloats, -10, 10, 0, {}},
      {"tanh", kFloats, -6, 6, 0, {}},
      {"sigmoid", kFloats, -20, 20, 0, {}},
      {"floor", kFloats, -20, 20, 0, {}},
      {"ceil", kFloats, -20, 20, 0, {}},
      {"round", kFloats, -20, 20, 0, {}},
      {"leaky_relu", kFloats, -2, 2, 0, {}},
      {"leaky_relu", kFloats, -2, 2, 0, {{}, {0.3}}},
      {"elu", kFloats, -4, 4, 0, {}},
      {"elu", kFloats, -4, 4, 0, {{}, {1.5}}},
      {"gelu", kFloats, -5, 5, 0, {}},
      {"gelu", kFloats, -5, 5, 0, {{1}, {}}},
      {"softplus", kFloats, -20, 20, 0, {}},
      {"softplus", kFloats, -10, 10, 0, {{}, {2.0}}},
  };
  return v;
}

TEST(CudaElementwise, UnaryEveryOpAndDtype) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(11);
  for (const UnaryCase& k : unary_cases())
    for (ndrt_dtype d : k.dtypes) {
      SCOPED_TRACE(what(k.op, d));
      Pair x = gt::random_pair(d, {37, 29}, rng, gen_for(d, k.lo, k.hi, k.min_abs));  // odd size
      gt::expect_same(k.op, {&x}, k.attrs);
    }
}

TEST(CudaElementwise, UnaryNonContiguousAndSpecialValues) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(12);
  for (ndrt_dtype d : {NDRT_F32, NDRT_F16, NDRT_I32}) {
    Pair base = gt::random_pair(d, {9, 7, 6}, rng);
    Pair permuted = base.permute({2, 0, 1});
    Pair reversed = base.slice(0, -1, -1000000, -2).slice(2, 0, 6, 2);  // steps -2 and 2
    Pair expanded = gt::random_pair(d, {1, 7, 1}, rng).expand({5, 7, 3});
    for (const char* op : {"neg", "abs", "square", "relu"})
      for (const Pair* x : {&permuted, &reversed, &expanded}) {
        SCOPED_TRACE(what(op, d));
        gt::expect_same(op, {x}, {});
      }
  }
  // NaN, infinities and signed zeros through the float maps.
  const std::vector<double> specials = {kNaN, INFINITY, -INFINITY, 0.0, -0.0, 1e-30, -1e-30, 0.5, -0.5, 2.5, -2.5, 80, -80};
  for (ndrt_dtype d : kFloats) {
    Pair x = gt::values_pair(d, {13}, specials);
    for (const char* op : {"relu", "abs", "sign", "exp", "tanh", "sigmoid", "floor", "ceil", "round", "clip", "gelu",
                           "softplus", "leaky_relu", "elu"}) {
      SCOPED_TRACE(what(op, d));
      gt::expect_same(op, {&x}, {});
    }
  }
}

// ---- binary --------------------------------------------------------------------------------------
TEST(CudaElementwise, BinaryEveryOpAndDtypeBroadcast) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(21);
  for (const char* op : {"add", "sub", "mul", "div", "maximum", "minimum"})
    for (ndrt_dtype d : kNumeric) {
      SCOPED_TRACE(what(op, d));
      Pair a = gt::random_pair(d, {5, 1, 7}, rng), b = gt::random_pair(d, {3, 1}, rng);  // -> [5, 3, 7]
      gt::expect_same(op, {&a, &b}, {});
      gt::expect_same(op, {&b, &a}, {});
    }
  for (ndrt_dtype d : kFloats) {
    SCOPED_TRACE(what("pow", d));
    Pair a = gt::random_pair(d, {5, 1, 7}, rng, nt::uniform_gen(d, 0.1, 3)),
         b = gt::random_pair(d, {3, 1}, rng, nt::uniform_gen(d, -2, 2));
    gt::expect_same("pow", {&a, &b}, {});
    Pair ints = gt::values_pair(d, {4}, {-2, -1.5, 0, 3});  // negative base: NaN unless b is integral
    Pair exps = gt::values_pair(d, {3, 1}, {2, 0.5, 0});
    gt::expect_same("pow", {&ints, &exps}, {});
  }
  // NaN propagation of maximum / minimum from either side.
  for (ndrt_dtype d : kFloats) {
    Pair a = gt::values_pair(d, {6}, {kNaN, 1, kNaN, -0.0, 2, INFINITY});
    Pair b = gt::values_pair(d, {6}, {1, kNaN, kNaN, 0.0, 2, -INFINITY});
    for (const char* op : {"maximum", "minimum"}) {
      SCOPED_TRACE(what(op, d));
      gt::expect_same(op, {&a, &b}, {});
    }
  }
}

TEST(CudaElementwise, BinaryNonContiguousScalarEmptyAndLarge) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(22);
  for (ndrt_dtype d : {NDRT_F32, NDRT_BF16, NDRT_I64}) {
    Pair a = gt::random_pair(d, {7, 5}, rng).permute({1, 0});                  // [5, 7] column-major
    Pair b = gt::random_pair(d, {10, 7}, rng).slice(0, -1, -1000000, -2);      // [5, 7] reversed
    Pair c = gt::random_pair(d, {5, 1}, rng).expand({5, 7});                   // stride 0
    for (const char* op : {"add", "mul", "maximum"}) {
      SCOPED_TRACE(what(op, d));
      gt::expect_same(op, {&a, &b}, {});
      gt::expect_same(op, {&c, &a}, {});
    }
  }
  Pair s1 = gt::random_pair(NDRT_F32, {}, rng), s2 = gt::random_pair(NDRT_F32, {}, rng);  // rank 0
  gt::expect_same("add", {&s1, &s2}, {});
  gt::expect_same("exp", {&s1}, {});
  Pair m = gt::random_pair(NDRT_F32, {4, 6}, rng);
  gt::expect_same("sub", {&m, &s1}, {});  // a scalar broadcast
  Pair e1 = gt::random_pair(NDRT_F32, {0, 5}, rng), e2 = gt::random_pair(NDRT_F32, {5}, rng);  // size 0
  gt::expect_same("add", {&e1, &e2}, {});
  gt::expect_same("relu", {&e1}, {});
  // Past one grid of 65536 x 256 threads: the grid-stride loops must cover every element.
  Pair big = gt::random_pair(NDRT_F32, {4097, 4100}, rng), row = gt::random_pair(NDRT_F32, {4100}, rng);
  gt::expect_same("add", {&big, &row}, {});
  gt::expect_same("relu", {&big}, {});
}

TEST(CudaElementwise, InPlaceAndStridedOutput) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(23);
  Pair a = gt::random_pair(NDRT_F32, {37, 41}, rng), b = gt::random_pair(NDRT_F32, {41}, rng);
  nt::Tensor want;
  {
    gt::OnDevice on(NDRT_CPU);
    want = nt::run("add", {&a.cpu, &b.cpu});
  }
  {
    gt::OnDevice on(gt::kCuda0);
    std::vector<ndrt_handle> out = {a.gpu.get()};  // y is a itself
    NT_CHECK(nt::exec("add", {a.gpu.get(), b.gpu.get()}, out, {}));
    NT_CHECK(ndrt_synchronize(gt::kCuda0));
  }
  nt::expect_close(nt::read_values(a.gpu), nt::read_values(want), NDRT_F32, gt::cuda_tol(NDRT_F32), "add in place");

  // Output: a transposed, step-2 view of a poisoned buffer; the gaps must stay poisoned.
  Pair x = gt::random_pair(NDRT_F32, {5, 9}, rng);
  std::vector<uint8_t> poison = nt::poison_bytes(NDRT_F32, 10 * 9);
  nt::Tensor big = gt::to_device(nt::from_bytes(NDRT_F32, {10, 9}, poison.data(), poison.size(), NDRT_CPU), gt::kCuda0);
  nt::Tensor view = nt::permute(nt::slice(big, 0, 0, 10, 2), {1, 0});  // [9, 5]
  Pair xt = x.permute({1, 0});
  {
    gt::OnDevice on(NDRT_CPU);
    want = nt::run("tanh", {&xt.cpu});
  }
  {
    gt::OnDevice on(gt::kCuda0);
    nt::run_into("tanh", {&xt.gpu}, view);
    NT_CHECK(ndrt_synchronize(gt::kCuda0));
  }
  nt::expect_close(nt::read_values(view), nt::read_values(want), NDRT_F32, gt::cuda_tol(NDRT_F32), "tanh into a view");
  const std::vector<double> all = nt::read_values(big);
  for (size_t row = 1; row < 10; row += 2)  // the odd rows are outside the view
    for (size_t j = 0; j < 9; ++j) EXPECT_TRUE(std::isnan(all[row * 9 + j])) << "row " << row << " was written";
}

// ---- comparisons, logical ops, where -----------------------------------------------------------
TEST(CudaElementwise, LogicEveryOpAndDtype) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(31);
  for (ndrt_dtype d : kAll) {
    std::vector<double> vals = d == NDRT_BOOL ? std::vector<double>{0, 1}
                               : d == NDRT_U8 ? std::vector<double>{0, 1, 2, 200}
                                              : std::vector<double>{-1, 0, 1, 2};
    if (nt::is_float(d)) vals.insert(vals.end(), {kNaN, -0.0, 0.5});
    Pair a = gt::random_pair(d, {4, 1, 6}, rng, list_gen(vals)), b = gt::random_pair(d, {3, 1}, rng, list_gen(vals));
    for (const char* op : {"eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor"}) {
      SCOPED_TRACE(what(op, d));
      gt::expect_same(op, {&a, &b}, {});
    }
    SCOPED_TRACE(what("logical_not", d));
    Pair t = a.permute({2, 0, 1});
    gt::expect_same("logical_not", {&t}, {});
  }
}

TEST(CudaElementwise, WhereEveryDtype) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(32);
  Pair cond = gt::random_pair(NDRT_BOOL, {4, 1, 6}, rng);
  for (ndrt_dtype d : kAll) {
    SCOPED_TRACE(what("where", d));
    Pair a = gt::random_pair(d, {3, 1}, rng), b = gt::random_pair(d, {4, 3, 6}, rng);
    gt::expect_same("where", {&cond, &a, &b}, {});
    Pair bt = gt::random_pair(d, {6, 3, 4}, rng).permute({2, 1, 0});
    gt::expect_same("where", {&cond, &bt, &a}, {});
  }
}

// ---- gradients -----------------------------------------------------------------------------------
struct GradCase {
  const char* op;
  double lo, hi, min_abs;  // range of the first input (x or y)
  Attrs attrs;
};

TEST(CudaElementwise, UnaryGradEveryOpAndDtype) {
  NDRT_REQUIRE_CUDA();
  const GradCase cases[] = {
      {"relu_bp", -2, 2, 0.05, {}},       {"leaky_relu_bp", -2, 2, 0.05, {}},
      {"leaky_relu_bp", -2, 2, 0.05, {{}, {0.2}}}, {"elu_bp", -3, 3, 0.05, {}},
      {"elu_bp", -3, 3, 0.05, {{}, {1.5}}}, {"gelu_bp", -5, 5, 0, {}},
      {"gelu_bp", -5, 5, 0, {{1}, {}}},    {"sigmoid_bp", 0.01, 0.99, 0, {}},
      {"tanh_bp", -0.99, 0.99, 0, {}},     {"softplus_bp", -10, 10, 0, {}},
      {"softplus_bp", -5, 5, 0, {{}, {2.0}}}, {"exp_bp", 0.1, 10, 0, {}},
      {"log_bp", 0.1, 10, 0, {}},          {"sqrt_bp", 0.1, 10, 0, {}},
      {"abs_bp", -2, 2, 0, {}},            {"square_bp", -3, 3, 0, {}},
      {"clip_bp", -2, 2, 0, {{}, {-0.5, 0.8}}}, {"clip_bp", -2, 2, 0, {}},
      {"sin_bp", -10, 10, 0, {}},          {"cos_bp", -10, 10, 0, {}},
      {"expm1_bp", -0.9, 5, 0, {}},        {"log1p_bp", -0.9, 5, 0, {}},
      {"rsqrt_bp", 0.1, 5, 0, {}},         {"reciprocal_bp", -2, 2, 0.05, {}},
  };
  std::mt19937 rng(41);
  for (const GradCase& k : cases)
    for (ndrt_dtype d : kFloats) {
      SCOPED_TRACE(what(k.op, d));
      Pair x = gt::random_pair(d, {33, 17}, rng, nt::uniform_gen(d, k.lo, k.hi, k.min_abs));
      Pair dy = gt::random_pair(d, {33, 17}, rng);
      gt::expect_same(k.op, {&x, &dy}, k.attrs);
      if (d == NDRT_F32) {  // strided operands
        Pair xt = gt::random_pair(d, {17, 33}, rng, nt::uniform_gen(d, k.lo, k.hi, k.min_abs)).permute({1, 0});
        Pair dys = gt::random_pair(d, {66, 17}, rng).slice(0, 0, 66, 2);
        gt::expect_same(k.op, {&xt, &dys}, k.attrs);
      }
    }
}

const char* const kBinaryBp[] = {"add_bp", "sub_bp", "mul_bp", "div_bp", "maximum_bp", "minimum_bp", "pow_bp"};

// Inputs for op_bp: a and b of the given shapes, dy of their broadcast shape.
void check_binary_bp(const char* op, ndrt_dtype d, const Shape& sa, const Shape& sb, std::mt19937& rng,
                     bool permute_a = false, const nt::Tol* tol = nullptr) {
  Gen ga = nt::default_gen(d), gb = nt::default_gen(d);
  if (std::string(op) == "maximum_bp" || std::string(op) == "minimum_bp") ga = gb = list_gen({-1, 0, 0.5, 1, 2});  // ties
  // pow: a = 0 with b = 0 and b >= 0 hits both limits (partials 0), and no partial is infinite.
  if (std::string(op) == "pow_bp") ga = list_gen({0, 0.5, 1, 1.5, 2}), gb = list_gen({0, 1, 2, 3});
  Pair a = gt::random_pair(d, sa, rng, ga), b = gt::random_pair(d, sb, rng, gb);
  if (permute_a && sa.size() == 2) a = gt::random_pair(d, {sa[1], sa[0]}, rng, ga).permute({1, 0});
  Pair dy = gt::random_pair(d, nt::broadcast(sa, sb), rng);
  gt::expect_same(op, {&a, &b, &dy}, {}, tol);
}

// Long f32 sums: the CPU adds 4 rows (or 4 elements per lane) in f32 before its f64 accumulator
// (reduce_engine.hpp kGroup4, reduce_math.hpp run_sum), the GPU adds every term in f64. Over
// hundreds of terms of magnitude ~1 the CPU's f32 roundings reach ~1e-6 absolute, so a sum that
// happens to land near 0 would fail the default f32 tolerance (atol 1e-6); a missing or doubled
// term (>= 0.05 here) still fails this one.
const nt::Tol kLongSumF32 = {2e-5, 1e-4};

TEST(CudaElementwise, BinaryGradEveryOpAndDtype) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(51);
  for (const char* op : kBinaryBp)
    for (ndrt_dtype d : kFloats) {
      SCOPED_TRACE(what(op, d));
      check_binary_bp(op, d, {4, 1, 6}, {3, 1}, rng);  // both sides summed
      check_binary_bp(op, d, {5, 7}, {5, 7}, rng);     // nothing summed
      check_binary_bp(op, d, {}, {2, 3}, rng);         // a rank 0
    }
}

TEST(CudaElementwise, BinaryGradLargeSumsAndLayouts) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(52);
  for (const char* op : {"add_bp", "mul_bp", "pow_bp"}) {
    SCOPED_TRACE(op);
    check_binary_bp(op, NDRT_F32, {512, 257}, {257}, rng, false, &kLongSumF32);    // bias: few outputs, long sums
    check_binary_bp(op, NDRT_F32, {}, {300, 301}, rng, false, &kLongSumF32);       // one output summing everything
    check_binary_bp(op, NDRT_F32, {3000, 1}, {1, 200}, rng, false, &kLongSumF32);  // many outputs, both summed
    check_binary_bp(op, NDRT_F16, {64, 33}, {33}, rng, true);      // permuted a
    check_binary_bp(op, NDRT_F32, {0, 4}, {4}, rng);               // size 0 (db is zeros)
  }
}

}  // namespace
