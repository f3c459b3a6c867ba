// cast: every dtype pair on exactly representable values, float -> int truncation, -> bool, and
// the 16-bit float conversions checked exhaustively (all 65536 bit patterns both ways, every
// midpoint between consecutive values and its neighbours, overflow, subnormals) against the test's
// own exact round-to-nearest-even reference.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/ndrt_test.hpp"

using namespace nt;

namespace {

Attrs cast_attrs(ndrt_dtype d) { return Attrs{{int64_t(d)}, {}}; }

const double kValues[] = {0,     1,      -1,     2,      -2,     3,     7,         -7,        42,   -42,
                          100,   -100,   127,    -128,   0.5,    -0.5,  1.5,       -2.25,     200,  255,
                          1000,  -1000,  2048,   -2048,  65504,  -65504, 1e6,      -1e6,      16777216,
                          1099511627776.0, -1099511627776.0, 0.1, 3.0e38, -1e-3, 1e-7, 6.103515625e-05};

TEST(Cast, KernelsCoverEveryDtype) {
  std::vector<ndrt_dtype> have = cpu_dtypes("cast");
  for (ndrt_dtype d : kAllDtypes)
    EXPECT_NE(std::find(have.begin(), have.end(), d), have.end()) << "cast has no cpu kernel from " << dtype_str(d);
}

TEST(Cast, EveryDtypePairOnExactlyRepresentableValues) {
  std::mt19937 rng(77);
  for (ndrt_dtype src : kAllDtypes)
    for (ndrt_dtype dst : kAllDtypes) {
      std::vector<double> vals;
      if (src == NDRT_BOOL) {
        vals = {0, 1};
      } else {
        for (double v : kValues)
          if (representable(v, src) && (dst == NDRT_BOOL || representable(v, dst))) vals.push_back(v);
      }
      ASSERT_GE(vals.size(), 2u);
      Gen pick = [vals](std::mt19937& r) { return vals[r() % vals.size()]; };
      for (Kind k : {Kind::Contig, Kind::Strided, Kind::Permuted})
        for (OutKind ok : kAllOutKinds) {
          std::string what = std::string("cast ") + dtype_str(src) + " -> " + dtype_str(dst) + " " + kind_str(k) +
                             ", " + out_kind_str(ok);
          SCOPED_TRACE(what);
          Operand x = make_operand(src, {4, 9}, k, pick, rng);
          std::vector<double> want = x.vals;
          if (dst == NDRT_BOOL)
            for (double& w : want) w = w != 0 ? 1 : 0;
          expect_close(run_out("cast", {&x.view}, cast_attrs(dst), dst, {4, 9}, ok), want, dst, {0, 0}, what);
        }
      // The tensor API runs the same op.
      Tensor t = from_values(src, {int64_t(vals.size())}, vals);
      Tensor c = cast(t, dst);
      EXPECT_EQ(c.dtype(), dst);
      EXPECT_TRUE(c.contiguous());
      std::vector<double> want = vals;
      if (dst == NDRT_BOOL)
        for (double& w : want) w = w != 0 ? 1 : 0;
      expect_close(read_values(c), want, dst, {0, 0}, std::string("ndrt_tensor_cast ") + dtype_str(src) + " -> " + dtype_str(dst));
    }
}

TEST(Cast, FloatToIntegerTruncatesTowardZero) {
  const double frac[] = {2.5, -2.5, 0.75, -0.75, 100.9, -99.6, 126.99, -127.99, 0.25, 254.5, 3.999};
  for (ndrt_dtype src : {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16})
    for (ndrt_dtype dst : {NDRT_I8, NDRT_U8, NDRT_I32, NDRT_I64}) {
      std::vector<double> in, want;
      for (double v : frac) {
        uint8_t buf[8];
        encode(src, v, buf);
        double s = decode(src, buf);  // the value as src holds it
        double t = std::trunc(s);
        if (!representable(t, dst)) continue;
        in.push_back(s);
        want.push_back(t);
      }
      Tensor x = from_values(src, {int64_t(in.size())}, in);
      expect_close(read_values(run("cast", {&x}, cast_attrs(dst))), want, dst, {0, 0},
                   std::string(dtype_str(src)) + " -> " + dtype_str(dst));
    }
}

TEST(Cast, ToBoolIsNonzeroAndWritesCanonicalBytes) {
  for (ndrt_dtype src : {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16}) {
    Tensor x = from_values(src, {6}, {0.0, -0.0, 0.5, -3, std::nan(""), HUGE_VAL});
    std::vector<uint8_t> b = read_bytes(run("cast", {&x}, cast_attrs(NDRT_BOOL)));
    EXPECT_EQ(b, (std::vector<uint8_t>{0, 0, 1, 1, 1, 1})) << dtype_str(src);
  }
  for (ndrt_dtype src : {NDRT_I8, NDRT_U8, NDRT_I32, NDRT_I64}) {
    Tensor x = from_values(src, {4}, {0, 1, 2, src == NDRT_U8 ? 255.0 : -1.0});
    std::vector<uint8_t> b = read_bytes(run("cast", {&x}, cast_attrs(NDRT_BOOL)));
    EXPECT_EQ(b, (std::vector<uint8_t>{0, 1, 1, 1})) << dtype_str(src);
  }
}

TEST(Cast, IntegersAndDoublesRoundToNearestEven) {
  // Integers beyond the significand of the target.
  std::vector<double> ints = {2049, 2051, 2053, 4097, 4099, 65519, 65520, 65535, 100000, -2049, -100000};
  for (ndrt_dtype src : {NDRT_I32, NDRT_I64}) {
    Tensor x = from_values(src, {int64_t(ints.size())}, ints);
    std::vector<double> want16, wantb;
    for (double v : ints) {
      want16.push_back(f16_to_double(f16_from_double(v)));
      wantb.push_back(bf16_to_double(bf16_from_double(v)));
    }
    expect_close(read_values(run("cast", {&x}, cast_attrs(NDRT_F16))), want16, NDRT_F16, {0, 0}, "int -> f16");
    expect_close(read_values(run("cast", {&x}, cast_attrs(NDRT_BF16))), wantb, NDRT_BF16, {0, 0}, "int -> bf16");
  }
  std::vector<int64_t> big = {(int64_t(1) << 24) + 1, (int64_t(1) << 24) + 3, -((int64_t(1) << 24) + 1),
                              (int64_t(1) << 53) + 1, (int64_t(1) << 62) + 12345};
  Tensor x = from_bytes(NDRT_I64, {int64_t(big.size())}, big.data(), big.size() * 8);
  std::vector<double> w32, w64;
  for (int64_t v : big) {
    w32.push_back(double(float(v)));
    w64.push_back(double(v));
  }
  expect_close(read_values(run("cast", {&x}, cast_attrs(NDRT_F32))), w32, NDRT_F32, {0, 0}, "i64 -> f32");
  expect_close(read_values(run("cast", {&x}, cast_attrs(NDRT_F64))), w64, NDRT_F64, {0, 0}, "i64 -> f64");
  // f64 -> f32 on random doubles across the whole f32 range, subnormals and overflow included.
  std::mt19937_64 rng(5);
  std::vector<double> d;
  for (int i = 0; i < 20000; ++i) {
    double m = std::uniform_real_distribution<double>(-2, 2)(rng);
    int e = int(rng() % 300) - 160;
    d.push_back(std::ldexp(m, e));
  }
  Tensor xd = from_values(NDRT_F64, {int64_t(d.size())}, d);
  std::vector<double> want;
  for (double v : d) want.push_back(double(float(v)));
  expect_close(read_values(run("cast", {&xd}, cast_attrs(NDRT_F32))), want, NDRT_F32, {0, 0}, "f64 -> f32");
}

TEST(Cast, MissingOrInvalidDtypeAttributeIsRefused) {
  Tensor x = from_values(NDRT_F32, {2}, {1, 2});
  int64_t live = live_handles();
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, try_run("cast", {&x}, nullptr));
  EXPECT_NE(std::string(ndrt_last_error()).find("dtype"), std::string::npos) << ndrt_last_error();
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, try_run("cast", {&x}, nullptr, cast_attrs(0)));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, try_run("cast", {&x}, nullptr, cast_attrs(10)));
  ndrt_handle out = 0;
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_tensor_cast(x.get(), 42, &out));
  EXPECT_EQ(out, 0);
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_tensor_cast(x.get(), NDRT_F64, nullptr));
  EXPECT_STATUS(NDRT_ERR_INVALID_HANDLE, ndrt_tensor_cast(0, NDRT_F64, &out));
  EXPECT_EQ(live_handles(), live);
  Tensor wrong = create(NDRT_F32, {2});
  EXPECT_STATUS(NDRT_ERR_DTYPE_MISMATCH, try_run("cast", {&x}, &wrong, cast_attrs(NDRT_F64)));
}

// ---------------------------------------------------------------------------------------------
// 16-bit floats, exhaustively
// ---------------------------------------------------------------------------------------------
struct Small {
  ndrt_dtype dtype;
  const char* name;
  uint16_t max_finite;  // largest positive finite pattern; the next one is +inf
  double (*to_double)(uint16_t);
  uint16_t (*from_double)(double);
  bool (*is_nan)(uint16_t);
  double overflow_at;  // the value of the pattern after max_finite if the exponent went on
};
const Small kF16 = {NDRT_F16, "f16", 0x7bff, f16_to_double, f16_from_double, f16_is_nan, 65536.0};
const Small kBF16 = {NDRT_BF16, "bf16", 0x7f7f, bf16_to_double, bf16_from_double, bf16_is_nan, 0x1p128};

std::vector<uint16_t> read_u16(const Tensor& t) {
  std::vector<uint8_t> b = read_bytes(t);
  std::vector<uint16_t> r(b.size() / 2);
  std::memcpy(r.data(), b.data(), b.size());
  return r;
}

void exhaustive_round_trip(const Small& k) {
  std::vector<uint16_t> all(65536);
  for (uint32_t i = 0; i < 65536; ++i) all[i] = uint16_t(i);
  Tensor h = from_bytes(k.dtype, {65536}, all.data(), all.size() * 2);
  // 16 -> 32 is exact.
  Tensor f = run("cast", {&h}, cast_attrs(NDRT_F32));
  std::vector<uint8_t> fb = read_bytes(f);
  std::vector<float> fv(65536);
  std::memcpy(fv.data(), fb.data(), fb.size());
  int bad = 0;
  for (uint32_t i = 0; i < 65536; ++i) {
    double want = k.to_double(uint16_t(i));
    bool ok = k.is_nan(uint16_t(i)) ? std::isnan(fv[i])
                                    : (double(fv[i]) == want && std::signbit(fv[i]) == std::signbit(want));
    if (!ok && bad++ < 10) ADD_FAILURE() << k.name << " 0x" << std::hex << i << std::dec << " -> f32 gave " << fv[i] << ", want " << want;
  }
  EXPECT_EQ(bad, 0) << k.name << " -> f32 mismatches";
  // 16 -> 64 is exact too.
  std::vector<double> dv = read_values(run("cast", {&h}, cast_attrs(NDRT_F64)));
  bad = 0;
  for (uint32_t i = 0; i < 65536; ++i) {
    double want = k.to_double(uint16_t(i));
    bool ok = k.is_nan(uint16_t(i)) ? std::isnan(dv[i]) : (dv[i] == want && std::signbit(dv[i]) == std::signbit(want));
    if (!ok && bad++ < 10) ADD_FAILURE() << k.name << " 0x" << std::hex << i << std::dec << " -> f64 gave " << dv[i] << ", want " << want;
  }
  // 32 -> 16 gives the pattern back (NaN: any NaN), from values built by the test itself.
  std::vector<float> ref(65536);
  for (uint32_t i = 0; i < 65536; ++i) ref[i] = float(k.to_double(uint16_t(i)));
  Tensor f2 = from_bytes(NDRT_F32, {65536}, ref.data(), ref.size() * 4);
  for (ndrt_dtype via : {NDRT_F32, NDRT_F64}) {
    Tensor src = via == NDRT_F32 ? retain(f2) : run("cast", {&f2}, cast_attrs(NDRT_F64));
    std::vector<uint16_t> back = read_u16(run("cast", {&src}, cast_attrs(k.dtype)));
    bad = 0;
    for (uint32_t i = 0; i < 65536; ++i) {
      bool ok = k.is_nan(uint16_t(i)) ? k.is_nan(back[i]) : back[i] == i;
      if (!ok && bad++ < 10)
        ADD_FAILURE() << k.name << " 0x" << std::hex << i << " -> " << dtype_str(via) << " -> " << k.name << " gave 0x" << back[i] << std::dec;
    }
    EXPECT_EQ(bad, 0) << k.name << " round trip through " << dtype_str(via);
  }
}

TEST(CastF16, ExhaustiveRoundTripOverAll65536Patterns) { exhaustive_round_trip(kF16); }
TEST(CastBF16, ExhaustiveRoundTripOverAll65536Patterns) { exhaustive_round_trip(kBF16); }

// Midpoints between consecutive values (ties go to the even pattern) and their nearest f32
// neighbours on either side (those go to the nearer value), for every positive and negative pair,
// including max finite -> inf.
void midpoints_from_f32(const Small& k) {
  std::vector<float> in;
  std::vector<uint16_t> want;
  for (uint32_t h = 0; h <= k.max_finite; ++h)
    for (uint16_t sign : {uint16_t(0), uint16_t(0x8000)}) {
      double lo = k.to_double(uint16_t(h)), hi = h == k.max_finite ? k.overflow_at : k.to_double(uint16_t(h + 1));
      double mid = (lo + hi) / 2;
      float fm = float(mid);
      ASSERT_EQ(double(fm), mid) << "midpoint not representable in f32";
      uint16_t even = (h % 2 == 0) ? uint16_t(h) : uint16_t(h + 1);
      float below = std::nextafter(fm, float(lo)), above = std::nextafter(fm, HUGE_VALF);
      float s = sign ? -1.0f : 1.0f;
      in.push_back(s * fm);
      want.push_back(uint16_t(even | sign));
      in.push_back(s * below);
      want.push_back(uint16_t(h | sign));
      in.push_back(s * above);
      want.push_back(uint16_t((h + 1) | sign));
    }
  Tensor x = from_bytes(NDRT_F32, {int64_t(in.size())}, in.data(), in.size() * 4);
  std::vector<uint16_t> got = read_u16(run("cast", {&x}, cast_attrs(k.dtype)));
  ASSERT_EQ(got.size(), want.size());
  int bad = 0;
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i] && bad++ < 10)
      ADD_FAILURE() << "f32 " << in[i] << " (bits 0x" << std::hex << [&] { uint32_t u; std::memcpy(&u, &in[i], 4); return u; }()
                    << ") -> " << k.name << " gave 0x" << got[i] << ", want 0x" << want[i] << std::dec;
  EXPECT_EQ(bad, 0) << bad << " of " << got.size() << " midpoint cases wrong";
}

TEST(CastF16, MidpointsTieToEvenAndNeighboursRoundToNearest) { midpoints_from_f32(kF16); }
TEST(CastBF16, MidpointsTieToEvenAndNeighboursRoundToNearest) { midpoints_from_f32(kBF16); }

// The same from f64, with neighbours far closer than an f32 ulp: a conversion that rounds to f32
// first turns "just above the midpoint" into the midpoint and then ties to even (double rounding).
void midpoints_from_f64(const Small& k) {
  std::vector<double> in;
  std::vector<uint16_t> want;
  for (uint32_t h = 0; h <= k.max_finite; ++h) {
    double lo = k.to_double(uint16_t(h)), hi = h == k.max_finite ? k.overflow_at : k.to_double(uint16_t(h + 1));
    double mid = (lo + hi) / 2;
    uint16_t even = (h % 2 == 0) ? uint16_t(h) : uint16_t(h + 1);
    in.push_back(mid);
    want.push_back(even);
    in.push_back(std::nextafter(mid, lo));
    want.push_back(uint16_t(h));
    in.push_back(std::nextafter(mid, HUGE_VAL));
    want.push_back(uint16_t(h + 1));
  }
  Tensor x = from_values(NDRT_F64, {int64_t(in.size())}, in);
  std::vector<uint16_t> got = read_u16(run("cast", {&x}, cast_attrs(k.dtype)));
  ASSERT_EQ(got.size(), want.size());
  int bad = 0;
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i] && bad++ < 10)
      ADD_FAILURE() << "f64 " << std::hexfloat << in[i] << std::defaultfloat << " -> " << k.name << " gave 0x" << std::hex
                    << got[i] << ", want 0x" << want[i] << std::dec;
  EXPECT_EQ(bad, 0) << bad << " of " << got.size() << " cases wrong (f64 -> " << k.name << " must round once)";
}

TEST(CastF16, FromF64RoundsOnceNotTwice) { midpoints_from_f64(kF16); }
TEST(CastBF16, FromF64RoundsOnceNotTwice) { midpoints_from_f64(kBF16); }

void random_f32_bits(const Small& k) {
  std::mt19937 rng(1234);
  std::vector<float> in(1 << 18);
  for (float& f : in) {
    uint32_t u = rng();
    std::memcpy(&f, &u, 4);
  }
  Tensor x = from_bytes(NDRT_F32, {int64_t(in.size())}, in.data(), in.size() * 4);
  std::vector<uint16_t> got = read_u16(run("cast", {&x}, cast_attrs(k.dtype)));
  int bad = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    uint16_t w = k.from_double(double(in[i]));
    bool ok = std::isnan(in[i]) ? k.is_nan(got[i]) : got[i] == w;
    if (!ok && bad++ < 10) ADD_FAILURE() << "f32 " << in[i] << " -> " << k.name << " gave 0x" << std::hex << got[i] << ", want 0x" << w << std::dec;
  }
  EXPECT_EQ(bad, 0);
}

TEST(CastF16, RandomF32BitPatterns) { random_f32_bits(kF16); }
TEST(CastBF16, RandomF32BitPatterns) { random_f32_bits(kBF16); }

TEST(CastF16, OverflowSubnormalsAndSpecials) {
  const float cases[] = {65504.0f, 65519.996f, 65520.0f, 1e5f, -1e5f, 3.4e38f, HUGE_VALF, -HUGE_VALF,
                         0x1p-24f, 0x1p-25f, 0x1.8p-25f, 0x1.8p-24f, 0x1p-26f, 0x1.ff8p-15f, 0x1p-14f, 0x1.ffcp-15f,
                         -0.0f, 0.0f, 1e-10f, -1e-10f};
  const uint16_t want[] = {0x7bff, 0x7bff, 0x7c00, 0x7c00, 0xfc00, 0x7c00, 0x7c00, 0xfc00,
                           0x0001, 0x0000, 0x0001, 0x0002, 0x0000, 0x03ff, 0x0400, 0x0400,
                           0x8000, 0x0000, 0x0000, 0x8000};
  static_assert(sizeof(cases) / sizeof(cases[0]) == sizeof(want) / sizeof(want[0]), "table");
  Tensor x = from_bytes(NDRT_F32, {int64_t(std::size(cases))}, cases, sizeof cases);
  std::vector<uint16_t> got = read_u16(run("cast", {&x}, cast_attrs(NDRT_F16)));
  for (size_t i = 0; i < std::size(cases); ++i) {
    EXPECT_EQ(want[i], f16_from_double(cases[i])) << "test reference disagrees at " << cases[i];
    EXPECT_EQ(got[i], want[i]) << std::hexfloat << cases[i] << std::defaultfloat << " -> f16 gave 0x" << std::hex << got[i];
  }
  float nan = std::nanf("");
  Tensor n = from_bytes(NDRT_F32, {1}, &nan, 4);
  EXPECT_TRUE(f16_is_nan(read_u16(run("cast", {&n}, cast_attrs(NDRT_F16)))[0]));
  EXPECT_TRUE(bf16_is_nan(read_u16(run("cast", {&n}, cast_attrs(NDRT_BF16)))[0]));
}

TEST(CastBF16, OverflowSubnormalsAndSpecials) {
  const float cases[] = {0x1.fep127f, 0x1.fefffep127f, 0x1.ffp127f, HUGE_VALF, -0x1.ffp127f,
                         0x1p-133f,   0x1p-134f,       0x1.8p-133f, 0x1p-149f, 0x1.02p-126f, -0.0f, 1.00390625f,
                         1.01171875f};
  const uint16_t want[] = {0x7f7f, 0x7f7f, 0x7f80, 0x7f80, 0xff80, 0x0001, 0x0000, 0x0002 /* 1.5 units: tie, 2 is even */,
                           0x0000, 0x0081, 0x8000, 0x3f80, 0x3f82};
  static_assert(sizeof(cases) / sizeof(cases[0]) == sizeof(want) / sizeof(want[0]), "table");
  Tensor x = from_bytes(NDRT_F32, {int64_t(std::size(cases))}, cases, sizeof cases);
  std::vector<uint16_t> got = read_u16(run("cast", {&x}, cast_attrs(NDRT_BF16)));
  for (size_t i = 0; i < std::size(cases); ++i) {
    EXPECT_EQ(want[i], bf16_from_double(cases[i])) << "test reference disagrees at " << std::hexfloat << cases[i];
    EXPECT_EQ(got[i], want[i]) << std::hexfloat << cases[i] << std::defaultfloat << " -> bf16 gave 0x" << std::hex << got[i];
  }
}

}  // namespace

// ---- values a type cannot hold (runtime/value_rules.hpp) -----------------------------------------
namespace {

// The rule: NaN -> 0, beyond the range -> the type's min / max, otherwise truncation.
int64_t saturated(double v, ndrt_dtype d) {
  double lo = 0, hi = 0;
  switch (d) {
    case NDRT_I8: lo = -128, hi = 127; break;
    case NDRT_U8: lo = 0, hi = 255; break;
    case NDRT_I32: lo = -2147483648.0, hi = 2147483647.0; break;
    default: lo = -9223372036854775808.0, hi = 9223372036854775807.0; break;
  }
  if (std::isnan(v)) return 0;
  if (d == NDRT_I64 && v >= 9223372036854775808.0) return INT64_MAX;
  if (v >= hi) return int64_t(hi);
  if (v <= lo) return int64_t(lo);
  return int64_t(std::trunc(v));
}

// The integers of an integer tensor, read exactly (read_values goes through double).
std::vector<int64_t> read_ints(const Tensor& t) {
  std::vector<uint8_t> b = read_bytes(t);
  const ndrt_dtype d = t.dtype();
  const size_t item = d == NDRT_I64 ? 8 : d == NDRT_I32 ? 4 : 1;
  std::vector<int64_t> out;
  for (size_t i = 0; i + item <= b.size(); i += item) {
    int64_t v = 0;
    if (d == NDRT_I8) v = int8_t(b[i]);
    else if (d == NDRT_U8) v = b[i];
    else if (d == NDRT_I32) { int32_t x; std::memcpy(&x, &b[i], 4); v = x; }
    else std::memcpy(&v, &b[i], 8);
    out.push_back(v);
  }
  return out;
}

const double kOutOfRange[] = {std::nan(""), -std::nan(""), HUGE_VAL, -HUGE_VAL, 1e30, -1e30, 3e9, -3e9,
                              9.3e18, -9.3e18, 9223372036854775808.0, -9223372036854775808.0, 300.7,
                              -300.7, 255.5, 256, -1.5, -0.5, 128, -129, 127.9, -128.9, 65504, 2147483648.0,
                              -2147483649.0};

}  // namespace

TEST(Cast, FloatToIntegerSaturatesAndNanIsZero) {
  for (ndrt_dtype src : {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16})
    for (ndrt_dtype dst : {NDRT_I8, NDRT_U8, NDRT_I32, NDRT_I64}) {
      std::vector<double> in;
      for (double v : kOutOfRange) {
        uint8_t buf[8];
        encode(src, v, buf);
        in.push_back(decode(src, buf));  // the value as src holds it
      }
      std::vector<int64_t> want;
      for (double v : in) want.push_back(saturated(v, dst));
      Tensor x = from_values(src, {int64_t(in.size())}, in);
      const std::string what = std::string(dtype_str(src)) + " -> " + dtype_str(dst);
      EXPECT_EQ(read_ints(run("cast", {&x}, cast_attrs(dst))), want) << what;
      EXPECT_EQ(read_ints(cast(x, dst)), want) << "ndrt_tensor_cast " << what;
      // A strided source takes the other loop.
      Tensor wide = from_values(src, {int64_t(in.size()), 2}, [&] {
        std::vector<double> w;
        for (double v : in) w.insert(w.end(), {v, 0.0});
        return w;
      }());
      Tensor col = slice(wide, 1, 0, 1, 1);
      EXPECT_EQ(read_ints(run("cast", {&col}, cast_attrs(dst))), want) << "strided " << what;
    }
}

TEST(Cast, FillOfAValueOutsideTheDtypeSaturates) {
  for (ndrt_dtype d : {NDRT_I8, NDRT_U8, NDRT_I32, NDRT_I64})
    for (double v : kOutOfRange) {
      std::vector<int64_t> got = read_ints(run("fill", {}, fill_attrs(v, d, {3})));
      EXPECT_EQ(got, std::vector<int64_t>(3, saturated(v, d))) << "fill " << v << " " << dtype_str(d);
    }
}

TEST(Cast, ArangeOfOneIntegerValueWithAHugeStep) {
  // One value: the step never enters the result, and converting it must not be undefined.
  Tensor t = run("arange", {}, Attrs{{NDRT_I32}, {5, 6, 1e300}});
  EXPECT_EQ(read_ints(t), std::vector<int64_t>{5});
}

// A bool element is one byte and any non-zero byte is true; kernels read bytes, never C++ bools.
TEST(BoolBytes, EveryOpThatReadsBoolSeesTheTruthOfTheByte) {
  const std::vector<uint8_t> raw = {0, 1, 0x21, 0xff, 0x80, 2, 0, 0x7f};
  const std::vector<double> truth = {0, 1, 1, 1, 1, 1, 0, 1};
  std::vector<Tensor> sources;
  sources.push_back(from_bytes(NDRT_BOOL, {8}, raw.data(), raw.size()));
  // The same bytes wrapped zero-copy: nothing normalises them on the way in.
  std::vector<uint8_t> mem = raw;
  ndrt_handle w = 0;
  const int64_t shape[] = {8};
  ASSERT_OK(ndrt_tensor_wrap(NDRT_BOOL, 1, shape, nullptr, mem.data(), mem.size(), nullptr, nullptr, &w));
  sources.push_back(Tensor(w));
  Tensor ones = from_values(NDRT_BOOL, {8}, std::vector<double>(8, 1));
  Tensor zeros = from_values(NDRT_BOOL, {8}, std::vector<double>(8, 0));
  for (const Tensor& x : sources) {
    for (ndrt_dtype to : kAllDtypes) {
      if (to == NDRT_BOOL) continue;
      expect_close(read_values(run("cast", {&x}, cast_attrs(to))), truth, to, {0, 0},
                   std::string("cast bool -> ") + dtype_str(to));
    }
    EXPECT_EQ(read_bytes(run("cast", {&x}, cast_attrs(NDRT_BOOL))), (std::vector<uint8_t>{0, 1, 1, 1, 1, 1, 0, 1}));
    auto bools = [](const Tensor& t) { return read_bytes(t); };
    std::vector<uint8_t> t8(truth.begin(), truth.end()), not8;
    for (uint8_t v : t8) not8.push_back(uint8_t(!v));
    EXPECT_EQ(bools(run("eq", {&x, &ones})), t8);
    EXPECT_EQ(bools(run("ne", {&x, &ones})), not8);
    EXPECT_EQ(bools(run("eq", {&x, &x})), std::vector<uint8_t>(8, 1));
    EXPECT_EQ(bools(run("lt", {&x, &ones})), not8);   // false < true only
    EXPECT_EQ(bools(run("ge", {&x, &ones})), t8);
    EXPECT_EQ(bools(run("gt", {&x, &zeros})), t8);
    EXPECT_EQ(bools(run("le", {&x, &zeros})), not8);
    EXPECT_EQ(bools(run("logical_and", {&x, &ones})), t8);
    EXPECT_EQ(bools(run("logical_or", {&x, &zeros})), t8);
    EXPECT_EQ(bools(run("logical_xor", {&x, &ones})), not8);
    EXPECT_EQ(bools(run("logical_not", {&x})), not8);
    Tensor a = from_values(NDRT_F32, {8}, {0, 1, 2, 3, 4, 5, 6, 7});
    Tensor b = from_values(NDRT_F32, {8}, std::vector<double>(8, -1));
    std::vector<double> picked;
    for (int i = 0; i < 8; ++i) picked.push_back(truth[size_t(i)] != 0 ? double(i) : -1.0);
    expect_close(read_values(run("where", {&x, &a, &b})), picked, NDRT_F32, {0, 0}, "where");
  }
}
