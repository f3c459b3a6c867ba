// max_pool2d, avg_pool2d (padding excluded or counted), their _bp ops, im2col and col2im against
// float64 references: kernel/stride/padding/"same" combinations, overlapping windows, global
// pooling, NCHW and NHWC, odd sizes, non-contiguous inputs, given / strided outputs poisoned
// beforehand, size-0 axes, every float dtype; NaN propagation and tie-breaking of max (bit for bit,
// -0/+0 and infinities too, at 1 and 2 threads); the geometries of max pooling's 2x2 path and that
// it runs exactly there; finite differences in f64; im2col/col2im adjointness; attribute and shape
// errors.
#include <cstring>
#include <limits>

#include "conv_test_util.hpp"

using namespace nt;
using ct::Geo;
using ct::geo;

namespace {

// Pool geometry: k = c (one output channel per input channel).
Geo pgeo(int64_t n, int64_t c, int64_t h, int64_t w, int64_t kh, int64_t kw) { return geo(n, c, h, w, c, kh, kw); }

std::vector<Geo> pool_configs() {
  return {
      pgeo(2, 3, 8, 8, 2, 2).stride(2, 2),
      pgeo(2, 3, 9, 7, 3, 3).stride(2, 2).padding({1, 1}),
      pgeo(1, 4, 7, 6, 3, 3).stride(1, 1).same_pad(),
      pgeo(3, 2, 6, 9, 2, 3).stride(1, 2).padding({1, 0, 0, 2}),
      pgeo(2, 5, 10, 11, 3, 3).stride(3, 3).same_pad(),
      pgeo(3, 4, 5, 6, 5, 6).stride(1, 1),  // global pooling
      pgeo(2, 3, 7, 5, 1, 1).stride(2, 2),
      pgeo(2, 16, 17, 19, 3, 3).stride(2, 2).padding({1, 1}),
      pgeo(2, 3, 6, 6, 4, 4).stride(1, 1).padding({3, 3}),  // windows mostly padding
  };
}

// Geometries of max pooling's own 2x2 / stride 2 path (kernels/cpu/conv_pool_2x2.cpp, NCHW f32 in
// AVX2 over two quads of 4 windows): quads paired across rows and planes (even H), plane by plane
// (odd H: a row no window reaches), an odd last quad, rows ending in OW % 4 single windows, odd W (a
// column no window reaches), bottom/right padding no window touches, "same" on even sizes, LeNet's
// pools, and channel counts past a vector for NHWC.
std::vector<Geo> pool2x2_configs() {
  return {
      pgeo(2, 3, 8, 24, 2, 2).stride(2, 2),
      pgeo(2, 3, 9, 19, 2, 2).stride(2, 2),
      pgeo(1, 5, 6, 8, 2, 2).stride(2, 2),
      pgeo(2, 2, 7, 8, 2, 2).stride(2, 2),
      pgeo(2, 3, 8, 10, 2, 2).stride(2, 2).padding({0, 1, 0, 1}),
      pgeo(1, 3, 6, 16, 2, 2).stride(2, 2).same_pad(),
      pgeo(2, 17, 6, 7, 2, 2).stride(2, 2),
      pgeo(3, 4, 24, 24, 2, 2).stride(2, 2),
      pgeo(3, 5, 8, 8, 2, 2).stride(2, 2),
  };
}

// Window of (p, q) clipped to the image.
struct Win {
  int64_t h0, h1, w0, w1;
};
Win win(const Geo& g, int64_t p, int64_t q) {
  const int64_t h0 = p * g.sh - g.pt, w0 = q * g.sw - g.pl;
  return {std::max<int64_t>(h0, 0), std::min(h0 + g.kh, g.h), std::max<int64_t>(w0, 0), std::min(w0 + g.kw, g.w)};
}

// Reference forward (max or avg) and backward. Max backward: the first maximum in row-major window
// order gets dy; a NaN counts as the maximum.
struct PoolRef {
  std::vector<double> y, dx;
};
PoolRef pool_ref(const Geo& g, bool max, bool include_pad, const std::vector<double>& x, const std::vector<double>& dy) {
  PoolRef r;
  r.y.assign(size_t(numel_of(g.ys())), 0);
  r.dx.assign(size_t(numel_of(g.xs())), 0);
  for (int64_t b = 0; b < g.n; ++b)
    for (int64_t c = 0; c < g.c; ++c)
      for (int64_t p = 0; p < g.oh; ++p)
        for (int64_t q = 0; q < g.ow; ++q) {
          const Win wn = win(g, p, q);
          const size_t yi = g.yi(b, c, p, q);
          const double div = include_pad ? double(g.kh * g.kw) : double((wn.h1 - wn.h0) * (wn.w1 - wn.w0));
          size_t best = g.xi(b, c, wn.h0, wn.w0);
          double acc = max ? x[best] : 0;
          for (int64_t i = wn.h0; i < wn.h1; ++i)
            for (int64_t j = wn.w0; j < wn.w1; ++j) {
              const size_t xi = g.xi(b, c, i, j);
              if (!max) {
                acc += x[xi];
                r.dx[xi] += dy.empty() ? 0 : dy[yi] / div;
              } else if (x[xi] > acc || (std::isnan(x[xi]) && !std::isnan(acc))) {
                acc = x[xi];
                best = xi;
              }
            }
          r.y[yi] = max ? acc : acc / div;
          if (max && !dy.empty()) r.dx[best] += dy[yi];
        }
  return r;
}

struct Case {
  ndrt_dtype d;
  int32_t nhwc;  // not bool: no padding bytes, so gtest prints the parameter the same in every run
};
std::string case_name(const ::testing::TestParamInfo<Case>& i) {
  return std::string(dtype_str(i.param.d)) + (i.param.nhwc ? "_NHWC" : "_NCHW");
}

void check_pool(ndrt_dtype d, Geo g0, int variant, std::mt19937& rng) {
  const Geo g = g0.resolve();
  const std::string what = std::string(dtype_str(d)) + " " + g.str();
  SCOPED_TRACE(what);
  Operand X = make_operand(d, g.xs(), kAllKinds[variant % 5], default_gen(d), rng);
  Operand DY = make_operand(d, g.ys(), kAllKinds[(variant + 2) % 5], default_gen(d), rng);
  const Tol tol = default_tol(d);
  // Sums of at most kh*kw terms, then a division: a few roundings of the dtype.
  const Tol sum_tol{tol.rtol * 4, tol.atol * 4};
  for (int mode = 0; mode < 3; ++mode) {  // max, avg excluding padding, avg counting it
    const bool max = mode == 0, inc = mode == 2;
    const Attrs a = ct::pool_attrs(g, !max, inc);
    const PoolRef r = pool_ref(g, max, inc, X.vals, DY.vals);
    const char* fwd = max ? "max_pool2d" : "avg_pool2d";
    const char* bwd = max ? "max_pool2d_bp" : "avg_pool2d_bp";
    std::vector<double> got = run_out(fwd, {&X.view}, a, d, g.ys(), kAllOutKinds[(variant + mode) % 3]);
    expect_close(got, r.y, d, max ? Tol{0, 0} : sum_tol, std::string(fwd) + " " + what + " mode " + std::to_string(mode));
    got = run_out(bwd, {&X.view, &DY.view}, a, d, g.xs(), kAllOutKinds[(variant + mode + 1) % 3]);
    expect_close(got, r.dx, d, sum_tol, std::string(bwd) + " " + what + " mode " + std::to_string(mode));
  }
}

class Pool : public ::testing::TestWithParam<Case> {};

TEST_P(Pool, ForwardAndBackwardAgainstReference) {
  const Case c = GetParam();
  std::mt19937 rng(99 + 10 * c.d + c.nhwc);
  int variant = 0;
  for (Geo g : pool_configs()) check_pool(c.d, g.layout(c.nhwc), variant++, rng);
  for (Geo g : pool2x2_configs()) check_pool(c.d, g.layout(c.nhwc), variant++, rng);
  // Size-0 batch, channels and (with same padding) image.
  for (Geo g : {pgeo(0, 3, 4, 4, 2, 2).stride(2, 2), pgeo(2, 0, 4, 4, 2, 2).stride(2, 2),
                pgeo(2, 3, 0, 4, 2, 2).stride(2, 2).same_pad()})
    check_pool(c.d, g.layout(c.nhwc), variant++, rng);
}

INSTANTIATE_TEST_SUITE_P(Ops, Pool,
                         ::testing::Values(Case{NDRT_F32, false}, Case{NDRT_F32, true}, Case{NDRT_F64, false},
                                           Case{NDRT_F64, true}, Case{NDRT_F16, false}, Case{NDRT_F16, true},
                                           Case{NDRT_BF16, false}, Case{NDRT_BF16, true}),
                         case_name);

TEST(PoolDefaults, StridesDefaultToTheKernel) {
  std::mt19937 rng(3);
  const Geo g = pgeo(2, 3, 7, 9, 3, 2).stride(3, 2).resolve();
  Operand X = make_operand(NDRT_F32, g.xs(), Kind::Contig, default_gen(NDRT_F32), rng);
  Attrs a{{2, 3, 2}, {}};  // kernel only; strides empty -> [3, 2]
  std::vector<double> got = run_out("max_pool2d", {&X.view}, a, NDRT_F32, g.ys(), OutKind::Fresh);
  expect_close(got, pool_ref(g, true, false, X.vals, {}).y, NDRT_F32, Tol{0, 0}, "default strides");
}

TEST(PoolMax, NaNPropagatesAndTiesGoToTheFirstMaximum) {
  // One 1x1x4x4 image, 2x2 windows, stride 2.
  const Geo g = pgeo(1, 1, 4, 4, 2, 2).stride(2, 2).resolve();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> x = {1, 5, 2, 2,  //
                           5, 0, 2, 2,  //
                           3, nan, 7, -1,
                           4, 9, -1, 7};
  std::vector<double> dy = {10, 20, 30, 40};
  for (ndrt_dtype d : {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16}) {
    SCOPED_TRACE(dtype_str(d));
    Tensor tx = from_values(d, g.xs(), x), tdy = from_values(d, g.ys(), dy);
    const Attrs a = ct::pool_attrs(g, false, false);
    std::vector<double> y = read_values(run("max_pool2d", {&tx}, a));
    EXPECT_EQ(y[0], 5);
    EXPECT_EQ(y[1], 2);
    EXPECT_TRUE(std::isnan(y[2]));
    EXPECT_EQ(y[3], 7);
    std::vector<double> dx = read_values(run("max_pool2d_bp", {&tx, &tdy}, a));
    const std::vector<double> want = {0, 10, 20, 0,  //
                                      0, 0, 0, 0,    //
                                      0, 30, 40, 0,  //
                                      0, 0, 0, 0};
    for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(dx[i], want[i]) << i;
  }
}

// Same values, same bits as the reference (so -0 and +0 differ); NaN matches NaN.
void expect_same(const std::vector<double>& got, const std::vector<double>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  int bad = 0;
  for (size_t i = 0; i < got.size() && bad < 10; ++i) {
    const bool ok = std::isnan(want[i]) ? std::isnan(got[i])
                                        : got[i] == want[i] && std::signbit(got[i]) == std::signbit(want[i]);
    if (!ok) ADD_FAILURE() << what << " [" << i << "]: got " << got[i] << ", want " << want[i], ++bad;
  }
}

// Max pooling on windows full of ties (+0 against -0 too), infinities and NaNs, at 1 and 2 threads,
// on the 2x2 path's geometries and general ones (overlapping windows, padding): y is the first
// maximum in row-major window order, or NaN; dx sums 0 + dy over the windows whose first maximum or
// first NaN an element is (so a -0 dy arrives as +0), +0 elsewhere (sums of these dy are exact).
// Every output kind, and a given output filled with a non-NaN value, so a NaN the kernel never wrote
// cannot pass as a NaN it did.
TEST(PoolMax, TiesInfinitiesAndNaNBitForBit) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const Gen xgen = [=](std::mt19937& r) {
    static const double v[] = {-1, 0, -0.0, 1, 2, 2, 0.5, inf, -inf, nan, 1, -1};
    return v[r() % 12];
  };
  const Gen dygen = [=](std::mt19937& r) {
    static const double v[] = {-0.0, 1, -2, 3.5, 0.25, nan, 0.0, -1};
    return v[r() % 8];
  };
  std::vector<Geo> geos = pool2x2_configs();
  geos.push_back(pgeo(4, 20, 24, 24, 2, 2).stride(2, 2));  // big enough to split across threads
  geos.push_back(pgeo(4, 20, 25, 24, 2, 2).stride(2, 2));  // the same plane by plane
  for (const Geo& g : {pgeo(2, 9, 9, 7, 3, 3).stride(2, 2).padding({1, 1}), pgeo(2, 3, 9, 9, 3, 3).stride(3, 3),
                       pgeo(1, 4, 7, 6, 3, 3).stride(1, 1).same_pad(), pgeo(2, 3, 5, 5, 2, 2).stride(2, 2).same_pad(),
                       pgeo(3, 2, 6, 9, 2, 3).stride(1, 2).padding({1, 0, 0, 2})})
    geos.push_back(g);
  char old[32];
  size_t need = 0;
  NT_CHECK(ndrt_config_get("cpu.threads", old, sizeof old, &need));
  std::mt19937 rng(5);
  int variant = 0;
  for (const char* threads : {"1", "2"}) {
    NT_CHECK(ndrt_config_set("cpu.threads", threads));
    for (ndrt_dtype d : {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16})
      for (bool nhwc : {false, true})
        for (Geo g0 : geos) {
          const Geo g = g0.layout(nhwc).resolve();
          const std::string what = std::string(dtype_str(d)) + " " + g.str() + " threads " + threads;
          SCOPED_TRACE(what);
          Operand X = make_operand(d, g.xs(), kAllKinds[variant % 5], xgen, rng);
          Operand DY = make_operand(d, g.ys(), kAllKinds[(variant + 3) % 5], dygen, rng);
          const Attrs a = ct::pool_attrs(g, false, false);
          const PoolRef r = pool_ref(g, true, false, X.vals, DY.vals);
          expect_same(run_out("max_pool2d", {&X.view}, a, d, g.ys(), kAllOutKinds[variant % 3]), r.y, "y " + what);
          expect_same(run_out("max_pool2d_bp", {&X.view, &DY.view}, a, d, g.xs(), kAllOutKinds[(variant + 1) % 3]),
                      r.dx, "dx " + what);
          Tensor y = from_values(d, g.ys(), std::vector<double>(r.y.size(), 99.0));
          run_into("max_pool2d", {&X.view}, y, a);
          expect_same(read_values(y), r.y, "y given " + what);
          ++variant;
        }
  }
  NT_CHECK(ndrt_config_set("cpu.threads", old));
}

// The profiler names the 2x2 path (ndrt:pool_2x2) for each of pool2x2_configs(), forward and
// backward, and the general loops (ndrt:pool_direct) where it does not apply.
TEST(PoolMax, TwoByTwoPathRunsWhereItApplies) {
  std::mt19937 rng(8);
  auto impls = [&](const Geo& g, bool avg) {
    Operand X = make_operand(NDRT_F32, g.xs(), Kind::Contig, default_gen(NDRT_F32), rng);
    Operand DY = make_operand(NDRT_F32, g.ys(), Kind::Contig, default_gen(NDRT_F32), rng);
    const Attrs a = ct::pool_attrs(g, avg, false);
    return ct::impl_of(avg ? "avg_pool2d" : "max_pool2d", {&X.view}, a) + " / " +
           ct::impl_of(avg ? "avg_pool2d_bp" : "max_pool2d_bp", {&X.view, &DY.view}, a);
  };
  for (bool nhwc : {false, true}) {
    for (Geo g0 : pool2x2_configs()) {
      const Geo g = g0.layout(nhwc).resolve();
      const std::string got = impls(g, false);
      EXPECT_TRUE(ct::contains(got, "ndrt:pool_2x2") && !ct::contains(got, "ndrt:pool_direct"))
          << g.str() << ": " << got;
      EXPECT_TRUE(ct::contains(impls(g, true), "ndrt:pool_direct")) << "avg " << g.str();
    }
    for (Geo g0 : {pgeo(2, 3, 5, 5, 2, 2).stride(2, 2).same_pad(), pgeo(2, 3, 8, 8, 2, 2).stride(2, 2).padding({1, 1}),
                   pgeo(2, 3, 8, 8, 2, 2).stride(1, 1), pgeo(2, 3, 8, 8, 3, 3).stride(2, 2), pgeo(2, 3, 8, 8, 2, 1)}) {
      const Geo g = g0.layout(nhwc).resolve();
      const std::string got = impls(g, false);
      EXPECT_TRUE(!ct::contains(got, "ndrt:pool_2x2") && ct::contains(got, "ndrt:pool_direct"))
          << g.str() << ": " << got;
    }
  }
}

// <dy, pool(x)> by central differences against the _bp ops (f64; distinct values, no ties).
TEST(PoolGrad, FiniteDifferencesF64) {
  std::mt19937 rng(11);
  for (bool nhwc : {false, true})
    for (Geo g0 : {pgeo(2, 3, 7, 6, 3, 3).stride(2, 1).padding({1, 1}), pgeo(1, 2, 5, 5, 2, 2).same_pad()}) {
      const Geo g = g0.layout(nhwc).resolve();
      SCOPED_TRACE(g.str());
      Operand X = make_operand(NDRT_F64, g.xs(), Kind::Contig, default_gen(NDRT_F64), rng);
      Operand DY = make_operand(NDRT_F64, g.ys(), Kind::Contig, default_gen(NDRT_F64), rng);
      for (int mode = 0; mode < 3; ++mode) {
        const bool max = mode == 0;
        const Attrs a = ct::pool_attrs(g, !max, mode == 2);
        const char* fwd = max ? "max_pool2d" : "avg_pool2d";
        std::vector<double> dx = read_values(run(max ? "max_pool2d_bp" : "avg_pool2d_bp", {&X.view, &DY.view}, a));
        auto loss = [&](const std::vector<double>& x) {
          Tensor t = from_values(NDRT_F64, g.xs(), x);
          std::vector<double> y = read_values(run(fwd, {&t}, a));
          double s = 0;
          for (size_t i = 0; i < y.size(); ++i) s += y[i] * DY.vals[i];
          return s;
        };
        std::vector<double> x = X.vals;
        const double h = 1e-7;
        for (size_t i = 0; i < x.size(); ++i) {
          const double keep = x[i];
          x[i] = keep + h;
          const double up = loss(x);
          x[i] = keep - h;
          const double down = loss(x);
          x[i] = keep;
          EXPECT_NEAR(dx[i], (up - down) / (2 * h), 1e-6 * (1 + std::fabs(dx[i]))) << fwd << " x[" << i << "]";
        }
      }
    }
}

// ---------------------------------------------------------------------------------------------
// im2col / col2im
// ---------------------------------------------------------------------------------------------

Shape col_shape(const Geo& g) {
  return g.nhwc ? Shape{g.n, g.oh, g.ow, g.kh, g.kw, g.c} : Shape{g.n, g.c, g.kh, g.kw, g.oh, g.ow};
}
size_t col_index(const Geo& g, int64_t b, int64_t c, int64_t i, int64_t j, int64_t p, int64_t q) {
  return size_t(g.nhwc ? ((((b * g.oh + p) * g.ow + q) * g.kh + i) * g.kw + j) * g.c + c
                       : ((((b * g.c + c) * g.kh + i) * g.kw + j) * g.oh + p) * g.ow + q);
}
// Calls f(col_index, x_index or -1 for padding) for every column element.
template <class F>
void for_cols(const Geo& g, F&& f) {
  for (int64_t b = 0; b < g.n; ++b)
    for (int64_t c = 0; c < g.c; ++c)
      for (int64_t i = 0; i < g.kh; ++i)
        for (int64_t j = 0; j < g.kw; ++j)
          for (int64_t p = 0; p < g.oh; ++p)
            for (int64_t q = 0; q < g.ow; ++q) {
              const int64_t y = p * g.sh - g.pt + i * g.dh, x = q * g.sw - g.pl + j * g.dw;
              const bool in = y >= 0 && y < g.h && x >= 0 && x < g.w;
              f(col_index(g, b, c, i, j, p, q), in ? int64_t(g.xi(b, c, y, x)) : int64_t(-1));
            }
}

std::vector<Geo> col_configs() {
  return {
      geo(2, 3, 7, 6, 1, 3, 3),
      geo(1, 4, 9, 8, 1, 3, 2).stride(2, 3).padding({1, 0, 2, 1}),
      geo(2, 2, 7, 9, 1, 4, 3).stride(2, 2).same_pad(),
      geo(2, 3, 10, 9, 1, 3, 3).dilation(2, 3).padding({2, 1}),
      geo(3, 5, 5, 6, 1, 1, 1),
      geo(1, 2, 2, 3, 1, 4, 4).padding({1, 1}),
      geo(0, 2, 5, 5, 1, 2, 2),
  };
}

class Col : public ::testing::TestWithParam<Case> {};

TEST_P(Col, Im2colAndCol2imAgainstReference) {
  const Case c = GetParam();
  std::mt19937 rng(700 + 10 * c.d + c.nhwc);
  int variant = 0;
  for (Geo g0 : col_configs()) {
    const Geo g = g0.layout(c.nhwc).resolve();
    const std::string what = std::string(dtype_str(c.d)) + " " + g.str();
    SCOPED_TRACE(what);
    Operand X = make_operand(c.d, g.xs(), kAllKinds[variant % 5], default_gen(c.d), rng);
    Operand COL = make_operand(c.d, col_shape(g), kAllKinds[(variant + 1) % 5], default_gen(c.d), rng);
    std::vector<double> want_col(size_t(numel_of(col_shape(g))), 0), want_x(size_t(numel_of(g.xs())), 0);
    for_cols(g, [&](size_t ci, int64_t xi) {
      if (xi < 0) return;
      want_col[ci] = X.vals[size_t(xi)];
      want_x[size_t(xi)] += COL.vals[ci];
    });
    std::vector<double> got = run_out("im2col", {&X.view}, ct::col_attrs(g, false), c.d, col_shape(g),
                                      kAllOutKinds[variant % 3]);
    expect_close(got, want_col, c.d, Tol{0, 0}, "im2col " + what);
    got = run_out("col2im", {&COL.view}, ct::col_attrs(g, true), c.d, g.xs(), kAllOutKinds[(variant + 1) % 3]);
    const Tol t = default_tol(c.d);
    expect_close(got, want_x, c.d, Tol{t.rtol * 4, t.atol * 4}, "col2im " + what);
    ++variant;
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, Col,
                         ::testing::Values(Case{NDRT_F32, false}, Case{NDRT_F32, true}, Case{NDRT_F64, false},
                                           Case{NDRT_F64, true}, Case{NDRT_F16, false}, Case{NDRT_BF16, true}),
                         case_name);

// col2im is im2col's adjoint (so each is the other's gradient): <im2col(x), c> = <x, col2im(c)>.
TEST(ColGrad, Col2imIsTheAdjointOfIm2col) {
  std::mt19937 rng(17);
  for (bool nhwc : {false, true})
    for (Geo g0 : col_configs()) {
      const Geo g = g0.layout(nhwc).resolve();
      SCOPED_TRACE(g.str());
      Operand X = make_operand(NDRT_F64, g.xs(), Kind::Contig, default_gen(NDRT_F64), rng);
      Operand C = make_operand(NDRT_F64, col_shape(g), Kind::Contig, default_gen(NDRT_F64), rng);
      std::vector<double> ix = read_values(run("im2col", {&X.view}, ct::col_attrs(g, false)));
      std::vector<double> cx = read_values(run("col2im", {&C.view}, ct::col_attrs(g, true)));
      double lhs = 0, rhs = 0, mag = 0;
      for (size_t i = 0; i < ix.size(); ++i) lhs += ix[i] * C.vals[i], mag += std::fabs(ix[i] * C.vals[i]);
      for (size_t i = 0; i < cx.size(); ++i) rhs += X.vals[i] * cx[i];
      EXPECT_NEAR(lhs, rhs, 1e-12 * (1 + mag));
    }
}

// ---------------------------------------------------------------------------------------------
// conv2d_bias_max_pool2x2 and max_pool2x2_bp_index
// ---------------------------------------------------------------------------------------------

// Runs conv2d_bias_max_pool2x2 into outputs prefilled with 99 / 7 (so a window the kernel skipped
// shows); y and index.
std::pair<Tensor, Tensor> conv_pool(const Tensor& x, const Tensor& w, const Tensor& b, const Shape& pooled) {
  Tensor y = from_values(NDRT_F32, pooled, std::vector<double>(size_t(numel_of(pooled)), 99.0));
  Tensor idx = from_values(NDRT_U8, pooled, std::vector<double>(size_t(numel_of(pooled)), 7.0));
  std::vector<ndrt_handle> out = {y.get(), idx.get()};
  NT_CHECK(exec("conv2d_bias_max_pool2x2", {x.get(), w.get(), b.get()}, out));
  return {std::move(y), std::move(idx)};
}

// The fused op gives exactly conv2d_bias then max_pool2d (its convolution is the direct kernel, or
// where that does not apply, ndrt's own), each window's winner where max_pool2d_bp sends the
// gradient, and max_pool2x2_bp_index exactly max_pool2d_bp's dx; y against a float64 reference.
// Random data, then with ties (integers) and NaNs; the direct kernel's geometries (LeNet's two,
// pooled rows odd so a tile repeats its last pair, output channels not a multiple of 5, 1x1 and
// wide kernels) and ones it does not take (output width 6 and 10); 1 and 2 threads.
TEST(ConvPool, FusedOpIsConvolutionThenPoolingBitForBit) {
  struct Case {
    Geo g;
    bool direct;
  };
  const std::vector<Case> cases = {
      {geo(3, 1, 28, 28, 20, 5, 5), true},   {geo(3, 20, 12, 12, 50, 5, 5), true}, {geo(2, 3, 14, 20, 7, 3, 5), true},
      {geo(2, 3, 10, 9, 4, 3, 2), true},     {geo(2, 4, 8, 8, 3, 1, 1), true},     {geo(1, 2, 8, 15, 6, 3, 8), true},
      {geo(2, 2, 7, 9, 3, 2, 4), false},     {geo(2, 3, 10, 12, 5, 3, 3), false},
  };
  char old[32], direct[8];
  size_t need = 0;
  NT_CHECK(ndrt_config_get("cpu.direct_conv", direct, sizeof direct, &need));
  const bool avx512 = std::string(direct) == "1";
  NT_CHECK(ndrt_config_get("cpu.threads", old, sizeof old, &need));
  std::mt19937 rng(21);
  for (const char* threads : {"1", "2"}) {
    NT_CHECK(ndrt_config_set("cpu.threads", threads));
    for (const Case& cs : cases)
      for (int data = 0; data < 3; ++data) {  // random, ties, NaNs
        const Geo g = cs.g.resolve();
        const std::string what = g.str() + " data " + std::to_string(data) + " threads " + threads;
        SCOPED_TRACE(what);
        const Gen gen = data == 1 ? Gen([](std::mt19937& r) { return double(int(r() % 5) - 2); }) : default_gen(NDRT_F32);
        std::vector<double> xv(size_t(numel_of(g.xs()))), wv(size_t(numel_of(g.ws()))), bv(size_t(g.k));
        for (double& v : xv) v = gen(rng);
        for (double& v : wv) v = gen(rng);
        for (double& v : bv) v = gen(rng);
        if (data == 2)
          for (int i = 0; i < 3; ++i) xv[rng() % xv.size()] = std::numeric_limits<double>::quiet_NaN();
        Tensor x = from_values(NDRT_F32, g.xs(), xv), w = from_values(NDRT_F32, g.ws(), wv);
        Tensor b = from_values(NDRT_F32, {g.k}, bv);
        const Shape pooled = {g.n, g.k, g.oh / 2, g.ow / 2};
        NT_CHECK(ndrt_profiler_clear());
        NT_CHECK(ndrt_profiler_enable(1));
        auto [y, idx] = conv_pool(x, w, b, pooled);
        NT_CHECK(ndrt_profiler_enable(0));
        const std::string impl = ct::profiled_impls();
        NT_CHECK(ndrt_profiler_clear());
        EXPECT_TRUE(ct::contains(impl, cs.direct && avx512 ? "ndrt:direct+pool" : "ndrt:conv+pool")) << impl;
        // The separate ops on ndrt's convolution (the one the fused op runs).
        Tensor z = run("conv2d_bias", {&x, &w, &b}, ct::conv_attrs(g, 1));
        const Attrs pa = ct::pool_attrs(pgeo(g.n, g.k, g.oh, g.ow, 2, 2).stride(2, 2).resolve(), false, false);
        expect_same(read_values(y), read_values(run("max_pool2d", {&z}, pa)), "y " + what);
        Tensor dy = from_values(NDRT_F32, pooled, [&] {
          std::vector<double> v(size_t(numel_of(pooled)));
          for (double& e : v) e = default_gen(NDRT_F32)(rng);
          return v;
        }());
        const std::vector<double> dx_want = read_values(run("max_pool2d_bp", {&z, &dy}, pa));
        expect_same(read_values(run("max_pool2x2_bp_index", {&dy, &idx})), dx_want, "dx " + what);
        // Each window's winner is the element max_pool2d_bp gives a gradient of 1.
        Tensor ones = from_values(NDRT_F32, pooled, std::vector<double>(size_t(numel_of(pooled)), 1.0));
        const std::vector<double> hit = read_values(run("max_pool2d_bp", {&z, &ones}, pa));
        const std::vector<double> got_idx = read_values(idx);
        int bad = 0;
        for (int64_t pl = 0; pl < g.n * g.k && bad < 5; ++pl)
          for (int64_t p = 0; p < g.oh / 2; ++p)
            for (int64_t q = 0; q < g.ow / 2; ++q) {
              int want = -1;
              for (int e = 3; e >= 0; --e)
                if (hit[size_t((pl * g.oh + 2 * p + e / 2) * g.ow + 2 * q + e % 2)] == 1.0) want = e;
              const double got = got_idx[size_t((pl * (g.oh / 2) + p) * (g.ow / 2) + q)];
              if (got != want) ADD_FAILURE() << what << " window " << pl << "," << p << "," << q << ": index " << got << ", want " << want, ++bad;
            }
        if (data == 0) {  // against the float64 convolution, then the max of each window
          const ct::Ref r = ct::conv_ref(g, xv, wv, &bv);
          const std::vector<double> yv = read_values(y);
          for (int64_t pl = 0; pl < g.n * g.k; ++pl)
            for (int64_t p = 0; p < g.oh / 2; ++p)
              for (int64_t q = 0; q < g.ow / 2; ++q) {
                double m = -std::numeric_limits<double>::infinity(), tol = 0;
                for (int e = 0; e < 4; ++e) {
                  const size_t zi = size_t((pl * g.oh + 2 * p + e / 2) * g.ow + 2 * q + e % 2);
                  m = std::max(m, r.want[zi]);
                  tol = std::max(tol, 1e-5 * r.mag[zi] + 1e-6);
                }
                ASSERT_NEAR(yv[size_t((pl * (g.oh / 2) + p) * (g.ow / 2) + q)], m, tol) << what;
              }
        }
      }
  }
  NT_CHECK(ndrt_config_set("cpu.threads", old));
}

// max_pool2x2_bp_index in f64 too, on winners from f64 data (the fused forward is f32 only).
TEST(ConvPool, BackwardFromIndexF64) {
  std::mt19937 rng(4);
  const Geo g = pgeo(2, 3, 6, 10, 2, 2).stride(2, 2).resolve();
  Operand X = make_operand(NDRT_F64, g.xs(), Kind::Contig, default_gen(NDRT_F64), rng);
  Operand DY = make_operand(NDRT_F64, g.ys(), Kind::Contig, default_gen(NDRT_F64), rng);
  const Attrs pa = ct::pool_attrs(g, false, false);
  Tensor ones = from_values(NDRT_F64, g.ys(), std::vector<double>(size_t(numel_of(g.ys())), 1.0));
  const std::vector<double> hit = read_values(run("max_pool2d_bp", {&X.view, &ones}, pa));
  std::vector<double> idx(size_t(numel_of(g.ys())));
  for (int64_t pl = 0; pl < g.n * g.c; ++pl)
    for (int64_t p = 0; p < g.oh; ++p)
      for (int64_t q = 0; q < g.ow; ++q)
        for (int e = 0; e < 4; ++e)
          if (hit[size_t((pl * g.h + 2 * p + e / 2) * g.w + 2 * q + e % 2)] == 1.0) idx[size_t((pl * g.oh + p) * g.ow + q)] = e;
  Tensor ti = from_values(NDRT_U8, g.ys(), idx);
  expect_same(read_values(run("max_pool2x2_bp_index", {&DY.view, &ti})),
              read_values(run("max_pool2d_bp", {&X.view, &DY.view}, pa)), "dx f64");
}

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

void expect_error(ndrt_status want, const char* op, const std::vector<const Tensor*>& in, const Attrs& a,
                  const std::string& msg) {
  EXPECT_STATUS(want, try_run(op, in, nullptr, a));
  EXPECT_EQ(std::string(ndrt_last_error()), msg);
}

TEST(PoolErrors, BadAttributesShapesAndDtypesSayWhatIsWrong) {
  Tensor x = create(NDRT_F32, {2, 3, 6, 6});
  expect_error(NDRT_ERR_INVALID_ARGUMENT, "max_pool2d", {&x}, Attrs{}, "max_pool2d: attribute 'kernel' is required");
  Geo g = pgeo(2, 3, 6, 6, 0, 2);
  expect_error(NDRT_ERR_INVALID_ARGUMENT, "max_pool2d", {&x}, ct::pool_attrs(g, false, false),
               "max_pool2d: attribute 'kernel' must be >= 1, got [0,2]");
  g = pgeo(2, 3, 6, 6, 2, 2).stride(1, 0);
  expect_error(NDRT_ERR_INVALID_ARGUMENT, "avg_pool2d", {&x}, ct::pool_attrs(g, true, false),
               "avg_pool2d: attribute 'strides' must be >= 1, got [1,0]");
  g = pgeo(2, 3, 6, 6, 2, 2).stride(2, 2).padding({2, 2, 0, 0});
  expect_error(NDRT_ERR_INVALID_ARGUMENT, "max_pool2d", {&x}, ct::pool_attrs(g, false, false),
               "max_pool2d: padding [2,2,0,0] must be smaller than the kernel [2,2] on every side");
  g = pgeo(2, 3, 6, 6, 2, 2).padding({-1, 0});
  expect_error(NDRT_ERR_INVALID_ARGUMENT, "max_pool2d", {&x}, ct::pool_attrs(g, false, false),
               "max_pool2d: attribute 'padding' must be >= 0, got [-1,0]");
  g = pgeo(2, 3, 6, 6, 7, 2);
  expect_error(NDRT_ERR_SHAPE_MISMATCH, "max_pool2d", {&x}, ct::pool_attrs(g, false, false),
               "max_pool2d: the height window (kernel 7, dilation 1: extent 7) is larger than the padded input (0 + 6 + 0)");
  g = pgeo(2, 3, 6, 6, 2, 2).stride(2, 2);
  Tensor x3 = create(NDRT_F32, {3, 6, 6});
  expect_error(NDRT_ERR_SHAPE_MISMATCH, "max_pool2d", {&x3}, ct::pool_attrs(g, false, false),
               "max_pool2d: x must be rank 4 (NCHW), got [3,6,6]");
  Tensor xi = create(NDRT_I32, {2, 3, 6, 6});
  expect_error(NDRT_ERR_DTYPE_MISMATCH, "max_pool2d", {&xi}, ct::pool_attrs(g, false, false),
               "max_pool2d: needs a floating-point dtype, got i32");
  Tensor dy = create(NDRT_F32, {2, 3, 3, 4});
  expect_error(NDRT_ERR_SHAPE_MISMATCH, "max_pool2d_bp", {&x, &dy}, ct::pool_attrs(g, false, false),
               "max_pool2d_bp: dy has shape [2,3,3,4] but the forward output is [2,3,3,3]");
  Tensor dy64 = create(NDRT_F64, {2, 3, 3, 3});
  expect_error(NDRT_ERR_DTYPE_MISMATCH, "avg_pool2d_bp", {&x, &dy64}, ct::pool_attrs(g, true, false),
               "avg_pool2d_bp: input 1 is f64 but input 0 is f32 (cast explicitly)");
}

TEST(ConvPoolErrors, BadShapesDtypesAndIndicesSayWhatIsWrong) {
  auto fused_error = [](ndrt_status want, const Tensor& x, const Tensor& w, const Tensor& b, const std::string& msg) {
    std::vector<ndrt_handle> out = {0, 0};
    EXPECT_STATUS(want, exec("conv2d_bias_max_pool2x2", {x.get(), w.get(), b.get()}, out));
    EXPECT_EQ(out[0], ndrt_handle(0));
    EXPECT_EQ(out[1], ndrt_handle(0));
    if (!msg.empty()) {
      EXPECT_EQ(std::string(ndrt_last_error()), msg);
    }
  };
  Tensor x = create(NDRT_F32, {2, 3, 9, 12}), w = create(NDRT_F32, {4, 3, 3, 3}), b = create(NDRT_F32, {4});
  fused_error(NDRT_ERR_SHAPE_MISMATCH, x, w, b,
              "conv2d_bias_max_pool2x2: the convolution's output is 7x10; 2x2 windows at stride 2 need both even");
  Tensor x2 = create(NDRT_F32, {2, 3, 10, 12}), w2 = create(NDRT_F32, {4, 2, 3, 3});
  fused_error(NDRT_ERR_SHAPE_MISMATCH, x2, w2, b,
              "conv2d_bias_max_pool2x2: w must have shape [out, 3, kh, kw] (OIHW, x has 3 channels), got [4,2,3,3]");
  Tensor b5 = create(NDRT_F32, {5});
  fused_error(NDRT_ERR_SHAPE_MISMATCH, x2, w, b5,
              "conv2d_bias_max_pool2x2: b must have shape [4] (one value per output channel), got [5]");
  Tensor x_small = create(NDRT_F32, {2, 3, 2, 12});
  fused_error(NDRT_ERR_SHAPE_MISMATCH, x_small, w, b,
              "conv2d_bias_max_pool2x2: the 3x3 kernel does not fit the 2x12 image");
  Tensor x64 = create(NDRT_F64, {2, 3, 10, 12}), w64 = create(NDRT_F64, {4, 3, 3, 3}), b64 = create(NDRT_F64, {4});
  fused_error(NDRT_ERR_NOT_SUPPORTED, x64, w64, b64, "");
  Tensor dy = create(NDRT_F32, {2, 4, 4, 5});
  Tensor idx_bad = from_values(NDRT_U8, {2, 4, 4, 4}, std::vector<double>(128, 1.0));
  expect_error(NDRT_ERR_SHAPE_MISMATCH, "max_pool2x2_bp_index", {&dy, &idx_bad}, {},
               "max_pool2x2_bp_index: index [2,4,4,4] and dy [2,4,4,5] must both be the pooled shape [N, C, PH, PW]");
  std::vector<double> iv(160, 3.0);
  iv[77] = 4.0;
  Tensor idx4 = from_values(NDRT_U8, {2, 4, 4, 5}, iv);
  Tensor dyv = from_values(NDRT_F32, {2, 4, 4, 5}, std::vector<double>(160, 1.0));
  expect_error(NDRT_ERR_INVALID_ARGUMENT, "max_pool2x2_bp_index", {&dyv, &idx4}, {},
               "max_pool2x2_bp_index: index holds a value above 3 (a window has 4 elements, 0..3)");
  Tensor idx_i32 = create(NDRT_I32, {2, 4, 4, 5});
  expect_error(NDRT_ERR_DTYPE_MISMATCH, "max_pool2x2_bp_index", {&dyv, &idx_i32}, {},
               "max_pool2x2_bp_index: index must be u8 (as conv2d_bias_max_pool2x2 writes it), got i32");
}

TEST(ColErrors, BadAttributesAndShapesSayWhatIsWrong) {
  Tensor x = create(NDRT_F32, {2, 3, 6, 6});
  Geo g = geo(2, 3, 6, 6, 1, 3, 3);
  expect_error(NDRT_ERR_INVALID_ARGUMENT, "im2col", {&x}, Attrs{}, "im2col: attribute 'kernel' is required");
  g.dilation(0, 1);
  expect_error(NDRT_ERR_INVALID_ARGUMENT, "im2col", {&x}, ct::col_attrs(g, false),
               "im2col: attribute 'dilation' must be >= 1, got [0,1]");
  Tensor col5 = create(NDRT_F32, {2, 3, 3, 3, 4});
  g.dilation(1, 1);
  expect_error(NDRT_ERR_SHAPE_MISMATCH, "col2im", {&col5}, ct::col_attrs(g, true),
               "col2im: col must be rank 6 ([N, C, kh, kw, OH, OW]), got [2,3,3,3,4]");
  Tensor col = create(NDRT_F32, {2, 3, 3, 3, 4, 5});
  expect_error(NDRT_ERR_SHAPE_MISMATCH, "col2im", {&col}, ct::col_attrs(g, true),
               "col2im: col [2,3,3,3,4,5] has 4x5 window positions but an image of 6x6 with these "
               "strides/padding/dilation gives 4x4");
  Tensor ci = create(NDRT_I64, {2, 3, 3, 3, 4, 4});
  expect_error(NDRT_ERR_DTYPE_MISMATCH, "col2im", {&ci}, ct::col_attrs(g, true),
               "col2im: needs a floating-point dtype, got i64");
}

}  // namespace
