// End-to-end: the Deeplearning4j MNIST LeNet trained with ndrt ops through the C ABI (ndrt_exec).
//
//   x [N,1,28,28] -> conv 5x5x20 (stride 1, no padding, identity) -> max pool 2x2/2 -> conv 5x5x50
//   -> max pool 2x2/2 -> flatten [N,800] -> dense 500 relu -> dense 10 -> softmax + NLL (the fused
//   softmax_cross_entropy, mean over the batch). NCHW. Xavier init from the runtime's `normal` op
//   (DL4J's XAVIER: N(0, 2/(fan_in + fan_out)), conv fans = channels * kh * kw), biases 0. Nesterovs
//   momentum (lr 0.01, momentum 0.9) with L2 0.0005 added to the weights' gradients (not the biases').
//
// The dense layers use the fused `linear` / `linear_bp` ops when the registry has them, else matmul +
// add (+ relu); the update uses the in-place `nesterovs` op when present, else the same step composed
// from elementwise ops. Tests:
//   TrainLossDecreases         50 steps on learnable data (10 random prototype images + noise, label =
//                              prototype): last-5-step mean loss < 0.5 x first-5, accuracy on the first
//                              training batch rises (>= 0.9); no handle leak, no pool miss once warm
//   F32MatchesF64              one step (batch 64) in f32 vs the same ops in f64 from the same (cast)
//                              values: loss within 1e-5 relative; logits, every parameter gradient and
//                              the velocities after the update within relative L2 error kRelL2F32
//   FiniteDifferenceWholeNetwork  f64 central differences of the whole network's loss vs the backward:
//                              3 random entries of each parameter, random unit directions over each
//                              parameter tensor and over all of them
//   NesterovsStepMatchesModel / ComposedNesterovsMatchesModel  two update steps vs a host f64 model
//   FusedDenseMatchesComposed  linear / linear_bp give what matmul + add + relu give (f64)
//   BadLabelFailsCleanly       an out-of-range label fails mid-network with the op's message, no leak
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

#include "common/ndrt_test.hpp"

using namespace nt;

namespace {

// ---------------------------------------------------------------------------------------------
// The network
// ---------------------------------------------------------------------------------------------
constexpr int kNumParams = 8;
const char* const kParamNames[kNumParams] = {"conv1.w", "conv1.b", "conv2.w", "conv2.b",
                                             "dense1.w", "dense1.b", "out.w", "out.b"};
// Dense weights are [in, out] (y = x @ W + b), as DL4J stores them.
const Shape kParamShapes[kNumParams] = {{20, 1, 5, 5}, {20}, {50, 20, 5, 5}, {50}, {800, 500}, {500}, {500, 10}, {10}};
inline bool is_weight(int i) { return i % 2 == 0; }

constexpr double kLr = 0.01, kMomentum = 0.9, kL2 = 0.0005;

bool have_op(const char* name) {
  int32_t id = -1;
  return ndrt_op_find(name, &id) == NDRT_OK;
}

Attrs pool_attrs() { return Attrs{{2, 2, 2}, {}}; }  // kernel [2,2]; strides default to the kernel
Attrs matmul_attrs(bool ta, bool tb) { return Attrs{{ta ? 1 : 0, tb ? 1 : 0}, {}}; }

Tensor scalar(ndrt_dtype d, double v) { return from_values(d, {}, {v}); }

double read_scalar(const Tensor& t) { return read_values(t).at(0); }

// Xavier (DL4J XAVIER) weights from the runtime's normal op, zero biases.
std::vector<Tensor> init_params(ndrt_dtype d, uint64_t seed) {
  std::vector<Tensor> p;
  for (int i = 0; i < kNumParams; ++i) {
    const Shape& s = kParamShapes[i];
    if (!is_weight(i)) {
      p.push_back(run("fill", {}, fill_attrs(0.0, d, s)));
      continue;
    }
    double fan_in = 0, fan_out = 0;
    if (s.size() == 4) {
      fan_in = double(s[1] * s[2] * s[3]);
      fan_out = double(s[0] * s[2] * s[3]);
    } else {
      fan_in = double(s[0]);
      fan_out = double(s[1]);
    }
    Attrs a;
    a.floats = {0.0, std::sqrt(2.0 / (fan_in + fan_out))};       // mean, std
    a.ints = {int64_t(seed + uint64_t(i)), 0, d, int64_t(s.size())};  // seed, offset, dtype, shape
    a.ints.insert(a.ints.end(), s.begin(), s.end());
    p.push_back(run("normal", {}, a));
  }
  return p;
}

std::vector<Tensor> cast_all(const std::vector<Tensor>& v, ndrt_dtype d) {
  std::vector<Tensor> r;
  for (const Tensor& t : v) r.push_back(cast(t, d));
  return r;
}

// How the dense layers and the update run: the fused ops (linear / linear_bp, nesterovs) when the
// registry has them, else compositions of matmul, add, relu, sum and elementwise ops.
struct Impl {
  bool fused_dense = false;
  bool fused_update = false;
};
Impl best_impl() { return Impl{have_op("linear") && have_op("linear_bp"), have_op("nesterovs")}; }
Impl composed_impl() { return Impl{false, false}; }

Attrs linear_attrs(bool relu) { return Attrs{{0, relu ? 1 : 0}, {}}; }  // transpose_w false, activation

// Runs a multi-output op with runtime-allocated outputs; throws on failure.
std::vector<Tensor> run_multi(const char* op, const std::vector<const Tensor*>& in, int n_out, const Attrs& a = {}) {
  std::vector<ndrt_handle> h;
  for (const Tensor* t : in) h.push_back(t->get());
  std::vector<ndrt_handle> out(size_t(n_out), 0);
  ndrt_status st = exec(op, h, out, a);
  if (st != NDRT_OK) throw Failure(st, std::string("exec ") + op + " returned " + describe_status(st));
  std::vector<Tensor> r;
  for (ndrt_handle o : out) r.emplace_back(o);
  return r;
}

// y = act(x @ W + b). `pre` receives the pre-activation when relu is composed (relu_bp needs it).
Tensor dense(const Impl& impl, const Tensor& x, const Tensor& w, const Tensor& b, bool relu, Tensor* pre) {
  if (impl.fused_dense) return run("linear", {&x, &w, &b}, linear_attrs(relu));
  Tensor m = run("matmul", {&x, &w});
  Tensor z = run("add", {&m, &b});
  if (!relu) return z;
  Tensor y = run("relu", {&z});
  *pre = std::move(z);
  return y;
}

// Backward of dense: returns dx, writes dw, db. y is the layer's output, pre its pre-activation.
Tensor dense_bp(const Impl& impl, const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& y,
                const Tensor& pre, const Tensor& dy, bool relu, Tensor& dw, Tensor& db) {
  if (impl.fused_dense) {
    std::vector<Tensor> g = run_multi("linear_bp", {&x, &w, &b, &y, &dy}, 3, linear_attrs(relu));
    dw = std::move(g[1]);
    db = std::move(g[2]);
    return std::move(g[0]);
  }
  Tensor dz = relu ? run("relu_bp", {&pre, &dy}) : retain(dy);
  dw = run("matmul", {&x, &dz}, matmul_attrs(true, false));
  db = run("sum", {&dz}, reduce_attrs({0}, false));
  return run("matmul", {&dz, &w}, matmul_attrs(false, true));
}

struct Pass {
  double loss = 0;
  Tensor logits;
  std::vector<Tensor> grads;  // empty after a forward-only pass
};

// One forward (and backward) pass of the whole network on a batch.
Pass run_net(const Impl& impl, const std::vector<Tensor>& p, const Tensor& x, const Tensor& labels, bool backward) {
  const Attrs pool = pool_attrs();
  const int64_t n = x.shape()[0];
  Tensor a1 = run("conv2d_bias", {&x, &p[0], &p[1]});   // [N,20,24,24]
  Tensor p1 = run("max_pool2d", {&a1}, pool);           // [N,20,12,12]
  Tensor a2 = run("conv2d_bias", {&p1, &p[2], &p[3]});  // [N,50,8,8]
  Tensor p2 = run("max_pool2d", {&a2}, pool);           // [N,50,4,4]
  Tensor flat = reshape(p2, {n, 800});                  // a view: pooling output is contiguous
  Tensor z3, unused;
  Tensor h3 = dense(impl, flat, p[4], p[5], true, &z3);
  Tensor logits = dense(impl, h3, p[6], p[7], false, &unused);
  Tensor loss = run("softmax_cross_entropy", {&logits, &labels});  // mean over the batch
  Pass r;
  r.loss = read_scalar(loss);
  if (backward) {
    Tensor one = scalar(x.dtype(), 1.0);
    Tensor dlogits = run("softmax_cross_entropy_bp", {&logits, &labels, &one});
    r.grads.resize(kNumParams);
    Tensor dh3 = dense_bp(impl, h3, p[6], p[7], logits, unused, dlogits, false, r.grads[6], r.grads[7]);
    Tensor dflat = dense_bp(impl, flat, p[4], p[5], h3, z3, dh3, true, r.grads[4], r.grads[5]);
    Tensor dp2 = reshape(dflat, {n, 50, 4, 4});
    Tensor da2 = run("max_pool2d_bp", {&a2, &dp2}, pool);
    r.grads[2] = run("conv2d_bp_weights", {&p1, &p[2], &da2});
    r.grads[3] = run("conv2d_bp_bias", {&da2});
    Tensor dp1 = run("conv2d_bp_data", {&p1, &p[2], &da2});
    Tensor da1 = run("max_pool2d_bp", {&a1, &dp1}, pool);
    r.grads[0] = run("conv2d_bp_weights", {&x, &p[0], &da1});
    r.grads[1] = run("conv2d_bp_bias", {&da1});
  }
  r.logits = std::move(logits);
  return r;
}

// DL4J's Nesterovs with L2 on the weights: g' = g + l2 w; v' = mu v - lr g'; w += -mu v + (1 + mu) v'.
// Fused: one in-place nesterovs call per tensor (outputs = the very same handles as param, velocity).
void nesterovs_step(const Impl& impl, std::vector<Tensor>& p, std::vector<Tensor>& v, const std::vector<Tensor>& g) {
  if (impl.fused_update) {
    for (int i = 0; i < kNumParams; ++i) {
      std::vector<ndrt_handle> out = {p[i].get(), v[i].get()};
      Attrs a{{}, {kLr, kMomentum, is_weight(i) ? kL2 : 0.0}};
      NT_CHECK(exec("nesterovs", {p[i].get(), g[i].get(), v[i].get()}, out, a));
    }
    return;
  }
  const ndrt_dtype d = p[0].dtype();
  Tensor l2 = scalar(d, kL2), mu = scalar(d, kMomentum), lr = scalar(d, kLr), neg_mu = scalar(d, -kMomentum),
         one_mu = scalar(d, 1.0 + kMomentum);
  for (int i = 0; i < kNumParams; ++i) {
    Tensor gi;
    if (is_weight(i)) {
      Tensor decay = run("mul", {&p[i], &l2});
      gi = run("add", {&g[i], &decay});
    } else {
      gi = retain(g[i]);
    }
    Tensor step = run("mul", {&gi, &lr});
    Tensor mv = run("mul", {&v[i], &mu});
    Tensor v_new = run("sub", {&mv, &step});
    Tensor a = run("mul", {&v[i], &neg_mu});
    Tensor b = run("mul", {&v_new, &one_mu});
    Tensor upd = run("add", {&a, &b});
    run_into("add", {&p[i], &upd}, p[i]);  // in place: add may write its input's own view
    run_into("copy", {&v_new}, v[i]);
  }
}

std::vector<Tensor> zeros_like_params(ndrt_dtype d) {
  std::vector<Tensor> v;
  for (int i = 0; i < kNumParams; ++i) v.push_back(run("fill", {}, fill_attrs(0.0, d, kParamShapes[i])));
  return v;
}

// ---------------------------------------------------------------------------------------------
// Data: 10 random prototype images; a sample is its prototype plus Gaussian noise, label = index.
// ---------------------------------------------------------------------------------------------
struct Data {
  std::vector<std::vector<double>> protos;
  std::mt19937 rng;
  double noise;
  Data(uint32_t seed, double noise_std) : rng(seed), noise(noise_std) {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    protos.assign(10, std::vector<double>(28 * 28));
    for (auto& p : protos)
      for (double& v : p) v = u(rng) < 0.3 ? u(rng) : 0.0;  // sparse-ish strokes in [0, 1)
  }
  // x [n,1,28,28] and labels [n] (i64); labels cycle through every class, then get shuffled.
  void batch(int64_t n, ndrt_dtype d, Tensor& x, Tensor& labels) {
    std::vector<double> lab(static_cast<size_t>(n)), xs(static_cast<size_t>(n) * 784);
    for (int64_t i = 0; i < n; ++i) lab[size_t(i)] = double(i % 10);
    std::shuffle(lab.begin(), lab.end(), rng);
    std::normal_distribution<double> g(0.0, noise);
    for (int64_t i = 0; i < n; ++i)
      for (int k = 0; k < 784; ++k) xs[size_t(i) * 784 + size_t(k)] = protos[size_t(lab[size_t(i)])][size_t(k)] + g(rng);
    x = from_values(d, {n, 1, 28, 28}, xs);
    labels = from_values(NDRT_I64, {n}, lab);
  }
};

int64_t env_int(const char* k, int64_t def) {
  const char* v = std::getenv(k);
  return v ? std::atoll(v) : def;
}

double accuracy(const Tensor& logits, const Tensor& labels) {
  Tensor pred = run("argmax", {&logits}, Attrs{{1}, {}});  // axis 1
  std::vector<double> pv = read_values(pred), lv = read_values(labels);
  int64_t ok = 0;
  for (size_t i = 0; i < pv.size(); ++i) ok += pv[i] == lv[i];
  return double(ok) / double(pv.size());
}

double l2norm(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x * x;
  return std::sqrt(s);
}

double rel_l2(const std::vector<double>& got, const std::vector<double>& want) {
  std::vector<double> diff(got.size());
  for (size_t i = 0; i < got.size(); ++i) diff[i] = got[i] - want[i];
  return l2norm(diff) / std::max(l2norm(want), 1e-300);
}

std::vector<std::vector<double>> read_all(const std::vector<Tensor>& v) {
  std::vector<std::vector<double>> r;
  for (const Tensor& t : v) r.push_back(read_values(t));
  return r;
}

class LeNet : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK(ndrt_thread_attach(NDRT_CPU));
    impl_ = best_impl();
    std::printf("[ lenet    ] dense layers: %s; update: %s\n",
                impl_.fused_dense ? "linear / linear_bp (fused)" : "matmul + add + relu (no linear op yet)",
                impl_.fused_update ? "nesterovs op (fused, in place)" : "composed from elementwise ops (no nesterovs op yet)");
  }
  Impl impl_;
};

// ---------------------------------------------------------------------------------------------
// (a) Training: the loss falls, accuracy on the training batch rises, handles and pool stay flat.
// ---------------------------------------------------------------------------------------------
// Batch 32 (not DL4J's 64) keeps the test's wall time well under a minute on a loaded 2-core
// machine; LENET_BATCH / LENET_STEPS / LENET_NOISE_PCT override the defaults for experiments.
TEST_F(LeNet, TrainLossDecreases) {
  const int64_t batch = env_int("LENET_BATCH", 32);
  const int steps = int(env_int("LENET_STEPS", 50));
  ASSERT_GE(steps, 10);
  Data data(7, double(env_int("LENET_NOISE_PCT", 20)) / 100);
  std::vector<Tensor> p = init_params(NDRT_F32, 1234), v = zeros_like_params(NDRT_F32);
  Tensor x0, y0;
  data.batch(batch, NDRT_F32, x0, y0);  // the training batch whose accuracy is tracked (step 0's)
  const double acc_before = accuracy(run_net(impl_, p, x0, y0, false).logits, y0);

  std::vector<double> losses;
  int64_t handles_after_first = 0, misses_after_second = 0;
  for (int step = 0; step < steps; ++step) {
    Tensor x, y;
    if (step == 0) {
      x = retain(x0);
      y = retain(y0);
    } else {
      data.batch(batch, NDRT_F32, x, y);  // fresh noise every step
    }
    Pass r = run_net(impl_, p, x, y, true);
    ASSERT_TRUE(std::isfinite(r.loss)) << "step " << step;
    losses.push_back(r.loss);
    nesterovs_step(impl_, p, v, r.grads);
    if (step == 0) handles_after_first = live_handles();
    if (step == 1) misses_after_second = stats().misses;
  }
  const double first = std::accumulate(losses.begin(), losses.begin() + 5, 0.0) / 5;
  const double last = std::accumulate(losses.end() - 5, losses.end(), 0.0) / 5;
  const double acc_after = accuracy(run_net(impl_, p, x0, y0, false).logits, y0);
  std::printf("[ lenet    ] batch %lld, %d steps: loss first-5 mean %.4f, last-5 mean %.4f; step-0 batch accuracy "
              "%.3f -> %.3f\n",
              (long long)batch, steps, first, last, acc_before, acc_after);
  EXPECT_LT(last, 0.5 * first) << "the loss did not halve over " << steps << " steps";
  EXPECT_GT(acc_after, acc_before);
  EXPECT_GE(acc_after, 0.9);
  // Steady state: the same shapes every step leave no handle behind and reuse the host cache.
  EXPECT_LE(live_handles(), handles_after_first) << "training steps leak handles";
  EXPECT_EQ(stats().misses, misses_after_second) << "steady-state steps should be served from the host cache";
}

// ---------------------------------------------------------------------------------------------
// (b) f32 vs f64: one forward + backward (+ update) from the same initial values.
// ---------------------------------------------------------------------------------------------
// Tolerance: relative L2 error (||g32 - g64|| / ||g64||) below kRelL2F32 for the logits and every
// parameter gradient, loss within 1e-5 relative. f32 rounding grows with the reduction lengths
// (conv2 sums 500 products, dense1 800, weight gradients sum over batch x space); observed errors
// are ~1e-6, the bound leaves room for a relu or max-pool choice flipping on a near-tie in f32.
constexpr double kRelL2F32 = 1e-4;

TEST_F(LeNet, F32MatchesF64) {
  constexpr int64_t kBatch = 64;
  Data data(11, 0.2);
  std::vector<Tensor> p32 = init_params(NDRT_F32, 99);
  std::vector<Tensor> p64 = cast_all(p32, NDRT_F64);  // the very same values
  Tensor x32, y;
  data.batch(kBatch, NDRT_F32, x32, y);
  Tensor x64 = cast(x32, NDRT_F64);
  Pass a = run_net(impl_, p32, x32, y, true);
  Pass b = run_net(impl_, p64, x64, y, true);
  std::printf("[ lenet    ] loss f32 %.9f, f64 %.9f\n", a.loss, b.loss);
  EXPECT_NEAR(a.loss, b.loss, 1e-5 * std::fabs(b.loss)) << "loss f32 vs f64";
  EXPECT_LT(rel_l2(read_values(a.logits), read_values(b.logits)), kRelL2F32) << "logits";
  for (int i = 0; i < kNumParams; ++i) {
    ASSERT_EQ(a.grads[i].shape(), kParamShapes[i]) << kParamNames[i];
    ASSERT_EQ(a.grads[i].dtype(), NDRT_F32) << kParamNames[i];
    ASSERT_EQ(b.grads[i].dtype(), NDRT_F64) << kParamNames[i];
    std::vector<double> g32 = read_values(a.grads[i]), g64 = read_values(b.grads[i]);
    const double e = rel_l2(g32, g64);
    std::printf("[ lenet    ] grad %-9s rel L2 error f32 vs f64 %.2e (|g| = %.3e)\n", kParamNames[i], e, l2norm(g64));
    EXPECT_GT(l2norm(g64), 0.0) << kParamNames[i] << " has an all-zero gradient";
    EXPECT_LT(e, kRelL2F32) << kParamNames[i];
  }
  // One update keeps them together: the change lr * g' carries the gradients' error.
  std::vector<Tensor> v32 = zeros_like_params(NDRT_F32), v64 = zeros_like_params(NDRT_F64);
  nesterovs_step(impl_, p32, v32, a.grads);
  nesterovs_step(impl_, p64, v64, b.grads);
  for (int i = 0; i < kNumParams; ++i)
    EXPECT_LT(rel_l2(read_values(v32[i]), read_values(v64[i])), kRelL2F32) << kParamNames[i] << " velocity";
}

// ---------------------------------------------------------------------------------------------
// (c) Finite differences of the whole network's loss in f64.
// ---------------------------------------------------------------------------------------------
// The network is piecewise smooth: max pooling and relu have kinks, and a central difference that
// straddles one is wrong by up to the slope jump. With h = 1e-5 some entries of conv1.w straddled a
// kink (all 500 entries checked: 49 off at h = 1e-5, 24 at 1e-6, none at 1e-7), so h = 1e-7. f64
// rounding of the loss (~1e-15) then gives central differences ~1e-8 absolute noise, which the
// bounds allow; a wrong gradient element is off by far more. Directions have unit L2 norm.
TEST_F(LeNet, FiniteDifferenceWholeNetwork) {
  constexpr int64_t kBatch = 8;
  constexpr double h = 1e-7;
  Data data(23, 0.2);
  std::vector<Tensor> p = init_params(NDRT_F64, 4321);
  // Nonzero biases so their gradients are exercised away from the initial point.
  std::mt19937 rng(5);
  for (int i = 1; i < kNumParams; i += 2) {
    std::vector<double> b(size_t(numel_of(kParamShapes[i])));
    for (double& x : b) x = std::uniform_real_distribution<double>(-0.1, 0.1)(rng);
    write_values(p[i], b);
  }
  Tensor x, y;
  data.batch(kBatch, NDRT_F64, x, y);
  Pass base = run_net(impl_, p, x, y, true);
  auto loss_at = [&]() { return run_net(impl_, p, x, y, false).loss; };

  // Random entries of every parameter tensor.
  for (int i = 0; i < kNumParams; ++i) {
    std::vector<double> vals = read_values(p[i]), g = read_values(base.grads[i]);
    for (int k = 0; k < 3; ++k) {
      const size_t j = std::uniform_int_distribution<size_t>(0, vals.size() - 1)(rng);
      const double orig = vals[j];
      vals[j] = orig + h;
      write_values(p[i], vals);
      const double lp = loss_at();
      vals[j] = orig - h;
      write_values(p[i], vals);
      const double lm = loss_at();
      vals[j] = orig;
      write_values(p[i], vals);
      const double fd = (lp - lm) / (2 * h);
      EXPECT_NEAR(g[j], fd, 2e-6 * std::fabs(fd) + 2e-8)
          << kParamNames[i] << "[" << j << "]: backward " << g[j] << ", central difference " << fd;
    }
  }

  // Random unit directions u, over each parameter tensor alone and then over all of them at once:
  // <grad, u> vs (L(p + h u) - L(p - h u)) / 2h.
  const std::vector<std::vector<double>> orig = read_all(p), grad = read_all(base.grads);
  for (int which = 0; which <= kNumParams; ++which) {
    auto in_dir = [&](int i) { return which == kNumParams || which == i; };
    std::vector<std::vector<double>> dir(kNumParams);
    double norm2 = 0;
    for (int i = 0; i < kNumParams; ++i) {
      dir[i].assign(orig[i].size(), 0.0);
      if (!in_dir(i)) continue;
      for (double& u : dir[i]) {
        u = std::normal_distribution<double>(0.0, 1.0)(rng);
        norm2 += u * u;
      }
    }
    double dot = 0;
    for (int i = 0; i < kNumParams; ++i)
      for (size_t j = 0; j < dir[i].size(); ++j) {
        dir[i][j] /= std::sqrt(norm2);
        dot += grad[i][j] * dir[i][j];
      }
    auto shift = [&](double t) {
      for (int i = 0; i < kNumParams; ++i) {
        if (!in_dir(i)) continue;
        std::vector<double> v = orig[i];
        for (size_t j = 0; j < v.size(); ++j) v[j] += t * dir[i][j];
        write_values(p[i], v);
      }
    };
    shift(h);
    const double lp = loss_at();
    shift(-h);
    const double lm = loss_at();
    shift(0);
    const double fd = (lp - lm) / (2 * h);
    const char* what = which == kNumParams ? "all parameters" : kParamNames[which];
    std::printf("[ lenet    ] directional derivative along %-14s backward %+.12f, central difference %+.12f\n", what,
                dot, fd);
    EXPECT_NEAR(dot, fd, 2e-6 * std::fabs(fd) + 2e-8) << what;
  }
}

// ---------------------------------------------------------------------------------------------
// The update against a host f64 model of DL4J's Nesterovs with L2 on the weights (two steps, so
// the velocity carries over), with the update path the training uses and with the composed one.
// ---------------------------------------------------------------------------------------------
void check_nesterovs(const Impl& impl) {
  std::vector<Tensor> p = init_params(NDRT_F64, 77), v = zeros_like_params(NDRT_F64);
  std::mt19937 rng(3);
  auto rand_like = [&](int i) {
    std::vector<double> r(size_t(numel_of(kParamShapes[i])));
    for (double& x : r) x = std::uniform_real_distribution<double>(-1.0, 1.0)(rng);
    return r;
  };
  std::vector<Tensor> g;
  std::vector<std::vector<double>> pv(kNumParams), vv(kNumParams), gv(kNumParams);
  for (int i = 0; i < kNumParams; ++i) {
    vv[i] = rand_like(i);
    write_values(v[i], vv[i]);
    gv[i] = rand_like(i);
    g.push_back(from_values(NDRT_F64, kParamShapes[i], gv[i]));
    pv[i] = read_values(p[i]);
  }
  for (int round = 0; round < 2; ++round) {
    nesterovs_step(impl, p, v, g);
    for (int i = 0; i < kNumParams; ++i) {
      for (size_t j = 0; j < pv[i].size(); ++j) {
        const double gj = gv[i][j] + (is_weight(i) ? kL2 * pv[i][j] : 0.0);
        const double vn = kMomentum * vv[i][j] - kLr * gj;
        pv[i][j] += -kMomentum * vv[i][j] + (1 + kMomentum) * vn;
        vv[i][j] = vn;
      }
      expect_close(read_values(p[i]), pv[i], NDRT_F64, Tol{1e-12, 1e-14}, std::string(kParamNames[i]) + " params");
      expect_close(read_values(v[i]), vv[i], NDRT_F64, Tol{1e-12, 1e-14}, std::string(kParamNames[i]) + " velocity");
    }
  }
}

TEST_F(LeNet, NesterovsStepMatchesModel) { check_nesterovs(impl_); }
TEST_F(LeNet, ComposedNesterovsMatchesModel) { check_nesterovs(composed_impl()); }

// A bad batch fails as a status naming the op and the row, mid-network, and leaves no handle behind.
TEST_F(LeNet, BadLabelFailsCleanly) {
  Data data(41, 0.2);
  std::vector<Tensor> p = init_params(NDRT_F32, 8);
  Tensor x, y;
  data.batch(8, NDRT_F32, x, y);
  std::vector<double> lab = read_values(y);
  lab[5] = 10;  // classes are 0..9
  Tensor bad = from_values(NDRT_I64, {8}, lab);
  const int64_t before = live_handles();
  try {
    run_net(impl_, p, x, bad, true);
    FAIL() << "a label of 10 with 10 classes was accepted";
  } catch (const Failure& f) {
    EXPECT_EQ(f.status, NDRT_ERR_INVALID_ARGUMENT) << f.what();
    EXPECT_STREQ(ndrt_last_error(), "softmax_cross_entropy: label 10 at row 5 is out of range [0, 10)");
  }
  EXPECT_EQ(live_handles(), before);
}

// The fused ops (linear / linear_bp) give the pass the compositions give, in f64.
TEST_F(LeNet, FusedDenseMatchesComposed) {
  if (!impl_.fused_dense) GTEST_SKIP() << "no linear / linear_bp op in this build yet";
  Data data(31, 0.2);
  std::vector<Tensor> p = init_params(NDRT_F64, 555);
  Tensor x, y;
  data.batch(16, NDRT_F64, x, y);
  Pass a = run_net(impl_, p, x, y, true);
  Pass b = run_net(composed_impl(), p, x, y, true);
  EXPECT_NEAR(a.loss, b.loss, 1e-13 * std::fabs(b.loss));
  for (int i = 0; i < kNumParams; ++i) EXPECT_LT(rel_l2(read_values(a.grads[i]), read_values(b.grads[i])), 1e-12) << kParamNames[i];
}

}  // namespace
