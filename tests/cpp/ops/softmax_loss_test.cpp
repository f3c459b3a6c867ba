// softmax / log_softmax forward and backward, and the losses (softmax_cross_entropy with class
// indices and with soft targets, nll, mse, l1, binary cross-entropy on probabilities and on logits)
// with their gradients, against float64 references computed here: every axis, every layout and
// output kind, rank 0, size-0 axes, large (parallel) inputs, every dtype; finite differences for
// every _bp op; labels out of range and the other errors with their exact messages. The class-index
// losses also with class weights (the optional input) and ignore_index, PyTorch's semantics with
// mean 0 where nothing is counted, and their per-time-step use under a mask.
#include <algorithm>
#include <cmath>
#include <limits>

#include "common/ndrt_test.hpp"
#include "reduce_test_util.hpp"

using namespace nt;

namespace {

const double kInf = std::numeric_limits<double>::infinity();
const std::vector<ndrt_dtype> kFloats = {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16};

Attrs axis_attr(int64_t axis) { return Attrs{{axis}, {}}; }
Attrs red_attr(int64_t reduction) { return Attrs{{reduction}, {}}; }

// Flat indices of each row along `axis` (rank 0: one row of one element).
std::vector<std::vector<int64_t>> rows_along(const Shape& s, int axis) {
  std::vector<std::vector<int64_t>> rows;
  const int64_t n = numel_of(s);
  if (s.empty()) return {{0}};
  const int a = axis < 0 ? axis + int(s.size()) : axis;
  Shape st = strides_of(s);
  for (int64_t k = 0; k < n; ++k) {
    std::vector<int64_t> idx = unravel(k, s);
    if (idx[size_t(a)] != 0) continue;
    std::vector<int64_t> r;
    for (int64_t j = 0; j < s[size_t(a)]; ++j) r.push_back(k + j * st[size_t(a)]);
    rows.push_back(r);
  }
  return rows;
}

std::vector<double> softmax_ref(const std::vector<double>& x, const Shape& s, int axis, bool log) {
  std::vector<double> y(x.size());
  for (const auto& r : rows_along(s, axis)) {
    if (r.empty()) continue;
    double m = -kInf;
    for (int64_t k : r) m = std::max(m, x[size_t(k)]);
    double sum = 0;
    for (int64_t k : r) sum += std::exp(x[size_t(k)] - m);
    for (int64_t k : r) y[size_t(k)] = log ? x[size_t(k)] - m - std::log(sum) : std::exp(x[size_t(k)] - m) / sum;
  }
  return y;
}

std::vector<double> softmax_bp_ref(const std::vector<double>& y, const std::vector<double>& dy, const Shape& s,
                                   int axis, bool log) {
  std::vector<double> dx(y.size());
  for (const auto& r : rows_along(s, axis)) {
    double sum = 0;
    for (int64_t k : r) sum += log ? dy[size_t(k)] : dy[size_t(k)] * y[size_t(k)];
    for (int64_t k : r)
      dx[size_t(k)] = log ? dy[size_t(k)] - std::exp(y[size_t(k)]) * sum : y[size_t(k)] * (dy[size_t(k)] - sum);
  }
  return dx;
}

struct OpDtype {
  const char* op;
  ndrt_dtype dtype;
};
std::string param_name(const ::testing::TestParamInfo<OpDtype>& i) {
  return std::string(i.param.op) + "_" + dtype_str(i.param.dtype);
}

std::vector<OpDtype> softmax_params() {
  std::vector<OpDtype> r;
  for (const char* op : {"softmax", "log_softmax"})
    for (ndrt_dtype d : kFloats) r.push_back({op, d});
  return r;
}

class Softmax : public ::testing::TestWithParam<OpDtype> {};

void check_softmax(const OpDtype& p, const Operand& x, const Shape& s, int axis, OutKind ok, const std::string& what) {
  SCOPED_TRACE(what);
  const bool log = std::string(p.op) == "log_softmax";
  std::vector<double> want = softmax_ref(x.vals, s, axis, log);
  std::vector<double> got = run_out(p.op, {&x.view}, axis_attr(axis), p.dtype, s, ok);
  expect_close(got, want, p.dtype, default_tol(p.dtype), what);
}

TEST_P(Softmax, EveryAxisEveryLayoutAndOutputKind) {
  const OpDtype p = GetParam();
  std::mt19937 rng(100 + p.dtype * 7 + p.op[0]);
  const Shape s = {3, 5, 7};
  int variant = 0;
  for (int axis = -3; axis < 3; ++axis)
    for (Kind k : kAllKinds) {
      ++variant;
      OutKind ok = kAllOutKinds[variant % 3];
      Operand x = make_operand(p.dtype, s, k, uniform_gen(p.dtype, -4, 4), rng);
      check_softmax(p, x, s, axis, ok,
                    std::string(p.op) + " axis " + std::to_string(axis) + " " + kind_str(k) + ", " + out_kind_str(ok));
    }
}

TEST_P(Softmax, RankZeroRankOneSizeZeroAndLargeRows) {
  const OpDtype p = GetParam();
  std::mt19937 rng(200 + p.dtype);
  Operand s0 = make_operand(p.dtype, {}, Kind::Contig, default_gen(p.dtype), rng);
  for (int axis : {0, -1})
    for (OutKind ok : kAllOutKinds) check_softmax(p, s0, {}, axis, ok, "rank 0");
  Operand v = make_operand(p.dtype, {9}, Kind::Strided, default_gen(p.dtype), rng);
  check_softmax(p, v, {9}, 0, OutKind::GivenView, "rank 1 strided");
  Operand e = make_operand(p.dtype, {4, 0, 3}, Kind::Contig, default_gen(p.dtype), rng);
  for (int axis : {0, 1, 2})
    check_softmax(p, e, {4, 0, 3}, axis, OutKind::Fresh, "[4,0,3] axis " + std::to_string(axis));
  Operand big = make_operand(p.dtype, {300, 1000}, Kind::Contig, uniform_gen(p.dtype, -8, 8), rng);
  check_softmax(p, big, {300, 1000}, 1, OutKind::Fresh, "[300,1000] axis 1");
  check_softmax(p, big, {300, 1000}, 0, OutKind::Given, "[300,1000] axis 0");
  Operand col = make_operand(p.dtype, {64, 1000}, Kind::Permuted, uniform_gen(p.dtype, -8, 8), rng);
  check_softmax(p, col, {64, 1000}, 1, OutKind::GivenView, "permuted [64,1000] axis 1");
  Operand small = make_operand(p.dtype, {64, 10}, Kind::Contig, uniform_gen(p.dtype, -8, 8), rng);
  check_softmax(p, small, {64, 10}, -1, OutKind::Fresh, "[64,10]");
}

TEST_P(Softmax, BackwardMatchesTheReferenceEveryLayout) {
  const OpDtype p = GetParam();
  const bool log = std::string(p.op) == "log_softmax";
  const std::string bp = std::string(p.op) + "_bp";
  std::mt19937 rng(300 + p.dtype * 3 + p.op[0]);
  int variant = 0;
  for (const Shape& s : std::vector<Shape>{{3, 5, 7}, {}, {4, 0, 3}, {200, 300}})
    for (int axis = s.empty() ? -1 : -int(s.size()); axis < int(s.size()) || (s.empty() && axis < 0); ++axis) {
      ++variant;
      Kind ky = kAllKinds[variant % 5], kg = kAllKinds[(variant + 2) % 5];
      OutKind ok = kAllOutKinds[variant % 3];
      // y in the range a (log-)softmax output has; the formulas hold for any y.
      Operand y =
          make_operand(p.dtype, s, ky, log ? uniform_gen(p.dtype, -5, -0.01) : uniform_gen(p.dtype, 0.01, 1), rng);
      Operand dy = make_operand(p.dtype, s, kg, default_gen(p.dtype), rng);
      std::vector<double> want = softmax_bp_ref(y.vals, dy.vals, s, axis, log);
      std::string what = bp + " shape " + shape_str(s) + " axis " + std::to_string(axis) + " y " + kind_str(ky) +
                         " dy " + kind_str(kg) + ", " + out_kind_str(ok);
      std::vector<double> got = run_out(bp.c_str(), {&y.view, &dy.view}, axis_attr(axis), p.dtype, s, ok);
      // The terms can be much larger than dx (y here need not sum to 1): allow rounding of each.
      const double eps = p.dtype == NDRT_F64   ? 2.3e-16
                         : p.dtype == NDRT_F32 ? 1.2e-7
                         : p.dtype == NDRT_F16 ? 1e-3
                                               : 8e-3;
      std::vector<double> extra(want.size(), 0.0);
      for (const auto& r : rows_along(s, axis)) {
        double sum = 0;
        for (int64_t k : r) sum += std::fabs(log ? dy.vals[size_t(k)] : dy.vals[size_t(k)] * y.vals[size_t(k)]);
        for (int64_t k : r) {
          const double yk = y.vals[size_t(k)], gk = std::fabs(dy.vals[size_t(k)]);
          extra[size_t(k)] = 4 * eps * (log ? gk + std::exp(yk) * sum : std::fabs(yk) * (gk + sum));
        }
      }
      expect_close(got, want, p.dtype, default_tol(p.dtype), what, &extra);
    }
}

INSTANTIATE_TEST_SUITE_P(Ops, Softmax, ::testing::ValuesIn(softmax_params()), param_name);

TEST(SoftmaxSpecial, StableForLargeMagnitudesAndInfinities) {
  for (ndrt_dtype d : {NDRT_F32, NDRT_F64}) {
    SCOPED_TRACE(dtype_str(d));
    Tensor x = from_values(d, {3, 3}, {1000, 999, 998, -1000, -1001, -kInf, 0, -kInf, -kInf});
    std::vector<double> y = read_values(run("softmax", {&x}));
    std::vector<double> want = softmax_ref({1000, 999, 998, -1000, -1001, -kInf, 0, -kInf, -kInf}, {3, 3}, 1, false);
    expect_close(y, want, d, default_tol(d), "softmax large");
    std::vector<double> l = read_values(run("log_softmax", {&x}));
    EXPECT_EQ(l[5], -kInf);
    EXPECT_EQ(l[6], 0.0);
    EXPECT_NEAR(l[0], -std::log(1 + std::exp(-1.0) + std::exp(-2.0)), 1e-6);
    Tensor all_inf = from_values(d, {1, 2}, {-kInf, -kInf});
    std::vector<double> n = read_values(run("softmax", {&all_inf}));
    EXPECT_TRUE(std::isnan(n[0]) && std::isnan(n[1]));
  }
}

TEST(SoftmaxSpecial, InPlaceOnTheSameView) {
  std::mt19937 rng(5);
  for (const char* op : {"softmax", "log_softmax"})
    for (Kind k : {Kind::Contig, Kind::Strided, Kind::Permuted}) {
      SCOPED_TRACE(std::string(op) + " " + kind_str(k));
      Operand x = make_operand(NDRT_F32, {6, 9}, k, default_gen(NDRT_F32), rng);
      std::vector<double> want = softmax_ref(x.vals, {6, 9}, 1, std::string(op) == "log_softmax");
      run_into(op, {&x.view}, x.view, axis_attr(1));
      expect_close(read_values(x.view), want, NDRT_F32, default_tol(NDRT_F32), op);
    }
}

// Contiguous f32/f64 rows take the vectorised paths (exp in 8 lanes); rows of odd length exercise
// their tails; dx written over dy in place.
TEST(SoftmaxSpecial, ContiguousRowsForwardBackwardAndInPlaceBackward) {
  std::mt19937 rng(15);
  for (ndrt_dtype d : {NDRT_F32, NDRT_F64})
    for (const Shape& s : std::vector<Shape>{{37, 129}, {5, 8}, {3, 1000}, {2, 7}})
      for (const char* op : {"softmax", "log_softmax"}) {
        const bool log = std::string(op) == "log_softmax";
        const std::string what = std::string(op) + " " + dtype_str(d) + " " + shape_str(s);
        Operand x = make_operand(d, s, Kind::Contig, uniform_gen(d, -20, 20), rng);
        expect_close(run_out(op, {&x.view}, axis_attr(-1), d, s, OutKind::Given), softmax_ref(x.vals, s, 1, log), d,
                     default_tol(d), what);
        Tensor y = run(op, {&x.view}, axis_attr(-1));
        std::vector<double> yv = read_values(y);
        Operand dy = make_operand(d, s, Kind::Contig, default_gen(d), rng);
        std::vector<double> want = softmax_bp_ref(yv, dy.vals, s, 1, log);
        const std::string bp = std::string(op) + "_bp";
        expect_close(run_out(bp.c_str(), {&y, &dy.view}, axis_attr(1), d, s, OutKind::Fresh), want, d, default_tol(d),
                     what + " backward");
        run_into(bp.c_str(), {&y, &dy.view}, dy.view, axis_attr(1));
        expect_close(read_values(dy.view), want, d, default_tol(d), what + " backward in place");
      }
}

TEST(SoftmaxGrad, FiniteDifferences) {
  std::mt19937 rng(6);
  for (const char* op : {"softmax", "log_softmax"})
    for (const Shape& s : std::vector<Shape>{{4, 5}, {2, 3, 4}, {7}})
      for (int axis = 0; axis < int(s.size()); ++axis) {
        rt::In x{NDRT_F64, s, rt::randv(rng, numel_of(s), -3, 3)};
        const std::string bp = std::string(op) + "_bp";
        rt::check_grad((std::string(op) + " " + shape_str(s) + " axis " + std::to_string(axis)).c_str(), op, 1, {x}, 0,
                       axis_attr(axis),
                       [&](const std::vector<double>& w) {
                         rt::Out y = rt::run_all(op, {x}, 1, axis_attr(axis))[0];
                         return rt::run_all(bp.c_str(), {rt::In{NDRT_F64, s, y.v}, rt::In{NDRT_F64, s, w}}, 1,
                                            axis_attr(axis))[0]
                             .v;
                       },
                       rng);
      }
}

// ---------------------------------------------------------------------------------------------
// Class losses
// ---------------------------------------------------------------------------------------------
double reduce_ref(const std::vector<double>& per, int64_t red) {
  double s = 0;
  for (double v : per) s += v;
  return red == 1 ? s / double(per.size()) : s;
}

std::vector<double> lse_rows(const std::vector<double>& x, int64_t N, int64_t C) {
  std::vector<double> l(static_cast<size_t>(N));
  for (int64_t n = 0; n < N; ++n) {
    double m = -kInf, s = 0;
    for (int64_t c = 0; c < C; ++c) m = std::max(m, x[size_t(n * C + c)]);
    for (int64_t c = 0; c < C; ++c) s += std::exp(x[size_t(n * C + c)] - m);
    l[size_t(n)] = m + std::log(s);
  }
  return l;
}

// Loss per row and gradient (for per-row upstream gradient g) of the class losses.
struct ClassRef {
  std::vector<double> loss, grad;
};
ClassRef class_ref(const std::string& op, const std::vector<double>& x, const std::vector<double>& t, int64_t N,
                   int64_t C, const std::vector<double>& g) {
  ClassRef r;
  r.loss.assign(size_t(N), 0);
  r.grad.assign(size_t(N * C), 0);
  std::vector<double> l = lse_rows(x, N, C);
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t c = 0; c < C; ++c) {
      const size_t k = size_t(n * C + c);
      const double sm = std::exp(x[k] - l[size_t(n)]);
      if (op == "softmax_cross_entropy") {
        const double hot = c == int64_t(t[size_t(n)]) ? 1 : 0;
        if (hot) r.loss[size_t(n)] = l[size_t(n)] - x[k];
        r.grad[k] = (sm - hot) * g[size_t(n)];
      } else if (op == "nll_loss") {
        const double hot = c == int64_t(t[size_t(n)]) ? 1 : 0;
        if (hot) r.loss[size_t(n)] = -x[k];
        r.grad[k] = -hot * g[size_t(n)];
      } else {  // soft targets
        double tsum = 0;
        for (int64_t j = 0; j < C; ++j) tsum += t[size_t(n * C + j)];
        r.loss[size_t(n)] -= t[k] * (x[k] - l[size_t(n)]);
        r.grad[k] = (sm * tsum - t[k]) * g[size_t(n)];
      }
    }
  }
  return r;
}

struct LossCase {
  const char* op;
  ndrt_dtype dtype;
};
std::string loss_name(const ::testing::TestParamInfo<LossCase>& i) {
  return std::string(i.param.op) + "_" + dtype_str(i.param.dtype);
}

class ClassLoss : public ::testing::TestWithParam<LossCase> {};

TEST_P(ClassLoss, ForwardAndBackwardEveryReductionLayoutAndLabelType) {
  const LossCase p = GetParam();
  const std::string op = p.op, bp = op + "_bp";
  const bool soft = op == "softmax_cross_entropy_soft";
  std::mt19937 rng(400 + p.dtype + p.op[0] + p.op[1]);
  int variant = 0;
  for (const std::pair<int64_t, int64_t>& nc :
       std::vector<std::pair<int64_t, int64_t>>{{7, 5}, {1, 1}, {64, 10}, {0, 4}, {513, 300}})
    for (int64_t red : {0, 1, 2})
      for (ndrt_dtype ld : {NDRT_I64, NDRT_I32}) {
        if (soft && ld == NDRT_I32) continue;
        ++variant;
        const int64_t N = nc.first, C = nc.second;
        const Shape xs = {N, C};
        Kind kx = kAllKinds[variant % 5];
        if (kx == Kind::Expanded) kx = Kind::Permuted;  // expanded rows are legal but make every row equal
        Operand x = make_operand(p.dtype, xs, kx,
                                 op == "nll_loss" ? uniform_gen(p.dtype, -6, -0.01) : uniform_gen(p.dtype, -5, 5), rng);
        Operand t;
        if (soft) {
          t = make_operand(p.dtype, xs, kAllKinds[(variant + 1) % 5], uniform_gen(p.dtype, 0.01, 1), rng);
        } else {
          Gen lab = [C](std::mt19937& r) { return double(std::uniform_int_distribution<int64_t>(0, C - 1)(r)); };
          t = make_operand(ld, {N}, variant % 2 ? Kind::Strided : Kind::Contig, lab, rng);
        }
        const Shape ls = red == 0 ? Shape{N} : Shape{};
        std::vector<double> g(size_t(N), 1.0);
        ClassRef r = class_ref(op, x.vals, t.vals, N, C, g);
        // The mean over N = 0: NaN for soft targets (PyTorch), 0 for class indices (nothing counted).
        std::vector<double> want =
            red == 0 ? r.loss : std::vector<double>{N == 0 && !soft ? 0.0 : reduce_ref(r.loss, red)};
        const std::string what = op + " [" + std::to_string(N) + "," + std::to_string(C) + "] reduction " +
                                 std::to_string(red) + " labels " + dtype_str(ld) + " " + kind_str(kx);
        OutKind ok = kAllOutKinds[variant % 3];
        std::vector<double> got = run_out(op.c_str(), {&x.view, &t.view}, red_attr(red), p.dtype, ls, ok);
        expect_close(got, want, p.dtype, default_tol(p.dtype), what + ", " + out_kind_str(ok));
        // Backward with a random upstream gradient.
        Operand dy = make_operand(p.dtype, ls, Kind::Strided, default_gen(p.dtype), rng);
        for (int64_t n = 0; n < N; ++n)
          g[size_t(n)] = red == 0 ? dy.vals[size_t(n)] : dy.vals[0] / (red == 1 ? double(N) : 1.0);
        ClassRef rg = class_ref(op, x.vals, t.vals, N, C, g);
        std::vector<double> dgot = run_out(bp.c_str(), {&x.view, &t.view, &dy.view}, red_attr(red), p.dtype, xs,
                                           kAllOutKinds[(variant + 1) % 3]);
        expect_close(dgot, rg.grad, p.dtype, default_tol(p.dtype), what + " backward");
      }
}

TEST_P(ClassLoss, FiniteDifferences) {
  const LossCase p = GetParam();
  if (p.dtype != NDRT_F64) return;
  const std::string op = p.op, bp = op + "_bp";
  std::mt19937 rng(500 + p.op[0]);
  const int64_t N = 4, C = 5;
  for (int64_t red : {0, 1, 2}) {
    rt::In x{NDRT_F64, {N, C}, rt::randv(rng, N * C, -3, 3)};
    rt::In t;
    if (op == "softmax_cross_entropy_soft") {
      t = rt::In{NDRT_F64, {N, C}, rt::randv(rng, N * C, 0.01, 1)};
    } else {
      t = rt::In{NDRT_I64, {N}, {0, 4, 2, 4}};
    }
    rt::check_grad((op + " reduction " + std::to_string(red)).c_str(), op.c_str(), 1, {x, t}, 0, red_attr(red),
                   [&](const std::vector<double>& w) {
                     Shape ls = red == 0 ? Shape{N} : Shape{};
                     return rt::run_all(bp.c_str(), {x, t, rt::In{NDRT_F64, ls, w}}, 1, red_attr(red))[0].v;
                   },
                   rng);
  }
}

std::vector<LossCase> class_params() {
  std::vector<LossCase> r;
  for (const char* op : {"softmax_cross_entropy", "softmax_cross_entropy_soft", "nll_loss"})
    for (ndrt_dtype d : kFloats)
      if (d == NDRT_F32 || d == NDRT_F64 || op != std::string("softmax_cross_entropy_soft")) r.push_back({op, d});
  return r;
}
INSTANTIATE_TEST_SUITE_P(Ops, ClassLoss, ::testing::ValuesIn(class_params()), loss_name);

TEST(ClassLossSpecial, FusedCrossEntropyEqualsNllOfLogSoftmax) {
  std::mt19937 rng(8);
  Tensor x = from_values(NDRT_F32, {33, 17}, rt::randv(rng, 33 * 17, -10, 10));
  std::vector<double> lv;
  for (int i = 0; i < 33; ++i) lv.push_back(double(rng() % 17));
  Tensor l = from_values(NDRT_I64, {33}, lv);
  Tensor lsm = run("log_softmax", {&x});
  for (int64_t red : {0, 1, 2}) {
    std::vector<double> a = read_values(run("softmax_cross_entropy", {&x, &l}, red_attr(red)));
    std::vector<double> b = read_values(run("nll_loss", {&lsm, &l}, red_attr(red)));
    expect_close(a, b, NDRT_F32, {2e-6, 2e-6}, "fused vs composed, reduction " + std::to_string(red));
  }
  // Large logits stay finite (no overflow in exp).
  Tensor big = from_values(NDRT_F32, {2, 3}, {1e4, 0, -1e4, 50, 80, 90});
  Tensor bl = from_values(NDRT_I32, {2}, {2, 0});
  std::vector<double> v = read_values(run("softmax_cross_entropy", {&big, &bl}, red_attr(0)));
  EXPECT_NEAR(v[0], 2e4, 1e-1);
  EXPECT_NEAR(v[1], 40 + std::log(1 + std::exp(-10.0) + std::exp(-40.0)), 1e-4);
}

TEST(ClassLossSpecial, OneHotTargetsGiveTheIndexLoss) {
  std::mt19937 rng(9);
  const int64_t N = 6, C = 4;
  std::vector<double> xv = rt::randv(rng, N * C, -3, 3), lab = {0, 3, 1, 1, 2, 0}, hot(size_t(N * C), 0.0);
  for (int64_t n = 0; n < N; ++n) hot[size_t(n * C + int64_t(lab[size_t(n)]))] = 1;
  Tensor x = from_values(NDRT_F64, {N, C}, xv), l = from_values(NDRT_I64, {N}, lab),
         t = from_values(NDRT_F64, {N, C}, hot);
  expect_close(read_values(run("softmax_cross_entropy_soft", {&x, &t})),
               read_values(run("softmax_cross_entropy", {&x, &l})), NDRT_F64, default_tol(NDRT_F64),
               "one-hot vs index");
  Tensor one = from_values(NDRT_F64, {}, {1});
  expect_close(read_values(run("softmax_cross_entropy_soft_bp", {&x, &t, &one})),
               read_values(run("softmax_cross_entropy_bp", {&x, &l, &one})), NDRT_F64, default_tol(NDRT_F64),
               "one-hot vs index backward");
}

// Rows of zero classes: each soft-target loss is the empty sum, 0, and the gradient is empty; class
// indices cannot be in range. (The kernels used to read a row's first element all the same.)
TEST(ClassLossSpecial, RowsOfZeroClasses) {
  for (ndrt_dtype d : {NDRT_F32, NDRT_F64}) {
    Tensor x = from_values(d, {2, 0}, {}), t = from_values(d, {2, 0}, {});
    EXPECT_EQ(read_values(run("softmax_cross_entropy_soft", {&x, &t}, red_attr(0))), std::vector<double>({0, 0}));
    for (int64_t red : {1, 2})
      EXPECT_EQ(read_values(run("softmax_cross_entropy_soft", {&x, &t}, red_attr(red))), std::vector<double>({0}));
    Tensor dy = from_values(d, {2}, {1, 1});
    Tensor dx = run("softmax_cross_entropy_soft_bp", {&x, &t, &dy}, red_attr(0));
    EXPECT_EQ(dx.shape(), Shape({2, 0}));
    Tensor l = from_values(NDRT_I64, {2}, {0, 0});
    rt::expect_error(NDRT_ERR_INVALID_ARGUMENT, "softmax_cross_entropy: label 0 at row 0 is out of range [0, 0)",
                     "softmax_cross_entropy", {&x, &l}, 1);
    // 2^40 rows of nothing hold no elements: no per-row buffer, no row-by-row sum.
    Tensor hx = create(d, {int64_t(1) << 40, 0}), ht = create(d, {int64_t(1) << 40, 0});
    for (int64_t red : {1, 2})
      EXPECT_EQ(read_values(run("softmax_cross_entropy_soft", {&hx, &ht}, red_attr(red))), std::vector<double>({0}));
    Tensor hdy = from_values(d, {}, {1});
    EXPECT_EQ(run("softmax_cross_entropy_soft_bp", {&hx, &ht, &hdy}, red_attr(1)).shape(), Shape({int64_t(1) << 40, 0}));
  }
}

TEST(ClassLossErrors, LabelsOutOfRangeAndBadInputs) {
  Tensor x = from_values(NDRT_F32, {3, 4}, std::vector<double>(12, 0.5));
  Tensor bad = from_values(NDRT_I64, {3}, {0, 4, 1});
  Tensor neg = from_values(NDRT_I32, {3}, {0, 1, -1});
  Tensor one = from_values(NDRT_F32, {}, {1});
  for (const char* op : {"softmax_cross_entropy", "nll_loss"}) {
    rt::expect_error(NDRT_ERR_INVALID_ARGUMENT, std::string(op) + ": label 4 at row 1 is out of range [0, 4)", op,
                     {&x, &bad}, 1);
    rt::expect_error(NDRT_ERR_INVALID_ARGUMENT, std::string(op) + ": label -1 at row 2 is out of range [0, 4)", op,
                     {&x, &neg}, 1);
    const std::string bp = std::string(op) + "_bp";
    rt::expect_error(NDRT_ERR_INVALID_ARGUMENT, bp + ": label 4 at row 1 is out of range [0, 4)", bp.c_str(),
                     {&x, &bad, &one}, 1);
  }
  Tensor fl = from_values(NDRT_F32, {3}, {0, 1, 2});
  rt::expect_error(NDRT_ERR_DTYPE_MISMATCH, "softmax_cross_entropy: labels must be i32 or i64 class indices, got f32",
                   "softmax_cross_entropy", {&x, &fl}, 1);
  Tensor l4 = from_values(NDRT_I64, {4}, {0, 1, 2, 3});
  rt::expect_error(NDRT_ERR_SHAPE_MISMATCH, "nll_loss: labels must be [N] = [3] for logp [3,4], got [4]", "nll_loss",
                   {&x, &l4}, 1);
  Tensor x1 = from_values(NDRT_F32, {4}, {1, 2, 3, 4});
  rt::expect_error(NDRT_ERR_SHAPE_MISMATCH, "softmax_cross_entropy: logits must be [N, C], got [4]",
                   "softmax_cross_entropy", {&x1, &l4}, 1);
  Tensor ok = from_values(NDRT_I64, {3}, {0, 1, 2});
  rt::expect_error(NDRT_ERR_INVALID_ARGUMENT,
                   "softmax_cross_entropy: reduction must be 0 (none), 1 (mean) or 2 (sum), got 3",
                   "softmax_cross_entropy", {&x, &ok}, 1, red_attr(3));
  Tensor dy3 = from_values(NDRT_F32, {3}, {1, 1, 1});
  rt::expect_error(NDRT_ERR_SHAPE_MISMATCH,
                   "softmax_cross_entropy_bp: dy has shape [3] but the loss has shape [] (reduction 1)",
                   "softmax_cross_entropy_bp", {&x, &ok, &dy3}, 1);
  Tensor dy64 = from_values(NDRT_F64, {}, {1});
  rt::expect_error(NDRT_ERR_DTYPE_MISMATCH, "nll_loss_bp: dy is f64 but the loss is f32", "nll_loss_bp",
                   {&x, &ok, &dy64}, 1);
  Tensor t34 = from_values(NDRT_F32, {3, 5}, std::vector<double>(15, 0.2));
  rt::expect_error(NDRT_ERR_SHAPE_MISMATCH,
                   "softmax_cross_entropy_soft: targets has shape [3,5] but logits has shape [3,4]",
                   "softmax_cross_entropy_soft", {&x, &t34}, 1);
  Tensor xh = from_values(NDRT_F16, {3, 4}, std::vector<double>(12, 0.5));
  rt::expect_error(NDRT_ERR_NOT_SUPPORTED, "", "softmax_cross_entropy_soft", {&xh, &xh}, 1);
  Tensor xi = from_values(NDRT_I32, {3, 4}, std::vector<double>(12, 1));
  rt::expect_error(NDRT_ERR_DTYPE_MISMATCH, "softmax: needs a floating-point dtype, got i32", "softmax", {&xi}, 1);
  rt::expect_error(NDRT_ERR_INVALID_ARGUMENT, "log_softmax: axis 2 is out of range for rank 2", "log_softmax", {&x}, 1,
                   axis_attr(2));
  Tensor y5 = from_values(NDRT_F32, {3, 5}, std::vector<double>(15, 0.2));
  rt::expect_error(NDRT_ERR_SHAPE_MISMATCH, "softmax_bp: dy has shape [3,5] but y has shape [3,4]", "softmax_bp",
                   {&x, &y5}, 1);
}

// N = 0: the class-index losses' mean counts no rows and is 0 (their documented choice, where
// PyTorch gives NaN); the soft-target loss keeps PyTorch's NaN.
TEST(ClassLossSpecial, EmptyBatch) {
  Tensor x = create(NDRT_F32, {0, 5});
  Tensor l = create(NDRT_I64, {0});
  EXPECT_EQ(read_values(run("softmax_cross_entropy", {&x, &l}, red_attr(1)))[0], 0.0);
  EXPECT_EQ(read_values(run("nll_loss", {&x, &l}, red_attr(1)))[0], 0.0);
  EXPECT_EQ(read_values(run("softmax_cross_entropy", {&x, &l}, red_attr(2)))[0], 0.0);
  EXPECT_EQ(run("nll_loss", {&x, &l}, red_attr(0)).shape(), Shape{0});
  Tensor t = create(NDRT_F32, {0, 5});
  EXPECT_TRUE(std::isnan(read_values(run("softmax_cross_entropy_soft", {&x, &t}, red_attr(1)))[0]));
}

// ---------------------------------------------------------------------------------------------
// Class weights and ignore_index (softmax_cross_entropy, nll_loss and their _bp)
// ---------------------------------------------------------------------------------------------
const int64_t kNoIgnore = -100;  // the default ignore_index

Attrs class_attr(int64_t reduction, int64_t ignore_index) { return Attrs{{reduction, ignore_index}, {}}; }

// PyTorch's weighted, ignoring class losses in f64: per row w[y] * l_n (0 on ignored rows), the
// mean's denominator D = sum of w[y] over the rows not ignored, and the gradient for per-row
// upstream gradients g (before the weight).
struct WeightedRef {
  std::vector<double> loss, grad;
  double den = 0;
};
WeightedRef weighted_ref(const std::string& op, const std::vector<double>& x, const std::vector<double>& labels,
                         const std::vector<double>* w, int64_t ignore, int64_t N, int64_t C,
                         const std::vector<double>& g) {
  WeightedRef r;
  r.loss.assign(size_t(N), 0);
  r.grad.assign(size_t(N * C), 0);
  std::vector<double> l = lse_rows(x, N, C);
  for (int64_t n = 0; n < N; ++n) {
    const int64_t y = int64_t(labels[size_t(n)]);
    if (y == ignore) continue;
    const double wy = w ? (*w)[size_t(y)] : 1.0;
    r.den += wy;
    const size_t k = size_t(n * C + y);
    r.loss[size_t(n)] = wy * (op == "nll_loss" ? -x[k] : l[size_t(n)] - x[k]);
    for (int64_t c = 0; c < C; ++c) {
      const size_t j = size_t(n * C + c);
      const double hot = c == y ? 1 : 0;
      r.grad[j] = wy * g[size_t(n)] * (op == "nll_loss" ? -hot : std::exp(x[j] - l[size_t(n)]) - hot);
    }
  }
  return r;
}

double weighted_reduce(const WeightedRef& r, int64_t red) {
  double s = 0;
  for (double v : r.loss) s += v;
  return red == 1 ? (r.den == 0 ? 0.0 : s / r.den) : s;
}

class WeightedClassLoss : public ::testing::TestWithParam<LossCase> {};

// Random logits, labels (a quarter of them ignore_index: -100, or 1, a class in range), positive
// weights or none, every reduction, layouts of x, labels and weights, output kinds (poisoned, so
// every element must be written), forward and backward against the f64 reference.
TEST_P(WeightedClassLoss, ForwardAndBackwardAgainstTheReference) {
  const LossCase p = GetParam();
  const std::string op = p.op, bp = op + "_bp";
  std::mt19937 rng(800 + p.dtype + p.op[0]);
  Tol tol = default_tol(p.dtype);
  int variant = 0;
  for (const std::pair<int64_t, int64_t>& nc :
       std::vector<std::pair<int64_t, int64_t>>{{7, 5}, {1, 1}, {64, 10}, {0, 4}, {513, 300}, {40, 3}})
    for (int64_t red : {0, 1, 2})
      for (int weighted = 0; weighted < 2; ++weighted) {
        ++variant;
        const int64_t N = nc.first, C = nc.second;
        const int64_t ignore = variant % 3 == 2 && C > 1 ? 1 : kNoIgnore;
        const ndrt_dtype ld = variant % 2 ? NDRT_I32 : NDRT_I64;
        Kind kx = kAllKinds[variant % 5];
        if (kx == Kind::Expanded) kx = Kind::Permuted;
        Operand x = make_operand(p.dtype, {N, C}, kx,
                                 op == "nll_loss" ? uniform_gen(p.dtype, -6, -0.01) : uniform_gen(p.dtype, -5, 5), rng);
        Gen lab = [C, ignore](std::mt19937& r) {
          if (std::uniform_int_distribution<int>(0, 3)(r) == 0) return double(ignore);
          return double(std::uniform_int_distribution<int64_t>(0, C - 1)(r));
        };
        const Kind kl = variant % 4 == 1 ? Kind::Strided : variant % 4 == 3 ? Kind::Offset : Kind::Contig;
        Operand t = make_operand(ld, {N}, kl, lab, rng);
        Operand w = make_operand(p.dtype, {C}, variant % 2 ? Kind::Strided : Kind::Contig,
                                 uniform_gen(p.dtype, 0.25, 2), rng);
        const std::vector<double>* wv = weighted ? &w.vals : nullptr;
        const Shape ls = red == 0 ? Shape{N} : Shape{};
        const std::string what = op + " [" + std::to_string(N) + "," + std::to_string(C) + "] reduction " +
                                 std::to_string(red) + (weighted ? " weighted" : "") + " ignore_index " +
                                 std::to_string(ignore) + " labels " + dtype_str(ld) + " " + kind_str(kl) + " x " +
                                 kind_str(kx);
        std::vector<double> g(size_t(N), 1.0);
        WeightedRef r = weighted_ref(op, x.vals, t.vals, wv, ignore, N, C, g);
        std::vector<double> want = red == 0 ? r.loss : std::vector<double>{weighted_reduce(r, red)};
        std::vector<const Tensor*> in = {&x.view, &t.view};
        if (weighted) in.push_back(&w.view);
        OutKind ok = kAllOutKinds[variant % 3];
        Tol ftol = tol;
        if (red) ftol.atol = std::max(tol.atol, tol.rtol);  // sums of many terms
        expect_close(run_out(op.c_str(), in, class_attr(red, ignore), p.dtype, ls, ok), want, p.dtype, ftol,
                     what + ", " + out_kind_str(ok));
        // Backward with a random upstream gradient.
        Operand dy = make_operand(p.dtype, ls, Kind::Strided, default_gen(p.dtype), rng);
        for (int64_t n = 0; n < N; ++n)
          g[size_t(n)] = red == 0 ? dy.vals[size_t(n)] : red == 2 ? dy.vals[0] : r.den == 0 ? 0.0 : dy.vals[0] / r.den;
        WeightedRef rg = weighted_ref(op, x.vals, t.vals, wv, ignore, N, C, g);
        std::vector<const Tensor*> bin = {&x.view, &t.view, &dy.view};
        if (weighted) bin.push_back(&w.view);
        expect_close(run_out(bp.c_str(), bin, class_attr(red, ignore), p.dtype, {N, C}, kAllOutKinds[(variant + 1) % 3]),
                     rg.grad, p.dtype, tol, what + " backward");
      }
}

TEST_P(WeightedClassLoss, FiniteDifferences) {
  const LossCase p = GetParam();
  if (p.dtype != NDRT_F64) return;
  const std::string op = p.op, bp = op + "_bp";
  std::mt19937 rng(900 + p.op[0]);
  const int64_t N = 5, C = 4;
  for (int64_t red : {0, 1, 2})
    for (int weighted = 0; weighted < 2; ++weighted) {
      rt::In x{NDRT_F64, {N, C}, rt::randv(rng, N * C, -3, 3)};
      rt::In t{NDRT_I64, {N}, {0, double(kNoIgnore), 3, 2, double(kNoIgnore)}};
      std::vector<rt::In> ins = {x, t};
      if (weighted) ins.push_back(rt::In{NDRT_F64, {C}, rt::randv(rng, C, 0.25, 2)});
      const std::string what = op + " reduction " + std::to_string(red) + (weighted ? " weighted" : "");
      rt::check_grad(what.c_str(), op.c_str(), 1, ins, 0, class_attr(red, kNoIgnore),
                     [&](const std::vector<double>& v) {
                       const Shape ls = red == 0 ? Shape{N} : Shape{};
                       std::vector<rt::In> b = {x, t, rt::In{NDRT_F64, ls, v}};
                       if (weighted) b.push_back(ins[2]);
                       return rt::run_all(bp.c_str(), b, 1, class_attr(red, kNoIgnore))[0].v;
                     },
                     rng);
    }
}

std::vector<LossCase> weighted_params() {
  std::vector<LossCase> r;
  for (const char* op : {"softmax_cross_entropy", "nll_loss"})
    for (ndrt_dtype d : kFloats) r.push_back({op, d});
  return r;
}
INSTANTIATE_TEST_SUITE_P(Ops, WeightedClassLoss, ::testing::ValuesIn(weighted_params()), loss_name);

// Every row ignored, or every counted row of weight 0: nothing is counted, so the mean is 0 (not
// PyTorch's NaN) and so is every gradient; sum and none give zeros too.
TEST(WeightedClassLossSpecial, NothingCountedGivesZeroNotNaN) {
  for (ndrt_dtype d : kFloats)
    for (const char* op : {"softmax_cross_entropy", "nll_loss"}) {
      SCOPED_TRACE(std::string(op) + " " + dtype_str(d));
      const std::string bp = std::string(op) + "_bp";
      Tensor x = from_values(d, {3, 4}, {-1, -2, -3, -0.5, -0.25, -1, -2, -4, -3, -2, -1, -0.5});
      Tensor all_ignored = from_values(NDRT_I64, {3}, {-100, -100, -100});
      Tensor two = from_values(NDRT_I32, {3}, {2, 2, 2});
      Tensor w = from_values(d, {4}, {1, 1, 0, 1});
      Tensor one = from_values(d, {}, {1}), ones = from_values(d, {3}, {1, 1, 1});
      for (int64_t red : {0, 1, 2}) {
        const Tensor& dy = red == 0 ? ones : one;
        for (int weighted = 0; weighted < 2; ++weighted) {
          std::vector<const Tensor*> fin = {&x, &all_ignored}, bin = {&x, &all_ignored, &dy};
          if (weighted) {
            fin.push_back(&w);
            bin.push_back(&w);
          }
          std::vector<double> zeros(red == 0 ? 3 : 1, 0.0);
          EXPECT_EQ(read_values(run(op, fin, class_attr(red, kNoIgnore))), zeros) << "reduction " << red;
          EXPECT_EQ(read_values(run(bp.c_str(), bin, class_attr(red, kNoIgnore))), std::vector<double>(12, 0.0));
        }
        // Labels all of class 2, whose weight is 0: counted with weight 0.
        EXPECT_EQ(read_values(run(op, {&x, &two, &w}, class_attr(red, kNoIgnore))),
                  std::vector<double>(red == 0 ? 3 : 1, 0.0));
        EXPECT_EQ(read_values(run(bp.c_str(), {&x, &two, &dy, &w}, class_attr(red, kNoIgnore))),
                  std::vector<double>(12, 0.0));
        // ignore_index may name a class in range: every label 2 is ignored.
        EXPECT_EQ(read_values(run(op, {&x, &two}, class_attr(red, 2))), std::vector<double>(red == 0 ? 3 : 1, 0.0));
      }
    }
}

// Without weights and with no label equal to ignore_index the ops give what they gave before
// (the weights of 1 are exact): an explicit all-ones weight changes nothing either.
TEST(WeightedClassLossSpecial, UnitWeightsAndNoIgnoredRowsChangeNothing) {
  std::mt19937 rng(31);
  for (ndrt_dtype d : {NDRT_F32, NDRT_F64})
    for (const char* op : {"softmax_cross_entropy", "nll_loss"}) {
      const std::string bp = std::string(op) + "_bp";
      Tensor x = from_values(d, {37, 11}, rt::randv(rng, 37 * 11, -4, -0.1));
      std::vector<double> lv;
      for (int i = 0; i < 37; ++i) lv.push_back(double(rng() % 11));
      Tensor l = from_values(NDRT_I64, {37}, lv), w = from_values(d, {11}, std::vector<double>(11, 1.0));
      for (int64_t red : {0, 1, 2}) {
        SCOPED_TRACE(std::string(op) + " " + dtype_str(d) + " reduction " + std::to_string(red));
        const std::vector<double> plain = read_values(run(op, {&x, &l}, red_attr(red)));
        EXPECT_EQ(read_values(run(op, {&x, &l, &w}, class_attr(red, -7))), plain);
        Tensor dy = red == 0 ? from_values(d, {37}, rt::randv(rng, 37)) : from_values(d, {}, {0.75});
        const std::vector<double> dplain = read_values(run(bp.c_str(), {&x, &l, &dy}, red_attr(red)));
        EXPECT_EQ(read_values(run(bp.c_str(), {&x, &l, &dy, &w}, class_attr(red, -7))), dplain);
      }
    }
}

// The documented per-time-step use: a sequence [N, T, C] with labels [N, T] is used as [N*T, C]
// and [N*T] (reshape views, no copy), masked steps either labelled ignore_index (mean over the
// valid steps) or weighted by the mask after reduction none. Both agree with a per-step reference.
TEST(WeightedClassLossSpecial, PerTimeStepUnderAMask) {
  std::mt19937 rng(32);
  const int64_t N = 3, T = 5, C = 6;
  for (ndrt_dtype d : {NDRT_F32, NDRT_F64}) {
    SCOPED_TRACE(dtype_str(d));
    std::vector<double> xv = rt::randv(rng, N * T * C, -4, 4), lv(size_t(N * T)), mask(size_t(N * T)), masked(lv.size());
    const int64_t lengths[N] = {5, 2, 0};  // a full row, a short one, one of padding only
    for (int64_t n = 0; n < N; ++n)
      for (int64_t t = 0; t < T; ++t) {
        const size_t k = size_t(n * T + t);
        lv[k] = double(rng() % uint32_t(C));
        mask[k] = t < lengths[n] ? 1 : 0;
        masked[k] = mask[k] ? lv[k] : double(kNoIgnore);
      }
    if (d == NDRT_F32)
      for (double& v : xv) v = double(float(v));
    std::vector<double> wv = {0.5, 1, 1.5, 2, 1, 0.25};
    Tensor seq = from_values(d, {N, T, C}, xv), labels = from_values(NDRT_I64, {N, T}, masked),
           raw_labels = from_values(NDRT_I64, {N, T}, lv), m = from_values(d, {N * T}, mask),
           w = from_values(d, {C}, wv);
    Tensor rows = reshape(seq, {N * T, C}), lrows = reshape(labels, {N * T}), rrows = reshape(raw_labels, {N * T});
    std::vector<double> g(size_t(N * T), 1.0);
    WeightedRef r = weighted_ref("softmax_cross_entropy", xv, masked, &wv, kNoIgnore, N * T, C, g);
    const double mean = weighted_reduce(r, 1);
    double count = 0;
    for (double v : mask) count += v;
    EXPECT_EQ(r.den == 0, count == 0);
    // (a) masked steps labelled ignore_index: the weighted mean over the valid steps.
    EXPECT_NEAR(read_values(run("softmax_cross_entropy", {&rows, &lrows, &w}, class_attr(1, kNoIgnore)))[0], mean,
                1e-5 * std::fabs(mean) + 1e-6);
    // (b) reduction none, times the mask, summed: the weighted sum over the valid steps.
    Tensor per = run("softmax_cross_entropy", {&rows, &rrows, &w}, class_attr(0, kNoIgnore));
    Tensor prod = run("mul", {&per, &m});
    const double sum = read_values(run("sum", {&prod}, reduce_attrs({}, false)))[0];
    EXPECT_NEAR(sum, weighted_reduce(r, 2), 1e-5 * std::fabs(sum) + 1e-6);
    EXPECT_NEAR(sum / r.den, mean, 1e-5 * std::fabs(mean) + 1e-6);
    // The padding-only sequence alone: mean 0, gradient 0.
    Tensor pad_rows = slice(rows, 0, 2 * T, 3 * T, 1), pad_labels = slice(lrows, 0, 2 * T, 3 * T, 1);
    EXPECT_EQ(read_values(run("softmax_cross_entropy", {&pad_rows, &pad_labels, &w}, class_attr(1, kNoIgnore)))[0],
              0.0);
    Tensor one = from_values(d, {}, {1});
    EXPECT_EQ(read_values(run("softmax_cross_entropy_bp", {&pad_rows, &pad_labels, &one, &w}, class_attr(1, kNoIgnore))),
              std::vector<double>(size_t(T * C), 0.0));
  }
}

TEST(WeightedClassLossErrors, WeightsLabelsAndArity) {
  Tensor x = from_values(NDRT_F32, {3, 4}, std::vector<double>(12, -0.5));
  Tensor l = from_values(NDRT_I64, {3}, {0, -100, 3});
  Tensor one = from_values(NDRT_F32, {}, {1});
  Tensor w5 = from_values(NDRT_F32, {5}, std::vector<double>(5, 1));
  Tensor w14 = from_values(NDRT_F32, {1, 4}, std::vector<double>(4, 1));
  Tensor w64 = from_values(NDRT_F64, {4}, std::vector<double>(4, 1));
  Tensor wi = from_values(NDRT_I32, {4}, std::vector<double>(4, 1));
  for (const char* op : {"softmax_cross_entropy", "nll_loss"}) {
    const std::string o = op, bp = o + "_bp", x_name = o == "nll_loss" ? "logp" : "logits";
    rt::expect_error(NDRT_ERR_SHAPE_MISMATCH,
                     o + ": weights must be [C] = [4] (one per class) for " + x_name + " [3,4], got [5]", op,
                     {&x, &l, &w5}, 1);
    rt::expect_error(NDRT_ERR_SHAPE_MISMATCH,
                     bp + ": weights must be [C] = [4] (one per class) for " + x_name + " [3,4], got [1,4]",
                     bp.c_str(), {&x, &l, &one, &w14}, 1);
    rt::expect_error(NDRT_ERR_DTYPE_MISMATCH, o + ": weights is f64 but " + x_name + " is f32 (cast explicitly)", op,
                     {&x, &l, &w64}, 1);
    rt::expect_error(NDRT_ERR_DTYPE_MISMATCH, bp + ": weights is i32 but " + x_name + " is f32 (cast explicitly)",
                     bp.c_str(), {&x, &l, &one, &wi}, 1);
    // -100 is only ignored as the ignore_index: with another one it is out of range, naming its row.
    rt::expect_error(NDRT_ERR_INVALID_ARGUMENT, o + ": label -100 at row 1 is out of range [0, 4)", op, {&x, &l}, 1,
                     class_attr(1, -1));
    rt::expect_error(NDRT_ERR_INVALID_ARGUMENT, bp + ": label -100 at row 1 is out of range [0, 4)", bp.c_str(),
                     {&x, &l, &one}, 1, class_attr(1, 0));
    Tensor bad = from_values(NDRT_I32, {3}, {0, 4, -100});
    rt::expect_error(NDRT_ERR_INVALID_ARGUMENT, o + ": label 4 at row 1 is out of range [0, 4)", op, {&x, &bad}, 1);
    // Arity: two or three inputs for the forward, three or four for the backward.
    Tensor w4 = from_values(NDRT_F32, {4}, std::vector<double>(4, 1));
    rt::expect_error(NDRT_ERR_INVALID_ARGUMENT, o + ": takes 2 to 3 input(s) and 1 output(s), got 4 and 1", op,
                     {&x, &l, &w4, &w4}, 1);
    rt::expect_error(NDRT_ERR_INVALID_ARGUMENT, o + ": takes 2 to 3 input(s) and 1 output(s), got 1 and 1", op, {&x},
                     1);
    rt::expect_error(NDRT_ERR_INVALID_ARGUMENT, bp + ": takes 3 to 4 input(s) and 1 output(s), got 5 and 1",
                     bp.c_str(), {&x, &l, &one, &w4, &w4}, 1);
  }
}

// ndrt_op_describe marks the optional input and lists ignore_index with its default; the doc
// says how to use the ops per time step.
TEST(WeightedClassLossSpecial, Description) {
  for (const char* op : {"softmax_cross_entropy", "nll_loss"}) {
    const std::string d = op_describe(op), x_name = std::string(op) == "nll_loss" ? "logp" : "logits";
    EXPECT_NE(d.find("\"inputs\":[{\"name\":\"" + x_name + "\"},{\"name\":\"labels\"},{\"name\":\"weights\","
                     "\"optional\":true}]"),
              std::string::npos)
        << d;
    EXPECT_NE(d.find("{\"name\":\"ignore_index\",\"type\":\"int\",\"default\":-100}"), std::string::npos) << d;
    const std::string bpd = op_describe((std::string(op) + "_bp").c_str());
    EXPECT_NE(bpd.find("{\"name\":\"dy\"},{\"name\":\"weights\",\"optional\":true}]"), std::string::npos) << bpd;
  }
  EXPECT_NE(op_describe("softmax_cross_entropy").find("[N*T, C]"), std::string::npos);
  EXPECT_EQ(op_describe("softmax_cross_entropy_soft").find("optional"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// Pointwise losses
// ---------------------------------------------------------------------------------------------
double pw_loss(const std::string& op, double p, double t) {
  if (op == "mse_loss") return (p - t) * (p - t);
  if (op == "l1_loss") return std::fabs(p - t);
  if (op == "binary_cross_entropy")
    return -(t * std::max(std::log(p), -100.0) + (1 - t) * std::max(std::log(1 - p), -100.0));
  return std::max(p, 0.0) - p * t + std::log1p(std::exp(-std::fabs(p)));
}
double pw_grad(const std::string& op, double p, double t) {
  if (op == "mse_loss") return 2 * (p - t);
  if (op == "l1_loss") return p > t ? 1 : p < t ? -1 : 0;
  if (op == "binary_cross_entropy") return (p - t) / std::max(p * (1 - p), 1e-12);
  return 1 / (1 + std::exp(-p)) - t;
}

Gen pred_gen(const std::string& op, ndrt_dtype d) {
  return op == "binary_cross_entropy" ? uniform_gen(d, 0.05, 0.95) : uniform_gen(d, -3, 3, 0.05);
}
Gen target_gen(const std::string& op, ndrt_dtype d) {
  return op == "binary_cross_entropy" || op == "bce_with_logits" ? uniform_gen(d, 0, 1) : uniform_gen(d, -3, 3);
}

class PointwiseLoss : public ::testing::TestWithParam<LossCase> {};

TEST_P(PointwiseLoss, ForwardAndBackwardEveryShapeReductionAndLayout) {
  const LossCase p = GetParam();
  const std::string op = p.op, bp = op + "_bp";
  std::mt19937 rng(600 + p.dtype + p.op[0] + p.op[2]);
  int variant = 0;
  for (const Shape& s : std::vector<Shape>{{3, 5, 7}, {}, {11}, {4, 0, 3}, {300, 301}})
    for (int64_t red : {0, 1, 2}) {
      ++variant;
      Kind kp = kAllKinds[variant % 5], kt = kAllKinds[(variant + 3) % 5];
      Operand pr = make_operand(p.dtype, s, kp, pred_gen(op, p.dtype), rng);
      Operand tg = make_operand(p.dtype, s, kt, target_gen(op, p.dtype), rng);
      std::vector<double> per(pr.vals.size());
      for (size_t i = 0; i < per.size(); ++i) per[i] = pw_loss(op, pr.vals[i], tg.vals[i]);
      const Shape ls = red == 0 ? s : Shape{};
      std::vector<double> want = red == 0 ? per : std::vector<double>{reduce_ref(per, red)};
      const std::string what =
          op + " " + shape_str(s) + " reduction " + std::to_string(red) + " " + kind_str(kp) + "/" + kind_str(kt);
      Tol tol = default_tol(p.dtype);
      if (red) tol.atol = tol.rtol;  // sums of many terms
      std::vector<double> got =
          run_out(op.c_str(), {&pr.view, &tg.view}, red_attr(red), p.dtype, ls, kAllOutKinds[variant % 3]);
      expect_close(got, want, p.dtype, tol, what);
      Operand dy = make_operand(p.dtype, ls, kAllKinds[(variant + 1) % 5], default_gen(p.dtype), rng);
      std::vector<double> dwant(pr.vals.size());
      for (size_t i = 0; i < dwant.size(); ++i) {
        double g = red == 0 ? dy.vals[i] : dy.vals[0] / (red == 1 ? double(pr.vals.size()) : 1.0);
        dwant[i] = pw_grad(op, pr.vals[i], tg.vals[i]) * g;
      }
      std::vector<double> dgot = run_out(bp.c_str(), {&pr.view, &tg.view, &dy.view}, red_attr(red), p.dtype, s,
                                         kAllOutKinds[(variant + 1) % 3]);
      expect_close(dgot, dwant, p.dtype, default_tol(p.dtype), what + " backward");
    }
}

TEST_P(PointwiseLoss, FiniteDifferences) {
  const LossCase p = GetParam();
  if (p.dtype != NDRT_F64) return;
  const std::string op = p.op, bp = op + "_bp";
  std::mt19937 rng(700 + p.op[0] + p.op[2]);
  const Shape s = {3, 4};
  for (int64_t red : {0, 1, 2}) {
    std::vector<double> pv(12), tv(12);
    for (size_t i = 0; i < 12; ++i) {
      pv[i] = pred_gen(op, NDRT_F64)(rng);
      tv[i] = target_gen(op, NDRT_F64)(rng);
    }
    rt::In pr{NDRT_F64, s, pv}, tg{NDRT_F64, s, tv};
    rt::check_grad((op + " reduction " + std::to_string(red)).c_str(), op.c_str(), 1, {pr, tg}, 0, red_attr(red),
                   [&](const std::vector<double>& w) {
                     Shape ls = red == 0 ? s : Shape{};
                     return rt::run_all(bp.c_str(), {pr, tg, rt::In{NDRT_F64, ls, w}}, 1, red_attr(red))[0].v;
                   },
                   rng);
  }
}

std::vector<LossCase> pointwise_params() {
  std::vector<LossCase> r;
  for (const char* op : {"mse_loss", "l1_loss", "binary_cross_entropy", "bce_with_logits"})
    for (ndrt_dtype d : {NDRT_F32, NDRT_F64}) r.push_back({op, d});
  return r;
}
INSTANTIATE_TEST_SUITE_P(Ops, PointwiseLoss, ::testing::ValuesIn(pointwise_params()), loss_name);

// Contiguous f32 inputs take the 8-lane paths (exp/log for the cross-entropies): odd lengths for
// the tails, and the extreme values (p = 0 / 1, |x| = 100) inside the vector body.
TEST(PointwiseLossSpecial, ContiguousVectorPathsWithExtremes) {
  std::mt19937 rng(16);
  for (const char* opc : {"mse_loss", "l1_loss", "binary_cross_entropy", "bce_with_logits"})
    for (const Shape& s : std::vector<Shape>{{1000, 37}, {19}}) {
      const std::string op = opc, bp = op + "_bp";
      std::vector<double> pv(size_t(numel_of(s))), tv(pv.size());
      for (size_t i = 0; i < pv.size(); ++i) {
        pv[i] = double(float(pred_gen(op, NDRT_F32)(rng)));
        tv[i] = double(float(target_gen(op, NDRT_F32)(rng)));
      }
      const bool bce = op == "binary_cross_entropy";
      const std::vector<double> extremes = bce ? std::vector<double>{0, 1, 1e-30, 1 - 1e-7, 0.5, 1e-40, 1, 1e-3}
                                               : std::vector<double>{100, -100, 0, 1e-7, -1e-7, 30, -30, 88};
      for (size_t i = 0; i < extremes.size(); ++i) pv[i] = double(float(extremes[i]));
      for (size_t i = 0; i < 8; ++i) tv[i] = (i % 3 == 0) ? 1.0 : (i % 3 == 1 ? 0.0 : 0.25);
      Tensor p = from_values(NDRT_F32, s, pv), t = from_values(NDRT_F32, s, tv);
      std::vector<double> per(pv.size()), grad(pv.size());
      for (size_t i = 0; i < pv.size(); ++i) {
        per[i] = pw_loss(op, pv[i], tv[i]);
        grad[i] = pw_grad(op, pv[i], tv[i]);
      }
      const std::string what = op + " contiguous " + shape_str(s);
      std::vector<double> extra(per.size());
      for (size_t i = 0; i < per.size(); ++i) extra[i] = 4e-7 * std::fabs(per[i]);
      expect_close(run_out(op.c_str(), {&p, &t}, red_attr(0), NDRT_F32, s, OutKind::Given), per, NDRT_F32,
                   default_tol(NDRT_F32), what, &extra);
      for (int64_t red : {1, 2}) {
        double want = reduce_ref(per, red);
        double got = read_values(run(op.c_str(), {&p, &t}, red_attr(red)))[0];
        EXPECT_NEAR(got, want, 1e-5 * std::fabs(want) + 1e-6) << what << " reduction " << red;
      }
      Tensor dy = from_values(NDRT_F32, s, rt::randv(rng, numel_of(s)));
      std::vector<double> dyv = read_values(dy), dwant(pv.size());
      for (size_t i = 0; i < pv.size(); ++i) dwant[i] = grad[i] * dyv[i];
      if (!bce) {  // bce's gradient at p = 0 or 1 is 1e12-scaled: checked with the scalar reference only
        expect_close(run_out(bp.c_str(), {&p, &t, &dy}, red_attr(0), NDRT_F32, s, OutKind::Fresh), dwant, NDRT_F32,
                     default_tol(NDRT_F32), what + " backward");
        Tensor one = from_values(NDRT_F32, {}, {0.5});
        std::vector<double> dsum(pv.size());
        for (size_t i = 0; i < pv.size(); ++i) dsum[i] = grad[i] * 0.5;
        expect_close(run_out(bp.c_str(), {&p, &t, &one}, red_attr(2), NDRT_F32, s, OutKind::Given), dsum, NDRT_F32,
                     default_tol(NDRT_F32), what + " backward (sum)");
      }
    }
}

TEST(PointwiseLossSpecial, ClampingStabilityAndErrors) {
  // binary_cross_entropy clamps each log at -100: p = 0 or 1 stays finite.
  Tensor p = from_values(NDRT_F64, {2}, {0, 1});
  Tensor t = from_values(NDRT_F64, {2}, {1, 0});
  EXPECT_EQ(read_values(run("binary_cross_entropy", {&p, &t}, red_attr(0))), (std::vector<double>{100, 100}));
  // bce_with_logits is stable for large |x|.
  Tensor x = from_values(NDRT_F32, {3}, {100, -100, 0});
  Tensor y = from_values(NDRT_F32, {3}, {0, 1, 1});
  std::vector<double> v = read_values(run("bce_with_logits", {&x, &y}, red_attr(0)));
  EXPECT_NEAR(v[0], 100, 1e-4);
  EXPECT_NEAR(v[1], 100, 1e-4);
  EXPECT_NEAR(v[2], std::log(2.0), 1e-6);
  Tensor e = create(NDRT_F32, {0, 3});
  EXPECT_TRUE(std::isnan(read_values(run("mse_loss", {&e, &e}, red_attr(1)))[0]));
  EXPECT_EQ(read_values(run("l1_loss", {&e, &e}, red_attr(2)))[0], 0.0);
  Tensor a = from_values(NDRT_F32, {2, 3}, std::vector<double>(6, 1));
  Tensor b = from_values(NDRT_F32, {3, 2}, std::vector<double>(6, 1));
  rt::expect_error(NDRT_ERR_SHAPE_MISMATCH, "mse_loss: target has shape [3,2] but pred has shape [2,3]", "mse_loss",
                   {&a, &b}, 1);
  Tensor c = from_values(NDRT_F64, {2, 3}, std::vector<double>(6, 1));
  rt::expect_error(NDRT_ERR_DTYPE_MISMATCH, "bce_with_logits: target is f64 but logits is f32 (cast explicitly)",
                   "bce_with_logits", {&a, &c}, 1);
  rt::expect_error(NDRT_ERR_INVALID_ARGUMENT, "l1_loss: reduction must be 0 (none), 1 (mean) or 2 (sum), got -1",
                   "l1_loss", {&a, &a}, 1, red_attr(-1));
  Tensor dy = from_values(NDRT_F32, {3, 2}, std::vector<double>(6, 1));
  rt::expect_error(NDRT_ERR_SHAPE_MISMATCH,
                   "mse_loss_bp: dy has shape [3,2] but the loss has shape [2,3] (reduction 0)", "mse_loss_bp",
                   {&a, &a, &dy}, 1, red_attr(0));
  Tensor ai = from_values(NDRT_I32, {2, 3}, std::vector<double>(6, 1));
  rt::expect_error(NDRT_ERR_DTYPE_MISMATCH, "l1_loss: needs a floating-point dtype, got i32", "l1_loss", {&ai, &ai}, 1);
}

}  // namespace
