// linear / linear_bp in f16 and bf16 (f32 GEMM, f32 epilogue, one rounding): against float64
// references of the 16-bit inputs with an error bound for the f32 accumulation plus the per-dtype
// tolerance of the final rounding; bit-equal to the f32 op on the upcast inputs rounded once; every
// activation, both weight layouts, non-contiguous operands, poisoned given / fresh / view outputs,
// size-0 dims, several thread counts; the profiler names the implementation.
#include <iostream>

#include "linalg_test_util.hpp"

using namespace nt;
using namespace lt;

namespace {

enum Act { kNone = 0, kRelu, kSigmoid, kTanh, kLeaky, kGelu };
const char* act_name(int a) {
  static const char* n[] = {"none", "relu", "sigmoid", "tanh", "leaky_relu", "gelu"};
  return n[a];
}

double act_ref(int a, double z, double alpha) {
  switch (a) {
    case kRelu:
      return z < 0 ? 0 : z;
    case kSigmoid:
      return 1 / (1 + std::exp(-z));
    case kTanh:
      return std::tanh(z);
    case kLeaky:
      return z < 0 ? alpha * z : z;
    case kGelu:
      return 0.5 * z * std::erfc(-z / std::sqrt(2.0));
    default:
      return z;
  }
}

// linear_bp's documented dz: from the (16-bit) output y, from the pre-activation z for gelu.
double dz_ref(int a, double y, double z, double dy, double alpha) {
  switch (a) {
    case kRelu:
      return y > 0 ? dy : 0;
    case kSigmoid:
      return dy * y * (1 - y);
    case kTanh:
      return dy * (1 - y * y);
    case kLeaky:
      return y > 0 ? dy : alpha * dy;
    case kGelu:
      return dy * (0.5 * std::erfc(-z / std::sqrt(2.0)) + z * std::exp(-0.5 * z * z) / std::sqrt(2 * M_PI));
    default:
      return dy;
  }
}

Attrs lin_attrs(bool tw, int act, double alpha = 0.01) { return Attrs{{tw ? 1 : 0, act}, {alpha}}; }

const double kEps32 = 6e-8;  // f32 unit roundoff: the compute type of the 16-bit paths

// z = x @ W + b in f64 (W = tw ? w^T : w) with a bound for the f32 accumulation.
Ref z_ref(const std::vector<double>& x, int64_t N, int64_t K, const std::vector<double>& w, int64_t M, bool tw,
          const std::vector<double>& b) {
  Ref r = product_ref(x, {N, K}, w, tw ? Shape{M, K} : Shape{K, M}, false, tw, kEps32);
  for (int64_t i = 0; i < N; ++i)
    for (int64_t j = 0; j < M; ++j) {
      const size_t o = size_t(i * M + j);
      r.v[o] += b[size_t(j)];
      r.bound[o] += kEps32 * 2 * (std::fabs(b[size_t(j)]) + std::fabs(r.v[o]));
    }
  return r;
}

struct Case {
  int64_t N, K, M;
  bool tw;
  int act;
  Kind kx, kw, kb;
  OutKind ok;
  double alpha = 0.01;
};

std::string describe(const char* op, ndrt_dtype d, const Case& c) {
  return std::string(op) + " " + dtype_str(d) + " N" + std::to_string(c.N) + " K" + std::to_string(c.K) + " M" +
         std::to_string(c.M) + (c.tw ? " w^T " : " ") + act_name(c.act) + " x " + kind_str(c.kx) + " w " +
         kind_str(c.kw) + " b/dy " + kind_str(c.kb) + ", " + out_kind_str(c.ok);
}

void check_linear(ndrt_dtype d, const Case& c, std::mt19937& rng) {
  const std::string what = describe("linear", d, c);
  SCOPED_TRACE(what);
  Operand x = make_operand(d, {c.N, c.K}, c.kx, default_gen(d), rng);
  Operand w = make_operand(d, c.tw ? Shape{c.M, c.K} : Shape{c.K, c.M}, c.kw, default_gen(d), rng);
  Operand b = make_operand(d, {c.M}, c.kb, default_gen(d), rng);
  Ref z = z_ref(x.vals, c.N, c.K, w.vals, c.M, c.tw, b.vals);
  std::vector<double> want(z.v.size()), bound(z.v.size());
  for (size_t i = 0; i < want.size(); ++i) {
    want[i] = act_ref(c.act, z.v[i], c.alpha);
    // The activation in f32 adds a few ulp of f32; its slope is at most max(1, alpha) (gelu 1.13).
    bound[i] = 1.2 * std::max(1.0, c.alpha) * z.bound[i] + 8 * kEps32 * std::fabs(want[i]);
  }
  std::vector<double> got =
      run_out("linear", {&x.view, &w.view, &b.view}, lin_attrs(c.tw, c.act, c.alpha), d, {c.N, c.M}, c.ok);
  expect_close(got, want, d, default_tol(d), what, &bound);
}

class LinearHalf : public ::testing::TestWithParam<ndrt_dtype> {};

TEST_P(LinearHalf, EveryActivationLayoutAndPoisonedOutput) {
  const ndrt_dtype d = GetParam();
  std::mt19937 rng(71 + d);
  int v = 0;
  for (int act = 0; act < 6; ++act)
    for (bool tw : {false, true})
      for (int rep = 0; rep < 3; ++rep) {
        Case c{13,
               21,
               10,
               tw,
               act,
               kAllKinds[v % 5],
               kAllKinds[(v + 2) % 5],
               kAllKinds[(v + 1) % 5],
               kAllOutKinds[v % 3],
               act == kLeaky ? 0.2 : 0.01};
        ++v;
        check_linear(d, c, rng);
      }
}

TEST_P(LinearHalf, LargerSizesThreadCountsAndEmpty) {
  const ndrt_dtype d = GetParam();
  std::mt19937 rng(72 + d);
  for (int threads : {1, 3}) {
    Threads scope(threads);
    SCOPED_TRACE("cpu.threads " + std::to_string(threads));
    check_linear(d, {150, 97, 260, false, kRelu, Kind::Contig, Kind::Contig, Kind::Contig, OutKind::Given}, rng);
    check_linear(d, {131, 64, 300, true, kTanh, Kind::Permuted, Kind::Strided, Kind::Contig, OutKind::GivenView}, rng);
    check_linear(d, {260, 33, 70, true, kGelu, Kind::Offset, Kind::Contig, Kind::Expanded, OutKind::Fresh}, rng);
  }
  for (OutKind ok : kAllOutKinds)
    for (int act : {kNone, kSigmoid, kGelu}) {
      check_linear(d, {0, 5, 4, false, act, Kind::Contig, Kind::Contig, Kind::Contig, ok}, rng);
      check_linear(d, {6, 0, 4, true, act, Kind::Contig, Kind::Contig, Kind::Strided, ok}, rng);  // y = act(b)
      check_linear(d, {6, 5, 0, false, act, Kind::Contig, Kind::Contig, Kind::Contig, ok}, rng);
    }
}

// ------------------------------------------------------------------------------------------------
// linear_bp
// ------------------------------------------------------------------------------------------------

// Three outputs, each fresh (the cache poisoned first), given poisoned, or a given transposed
// poisoned view.
struct Outs {
  std::vector<Tensor> keep;
  std::vector<ndrt_handle> h;
};
Outs make_outs(ndrt_dtype d, const std::vector<Shape>& shapes, OutKind k) {
  Outs o;
  for (const Shape& s : shapes) {
    Tensor t;
    if (k == OutKind::Fresh) {
      poison_cache(d, s);
    } else if (k == OutKind::Given || s.size() != 2) {
      t = create(d, s);
      write_bytes(t, poison_bytes(d, numel_of(s)));
    } else {
      Tensor base = create(d, {s[1], s[0]});
      write_bytes(base, poison_bytes(d, numel_of(s)));
      t = transpose(base, 0, 1);
    }
    o.h.push_back(t.get());
    o.keep.push_back(std::move(t));
  }
  return o;
}

std::vector<std::vector<double>> run_bp(const std::vector<const Tensor*>& in, const Attrs& a, ndrt_dtype d,
                                        const std::vector<Shape>& shapes, OutKind k) {
  Outs o = make_outs(d, shapes, k);
  std::vector<ndrt_handle> out = o.h, h;
  for (const Tensor* t : in) h.push_back(t->get());
  NT_CHECK(exec("linear_bp", h, out, a));
  std::vector<std::vector<double>> r;
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (!o.h[i]) o.keep[i] = Tensor(out[i]);
    r.push_back(read_values(o.keep[i]));
  }
  return r;
}

void check_linear_bp(ndrt_dtype d, const Case& c, std::mt19937& rng) {
  const double alpha = 0.15;
  const std::string what = describe("linear_bp", d, c);
  SCOPED_TRACE(what);
  const Shape sx{c.N, c.K}, sw = c.tw ? Shape{c.M, c.K} : Shape{c.K, c.M};
  Operand x = make_operand(d, sx, c.kx, default_gen(d), rng);
  Operand w = make_operand(d, sw, c.kw, default_gen(d), rng);
  Operand b = make_operand(d, {c.M}, Kind::Contig, default_gen(d), rng);
  Operand dy = make_operand(d, {c.N, c.M}, c.kb, default_gen(d), rng);
  const Attrs a = lin_attrs(c.tw, c.act, alpha);
  Tensor y = run("linear", {&x.view, &w.view, &b.view}, a);
  const std::vector<double> yv = read_values(y);  // the 16-bit output the gradient reads
  Ref z = z_ref(x.vals, c.N, c.K, w.vals, c.M, c.tw, b.vals);
  std::vector<double> dz(size_t(c.N * c.M)), dzb(dz.size());
  for (size_t i = 0; i < dz.size(); ++i) {
    dz[i] = dz_ref(c.act, yv[i], z.v[i], dy.vals[i], alpha);
    // dz in f32 (a few ulp); gelu's z carries the GEMM's error, its derivative's slope is < 0.6.
    dzb[i] = 8 * kEps32 * std::fabs(dz[i]) + (c.act == kGelu ? 0.6 * std::fabs(dy.vals[i]) * z.bound[i] : 0.0);
  }
  std::vector<double> dx(size_t(c.N * c.K), 0), dxb(dx.size(), 0), dw(size_t(c.K * c.M), 0), dwb(dw.size(), 0),
      db(size_t(c.M), 0), dbb(db.size(), 0);
  auto widx = [&](int64_t k, int64_t j) { return size_t(c.tw ? j * c.K + k : k * c.M + j); };
  for (int64_t i = 0; i < c.N; ++i)
    for (int64_t j = 0; j < c.M; ++j) {
      const size_t o = size_t(i * c.M + j);
      const double g = dz[o], ge = dzb[o];
      db[size_t(j)] += g;
      dbb[size_t(j)] += std::fabs(g) * kEps32 * std::sqrt(double(c.N) + 1) * 4 + ge;
      for (int64_t k = 0; k < c.K; ++k) {
        const double wv = w.vals[widx(k, j)], xv = x.vals[size_t(i * c.K + k)];
        dx[size_t(i * c.K + k)] += g * wv;
        dxb[size_t(i * c.K + k)] += std::fabs(g * wv) * kEps32 * std::sqrt(double(c.M) + 1) * 4 + ge * std::fabs(wv);
        dw[widx(k, j)] += xv * g;
        dwb[widx(k, j)] += std::fabs(xv * g) * kEps32 * std::sqrt(double(c.N) + 1) * 4 + ge * std::fabs(xv);
      }
    }
  auto got = run_bp({&x.view, &w.view, &b.view, &y, &dy.view}, a, d, {sx, sw, {c.M}}, c.ok);
  expect_close(got[0], dx, d, default_tol(d), what + ": dx", &dxb);
  expect_close(got[1], dw, d, default_tol(d), what + ": dw", &dwb);
  expect_close(got[2], db, d, default_tol(d), what + ": db", &dbb);
}

class LinearBpHalf : public ::testing::TestWithParam<ndrt_dtype> {};

TEST_P(LinearBpHalf, EveryActivationLayoutAndPoisonedOutputs) {
  const ndrt_dtype d = GetParam();
  std::mt19937 rng(73 + d);
  int v = 0;
  for (int act = 0; act < 6; ++act)
    for (bool tw : {false, true})
      for (int rep = 0; rep < 3; ++rep) {
        check_linear_bp(
            d,
            {11, 17, 9, tw, act, kAllKinds[v % 5], kAllKinds[(v + 1) % 5], kAllKinds[(v + 3) % 5], kAllOutKinds[v % 3]},
            rng);
        ++v;
      }
}

TEST_P(LinearBpHalf, LargerSizesThreadCountsAndEmpty) {
  const ndrt_dtype d = GetParam();
  std::mt19937 rng(74 + d);
  for (int threads : {1, 4}) {
    Threads scope(threads);
    SCOPED_TRACE("cpu.threads " + std::to_string(threads));
    check_linear_bp(d, {200, 70, 160, false, kSigmoid, Kind::Contig, Kind::Contig, Kind::Contig, OutKind::Given}, rng);
    check_linear_bp(d, {129, 90, 140, true, kGelu, Kind::Strided, Kind::Permuted, Kind::Offset, OutKind::GivenView},
                    rng);
    check_linear_bp(d, {1000, 20, 3, false, kNone, Kind::Contig, Kind::Contig, Kind::Contig, OutKind::Fresh}, rng);
  }
  for (OutKind ok : kAllOutKinds)
    for (int act : {kNone, kRelu, kGelu})
      for (bool tw : {false, true}) {
        check_linear_bp(d, {0, 5, 4, tw, act, Kind::Contig, Kind::Contig, Kind::Contig, ok}, rng);  // dw, db = 0
        check_linear_bp(d, {6, 0, 4, tw, act, Kind::Contig, Kind::Contig, Kind::Contig, ok}, rng);
        check_linear_bp(d, {6, 5, 0, tw, act, Kind::Contig, Kind::Contig, Kind::Contig, ok}, rng);  // dx = 0
      }
}

// "f32 arithmetic, one rounding": the 16-bit ops give exactly the f32 op's results on the upcast
// inputs, rounded to the 16-bit type (the same GEMM tiles run on the same values).
TEST_P(LinearBpHalf, BitEqualToTheF32OpsRoundedOnce) {
  const ndrt_dtype d = GetParam();
  std::mt19937 rng(75 + d);
  const int64_t N = 37, K = 29, M = 45;
  for (int act = 0; act < 6; ++act)
    for (bool tw : {false, true}) {
      SCOPED_TRACE(std::string(act_name(act)) + (tw ? " w^T" : ""));
      const Attrs a = lin_attrs(tw, act, 0.3);
      const Shape sw = tw ? Shape{M, K} : Shape{K, M};
      Operand x = make_operand(d, {N, K}, Kind::Contig, default_gen(d), rng);
      Operand w = make_operand(d, sw, Kind::Contig, default_gen(d), rng);
      Operand b = make_operand(d, {M}, Kind::Contig, default_gen(d), rng);
      Operand dy = make_operand(d, {N, M}, Kind::Contig, default_gen(d), rng);
      Tensor x32 = cast(x.view, NDRT_F32), w32 = cast(w.view, NDRT_F32), b32 = cast(b.view, NDRT_F32),
             dy32 = cast(dy.view, NDRT_F32);
      Tensor y = run("linear", {&x.view, &w.view, &b.view}, a);
      Tensor y32 = run("linear", {&x32, &w32, &b32}, a);
      EXPECT_EQ(read_values(y), read_values(cast(y32, d))) << "linear";
      Tensor yup = cast(y, NDRT_F32);  // linear_bp reads the 16-bit y
      auto g = run_bp({&x.view, &w.view, &b.view, &y, &dy.view}, a, d, {{N, K}, sw, {M}}, OutKind::Given);
      auto g32 = run_bp({&x32, &w32, &b32, &yup, &dy32}, a, NDRT_F32, {{N, K}, sw, {M}}, OutKind::Given);
      const char* names[] = {"dx", "dw", "db"};
      for (size_t i = 0; i < 3; ++i) {
        const Shape s = i == 0 ? Shape{N, K} : i == 1 ? sw : Shape{M};
        Tensor t = from_values(NDRT_F32, s, g32[i]);
        EXPECT_EQ(g[i], read_values(cast(t, d))) << names[i];
      }
    }
}

TEST_P(LinearBpHalf, ImplementationIsNamed) {
  const ndrt_dtype d = GetParam();
  Tensor x = from_values(d, {2, 2}, {1, 2, 3, 4}), w = from_values(d, {2, 2}, {1, 0, 0, 1}),
         b = from_values(d, {2}, {0.5, -0.5});
  NT_CHECK(ndrt_profiler_clear());
  NT_CHECK(ndrt_profiler_enable(1));
  Tensor y = run("linear", {&x, &w, &b}, lin_attrs(false, kRelu));
  auto g = run_bp({&x, &w, &b, &y, &y}, lin_attrs(false, kRelu), d, {{2, 2}, {2, 2}, {2}}, OutKind::Fresh);
  char buf[8192];
  size_t need = 0;
  NT_CHECK(ndrt_profiler_summary(buf, sizeof buf, &need));
  NT_CHECK(ndrt_profiler_enable(0));
  const std::string s(buf), t = dtype_str(d);
  EXPECT_NE(s.find("ndrt:linear-" + t + "-via-sgemm"), std::string::npos) << s;
  EXPECT_NE(s.find("ndrt:linear_bp-" + t + "-via-sgemm"), std::string::npos) << s;
  EXPECT_EQ(read_values(y), (std::vector<double>{1.5, 1.5, 3.5, 3.5}));
  EXPECT_EQ(g[2], (std::vector<double>{5, 5}));
}

auto dtype_name = [](const ::testing::TestParamInfo<ndrt_dtype>& i) { return std::string(dtype_str(i.param)); };
INSTANTIATE_TEST_SUITE_P(Ops, LinearHalf, ::testing::Values(NDRT_F16, NDRT_BF16), dtype_name);
INSTANTIATE_TEST_SUITE_P(Ops, LinearBpHalf, ::testing::Values(NDRT_F16, NDRT_BF16), dtype_name);

TEST(LinearHalfErrors, DtypeListsAndMixedDtypes) {
  auto names = [](const std::vector<ndrt_dtype>& v) {
    std::string s;
    for (ndrt_dtype d : v) s += std::string(dtype_str(d)) + " ";
    return s;
  };
  EXPECT_EQ(names(cpu_dtypes("linear")), "f32 f64 f16 bf16 ");
  EXPECT_EQ(names(cpu_dtypes("linear_bp")), "f32 f64 f16 bf16 ");
  Tensor xh = create(NDRT_F16, {4, 3}), wb = create(NDRT_BF16, {3, 5}), bh = create(NDRT_F16, {5});
  EXPECT_STATUS(NDRT_ERR_DTYPE_MISMATCH, try_run("linear", {&xh, &wb, &bh}, nullptr));
  EXPECT_EQ(std::string(ndrt_last_error()), "linear: input 1 is bf16 but input 0 is f16 (cast explicitly)");
  // A given output of the wrong 16-bit type.
  Tensor wh = create(NDRT_F16, {3, 5}), yb = create(NDRT_BF16, {4, 5});
  EXPECT_STATUS(NDRT_ERR_DTYPE_MISMATCH, try_run("linear", {&xh, &wh, &bh}, &yb));
}

}  // namespace
