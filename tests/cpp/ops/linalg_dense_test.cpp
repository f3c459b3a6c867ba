// The fused dense layer: linear (GEMM + bias + activation) and linear_bp against float64
// references, against the separate ops it fuses, and linear_bp against central differences in
// f64; every activation, both weight layouts, non-contiguous operands and outputs, size-0 dims,
// several thread counts, and the errors.
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
    case kRelu: return z < 0 ? 0 : z;
    case kSigmoid: return 1 / (1 + std::exp(-z));
    case kTanh: return std::tanh(z);
    case kLeaky: return z < 0 ? alpha * z : z;
    case kGelu: return 0.5 * z * std::erfc(-z / std::sqrt(2.0));
    default: return z;
  }
}
double act_grad_ref(int a, double z, double alpha) {
  switch (a) {
    case kRelu: return z > 0 ? 1 : 0;
    case kSigmoid: {
      double s = 1 / (1 + std::exp(-z));
      return s * (1 - s);
    }
    case kTanh: return 1 - std::tanh(z) * std::tanh(z);
    case kLeaky: return z > 0 ? 1 : alpha;
    case kGelu: return 0.5 * std::erfc(-z / std::sqrt(2.0)) + z * std::exp(-0.5 * z * z) / std::sqrt(2 * M_PI);
    default: return 1;
  }
}

Attrs lin_attrs(bool tw, int act, double alpha = 0.01) { return Attrs{{tw ? 1 : 0, act}, {alpha}}; }

// z = x @ W + b with W = tw ? w^T : w; x [N, K]; bounds for the f32/f64 accumulation.
Ref z_ref(const Operand& x, int64_t N, int64_t K, const Operand& w, int64_t M, bool tw, const Operand& b, ndrt_dtype d) {
  Ref r = product_ref(x.vals, {N, K}, w.vals, tw ? Shape{M, K} : Shape{K, M}, false, tw, compute_eps(d));
  for (int64_t i = 0; i < N; ++i)
    for (int64_t j = 0; j < M; ++j) {
      const size_t o = size_t(i * M + j);
      r.v[o] += b.vals[size_t(j)];
      r.bound[o] += compute_eps(d) * std::fabs(b.vals[size_t(j)]) * 2;
    }
  return r;
}

struct LinCase {
  int64_t N, K, M;
  bool tw;
  int act;
  Kind kx, kw, kb;
  OutKind ok;
  double alpha = 0.01;
};

void check_linear(ndrt_dtype d, const LinCase& c, std::mt19937& rng) {
  std::string what = std::string("linear ") + dtype_str(d) + " N" + std::to_string(c.N) + " K" + std::to_string(c.K) +
                     " M" + std::to_string(c.M) + (c.tw ? " w^T " : " ") + act_name(c.act) + " x " +
                     kind_str(c.kx) + " w " + kind_str(c.kw) + " b " + kind_str(c.kb) + ", " + out_kind_str(c.ok);
  SCOPED_TRACE(what);
  Operand x = make_operand(d, {c.N, c.K}, c.kx, default_gen(d), rng);
  Operand w = make_operand(d, c.tw ? Shape{c.M, c.K} : Shape{c.K, c.M}, c.kw, default_gen(d), rng);
  Operand b = make_operand(d, {c.M}, c.kb, default_gen(d), rng);
  Ref z = z_ref(x, c.N, c.K, w, c.M, c.tw, b, d);
  std::vector<double> want(z.v.size()), bound(z.v.size());
  for (size_t i = 0; i < want.size(); ++i) {
    want[i] = act_ref(c.act, z.v[i], c.alpha);
    bound[i] = 1.2 * std::max(1.0, c.alpha) * z.bound[i];
  }
  std::vector<double> got = run_out("linear", {&x.view, &w.view, &b.view}, lin_attrs(c.tw, c.act, c.alpha), d,
                                    {c.N, c.M}, c.ok);
  expect_close(got, want, d, default_tol(d), what, &bound);
}

class Linear : public ::testing::TestWithParam<ndrt_dtype> {};

TEST_P(Linear, EveryActivationLayoutAndOutput) {
  const ndrt_dtype d = GetParam();
  std::mt19937 rng(61 + d);
  int v = 0;
  for (int act = 0; act < 6; ++act)
    for (bool tw : {false, true})
      for (int rep = 0; rep < 3; ++rep) {
        LinCase c{13, 21, 10, tw, act, kAllKinds[v % 5], kAllKinds[(v + 2) % 5], kAllKinds[(v + 1) % 5],
                  kAllOutKinds[v % 3], act == kLeaky ? 0.2 : 0.01};
        ++v;
        check_linear(d, c, rng);
      }
}

TEST_P(Linear, LargerSizesAcrossThreadCountsAndEmpty) {
  const ndrt_dtype d = GetParam();
  std::mt19937 rng(62 + d);
  for (int threads : {1, 2, 3, 5}) {
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

// The fused op agrees with matmul, add and the activation op run one after the other.
TEST_P(Linear, MatchesTheSeparateOps) {
  const ndrt_dtype d = GetParam();
  std::mt19937 rng(63 + d);
  const char* ops[] = {nullptr, "relu", "sigmoid", "tanh", "leaky_relu", "gelu"};
  for (int act = 0; act < 6; ++act) {
    if (ops[act] && !has_cpu_kernel(ops[act], d)) {
      ADD_FAILURE() << "no separate op " << ops[act] << " for " << dtype_str(d) << " to compare with";
      continue;
    }
    SCOPED_TRACE(act_name(act));
    Operand x = make_operand(d, {37, 29}, Kind::Contig, default_gen(d), rng);
    Operand w = make_operand(d, {29, 45}, Kind::Permuted, default_gen(d), rng);
    Operand b = make_operand(d, {45}, Kind::Contig, default_gen(d), rng);
    Tensor mm = run("matmul", {&x.view, &w.view});
    Tensor z = run("add", {&mm, &b.view});
    Tensor y;
    if (!ops[act])
      y = std::move(z);
    else if (act == kLeaky)
      y = run(ops[act], {&z}, Attrs{{}, {0.3}});
    else
      y = run(ops[act], {&z});
    std::vector<double> sep = read_values(y);
    std::vector<double> fused = read_values(run("linear", {&x.view, &w.view, &b.view}, lin_attrs(false, act, 0.3)));
    Ref zr = z_ref(x, 37, 29, w, 45, false, b, d);
    std::vector<double> bound(zr.bound.size());
    for (size_t i = 0; i < bound.size(); ++i) bound[i] = 2.5 * zr.bound[i];
    expect_close(fused, sep, d, default_tol(d), std::string("linear vs separate ops, ") + act_name(act), &bound);
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, Linear, ::testing::Values(NDRT_F32, NDRT_F64),
                         [](const ::testing::TestParamInfo<ndrt_dtype>& i) { return std::string(dtype_str(i.param)); });

// ------------------------------------------------------------------------------------------------
// linear_bp
// ------------------------------------------------------------------------------------------------

// Output i of a three-output op: fresh (0), given poisoned, or a given transposed (column-major)
// poisoned view.
struct Outs {
  std::vector<Tensor> keep;  // given outputs (empty Tensor for a fresh one)
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

struct Grads {
  std::vector<double> dx, dw, db;
};

Grads run_bp(ndrt_dtype d, const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& y, const Tensor& dy,
             const Attrs& a, const Shape& sx, const Shape& sw, int64_t M, OutKind k) {
  Outs o = make_outs(d, {sx, sw, {M}}, k);
  std::vector<ndrt_handle> out = o.h;
  NT_CHECK(exec("linear_bp", {x.get(), w.get(), b.get(), y.get(), dy.get()}, out, a));
  for (size_t i = 0; i < 3; ++i)
    if (!o.h[i]) o.keep[i] = Tensor(out[i]);  // runtime-allocated: ours to release
  Grads g;
  g.dx = read_values(o.keep[0]);
  g.dw = read_values(o.keep[1]);
  g.db = read_values(o.keep[2]);
  return g;
}

struct BpCase {
  int64_t N, K, M;
  bool tw;
  int act;
  Kind kx, kw, kdy;
  OutKind ok;
};

void check_linear_bp(ndrt_dtype d, const BpCase& c, std::mt19937& rng) {
  const double alpha = 0.15;
  std::string what = std::string("linear_bp ") + dtype_str(d) + " N" + std::to_string(c.N) + " K" +
                     std::to_string(c.K) + " M" + std::to_string(c.M) + (c.tw ? " w^T " : " ") + act_name(c.act) +
                     " x " + kind_str(c.kx) + " w " + kind_str(c.kw) + " dy " + kind_str(c.kdy) + ", " +
                     out_kind_str(c.ok);
  SCOPED_TRACE(what);
  const Shape sx{c.N, c.K}, sw = c.tw ? Shape{c.M, c.K} : Shape{c.K, c.M};
  Operand x = make_operand(d, sx, c.kx, default_gen(d), rng);
  Operand w = make_operand(d, sw, c.kw, default_gen(d), rng);
  Operand b = make_operand(d, {c.M}, Kind::Contig, default_gen(d), rng);
  Operand dy = make_operand(d, {c.N, c.M}, c.kdy, default_gen(d), rng);
  const Attrs a = lin_attrs(c.tw, c.act, alpha);
  Tensor y = run("linear", {&x.view, &w.view, &b.view}, a);
  Ref z = z_ref(x, c.N, c.K, w, c.M, c.tw, b, d);
  // dz, then the three gradients in f64, each with an accumulation bound.
  const double eps = compute_eps(d) * 8;
  std::vector<double> dz(size_t(c.N * c.M));
  for (size_t i = 0; i < dz.size(); ++i) dz[i] = dy.vals[i] * act_grad_ref(c.act, z.v[i], alpha);
  std::vector<double> dx(size_t(c.N * c.K), 0), dxb(dx.size(), 0), dw(size_t(c.K * c.M), 0), dwb(dw.size(), 0),
      db(size_t(c.M), 0), dbb(db.size(), 0);
  auto W = [&](int64_t k, int64_t j) { return w.vals[size_t(c.tw ? j * c.K + k : k * c.M + j)]; };
  for (int64_t i = 0; i < c.N; ++i)
    for (int64_t j = 0; j < c.M; ++j) {
      const double g = dz[size_t(i * c.M + j)];
      db[size_t(j)] += g;
      dbb[size_t(j)] += std::fabs(g);
      for (int64_t k = 0; k < c.K; ++k) {
        dx[size_t(i * c.K + k)] += g * W(k, j);
        dxb[size_t(i * c.K + k)] += std::fabs(g * W(k, j));
        const size_t wi = size_t(c.tw ? j * c.K + k : k * c.M + j);
        dw[wi] += x.vals[size_t(i * c.K + k)] * g;
        dwb[wi] += std::fabs(x.vals[size_t(i * c.K + k)] * g);
      }
    }
  for (double& e : dxb) e *= eps * std::sqrt(double(c.M) + 1);
  for (double& e : dwb) e *= eps * std::sqrt(double(c.N) + 1);
  for (double& e : dbb) e *= eps * std::sqrt(double(c.N) + 1);
  Grads g = run_bp(d, x.view, w.view, b.view, y, dy.view, a, sx, sw, c.M, c.ok);
  expect_close(g.dx, dx, d, default_tol(d), what + ": dx", &dxb);
  expect_close(g.dw, dw, d, default_tol(d), what + ": dw", &dwb);
  expect_close(g.db, db, d, default_tol(d), what + ": db", &dbb);
}

class LinearBp : public ::testing::TestWithParam<ndrt_dtype> {};

TEST_P(LinearBp, EveryActivationAgainstTheFormula) {
  const ndrt_dtype d = GetParam();
  std::mt19937 rng(64 + d);
  int v = 0;
  for (int act = 0; act < 6; ++act)
    for (bool tw : {false, true})
      for (int rep = 0; rep < 3; ++rep) {
        check_linear_bp(d, {11, 17, 9, tw, act, kAllKinds[v % 5], kAllKinds[(v + 1) % 5], kAllKinds[(v + 3) % 5],
                            kAllOutKinds[v % 3]},
                        rng);
        ++v;
      }
}

TEST_P(LinearBp, LargerSizesThreadCountsAndEmpty) {
  const ndrt_dtype d = GetParam();
  std::mt19937 rng(65 + d);
  for (int threads : {1, 2, 4}) {
    Threads scope(threads);
    SCOPED_TRACE("cpu.threads " + std::to_string(threads));
    check_linear_bp(d, {300, 70, 260, false, kSigmoid, Kind::Contig, Kind::Contig, Kind::Contig, OutKind::Given}, rng);
    check_linear_bp(d, {129, 150, 140, true, kGelu, Kind::Strided, Kind::Permuted, Kind::Offset, OutKind::GivenView},
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

INSTANTIATE_TEST_SUITE_P(Ops, LinearBp, ::testing::Values(NDRT_F32, NDRT_F64),
                         [](const ::testing::TestParamInfo<ndrt_dtype>& i) { return std::string(dtype_str(i.param)); });

// Central differences in f64 of L = <r, linear(x, w, b)> for a random projection r.
TEST(LinearBpFiniteDifferences, EveryActivationBothLayouts) {
  const ndrt_dtype d = NDRT_F64;
  std::mt19937 rng(66);
  const int64_t N = 4, K = 5, M = 3;
  const double h = 1e-6, alpha = 0.2;
  for (int act = 0; act < 6; ++act)
    for (bool tw : {false, true}) {
      SCOPED_TRACE(std::string(act_name(act)) + (tw ? " w^T" : ""));
      const Attrs a = lin_attrs(tw, act, alpha);
      const Shape sw = tw ? Shape{M, K} : Shape{K, M};
      std::vector<double> xv = make_operand(d, {N, K}, Kind::Contig, default_gen(d), rng).vals;
      std::vector<double> wv = make_operand(d, sw, Kind::Contig, default_gen(d), rng).vals;
      std::vector<double> bv = make_operand(d, {M}, Kind::Contig, default_gen(d), rng).vals;
      std::vector<double> rv = make_operand(d, {N, M}, Kind::Contig, default_gen(d), rng).vals;
      auto loss = [&](const std::vector<double>& X, const std::vector<double>& Wt, const std::vector<double>& B) {
        Tensor xt = from_values(d, {N, K}, X), wt = from_values(d, sw, Wt), bt = from_values(d, {M}, B);
        std::vector<double> y = read_values(run("linear", {&xt, &wt, &bt}, a));
        double l = 0;
        for (size_t i = 0; i < y.size(); ++i) l += rv[i] * y[i];
        return l;
      };
      Tensor xt = from_values(d, {N, K}, xv), wt = from_values(d, sw, wv), bt = from_values(d, {M}, bv),
             rt = from_values(d, {N, M}, rv);
      Tensor y = run("linear", {&xt, &wt, &bt}, a);
      Grads g = run_bp(d, xt, wt, bt, y, rt, a, {N, K}, sw, M, OutKind::Fresh);
      auto fd = [&](std::vector<double>& v, int which) {
        std::vector<double> out(v.size());
        for (size_t i = 0; i < v.size(); ++i) {
          const double keep = v[i];
          v[i] = keep + h;
          const double lp = loss(xv, wv, bv);
          v[i] = keep - h;
          const double lm = loss(xv, wv, bv);
          v[i] = keep;
          out[i] = (lp - lm) / (2 * h);
        }
        (void)which;
        return out;
      };
      expect_close(g.dx, fd(xv, 0), d, {1e-6, 1e-7}, "dx vs central differences");
      expect_close(g.dw, fd(wv, 1), d, {1e-6, 1e-7}, "dw vs central differences");
      expect_close(g.db, fd(bv, 2), d, {1e-6, 1e-7}, "db vs central differences");
    }
}

// ------------------------------------------------------------------------------------------------
// Errors
// ------------------------------------------------------------------------------------------------

TEST(LinearErrors, ShapesDtypesAndAttributes) {
  auto msg = [] { return std::string(ndrt_last_error()); };
  Tensor x = create(NDRT_F32, {4, 3}), w = create(NDRT_F32, {3, 5}), b = create(NDRT_F32, {5});
  Tensor x1 = create(NDRT_F32, {3}), w_bad = create(NDRT_F32, {4, 5}), b_bad = create(NDRT_F32, {1, 5});
  Tensor w64 = create(NDRT_F64, {3, 5});
  Tensor xi = create(NDRT_I32, {4, 3}), wi = create(NDRT_I32, {3, 5}), bi = create(NDRT_I32, {5});
  EXPECT_STATUS(NDRT_ERR_SHAPE_MISMATCH, try_run("linear", {&x1, &w, &b}, nullptr));
  EXPECT_EQ(msg(), "linear: x must be a matrix [N, K], got [3]");
  EXPECT_STATUS(NDRT_ERR_SHAPE_MISMATCH, try_run("linear", {&x, &w_bad, &b}, nullptr));
  EXPECT_EQ(msg(), "linear: x [4,3] and w [4,5] disagree on K (w is [K, M] with transpose_w = false)");
  EXPECT_STATUS(NDRT_ERR_SHAPE_MISMATCH, try_run("linear", {&x, &w, &b}, nullptr, lin_attrs(true, 0)));
  EXPECT_EQ(msg(), "linear: x [4,3] and w [3,5] disagree on K (w is [M, K] with transpose_w = true)");
  EXPECT_STATUS(NDRT_ERR_SHAPE_MISMATCH, try_run("linear", {&x, &w, &b_bad}, nullptr));
  EXPECT_EQ(msg(), "linear: b must have shape [5] (M), got [1,5]");
  EXPECT_STATUS(NDRT_ERR_DTYPE_MISMATCH, try_run("linear", {&x, &w64, &b}, nullptr));
  EXPECT_EQ(msg(), "linear: input 1 is f64 but input 0 is f32 (cast explicitly)");
  EXPECT_STATUS(NDRT_ERR_DTYPE_MISMATCH, try_run("linear", {&xi, &wi, &bi}, nullptr));
  EXPECT_EQ(msg(), "linear: needs a floating-point dtype, got i32");
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, try_run("linear", {&x, &w, &b}, nullptr, lin_attrs(false, 6)));
  EXPECT_EQ(msg(), "linear: activation 6 is not one of 0 none, 1 relu, 2 sigmoid, 3 tanh, 4 leaky_relu, 5 gelu");
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, try_run("linear", {&x, &w, &b}, nullptr, lin_attrs(false, 4, -0.5)));
  EXPECT_EQ(msg(), "linear: alpha (the leaky_relu slope) must be finite and >= 0, got -0.5");
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, try_run("linear", {&x, &w, &b}, nullptr, lin_attrs(false, 4, NAN)));
  // linear_bp: y and dy must have the output's shape.
  Tensor y = create(NDRT_F32, {4, 5}), dy_bad = create(NDRT_F32, {4, 4});
  std::vector<ndrt_handle> out = {0, 0, 0};
  EXPECT_STATUS(NDRT_ERR_SHAPE_MISMATCH, exec("linear_bp", {x.get(), w.get(), b.get(), y.get(), dy_bad.get()}, out));
  EXPECT_EQ(msg(), "linear_bp: dy must have linear's output shape [4,5], got [4,4]");
  EXPECT_STATUS(NDRT_ERR_SHAPE_MISMATCH, exec("linear_bp", {x.get(), w.get(), b.get(), dy_bad.get(), y.get()}, out));
  EXPECT_EQ(msg(), "linear_bp: y must have linear's output shape [4,5], got [4,4]");
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT,
                exec("linear_bp", {x.get(), w.get(), b.get(), y.get(), y.get()}, out, lin_attrs(false, -1)));
  EXPECT_EQ(msg(), "linear_bp: activation -1 is not one of 0 none, 1 relu, 2 sigmoid, 3 tanh, 4 leaky_relu, 5 gelu");
  // Two outputs on one tensor (dx and dw have the same shape when N = K = M).
  Tensor xs = create(NDRT_F32, {3, 3}), ws = create(NDRT_F32, {3, 3}), bs = create(NDRT_F32, {3}),
         ys = create(NDRT_F32, {3, 3}), both = create(NDRT_F32, {3, 3});
  out = {both.get(), both.get(), 0};
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, exec("linear_bp", {xs.get(), ws.get(), bs.get(), ys.get(), ys.get()}, out));
  EXPECT_EQ(msg(), "linear_bp: outputs dx and dw share memory");
  // Outputs of the wrong shape.
  Tensor dx_bad = create(NDRT_F32, {3, 4});
  out = {dx_bad.get(), 0, 0};
  EXPECT_STATUS(NDRT_ERR_SHAPE_MISMATCH, exec("linear_bp", {x.get(), w.get(), b.get(), y.get(), y.get()}, out));
}

}  // namespace
