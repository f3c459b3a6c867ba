// arange, linspace, eye: every dtype they have kernels for, every output kind, against a float64
// reference computed here; bad attributes with exact status and message.
#include <algorithm>
#include <cmath>

#include "common/ndrt_test.hpp"

using namespace nt;

namespace {

#define EXPECT_FAILS(status, message, expr)                                                       \
  do {                                                                                            \
    ndrt_status s_ = (expr);                                                                      \
    EXPECT_EQ(ndrt_status_name(status), std::string(ndrt_status_name(s_))) << #expr;              \
    if (s_ != NDRT_OK) {                                                                          \
      EXPECT_EQ(std::string(message), std::string(ndrt_last_error())) << #expr;                   \
    }                                                                                             \
  } while (0)

// The value as the dtype stores it (the reference rounds like the runtime's conversion).
double rounded(double v, ndrt_dtype d) {
  uint8_t buf[8];
  encode(d, v, buf);
  return decode(d, buf);
}

Attrs arange_attrs(double start, double stop, double step, ndrt_dtype d) { return {{d}, {start, stop, step}}; }
Attrs linspace_attrs(double start, double stop, int64_t num, ndrt_dtype d, bool endpoint = true) {
  return {{num, d, endpoint ? 1 : 0}, {start, stop}};
}
Attrs eye_attrs(int64_t n, int64_t m, int64_t k, ndrt_dtype d) { return {{n, m, k, d}, {}}; }

bool has(const std::vector<ndrt_dtype>& v, ndrt_dtype d) { return std::find(v.begin(), v.end(), d) != v.end(); }

TEST(Arange, KernelsCoverEveryNumericDtype) {
  std::vector<ndrt_dtype> have = cpu_dtypes("arange");
  for (ndrt_dtype d : kAllDtypes) EXPECT_EQ(has(have, d), d != NDRT_BOOL) << dtype_str(d);
}

TEST(Arange, MatchesReferenceForEveryDtypeAndOutputKind) {
  struct Case {
    double start, stop, step;
    bool ints_ok;
  };
  const Case cases[] = {{0, 10, 1, true},     {-3, 7.5, 0.7, false}, {5, -5, -1.5, false}, {10, 3, -2, true},
                        {3, 3, 1, true},      {5, 0, 1, true},       {-20, 21, 3, true},   {0.25, 1.75, 0.25, false},
                        {1, 2, 0.001, false}};
  for (ndrt_dtype d : cpu_dtypes("arange"))
    for (const Case& k : cases) {
      if (is_int(d) && !k.ints_ok) continue;
      if (d == NDRT_U8 && (k.start < 0 || k.stop < -1)) continue;
      const int64_t n = std::max<int64_t>(0, int64_t(std::ceil((k.stop - k.start) / k.step)));
      std::vector<double> want(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) want[size_t(i)] = rounded(k.start + double(i) * k.step, d);
      for (OutKind ok : kAllOutKinds) {
        std::string what = std::string("arange ") + dtype_str(d) + " (" + std::to_string(k.start) + ", " +
                           std::to_string(k.stop) + ", " + std::to_string(k.step) + "), " + out_kind_str(ok);
        SCOPED_TRACE(what);
        // A given output decides the dtype; the attribute says something else on purpose.
        Attrs a = arange_attrs(k.start, k.stop, k.step, ok == OutKind::Fresh ? d : (d == NDRT_F64 ? NDRT_I8 : NDRT_F64));
        std::vector<double> got = run_out("arange", {}, a, d, {n}, ok);
        Tol tol = default_tol(d);
        tol.atol += 1e-15 * std::fabs(k.stop);  // f64: start + i*step may be contracted to an fma
        expect_close(got, want, d, tol, what);
      }
    }
}

TEST(Arange, LargeAndIntegerExtremes) {
  const int64_t n = 300007;  // runs on the intra-op pool
  std::vector<double> got = run_out("arange", {}, arange_attrs(-5, -5 + 0.5 * n, 0.5, NDRT_F64), NDRT_F64, {n},
                                    OutKind::GivenView);
  std::vector<double> want(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) want[size_t(i)] = -5 + 0.5 * double(i);
  expect_close(got, want, NDRT_F64, {0, 0}, "large arange");
  // i64 values beyond 2^53 are exact (integer arithmetic, not doubles).
  Tensor big = run("arange", {}, arange_attrs(9007199254740992.0, 9007199254740992.0 + 4096, 1024, NDRT_I64));
  std::vector<uint8_t> bytes = read_bytes(big);
  ASSERT_EQ(bytes.size(), 4u * 8u);
  for (int i = 0; i < 4; ++i) {
    int64_t v;
    std::memcpy(&v, bytes.data() + 8 * i, 8);
    EXPECT_EQ(v, (int64_t(1) << 53) + 1024 * i);
  }
  EXPECT_EQ(read_values(run("arange", {}, arange_attrs(-128, 128, 1, NDRT_I8))).back(), 127.0);
  EXPECT_EQ(read_values(run("arange", {}, arange_attrs(255, -1, -1, NDRT_U8))).front(), 255.0);
}

TEST(Arange, DefaultsAndBadAttributes) {
  Tensor t = run("arange", {}, Attrs{{}, {0, 4}});  // step 1, f32
  EXPECT_EQ(t.dtype(), NDRT_F32);
  EXPECT_EQ(read_values(t), (std::vector<double>{0, 1, 2, 3}));
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "arange: step is 0",
               try_run("arange", {}, nullptr, arange_attrs(0, 1, 0, NDRT_F32)));
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "arange: start, stop and step must be finite (got 0, inf, 1)",
               try_run("arange", {}, nullptr, arange_attrs(0, HUGE_VAL, 1, NDRT_F32)));
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "arange: start 0.5 and step 1 must be integers for dtype i32",
               try_run("arange", {}, nullptr, arange_attrs(0.5, 3, 1, NDRT_I32)));
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "arange: values 0..299 do not fit dtype i8",
               try_run("arange", {}, nullptr, arange_attrs(0, 300, 1, NDRT_I8)));
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "arange: values 3..-1 do not fit dtype u8",
               try_run("arange", {}, nullptr, arange_attrs(3, -2, -1, NDRT_U8)));
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "arange: [0, 1e+300) in steps of 1e-300 has too many elements",
               try_run("arange", {}, nullptr, arange_attrs(0, 1e300, 1e-300, NDRT_F32)));
  EXPECT_FAILS(NDRT_ERR_NOT_SUPPORTED, "arange: no cpu kernel for dtype bool (cpu has: f32, f64, f16, bf16, i8, u8, i32, i64)",
               try_run("arange", {}, nullptr, arange_attrs(0, 2, 1, NDRT_BOOL)));
  Tensor wrong = create(NDRT_F32, {5});
  EXPECT_FAILS(NDRT_ERR_SHAPE_MISMATCH, "arange: output 0 has shape [5], the op produces [4]",
               try_run("arange", {}, &wrong, arange_attrs(0, 4, 1, NDRT_F32)));
}

TEST(Linspace, KernelsCoverFloatDtypes) {
  std::vector<ndrt_dtype> have = cpu_dtypes("linspace");
  for (ndrt_dtype d : kAllDtypes) EXPECT_EQ(has(have, d), is_float(d)) << dtype_str(d);
}

TEST(Linspace, MatchesReferenceForEveryDtypeAndOutputKind) {
  struct Case {
    double start, stop;
    int64_t num;
    bool endpoint;
  };
  const Case cases[] = {{0, 1, 11, true},  {-2.5, 3.25, 7, true}, {3, -3, 13, true}, {1, 2, 1, true},
                        {4, 8, 0, true},   {0, 1, 10, false},     {-1, 1, 2, true},  {0.1, 0.7, 1001, true},
                        {5, 5, 4, true},   {2, -7, 9, false}};
  for (ndrt_dtype d : cpu_dtypes("linspace"))
    for (const Case& k : cases) {
      const double div = double(k.endpoint ? k.num - 1 : k.num);
      std::vector<double> want(static_cast<size_t>(k.num));
      for (int64_t i = 0; i < k.num; ++i)
        want[size_t(i)] = rounded(div > 0 ? k.start + (k.stop - k.start) * double(i) / div : k.start, d);
      for (OutKind ok : kAllOutKinds) {
        std::string what = std::string("linspace ") + dtype_str(d) + " (" + std::to_string(k.start) + ", " +
                           std::to_string(k.stop) + ", " + std::to_string(k.num) + (k.endpoint ? "" : ", open") + "), " +
                           out_kind_str(ok);
        SCOPED_TRACE(what);
        std::vector<double> got =
            run_out("linspace", {}, linspace_attrs(k.start, k.stop, k.num, d, k.endpoint), d, {k.num}, ok);
        Tol tol = default_tol(d);
        tol.atol += 4e-16 * std::max(std::fabs(k.start), std::fabs(k.stop));
        // f16/bf16: the two formulas may round to neighbours.
        if (d == NDRT_F16 || d == NDRT_BF16) tol.rtol *= 4;
        expect_close(got, want, d, tol, what);
        if (k.num > 0 && d == NDRT_F64) {
          EXPECT_EQ(got.front(), k.start);
          if (k.endpoint && k.num > 1) {
            EXPECT_EQ(got.back(), k.stop) << "the endpoint is exact (num > 1)";
          }
        }
      }
    }
}

TEST(Linspace, BadAttributes) {
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "linspace: attribute 'num' is required",
               try_run("linspace", {}, nullptr, Attrs{{}, {0, 1}}));
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "linspace: num is -1, must be >= 0",
               try_run("linspace", {}, nullptr, linspace_attrs(0, 1, -1, NDRT_F32)));
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "linspace: start and stop must be finite (got nan, 1)",
               try_run("linspace", {}, nullptr, linspace_attrs(std::nan(""), 1, 3, NDRT_F32)));
  EXPECT_FAILS(NDRT_ERR_DTYPE_MISMATCH, "linspace: needs a floating-point dtype, got i32",
               try_run("linspace", {}, nullptr, linspace_attrs(0, 1, 3, NDRT_I32)));
  Tensor given = create(NDRT_I64, {3});
  EXPECT_FAILS(NDRT_ERR_DTYPE_MISMATCH, "linspace: needs a floating-point dtype, got i64",
               try_run("linspace", {}, &given, linspace_attrs(0, 1, 3, NDRT_F32)));
}

TEST(Eye, KernelsCoverEveryDtype) {
  std::vector<ndrt_dtype> have = cpu_dtypes("eye");
  for (ndrt_dtype d : kAllDtypes) EXPECT_TRUE(has(have, d)) << dtype_str(d);
}

TEST(Eye, MatchesReferenceForEveryDtypeAndOutputKind) {
  struct Case {
    int64_t n, m, k;
  };
  const Case cases[] = {{4, 4, 0}, {3, 5, 1}, {5, 3, -2}, {0, 3, 0}, {3, 0, 0}, {4, -1, 0}, {3, 3, 5}, {6, 2, -5}, {1, 1, 0}};
  for (ndrt_dtype d : cpu_dtypes("eye"))
    for (const Case& k : cases) {
      const int64_t m = k.m == -1 ? k.n : k.m;
      std::vector<double> want(static_cast<size_t>(k.n * m));
      for (int64_t i = 0; i < k.n; ++i)
        for (int64_t j = 0; j < m; ++j) want[size_t(i * m + j)] = j - i == k.k ? 1 : 0;
      for (OutKind ok : kAllOutKinds) {
        std::string what = std::string("eye ") + dtype_str(d) + " n=" + std::to_string(k.n) + " m=" +
                           std::to_string(k.m) + " k=" + std::to_string(k.k) + ", " + out_kind_str(ok);
        SCOPED_TRACE(what);
        Attrs a = eye_attrs(k.n, k.m, k.k, ok == OutKind::Fresh ? d : NDRT_F32);
        expect_close(run_out("eye", {}, a, d, {k.n, m}, ok), want, d, {0, 0}, what);
      }
    }
}

TEST(Eye, LargeStridedOutput) {
  Tensor big = create(NDRT_F64, {901, 701});
  write_values(big, std::vector<double>(901 * 701, -7.0));
  Tensor view = slice(transpose(big, 0, 1), 0, 0, 700, 1);  // [700, 901], column-major rows
  run_into("eye", {}, view, eye_attrs(700, 901, 3, NDRT_F64));
  std::vector<double> all = read_values(big);  // big[j][i] = eye[i][j] for i < 700
  int bad = 0;
  for (int64_t j = 0; j < 901; ++j)
    for (int64_t i = 0; i < 701; ++i) {
      double want = i == 700 ? -7.0 : (j - i == 3 ? 1.0 : 0.0);
      bad += all[size_t(j * 701 + i)] != want;
    }
  EXPECT_EQ(bad, 0);
}

TEST(Eye, BadAttributes) {
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "eye: attribute 'n' is required", try_run("eye", {}, nullptr, Attrs{}));
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "eye: n is -2, must be >= 0",
               try_run("eye", {}, nullptr, eye_attrs(-2, 3, 0, NDRT_F32)));
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "eye: m is -3, must be >= 0 (or -1 for m = n)",
               try_run("eye", {}, nullptr, eye_attrs(2, -3, 0, NDRT_F32)));
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "eye: attribute 'dtype' is not a valid dtype (12)",
               try_run("eye", {}, nullptr, eye_attrs(2, 2, 0, 12)));
  Tensor wrong = create(NDRT_F32, {2, 3});
  EXPECT_FAILS(NDRT_ERR_SHAPE_MISMATCH, "eye: output 0 has shape [2,3], the op produces [3,2]",
               try_run("eye", {}, &wrong, eye_attrs(3, 2, 0, NDRT_F32)));
  Tensor t = run("eye", {}, Attrs{{2}, {}});  // m = n, k = 0, f32
  EXPECT_EQ(t.dtype(), NDRT_F32);
  EXPECT_EQ(read_values(t), (std::vector<double>{1, 0, 0, 1}));
}

}  // namespace
