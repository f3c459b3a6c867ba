// CUDA creation kernels against the CPU ones: fill, copy (dense, permuted, reversed, broadcast,
// into strided views, past one grid), cast between every pair of dtypes (exactly, including the
// single rounding of f64 / i64 to f16 / bf16), arange, linspace and eye for every dtype they take.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gpu/gpu_test.hpp"

namespace {

using gt::Pair;
using nt::Attrs;
using nt::Shape;

const std::vector<ndrt_dtype> kAll = {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16, NDRT_I8,
                                      NDRT_U8,  NDRT_I32, NDRT_I64, NDRT_BOOL};
const std::vector<ndrt_dtype> kFloats = {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16};
const nt::Tol kExact = {0, 0};

std::string what(const std::string& op, ndrt_dtype d) { return op + " " + nt::dtype_str(d); }

Attrs arange_attrs(double start, double stop, double step, ndrt_dtype d) { return {{d}, {start, stop, step}}; }
Attrs linspace_attrs(double start, double stop, int64_t num, ndrt_dtype d, bool endpoint) {
  return {{num, d, endpoint ? 1 : 0}, {start, stop}};
}
Attrs eye_attrs(int64_t n, int64_t m, int64_t k, ndrt_dtype d) { return {{n, m, k, d}, {}}; }

// arange / linspace compute start + i * step in f64, which either side may contract into an fma:
// f64 results may differ in the last bit, the narrower dtypes round both to the same value.
const nt::Tol* generated_tol(ndrt_dtype d) { return d == NDRT_F64 ? nullptr : &kExact; }

TEST(CudaCreation, FillEveryDtype) {
  NDRT_REQUIRE_CUDA();
  for (ndrt_dtype d : kAll) {
    SCOPED_TRACE(what("fill", d));
    const double v = nt::is_float(d) ? -2.75 : 7;
    gt::expect_same("fill", {}, nt::fill_attrs(v, d, {37, 29}), &kExact);
    gt::expect_same("fill", {}, nt::fill_attrs(0, d, {1001}), &kExact);  // all-zero bytes: memset
    gt::expect_same("fill", {}, nt::fill_attrs(1, d, {}), &kExact);      // rank 0
    gt::expect_same("fill", {}, nt::fill_attrs(1, d, {0, 3}), &kExact);  // size 0
  }
  gt::expect_same("fill", {}, nt::fill_attrs(0.1, NDRT_F16, {5}), &kExact);  // f64 -> f16 rounding
  gt::expect_same("fill", {}, nt::fill_attrs(0.5, NDRT_BOOL, {5}), &kExact);  // nonzero is true
}

TEST(CudaCreation, FillIntoStridedView) {
  NDRT_REQUIRE_CUDA();
  std::vector<uint8_t> poison = nt::poison_bytes(NDRT_I32, 8 * 6);
  nt::Tensor big = gt::to_device(nt::from_bytes(NDRT_I32, {8, 6}, poison.data(), poison.size(), NDRT_CPU), gt::kCuda0);
  nt::Tensor view = nt::permute(nt::slice(big, 1, 1, 6, 2), {1, 0});  // columns 1, 3, 5 transposed: [3, 8]
  {
    gt::OnDevice on(gt::kCuda0);
    std::vector<ndrt_handle> out = {view.get()};
    NT_CHECK(nt::exec("fill", {}, out, nt::fill_attrs(5, NDRT_I32, {3, 8})));
    NT_CHECK(ndrt_synchronize(gt::kCuda0));
  }
  const std::vector<double> all = nt::read_values(big);
  for (size_t i = 0; i < 8; ++i)
    for (size_t j = 0; j < 6; ++j) {
      const bool in_view = j % 2 == 1;
      EXPECT_EQ(all[i * 6 + j], in_view ? 5.0 : double(0x5A5A5A5A)) << "[" << i << "][" << j << "]";
    }
}

TEST(CudaCreation, CopyEveryDtypeAndLayout) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(61);
  for (ndrt_dtype d : kAll) {
    SCOPED_TRACE(what("copy", d));
    Pair x = gt::random_pair(d, {9, 7, 5}, rng);
    gt::expect_same("copy", {&x}, {}, &kExact);  // dense: one memcpy
    Pair p = x.permute({2, 0, 1});
    gt::expect_same("copy", {&p}, {}, &kExact);
    Pair r = x.slice(0, -1, -1000000, -2).slice(2, 1, 5, 3);  // steps -2 and 3, nonzero offset
    gt::expect_same("copy", {&r}, {}, &kExact);
    Pair e = gt::random_pair(d, {1, 7, 1}, rng).expand({4, 7, 3});  // stride 0
    gt::expect_same("copy", {&e}, {}, &kExact);
  }
  Pair s = gt::random_pair(NDRT_F64, {}, rng);  // rank 0
  gt::expect_same("copy", {&s}, {}, &kExact);
  Pair z = gt::random_pair(NDRT_F32, {3, 0}, rng);  // size 0
  gt::expect_same("copy", {&z}, {}, &kExact);
  // Past one grid (65536 x 256 threads), transposed: what ndrt_tensor_contiguous does.
  Pair big = gt::random_pair(NDRT_F32, {4100, 4099}, rng).permute({1, 0});
  gt::expect_same("copy", {&big}, {}, &kExact);
}

TEST(CudaCreation, ContiguousAndReadOfStridedViews) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(62);
  Pair x = gt::random_pair(NDRT_BF16, {6, 10}, rng);
  Pair v = x.slice(1, 9, -1000000, -3).permute({1, 0});
  nt::Tensor dense = nt::contiguous(v.gpu);  // the runtime's copy op on cuda
  EXPECT_TRUE(dense.contiguous());
  nt::expect_close(nt::read_values(dense), nt::read_values(v.cpu), NDRT_BF16, kExact, "contiguous");
  nt::expect_close(nt::read_values(v.gpu), nt::read_values(v.cpu), NDRT_BF16, kExact, "read of a view");
}

// Values every dtype pair can carry: within [-120, 120] (u8 on either side: not negative),
// fractional in float sources (truncated by float-to-integer), and one in five zero (for bool).
nt::Gen cast_gen(ndrt_dtype from, ndrt_dtype to) {
  if (from == NDRT_BOOL) return nt::default_gen(from);
  const bool unsigned_side = from == NDRT_U8 || to == NDRT_U8;
  nt::Gen g = nt::uniform_gen(from, unsigned_side ? 0 : -120, 120);
  return [g](std::mt19937& rng) { return rng() % 5 == 0 ? 0.0 : g(rng); };
}

TEST(CudaCreation, CastEveryPairOfDtypes) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(63);
  for (ndrt_dtype from : kAll)
    for (ndrt_dtype to : kAll) {
      SCOPED_TRACE(std::string("cast ") + nt::dtype_str(from) + " -> " + nt::dtype_str(to));
      const Attrs a = {{to}, {}};
      Pair x = gt::random_pair(from, {37, 29}, rng, cast_gen(from, to));
      gt::expect_same("cast", {&x}, a, &kExact);
      Pair t = gt::random_pair(from, {11, 6, 3}, rng, cast_gen(from, to)).permute({2, 0, 1}).slice(1, 0, 11, 2);
      gt::expect_same("cast", {&t}, a, &kExact);
    }
  Pair s = gt::random_pair(NDRT_F32, {}, rng);  // rank 0 and size 0
  gt::expect_same("cast", {&s}, {{NDRT_F16}, {}}, &kExact);
  Pair z = gt::random_pair(NDRT_I32, {0}, rng);
  gt::expect_same("cast", {&z}, {{NDRT_F64}, {}}, &kExact);
}

TEST(CudaCreation, CastRoundsOnceAndSpecialValues) {
  NDRT_REQUIRE_CUDA();
  // Just past a halfway point of f16 / bf16 by less than a float ulp: rounding through a plain
  // float would land on the halfway point and round to even; the single rounding goes up.
  const double h16 = 1 + std::ldexp(1, -11) + std::ldexp(1, -40), hb16 = 1 + std::ldexp(1, -8) + std::ldexp(1, -40);
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  Pair f64 = gt::values_pair(NDRT_F64, {10}, {h16, -h16, hb16, -hb16, 65519.99, 70000, 1e-9, -0.0, inf, nan});
  for (ndrt_dtype to : kAll) {
    if (!nt::is_float(to) && to != NDRT_BOOL) continue;  // integers: infinities and NaN are undefined
    SCOPED_TRACE(std::string("cast f64 -> ") + nt::dtype_str(to));
    gt::expect_same("cast", {&f64}, {{to}, {}}, &kExact);
  }
  // i64 past 2^24: f16 / bf16 from a round-to-odd float.
  Pair i64 = gt::values_pair(NDRT_I64, {4}, {16777217, 33554435, -16843009, 2147483649.0});
  for (ndrt_dtype to : {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16}) {
    SCOPED_TRACE(std::string("cast i64 -> ") + nt::dtype_str(to));
    gt::expect_same("cast", {&i64}, {{to}, {}}, &kExact);
  }
  // Floats to integers truncate toward zero.
  Pair fr = gt::values_pair(NDRT_F32, {6}, {2.9, -2.9, 0.5, -0.5, 100.99, -100.99});
  for (ndrt_dtype to : {NDRT_I8, NDRT_I32, NDRT_I64, NDRT_BOOL}) gt::expect_same("cast", {&fr}, {{to}, {}}, &kExact);
}

TEST(CudaCreation, ArangeEveryDtype) {
  NDRT_REQUIRE_CUDA();
  for (ndrt_dtype d : {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16, NDRT_I8, NDRT_U8, NDRT_I32, NDRT_I64}) {
    SCOPED_TRACE(what("arange", d));
    if (nt::is_float(d)) {
      gt::expect_same("arange", {}, arange_attrs(0.5, 40, 0.37, d), generated_tol(d));
      gt::expect_same("arange", {}, arange_attrs(3, -7, -0.5, d), generated_tol(d));
    } else {
      gt::expect_same("arange", {}, arange_attrs(d == NDRT_U8 ? 0 : -60, 120, 3, d), generated_tol(d));
      gt::expect_same("arange", {}, arange_attrs(100, 1, -7, d), generated_tol(d));
    }
    gt::expect_same("arange", {}, arange_attrs(5, 5, 1, d), generated_tol(d));  // empty
  }
  gt::expect_same("arange", {}, arange_attrs(-1e6, 1e6, 0.5, NDRT_F32), &kExact);  // several blocks
}

TEST(CudaCreation, LinspaceEveryDtype) {
  NDRT_REQUIRE_CUDA();
  for (ndrt_dtype d : kFloats) {
    SCOPED_TRACE(what("linspace", d));
    gt::expect_same("linspace", {}, linspace_attrs(-1.5, 2.25, 7, d, true), generated_tol(d));
    gt::expect_same("linspace", {}, linspace_attrs(-1.5, 2.25, 8, d, false), generated_tol(d));
    gt::expect_same("linspace", {}, linspace_attrs(3, 3.1, 1, d, true), generated_tol(d));
    gt::expect_same("linspace", {}, linspace_attrs(0, 1, 0, d, true), generated_tol(d));
    gt::expect_same("linspace", {}, linspace_attrs(0.1, 1000.3, 100001, d, true), generated_tol(d));
  }
}

TEST(CudaCreation, EyeEveryDtype) {
  NDRT_REQUIRE_CUDA();
  for (ndrt_dtype d : kAll) {
    SCOPED_TRACE(what("eye", d));
    gt::expect_same("eye", {}, eye_attrs(5, 7, 2, d), &kExact);
    gt::expect_same("eye", {}, eye_attrs(6, 4, -1, d), &kExact);
    gt::expect_same("eye", {}, eye_attrs(33, -1, 0, d), &kExact);
    gt::expect_same("eye", {}, eye_attrs(0, 3, 0, d), &kExact);
    gt::expect_same("eye", {}, eye_attrs(3, 3, 9, d), &kExact);  // the diagonal misses the matrix
  }
}

}  // namespace

namespace {

// Values an integer dtype cannot hold: the rule of runtime/value_rules.hpp (NaN -> 0, saturate),
// the same on both backends (the CPU tests check the rule itself).
const std::vector<double> kOutOfRange = {NAN, -NAN, INFINITY, -INFINITY, 1e30, -1e30, 3e9, -3e9, 9.3e18, -9.3e18,
                                         300.7, -300.7, 255.5, 256, -1.5, 128, -129, 65504, 2147483648.0, -2147483649.0};

}  // namespace

TEST(CudaCreation, FloatToIntegerSaturatesLikeTheCpu) {
  NDRT_REQUIRE_CUDA();
  for (ndrt_dtype from : kFloats) {
    Pair x = gt::values_pair(from, {int64_t(kOutOfRange.size())}, kOutOfRange);
    for (ndrt_dtype to : {NDRT_I8, NDRT_U8, NDRT_I32, NDRT_I64}) {
      SCOPED_TRACE(std::string("cast ") + nt::dtype_str(from) + " -> " + nt::dtype_str(to));
      gt::expect_same("cast", {&x}, {{to}, {}}, &kExact);
    }
  }
  for (ndrt_dtype to : {NDRT_I8, NDRT_U8, NDRT_I32, NDRT_I64})
    for (double v : {1e30, -1e30, double(NAN), 300.5})
      gt::expect_same("fill", {}, nt::fill_attrs(v, to, {7}), &kExact);
}

TEST(CudaCreation, BoolBytesOtherThanZeroOrOneAreTrue) {
  NDRT_REQUIRE_CUDA();
  const std::vector<uint8_t> raw = {0, 1, 0x21, 0xff, 0x80, 2, 0, 0x7f};
  Pair x = gt::pair_of(nt::from_bytes(NDRT_BOOL, {8}, raw.data(), raw.size()));
  Pair ones = gt::values_pair(NDRT_BOOL, {8}, std::vector<double>(8, 1));
  for (ndrt_dtype to : kAll) gt::expect_same("cast", {&x}, {{to}, {}}, &kExact);
  for (const char* op : {"eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor"}) {
    SCOPED_TRACE(op);
    gt::expect_same(op, {&x, &ones}, {}, &kExact);
  }
  gt::expect_same("logical_not", {&x}, {}, &kExact);
}
