// Random ops: the Philox4x32-10 generator against the published Random123 known-answer vectors, the
// stream layout end to end, bit-exact reproducibility across thread counts, output layouts and
// split draws, statistics on 1e6 samples with fixed seeds, dropout and its gradient, bad attributes.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "../../../kernels/philox.hpp"
#include "common/ndrt_test.hpp"

using namespace nt;

namespace {

#define EXPECT_FAILS(status, message, expr)                                              \
  do {                                                                                   \
    ndrt_status s_ = (expr);                                                             \
    EXPECT_EQ(ndrt_status_name(status), std::string(ndrt_status_name(s_))) << #expr;     \
    if (s_ != NDRT_OK) {                                                                 \
      EXPECT_EQ(std::string(message), std::string(ndrt_last_error())) << #expr;          \
    }                                                                                    \
  } while (0)

// Attributes of the generating ops: the distribution's floats, then seed, offset, dtype, shape.
Attrs gen_attrs(std::vector<double> floats, int64_t seed, int64_t offset, ndrt_dtype d, const Shape& s) {
  Attrs a;
  a.floats = std::move(floats);
  a.ints = {seed, offset, d, int64_t(s.size())};
  a.ints.insert(a.ints.end(), s.begin(), s.end());
  return a;
}

struct Dist {
  const char* op;
  std::vector<double> params;
  std::vector<ndrt_dtype> dtypes;
};
const Dist kDists[] = {
    {"uniform", {-1.5, 2.5}, {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16}},
    {"normal", {0.5, 2.0}, {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16}},
    {"truncated_normal", {-1.0, 0.5, -1.5, 2.5}, {NDRT_F32, NDRT_F64}},
    {"bernoulli", {0.3}, {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16, NDRT_I8, NDRT_U8, NDRT_I32, NDRT_I64, NDRT_BOOL}},
};

std::vector<double> draw(const char* op, const std::vector<double>& params, int64_t seed, int64_t offset, ndrt_dtype d,
                         const Shape& s) {
  return read_values(run(op, {}, gen_attrs(params, seed, offset, d, s)));
}

std::vector<uint8_t> draw_bytes(const char* op, const std::vector<double>& params, int64_t seed, int64_t offset,
                                ndrt_dtype d, const Shape& s) {
  return read_bytes(run(op, {}, gen_attrs(params, seed, offset, d, s)));
}

// Sets cpu.threads for the scope, restoring the previous value.
struct Threads {
  std::string old;
  explicit Threads(int n) {
    char buf[32];
    size_t need = 0;
    NT_CHECK(ndrt_config_get("cpu.threads", buf, sizeof buf, &need));
    old = buf;
    NT_CHECK(ndrt_config_set("cpu.threads", std::to_string(n).c_str()));
  }
  ~Threads() { ndrt_config_set("cpu.threads", old.c_str()); }
};

// dropout through the raw exec (two outputs).
struct DropoutOut {
  Tensor y, mask;
};
DropoutOut dropout(const Tensor& x, double p, int64_t seed, int64_t offset) {
  std::vector<ndrt_handle> out = {0, 0};
  NT_CHECK(exec("dropout", {x.get()}, out, Attrs{{seed, offset}, {p}}));
  return {Tensor(out[0]), Tensor(out[1])};
}

// ---------------------------------------------------------------------------------------------
// The generator
// ---------------------------------------------------------------------------------------------

TEST(Philox, KnownAnswerVectors) {
  // Random123 v1.14 tests/kat_vectors, "philox4x32 10" lines: counter, key -> output.
  struct Kat {
    uint32_t ctr[4], key[2], out[4];
  };
  const Kat kats[] = {
      {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
      {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}, {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
      {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}, {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
  };
  for (const Kat& k : kats) {
    ndrt::philox::Block c{{k.ctr[0], k.ctr[1], k.ctr[2], k.ctr[3]}};
    ndrt::philox::Key key{{k.key[0], k.key[1]}};
    ndrt::philox::Block r = ndrt::philox::philox4x32_10(c, key);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(r.v[i], k.out[i]) << "word " << i << " of counter " << std::hex << k.ctr[0];
  }
}

TEST(Philox, StreamLayoutEndToEnd) {
  // uniform on [0, 2^24) in f32 returns the top 24 bits of each word exactly: element g of seed s is
  // word g % 4 of philox(counter = g / 4, key = s).
  const double two24 = 16777216.0;
  std::vector<double> y = draw("uniform", {0, two24}, 0, 0, NDRT_F32, {8});
  const uint32_t kat0[4] = {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(y[size_t(i)], double(kat0[i] >> 8)) << "element " << i;
  const int64_t seed = int64_t(0x123456789abcdef0ull);
  const int64_t offset = 4 * int64_t(0x100000003ll) + 2;  // block 2^32 + 3: both counter words used
  y = draw("uniform", {0, two24}, seed, offset, NDRT_F32, {7});
  ndrt::philox::Key key = ndrt::philox::key_of(uint64_t(seed));
  for (int i = 0; i < 7; ++i) {
    uint64_t g = uint64_t(offset) + uint64_t(i);
    ndrt::philox::Block b = ndrt::philox::block(key, g / 4);
    EXPECT_EQ(y[size_t(i)], double(b.v[g % 4] >> 8)) << "element " << i;
    EXPECT_EQ(key.k[0], 0x9abcdef0u);
    EXPECT_EQ(key.k[1], 0x12345678u);
  }
  // f64 takes two words per value: 53 bits of (word 2j, word 2j + 1) of block g / 2.
  y = draw("uniform", {0, 9007199254740992.0}, seed, 5, NDRT_F64, {3});
  for (int i = 0; i < 3; ++i) {
    uint64_t g = 5 + uint64_t(i);
    ndrt::philox::Block b = ndrt::philox::block(key, g / 2);
    const int j = int(g % 2) * 2;
    EXPECT_EQ(y[size_t(i)], double(((uint64_t(b.v[j]) << 32) | b.v[j + 1]) >> 11)) << "element " << i;
  }
}

TEST(Philox, NormalQuantileIsAccurate) {
  // The truncated normal's inverse CDF: Phi(Phi^-1(p)) == p to a few ulps, tails included.
  double worst = 0;
  for (int i = 1; i < 20000; ++i) {
    double p = i / 20000.0;
    worst = std::max(worst, std::fabs(ndrt::philox::normal_cdf(ndrt::philox::normal_quantile(p)) - p) / p);
  }
  EXPECT_LT(worst, 1e-14);
  for (int e = -300; e < 0; e += 7) {
    double p = std::pow(10.0, e);
    double x = ndrt::philox::normal_quantile(p);
    EXPECT_NEAR(ndrt::philox::normal_cdf(x) / p, 1.0, 1e-12 * std::max(1.0, x * x)) << "p = " << p;
  }
  EXPECT_NEAR(ndrt::philox::normal_quantile(0.975), 1.959963984540054, 1e-15);
}

// ---------------------------------------------------------------------------------------------
// Reproducibility
// ---------------------------------------------------------------------------------------------

TEST(Random, KernelsCoverTheDocumentedDtypes) {
  for (const Dist& d : kDists) {
    std::vector<ndrt_dtype> have = cpu_dtypes(d.op);
    EXPECT_EQ(have, d.dtypes) << d.op;
  }
  EXPECT_EQ(cpu_dtypes("dropout"), (std::vector<ndrt_dtype>{NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16}));
  EXPECT_EQ(cpu_dtypes("dropout_bp"), (std::vector<ndrt_dtype>{NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16}));
}

TEST(Random, BitExactAcrossThreadCounts) {
  const Shape s = {317, 1031};  // 326827 elements: split across the pool
  for (const Dist& d : kDists)
    for (ndrt_dtype dt : d.dtypes) {
      SCOPED_TRACE(std::string(d.op) + " " + dtype_str(dt));
      std::vector<uint8_t> one, two, three;
      {
        Threads t(1);
        one = draw_bytes(d.op, d.params, 77, 13, dt, s);
      }
      {
        Threads t(2);
        two = draw_bytes(d.op, d.params, 77, 13, dt, s);
      }
      {
        Threads t(3);
        three = draw_bytes(d.op, d.params, 77, 13, dt, s);
      }
      EXPECT_TRUE(one == two) << "cpu.threads 1 vs 2 differ";
      EXPECT_TRUE(one == three) << "cpu.threads 1 vs 3 differ";
    }
  std::mt19937 rng(3);
  Operand x = make_operand(NDRT_F32, s, Kind::Contig, default_gen(NDRT_F32), rng);
  std::vector<uint8_t> y1, m1, y2, m2;
  {
    Threads t(1);
    DropoutOut o = dropout(x.view, 0.4, 5, 9);
    y1 = read_bytes(o.y);
    m1 = read_bytes(o.mask);
  }
  {
    Threads t(2);
    DropoutOut o = dropout(x.view, 0.4, 5, 9);
    y2 = read_bytes(o.y);
    m2 = read_bytes(o.mask);
  }
  EXPECT_TRUE(y1 == y2 && m1 == m2) << "dropout differs across thread counts";
}

TEST(Random, SplitDrawsEqualOneDraw) {
  // n values at offset o then m at o + n equal n + m values at o, for every split point (mid-block,
  // mid Box-Muller pair).
  for (const Dist& d : kDists)
    for (ndrt_dtype dt : d.dtypes) {
      SCOPED_TRACE(std::string(d.op) + " " + dtype_str(dt));
      std::vector<uint8_t> all = draw_bytes(d.op, d.params, 2024, 0, dt, {1000});
      const size_t is = itemsize(dt);
      for (int64_t cut : {500, 333, 1, 999, 2, 3}) {
        std::vector<uint8_t> a = draw_bytes(d.op, d.params, 2024, 0, dt, {cut});
        std::vector<uint8_t> b = draw_bytes(d.op, d.params, 2024, cut, dt, {1000 - cut});
        a.insert(a.end(), b.begin(), b.end());
        EXPECT_TRUE(a == all) << "split at " << cut;
      }
      // Shifted start: offset 7 is the tail of offset 0.
      std::vector<uint8_t> tail = draw_bytes(d.op, d.params, 2024, 7, dt, {993});
      EXPECT_TRUE(std::equal(tail.begin(), tail.end(), all.begin() + 7 * is)) << "offset 7";
      // Different seeds differ.
      std::vector<uint8_t> other = draw_bytes(d.op, d.params, 2025, 0, dt, {1000});
      EXPECT_FALSE(other == all) << "seed 2025 equals seed 2024";
    }
  // dropout: two batches at offsets 0 and n reproduce one draw over the concatenation.
  std::mt19937 rng(4);
  Operand x = make_operand(NDRT_F64, {1000}, Kind::Contig, default_gen(NDRT_F64), rng);
  DropoutOut whole = dropout(x.view, 0.5, 99, 0);
  Tensor first = slice(x.view, 0, 0, 333, 1), second = slice(x.view, 0, 333, 1000, 1);
  DropoutOut a = dropout(first, 0.5, 99, 0), b = dropout(second, 0.5, 99, 333);
  std::vector<double> mask = read_values(a.mask), mb = read_values(b.mask);
  mask.insert(mask.end(), mb.begin(), mb.end());
  EXPECT_EQ(mask, read_values(whole.mask));
}

TEST(Random, EveryOutputKindAndShapeGivesTheRowMajorStream) {
  for (const Dist& d : kDists)
    for (ndrt_dtype dt : d.dtypes)
      for (const Shape& s : std::vector<Shape>{{3, 5, 7}, {}, {0, 4}, {2, 1, 3, 1}, {1}}) {
        // The reference: the same elements drawn as one flat row-major vector.
        std::vector<double> flat = draw(d.op, d.params, 11, 3, dt, {numel_of(s)});
        for (OutKind ok : kAllOutKinds) {
          std::string what = std::string(d.op) + " " + dtype_str(dt) + " " + shape_str(s) + ", " + out_kind_str(ok);
          SCOPED_TRACE(what);
          // With a given output its shape and dtype win; the attributes say something else on purpose.
          Attrs a = ok == OutKind::Fresh ? gen_attrs(d.params, 11, 3, dt, s) : gen_attrs(d.params, 11, 3, NDRT_F64, {9});
          expect_close(run_out(d.op, {}, a, dt, s, ok), flat, dt, {0, 0}, what);
        }
      }
}

// ---------------------------------------------------------------------------------------------
// Statistics (1e6 samples, fixed seeds)
// ---------------------------------------------------------------------------------------------
constexpr int64_t kN = 1000000;

struct Moments {
  double mean, var, lo, hi;
};
Moments moments(const std::vector<double>& v) {
  double s = 0, lo = HUGE_VAL, hi = -HUGE_VAL;
  for (double x : v) {
    s += x;
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  double mean = s / double(v.size()), q = 0;
  for (double x : v) q += (x - mean) * (x - mean);
  return {mean, q / double(v.size() - 1), lo, hi};
}

// Kolmogorov-Smirnov statistic of a sample against a continuous CDF.
template <class Cdf>
double ks(std::vector<double> v, Cdf cdf) {
  std::sort(v.begin(), v.end());
  const double n = double(v.size());
  double d = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    double f = cdf(v[i]);
    d = std::max(d, std::max(f - double(i) / n, double(i + 1) / n - f));
  }
  return d;
}
// 99.9% critical value of the one-sample KS statistic for large n.
const double kKsBound = 1.95 / std::sqrt(double(kN));

double phi(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }
double pdf(double x) { return std::exp(-0.5 * x * x) / std::sqrt(2 * M_PI); }

TEST(Uniform, Statistics) {
  const double lo = -1.5, hi = 2.5, w = hi - lo;
  for (ndrt_dtype dt : {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16}) {
    SCOPED_TRACE(dtype_str(dt));
    std::vector<double> v = draw("uniform", {lo, hi}, 12345, 0, dt, {kN});
    Moments m = moments(v);
    EXPECT_GE(m.lo, lo);
    EXPECT_LT(m.hi, hi) << "the upper end is open";
    const double quant = dt == NDRT_BF16 ? 1.6e-2 : (dt == NDRT_F16 ? 2e-3 : 0);  // rounding of the dtype
    EXPECT_NEAR(m.mean, (lo + hi) / 2, 5 * w / std::sqrt(12.0 * kN) + quant);
    EXPECT_NEAR(m.var, w * w / 12, 0.01 * w * w / 12 + quant);
    if (dt == NDRT_F32 || dt == NDRT_F64) {
      EXPECT_LT(ks(v, [&](double x) { return (x - lo) / w; }), kKsBound);
    }
  }
  // high is never reached even where rounding lands on it (f16 has unit spacing below 2048: draws
  // above 2047.5 round to 2048 and become 2047).
  std::vector<double> v = draw("uniform", {2046, 2048}, 1, 0, NDRT_F16, {100000});
  EXPECT_EQ(*std::max_element(v.begin(), v.end()), 2047.0);
  EXPECT_EQ(*std::min_element(v.begin(), v.end()), 2046.0);
  v = draw("uniform", {1.0, 1.0 + 1e-7}, 1, 0, NDRT_F32, {100000});
  EXPECT_LT(*std::max_element(v.begin(), v.end()), 1.0 + 1e-7);
}

TEST(Normal, Statistics) {
  const double mu = 0.5, sd = 2.0;
  for (ndrt_dtype dt : {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16}) {
    SCOPED_TRACE(dtype_str(dt));
    std::vector<double> v = draw("normal", {mu, sd}, 777, 0, dt, {kN});
    Moments m = moments(v);
    const double quant = dt == NDRT_BF16 ? 2e-2 : (dt == NDRT_F16 ? 4e-3 : 0);
    EXPECT_NEAR(m.mean, mu, 5 * sd / std::sqrt(double(kN)) + quant);
    EXPECT_NEAR(m.var, sd * sd, 5 * sd * sd * std::sqrt(2.0 / kN) + quant);
    if (dt == NDRT_F32 || dt == NDRT_F64) {
      EXPECT_LT(ks(v, [&](double x) { return phi((x - mu) / sd); }), kKsBound);
      // Pairs are independent: the correlation of y[2j] and y[2j+1] is ~0.
      double c = 0;
      for (size_t i = 0; i + 1 < v.size(); i += 2) c += (v[i] - mu) * (v[i + 1] - mu);
      EXPECT_NEAR(c / (double(v.size() / 2) * sd * sd), 0.0, 5 / std::sqrt(kN / 2.0));
    }
  }
  std::vector<double> z = draw("normal", {3.0, 0.0}, 1, 0, NDRT_F64, {10});
  EXPECT_EQ(z, std::vector<double>(10, 3.0)) << "std 0 gives the mean";
}

TEST(TruncatedNormal, Statistics) {
  struct Case {
    double mean, sd, a, b;
  };
  // Symmetric default, asymmetric (mirrored), far tail.
  const Case cases[] = {{0, 1, -2, 2}, {-1, 0.5, -1.5, 2.5}, {2, 3, 0.5, 3}, {0, 1, 4, 6}, {0, 1, -9, -8.5}};
  for (const Case& k : cases)
    for (ndrt_dtype dt : {NDRT_F32, NDRT_F64}) {
      SCOPED_TRACE(std::string(dtype_str(dt)) + " a=" + std::to_string(k.a) + " b=" + std::to_string(k.b));
      std::vector<double> v = draw("truncated_normal", {k.mean, k.sd, k.a, k.b}, 4242, 0, dt, {kN});
      Moments m = moments(v);
      const double lo = k.mean + k.a * k.sd, hi = k.mean + k.b * k.sd;
      const double round = dt == NDRT_F32 ? 1e-6 * std::max(std::fabs(lo), std::fabs(hi)) : 0;
      EXPECT_GE(m.lo, lo - round);
      EXPECT_LE(m.hi, hi + round);
      // Moments of the standard normal truncated to [a, b].
      double z = phi(k.b) - phi(k.a);
      double mean = (pdf(k.a) - pdf(k.b)) / z;
      double var = 1 + (k.a * pdf(k.a) - k.b * pdf(k.b)) / z - mean * mean;
      if (k.a > 3 || k.b < -3) {  // tails: use the complementary forms for precision
        auto tail = [](double x) { return 0.5 * std::erfc(x / std::sqrt(2.0)); };  // 1 - Phi(x)
        z = k.a > 0 ? tail(k.a) - tail(k.b) : phi(k.b) - phi(k.a);
        mean = (pdf(k.a) - pdf(k.b)) / z;
        var = 1 + (k.a * pdf(k.a) - k.b * pdf(k.b)) / z - mean * mean;
      }
      const double sd = std::sqrt(var) * k.sd;
      EXPECT_NEAR(m.mean, k.mean + k.sd * mean, 5 * sd / std::sqrt(double(kN)));
      EXPECT_NEAR(m.var, sd * sd, 6 * sd * sd * std::sqrt(2.0 / kN));
      if (std::fabs(k.a) < 3 && std::fabs(k.b) < 3) {
        const double pa = phi(k.a);
        EXPECT_LT(ks(v, [&](double x) { return (phi((x - k.mean) / k.sd) - pa) / z; }), kKsBound);
      }
    }
}

TEST(Bernoulli, RateAndValues) {
  const double p = 0.3;
  for (ndrt_dtype dt : cpu_dtypes("bernoulli")) {
    SCOPED_TRACE(dtype_str(dt));
    std::vector<double> v = draw("bernoulli", {p}, 31, 0, dt, {kN});
    int64_t ones = 0, other = 0;
    for (double x : v) {
      ones += x == 1;
      other += x != 0 && x != 1;
    }
    EXPECT_EQ(other, 0);
    EXPECT_NEAR(double(ones) / kN, p, 5 * std::sqrt(p * (1 - p) / kN));
  }
  std::vector<double> all = draw("bernoulli", {1.0}, 5, 0, NDRT_BOOL, {1000});
  EXPECT_EQ(all, std::vector<double>(1000, 1.0)) << "p = 1";
  std::vector<double> none = draw("bernoulli", {0.0}, 5, 0, NDRT_F32, {1000});
  EXPECT_EQ(none, std::vector<double>(1000, 0.0)) << "p = 0";
  // Every dtype draws the same bits: the same seed gives the same pattern in bool and f64.
  EXPECT_EQ(draw("bernoulli", {0.5}, 8, 100, NDRT_BOOL, {777}), draw("bernoulli", {0.5}, 8, 100, NDRT_F64, {777}));
}

// ---------------------------------------------------------------------------------------------
// dropout
// ---------------------------------------------------------------------------------------------

TEST(Dropout, ScalesKeptElementsAndMatchesBernoulli) {
  std::mt19937 rng(17);
  for (const Shape& s : std::vector<Shape>{{3, 5, 7}, {}, {0, 4}})
    for (ndrt_dtype dt : {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16})
      for (Kind k : kAllKinds)
        for (double p : {0.25, 0.0, 1.0, 0.9}) {
          std::string what = std::string("dropout ") + dtype_str(dt) + " " + shape_str(s) + " " + kind_str(k) +
                             " p=" + std::to_string(p);
          SCOPED_TRACE(what);
          Operand x = make_operand(dt, s, k, default_gen(dt), rng);
          DropoutOut o = dropout(x.view, p, 1234, 50);
          EXPECT_EQ(o.mask.dtype(), NDRT_BOOL);
          std::vector<double> mask = read_values(o.mask);
          std::vector<double> dropped = draw("bernoulli", {p}, 1234, 50, NDRT_F64, s);
          std::vector<double> want(mask.size());
          for (size_t i = 0; i < mask.size(); ++i) {
            EXPECT_EQ(mask[i], 1 - dropped[i]) << "mask[" << i << "] is !bernoulli(p)";
            want[i] = mask[i] != 0 ? x.vals[i] / (1 - p) : 0.0;
          }
          expect_close(read_values(o.y), want, dt, default_tol(dt), what);
        }
}

TEST(Dropout, StatisticsGivenOutputsAndInPlace) {
  Tensor x = from_values(NDRT_F32, {kN}, std::vector<double>(kN, 2.0));
  DropoutOut o = dropout(x, 0.2, 3, 0);
  std::vector<double> y = read_values(o.y);
  Moments m = moments(y);
  EXPECT_NEAR(m.mean, 2.0, 5 * 2.5 * std::sqrt(0.2 * 0.8 / kN)) << "E[y] = x";
  int64_t kept = 0;
  for (double v : y) kept += v != 0;
  EXPECT_NEAR(double(kept) / kN, 0.8, 5 * std::sqrt(0.16 / kN));
  EXPECT_EQ(m.hi, 2.5);
  // Given outputs: y a strided view, mask u8; and in place (y is x).
  std::mt19937 rng(5);
  Operand xv = make_operand(NDRT_F64, {6, 9}, Kind::Permuted, default_gen(NDRT_F64), rng);
  Tensor ybig = create(NDRT_F64, {9, 6});
  write_values(ybig, std::vector<double>(54, std::nan("")));
  Tensor yv = transpose(ybig, 0, 1);
  Tensor m8 = create(NDRT_U8, {6, 9});
  write_bytes(m8, poison_bytes(NDRT_U8, 54));
  std::vector<ndrt_handle> out = {yv.get(), m8.get()};
  ASSERT_OK(exec("dropout", {xv.view.get()}, out, Attrs{{8, 0}, {0.5}}));
  DropoutOut ref = dropout(contiguous(xv.view), 0.5, 8, 0);
  EXPECT_EQ(read_values(yv), read_values(ref.y));
  EXPECT_EQ(read_values(m8), read_values(ref.mask));
  Tensor inplace = contiguous(xv.view);
  std::vector<ndrt_handle> out2 = {inplace.get(), 0};
  ASSERT_OK(exec("dropout", {inplace.get()}, out2, Attrs{{8, 0}, {0.5}}));
  Tensor mask2(out2[1]);
  EXPECT_EQ(read_values(inplace), read_values(ref.y));
}

TEST(DropoutBp, MatchesReferenceEveryDtypeLayoutAndOutputKind) {
  std::mt19937 rng(23);
  const Shape s = {4, 3, 5};
  for (ndrt_dtype dt : cpu_dtypes("dropout_bp"))
    for (ndrt_dtype md : {NDRT_BOOL, NDRT_U8})
      for (Kind k : kAllKinds)
        for (OutKind ok : kAllOutKinds) {
          std::string what = std::string("dropout_bp ") + dtype_str(dt) + " mask " + dtype_str(md) + " " + kind_str(k) +
                             ", " + out_kind_str(ok);
          SCOPED_TRACE(what);
          Operand dy = make_operand(dt, s, k, default_gen(dt), rng);
          Operand mask = make_operand(md, s, k == Kind::Permuted ? Kind::Strided : k, uniform_gen(md, 0, 1), rng);
          const double p = 0.4;
          std::vector<double> want(dy.vals.size());
          for (size_t i = 0; i < want.size(); ++i) want[i] = mask.vals[i] != 0 ? dy.vals[i] / (1 - p) : 0.0;
          expect_close(run_out("dropout_bp", {&dy.view, &mask.view}, Attrs{{}, {p}}, dt, s, ok), want, dt,
                       default_tol(dt), what);
        }
  // Size 0 and rank 0.
  Tensor e = create(NDRT_F32, {0, 3}), em = create(NDRT_BOOL, {0, 3});
  EXPECT_EQ(run("dropout_bp", {&e, &em}, Attrs{{}, {0.5}}).numel(), 0);
  Tensor s0 = from_values(NDRT_F64, {}, {3.0}), m0 = from_values(NDRT_BOOL, {}, {1});
  EXPECT_EQ(read_values(run("dropout_bp", {&s0, &m0}, Attrs{{}, {0.25}})), std::vector<double>{4.0});
}

TEST(DropoutBp, FiniteDifferenceOfDropout) {
  // dropout is linear in x for a fixed seed: (f(x+h e) - f(x-h e)) / 2h projected on a random dy
  // equals <dropout_bp(dy, mask), e> for random directions e.
  std::mt19937 rng(99);
  const Shape s = {7, 11};
  const int64_t n = numel_of(s);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> x(static_cast<size_t>(n)), dy(static_cast<size_t>(n));
  for (auto& v : x) v = u(rng);
  for (auto& v : dy) v = u(rng);
  const double p = 0.3, h = 1e-3;
  auto f = [&](const std::vector<double>& xv) {
    Tensor t = from_values(NDRT_F64, s, xv);
    std::vector<double> y = read_values(dropout(t, p, 55, 1).y);
    return std::inner_product(y.begin(), y.end(), dy.begin(), 0.0);
  };
  Tensor xt = from_values(NDRT_F64, s, x), dyt = from_values(NDRT_F64, s, dy);
  DropoutOut o = dropout(xt, p, 55, 1);
  std::vector<double> dx = read_values(run("dropout_bp", {&dyt, &o.mask}, Attrs{{}, {p}}));
  for (int trial = 0; trial < 5; ++trial) {
    std::vector<double> e(static_cast<size_t>(n)), xp = x, xm = x;
    for (auto& v : e) v = u(rng);
    for (int64_t i = 0; i < n; ++i) {
      xp[size_t(i)] += h * e[size_t(i)];
      xm[size_t(i)] -= h * e[size_t(i)];
    }
    double fd = (f(xp) - f(xm)) / (2 * h);
    double an = std::inner_product(dx.begin(), dx.end(), e.begin(), 0.0);
    EXPECT_NEAR(fd, an, 1e-8 * (1 + std::fabs(an)));
  }
}

// ---------------------------------------------------------------------------------------------
// Bad attributes
// ---------------------------------------------------------------------------------------------

TEST(Random, BadAttributes) {
  auto bad = [](const char* op, Attrs a) { return try_run(op, {}, nullptr, a); };
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "uniform: low (2) must be below high (1)",
               bad("uniform", gen_attrs({2, 1}, 0, 0, NDRT_F32, {3})));
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "uniform: high must be finite, got inf",
               bad("uniform", gen_attrs({0, HUGE_VAL}, 0, 0, NDRT_F32, {3})));
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "uniform: high - low overflows (1e+308 - -1e+308)",
               bad("uniform", gen_attrs({-1e308, 1e308}, 0, 0, NDRT_F32, {3})));
  EXPECT_FAILS(NDRT_ERR_DTYPE_MISMATCH, "uniform: output dtype i32 is not a floating-point dtype",
               bad("uniform", gen_attrs({0, 1}, 0, 0, NDRT_I32, {3})));
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "uniform: offset is -4, must be >= 0",
               bad("uniform", gen_attrs({0, 1}, 0, -4, NDRT_F32, {3})));
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "uniform: shape [2,-1] has a negative extent",
               bad("uniform", gen_attrs({0, 1}, 0, 0, NDRT_F32, {2, -1})));
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "normal: std is -1, must be >= 0",
               bad("normal", gen_attrs({0, -1}, 0, 0, NDRT_F32, {3})));
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "truncated_normal: a (2) must be below b (-2)",
               bad("truncated_normal", gen_attrs({0, 1, 2, -2}, 0, 0, NDRT_F32, {3})));
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "truncated_normal: b must be finite, got inf",
               bad("truncated_normal", gen_attrs({0, 1, -2, HUGE_VAL}, 0, 0, NDRT_F32, {3})));
  EXPECT_FAILS(NDRT_ERR_NOT_SUPPORTED, "truncated_normal: no cpu kernel for dtype f16 (cpu has: f32, f64)",
               bad("truncated_normal", gen_attrs({0, 1, -2, 2}, 0, 0, NDRT_F16, {3})));
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "bernoulli: p is 1.5, must be in [0, 1]",
               bad("bernoulli", gen_attrs({1.5}, 0, 0, NDRT_F32, {3})));
  Tensor xi = create(NDRT_I32, {4});
  std::vector<ndrt_handle> out = {0, 0};
  EXPECT_FAILS(NDRT_ERR_DTYPE_MISMATCH, "dropout: needs a floating-point dtype, got i32",
               exec("dropout", {xi.get()}, out, Attrs{{}, {0.5}}));
  Tensor x = create(NDRT_F32, {4});
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "dropout: p is -0.1, must be in [0, 1]",
               exec("dropout", {x.get()}, out, Attrs{{}, {-0.1}}));
  Tensor mf = create(NDRT_F32, {4});
  std::vector<ndrt_handle> out2 = {0, mf.get()};
  EXPECT_FAILS(NDRT_ERR_DTYPE_MISMATCH, "dropout: the given mask has dtype f32, must be bool or u8",
               exec("dropout", {x.get()}, out2, Attrs{{}, {0.5}}));
  Tensor m3 = create(NDRT_BOOL, {3});
  EXPECT_FAILS(NDRT_ERR_SHAPE_MISMATCH, "dropout_bp: mask has shape [3] but dy has [4]",
               try_run("dropout_bp", {&x, &m3}, nullptr, Attrs{{}, {0.5}}));
  Tensor mi = create(NDRT_I32, {4});
  EXPECT_FAILS(NDRT_ERR_DTYPE_MISMATCH, "dropout_bp: mask has dtype i32, must be bool or u8",
               try_run("dropout_bp", {&x, &mi}, nullptr, Attrs{{}, {0.5}}));
  // Defaults: uniform on [0, 1) f32 rank 0, seed 0.
  Tensor t = run("uniform", {});
  EXPECT_EQ(t.dtype(), NDRT_F32);
  EXPECT_EQ(t.rank(), 0);
  EXPECT_EQ(read_values(t)[0], double(0x6627e8d5u >> 8) / 16777216.0);
}

}  // namespace
