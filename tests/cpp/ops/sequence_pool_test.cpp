// sequence_pool and sequence_pool_bp (max / avg / sum over time under a mask) against float64
// references on random data: NCW and NWC, masks with all-valid, all-masked and scattered rows,
// every operand layout, given / strided outputs poisoned beforehand, f32, f64, f16, bf16; the
// gradient by central differences (f64); NaN through max; size-0 batch, channels and time; errors.
#include <cmath>
#include <limits>

#include "common/ndrt_test.hpp"

using namespace nt;

namespace {

struct Geo {
  int64_t N, C, T;
  bool nwc;
  Shape xs() const { return nwc ? Shape{N, T, C} : Shape{N, C, T}; }
  size_t xi(int64_t n, int64_t c, int64_t t) const { return size_t(nwc ? (n * T + t) * C + c : (n * C + c) * T + t); }
};

// Mask rows: row 0 all valid, row 1 all masked (when N > 1), the others random with at least one valid step.
std::vector<double> make_mask(const Geo& g, std::mt19937& rng) {
  std::vector<double> m(size_t(g.N * g.T), 1.0);
  std::bernoulli_distribution valid(0.6);
  for (int64_t n = 1; n < g.N; ++n)
    for (int64_t t = 0; t < g.T; ++t) m[size_t(n * g.T + t)] = n == 1 ? 0.0 : (valid(rng) ? 1.0 : 0.0);
  return m;
}

struct Pooled {
  std::vector<double> y;
  std::vector<int64_t> arg, count;
};

Pooled ref_pool(const Geo& g, int mode, const std::vector<double>& x, const std::vector<double>& m) {
  Pooled p;
  p.y.assign(size_t(g.N * g.C), 0);
  p.arg.assign(p.y.size(), -1);
  p.count.assign(p.y.size(), 0);
  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t c = 0; c < g.C; ++c) {
      const size_t o = size_t(n * g.C + c);
      double acc = 0;
      for (int64_t t = 0; t < g.T; ++t) {
        if (m[size_t(n * g.T + t)] == 0) continue;
        const double v = x[g.xi(n, c, t)];
        if (mode != 0) acc += v;
        else if (p.arg[o] < 0 || v > acc) acc = v, p.arg[o] = t;
        ++p.count[o];
      }
      p.y[o] = p.count[o] == 0 ? 0 : mode == 1 ? acc / double(p.count[o]) : acc;
    }
  return p;
}

std::vector<double> ref_pool_bp(const Geo& g, int mode, const Pooled& p, const std::vector<double>& m,
                                const std::vector<double>& dy) {
  std::vector<double> dx(size_t(g.N * g.C * g.T), 0);
  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t c = 0; c < g.C; ++c) {
      const size_t o = size_t(n * g.C + c);
      for (int64_t t = 0; t < g.T; ++t) {
        const bool valid = m[size_t(n * g.T + t)] != 0;
        if (mode == 0) dx[g.xi(n, c, t)] = t == p.arg[o] ? dy[o] : 0;
        else if (valid) dx[g.xi(n, c, t)] = mode == 1 ? dy[o] / double(p.count[o]) : dy[o];
      }
    }
  return dx;
}

Attrs attrs(int mode, bool nwc) { return Attrs{{mode, nwc ? 1 : 0}, {}}; }

struct Case {
  ndrt_dtype d;
  int32_t nwc;
};

class SequencePool : public ::testing::TestWithParam<Case> {};

TEST_P(SequencePool, EveryModeAgainstReference) {
  const Case cs = GetParam();
  const ndrt_dtype d = cs.d;
  std::mt19937 rng(100 + 10 * d + cs.nwc);
  int variant = 0;
  for (Geo g : {Geo{4, 3, 7, false}, Geo{3, 17, 33, false}, Geo{5, 2, 1, false}, Geo{2, 9, 64, false}}) {
    g.nwc = cs.nwc;
    for (int mode : {0, 1, 2}) {
      SCOPED_TRACE(std::string(dtype_str(d)) + " x " + shape_str(g.xs()) + " mode " + std::to_string(mode));
      const std::vector<double> mv = make_mask(g, rng);
      Operand X = make_operand(d, g.xs(), kAllKinds[variant % 5], default_gen(d), rng);
      // Every layout but the expanded one (a stride-0 view cannot take the mask's values).
      const Kind mask_kinds[] = {Kind::Contig, Kind::Permuted, Kind::Strided, Kind::Offset};
      Operand M = make_operand(d, {g.N, g.T}, mask_kinds[variant % 4], default_gen(d), rng);
      write_values(M.view, mv);
      Operand DY = make_operand(d, {g.N, g.C}, kAllKinds[(variant + 1) % 5], default_gen(d), rng);
      const Pooled p = ref_pool(g, mode, X.vals, mv);
      // Sums of up to T rounded values: the tolerance grows with the row's magnitude.
      Tol tol = default_tol(d);
      if (mode == 2) tol.atol *= double(g.T);
      std::vector<double> y =
          run_out("sequence_pool", {&X.view, &M.view}, attrs(mode, g.nwc), d, {g.N, g.C}, kAllOutKinds[variant % 3]);
      expect_close(y, p.y, d, tol, "sequence_pool");
      std::vector<double> dx = run_out("sequence_pool_bp", {&X.view, &M.view, &DY.view}, attrs(mode, g.nwc), d, g.xs(),
                                       kAllOutKinds[(variant + 1) % 3]);
      expect_close(dx, ref_pool_bp(g, mode, p, mv, DY.vals), d, default_tol(d), "sequence_pool_bp");
      ++variant;
    }
  }
}

TEST_P(SequencePool, SizeZeroAxes) {
  const Case cs = GetParam();
  std::mt19937 rng(7);
  for (Geo g : {Geo{0, 3, 5, false}, Geo{2, 0, 5, false}, Geo{2, 3, 0, false}}) {
    g.nwc = cs.nwc;
    for (int mode : {0, 1, 2}) {
      SCOPED_TRACE(shape_str(g.xs()) + " mode " + std::to_string(mode));
      Tensor x = from_values(cs.d, g.xs(), {});
      Tensor m = from_values(cs.d, {g.N, g.T}, std::vector<double>(size_t(g.N * g.T), 1.0));
      Tensor dy = from_values(cs.d, {g.N, g.C}, std::vector<double>(size_t(g.N * g.C), 0.5));
      // T = 0: every row has no valid step, so y is 0.
      std::vector<double> y = run_out("sequence_pool", {&x, &m}, attrs(mode, g.nwc), cs.d, {g.N, g.C}, OutKind::Fresh);
      expect_close(y, std::vector<double>(y.size(), 0.0), cs.d, default_tol(cs.d), "y");
      std::vector<double> dx = run_out("sequence_pool_bp", {&x, &m, &dy}, attrs(mode, g.nwc), cs.d, g.xs(), OutKind::Fresh);
      EXPECT_EQ(dx.size(), 0u);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, SequencePool,
                         ::testing::Values(Case{NDRT_F32, 0}, Case{NDRT_F32, 1}, Case{NDRT_F64, 0}, Case{NDRT_F64, 1},
                                           Case{NDRT_F16, 0}, Case{NDRT_F16, 1}, Case{NDRT_BF16, 0},
                                           Case{NDRT_BF16, 1}),
                         [](const ::testing::TestParamInfo<Case>& i) {
                           return std::string(dtype_str(i.param.d)) + (i.param.nwc ? "_NWC" : "_NCW");
                         });

// <dy, sequence_pool(x)> by central differences against sequence_pool_bp (f64; max away from ties).
TEST(SequencePoolGrad, FiniteDifferencesF64) {
  std::mt19937 rng(11);
  for (bool nwc : {false, true})
    for (int mode : {0, 1, 2}) {
      const Geo g{4, 3, 9, nwc};
      SCOPED_TRACE("mode " + std::to_string(mode) + (nwc ? " NWC" : " NCW"));
      const std::vector<double> mv = make_mask(g, rng);
      Operand X = make_operand(NDRT_F64, g.xs(), Kind::Contig, default_gen(NDRT_F64), rng);
      Operand DY = make_operand(NDRT_F64, {g.N, g.C}, Kind::Contig, default_gen(NDRT_F64), rng);
      Tensor m = from_values(NDRT_F64, {g.N, g.T}, mv);
      const std::vector<double> dx = read_values(run("sequence_pool_bp", {&X.view, &m, &DY.view}, attrs(mode, nwc)));
      auto loss = [&](const std::vector<double>& x) {
        Tensor tx = from_values(NDRT_F64, g.xs(), x);
        const std::vector<double> y = read_values(run("sequence_pool", {&tx, &m}, attrs(mode, nwc)));
        double s = 0;
        for (size_t i = 0; i < y.size(); ++i) s += y[i] * DY.vals[i];
        return s;
      };
      const double h = 1e-6;
      std::vector<double> x = X.vals;
      for (size_t i = 0; i < x.size(); ++i) {
        const double keep = x[i];
        x[i] = keep + h;
        const double up = loss(x);
        x[i] = keep - h;
        const double down = loss(x);
        x[i] = keep;
        EXPECT_NEAR(dx[i], (up - down) / (2 * h), 1e-6) << "dx[" << i << "]";
      }
    }
}

TEST(SequencePoolNaN, MaxPropagatesNaNAndMaskedNaNIsIgnored) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // x [1, 2, 4]: channel 0 has a NaN at a valid step, channel 1 at a masked one.
  Tensor x = from_values(NDRT_F32, {1, 2, 4}, {1, nan, 3, 2, 5, 1, 2, nan});
  Tensor m = from_values(NDRT_F32, {1, 4}, {1, 1, 1, 0});
  const std::vector<double> y = read_values(run("sequence_pool", {&x, &m}, attrs(0, false)));
  ASSERT_EQ(y.size(), 2u);
  EXPECT_TRUE(std::isnan(y[0]));
  EXPECT_EQ(y[1], 5.0);
}

void expect_error(ndrt_status want, const char* op, const std::vector<const Tensor*>& in, const Attrs& a,
                  const std::string& msg) {
  EXPECT_STATUS(want, try_run(op, in, nullptr, a));
  EXPECT_EQ(std::string(ndrt_last_error()), msg);
}

TEST(SequencePoolErrors, BadShapesDtypesAndAttributesSayWhatIsWrong) {
  Tensor x = create(NDRT_F32, {2, 3, 5}), m = create(NDRT_F32, {2, 5}), dy = create(NDRT_F32, {2, 3});
  Tensor x2 = create(NDRT_F32, {2, 15}), m64 = create(NDRT_F64, {2, 5}), mt = create(NDRT_F32, {2, 4});
  Tensor xi = create(NDRT_I32, {2, 3, 5}), mi = create(NDRT_I32, {2, 5}), dyb = create(NDRT_F32, {3, 2});
  expect_error(NDRT_ERR_SHAPE_MISMATCH, "sequence_pool", {&x2, &m}, attrs(0, false),
               "sequence_pool: x must be rank 3 ([batch, channels, time]), got [2,15]");
  expect_error(NDRT_ERR_SHAPE_MISMATCH, "sequence_pool", {&x, &mt}, attrs(1, false),
               "sequence_pool: mask must be [batch, time] = [2, 5] for x [2,3,5], got [2,4]");
  expect_error(NDRT_ERR_SHAPE_MISMATCH, "sequence_pool", {&x, &m}, attrs(1, true),
               "sequence_pool: mask must be [batch, time] = [2, 3] for x [2,3,5], got [2,5]");
  expect_error(NDRT_ERR_DTYPE_MISMATCH, "sequence_pool", {&x, &m64}, attrs(0, false),
               "sequence_pool: input 1 is f64 but input 0 is f32 (cast explicitly)");
  expect_error(NDRT_ERR_DTYPE_MISMATCH, "sequence_pool", {&xi, &mi}, attrs(0, false),
               "sequence_pool: needs a floating-point dtype, got i32");
  expect_error(NDRT_ERR_INVALID_ARGUMENT, "sequence_pool", {&x, &m}, attrs(3, false),
               "sequence_pool: attribute 'mode' must be 0 (max), 1 (avg) or 2 (sum), got 3");
  expect_error(NDRT_ERR_INVALID_ARGUMENT, "sequence_pool", {&x, &m}, attrs(0, true) = Attrs{{0, 2}, {}},
               "sequence_pool: attribute 'layout' must be 0 (NCW) or 1 (NWC), got 2");
  expect_error(NDRT_ERR_SHAPE_MISMATCH, "sequence_pool_bp", {&x, &m, &dyb}, attrs(0, false),
               "sequence_pool_bp: dy has shape [3,2] but the forward output is [2,3]");
}

}  // namespace
