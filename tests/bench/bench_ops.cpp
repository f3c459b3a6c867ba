// ndrt side of the op-set benchmarks against PyTorch 1.13 CPU (tests/bench/peer_torch.py measures
// the very same cases; run_ops.sh alternates the two and report_ops.py prints the ratios).
//
// Cases (f32; every name is "<case>/threads:<T>", T = 1 and 2 unless --threads says otherwise):
//   conv1_fwd, conv1_fwdbwd   LeNet conv 1: x [64,1,28,28], w [20,1,5,5], b [20]; fwdbwd = conv2d_bias
//   conv2_fwd, conv2_fwdbwd   + conv2d_bp_data + conv2d_bp_weights + conv2d_bp_bias (dx, dw, db, as a
//                             framework's autograd computes them); conv 2: x [64,20,12,12], w [50,20,5,5]
//   conv1_maxpool_fwdbwd,     the convolution and the 2x2 max pool after it, forward and backward
//   conv2_maxpool_fwdbwd      (dx, dw, db) as ndrt's Java layer runs LeNet's pairs: conv2d_bias_max_pool2x2,
//                             conv2d_max_pool2x2_bp_data / _bp_weights, conv2d_bp_bias on the pooled dy
//   conv1_pool_fwd, conv1_pool_bp   LeNet's max pools (2x2, stride 2): max_pool2d, or max_pool2d_bp
//   conv2_pool_fwd, conv2_pool_bp   (x, dy -> dx); after conv 1: x [64,20,24,24], conv 2: x [64,50,8,8]
//   add, mul, relu, exp, sigmoid, tanh   16M elements (64 MiB per operand), given output
//   sum_all, max_all, mean_all           16M elements to a scalar
//   sum_rows, max_rows, mean_rows        [4096, 4096] along the last axis
//   sce_64x10, sce_4096x1000             softmax_cross_entropy (mean) + softmax_cross_entropy_bp
//   lenet_step_b64                       one LeNet training step at batch 64: forward, backward,
//                                        Nesterovs update of all 8 parameter tensors
//   lstm_fwd, lstm_fwdbwd, gru_fwd,      one recurrent layer, batch 64, 100 steps, 256 inputs, 512
//   gru_fwdbwd                           hidden, zero initial state: forward (y, h_n [, c_n], ws), or
//                                        forward + the BPTT op (dx, every weight/bias gradient, dh0)
// Outputs are preallocated and given (ndrt's no-allocation path): every case runs with outputs
// allocated on the first call and reused. Each case is checked once against a host reference (or
// for finiteness) before it is timed, so a fast wrong kernel cannot report a time.
// Times are wall-clock (UseRealTime): ndrt runs work on pool and OpenMP threads; cpu_time is the
// whole process's cpu time (MeasureProcessCPUTime).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench_common.hpp"
#include "ndrt/ndrt.h"

#ifndef NDRT_BENCH_BUILD_TYPE
#define NDRT_BENCH_BUILD_TYPE "unknown"
#endif

namespace {

using namespace ndrt_bench;

// Address of a cpu tensor's first element (the checks below read it in place).
float* data_of(ndrt_handle h) {
  void* p = nullptr;
  return ndrt_tensor_data_ptr(h, &p) == NDRT_OK ? static_cast<float*>(p) : nullptr;
}

bool close_to(double got, double want, double rtol) { return std::fabs(got - want) <= rtol * (std::fabs(want) + 1e-30) + 1e-6; }

// ------------------------------------------------------------------------------------------------
// A case: built on first use, run many times, checked once. check() returns "" when right.
// ------------------------------------------------------------------------------------------------
struct Case {
  std::function<ndrt_status()> run;
  std::function<std::string()> check;
  double items = 0;  // items per iteration for the rate counter (images for lenet), 0: none
};
using Builder = std::function<ndrt_status(Case&)>;

void bench(benchmark::State& state, const std::string& name, int threads, const Builder& build) {
  static std::map<std::string, std::unique_ptr<Case>> cases;
  static std::map<std::string, ndrt_status> built;
  if (!cases.count(name)) {
    cases[name] = std::make_unique<Case>();
    built[name] = build(*cases[name]);
  }
  if (built[name] != NDRT_OK) {
    state.SkipWithError(status_text(("setup of " + name).c_str(), built[name]).c_str());
    return;
  }
  Case& c = *cases[name];
  const std::string t = std::to_string(threads);
  ndrt_status st = ndrt_config_set("cpu.threads", t.c_str());
  if (st == NDRT_OK) st = c.run();  // warm: plans, pool, first-call allocation of outputs
  if (st == NDRT_OK) st = c.run();
  if (st != NDRT_OK) {
    state.SkipWithError(status_text(name.c_str(), st).c_str());
    return;
  }
  static std::map<std::string, bool> checked;
  if (!checked[name]) {
    std::string err = c.check ? c.check() : "";
    if (!err.empty()) {
      state.SkipWithError((name + " gave a wrong result: " + err).c_str());
      return;
    }
    checked[name] = true;
  }
  for (auto _ : state) {
    st = c.run();
    if (__builtin_expect(st != NDRT_OK, 0)) {
      state.SkipWithError(status_text(name.c_str(), st).c_str());
      break;
    }
  }
  if (c.items > 0) state.counters["items_per_s"] = benchmark::Counter(c.items * double(state.iterations()), benchmark::Counter::kIsRate);
}

// ------------------------------------------------------------------------------------------------
// Convolution, LeNet shapes at batch 64
// ------------------------------------------------------------------------------------------------
struct ConvGeom {
  int64_t n, c, h, w, k, r;
};
const ConvGeom kConv1 = {64, 1, 28, 28, 20, 5}, kConv2 = {64, 20, 12, 12, 50, 5};

Builder conv_case(ConvGeom g, bool backward) {
  return [g, backward](Case& c) -> ndrt_status {
    auto x = std::make_shared<Tn>(), w = std::make_shared<Tn>(), b = std::make_shared<Tn>(), dy = std::make_shared<Tn>();
    const int64_t oh = g.h - g.r + 1, ow = g.w - g.r + 1;
    TRY(make_f32({g.n, g.c, g.h, g.w}, 1, 0.0f, 1.0f, x.get()));
    TRY(make_f32({g.k, g.c, g.r, g.r}, 2, -0.1f, 0.1f, w.get()));
    TRY(make_f32({g.k}, 3, -0.1f, 0.1f, b.get()));
    TRY(make_f32({g.n, g.k, oh, ow}, 4, -1.0f, 1.0f, dy.get()));
    auto out = std::make_shared<std::vector<ndrt_handle>>(4, 0);
    const int32_t fwd = op("conv2d_bias"), bd = op("conv2d_bp_data"), bw = op("conv2d_bp_weights"), bb = op("conv2d_bp_bias");
    c.run = [=]() -> ndrt_status {
      std::vector<ndrt_handle>& o = *out;
      TRY(ex(fwd, {x->h, w->h, b->h}, {&o[0]}));
      if (!backward) return NDRT_OK;
      TRY(ex(bd, {x->h, w->h, dy->h}, {&o[1]}));
      TRY(ex(bw, {x->h, w->h, dy->h}, {&o[2]}));
      return ex(bb, {dy->h}, {&o[3]});
    };
    c.check = [=]() -> std::string {
      // One output element and one weight-gradient element against direct sums.
      const float *X = x->f(), *W = w->f(), *B = b->f(), *DY = dy->f();
      double y = B[3];
      for (int64_t ci = 0; ci < g.c; ++ci)
        for (int64_t i = 0; i < g.r; ++i)
          for (int64_t j = 0; j < g.r; ++j)
            y += double(X[((1 * g.c + ci) * g.h + 2 + i) * g.w + 5 + j]) * W[((3 * g.c + ci) * g.r + i) * g.r + j];
      if (!close_to(data_of((*out)[0])[((1 * g.k + 3) * oh + 2) * ow + 5], y, 1e-4)) return "conv2d_bias y[1,3,2,5]";
      if (!backward) return "";
      double dw = 0;
      for (int64_t n = 0; n < g.n; ++n)
        for (int64_t p = 0; p < oh; ++p)
          for (int64_t q = 0; q < ow; ++q)
            dw += double(DY[((n * g.k + 3) * oh + p) * ow + q]) * X[((n * g.c + 0) * g.h + p + 1) * g.w + q + 2];
      if (!close_to(data_of((*out)[2])[((3 * g.c + 0) * g.r + 1) * g.r + 2], dw, 1e-3)) return "conv2d_bp_weights dw[3,0,1,2]";
      return all_finite((*out)[1]) && all_finite((*out)[3]) ? "" : "non-finite dx or db";
    };
    return NDRT_OK;
  };
}

// The convolution with the 2x2 max pool after it, as ndrt's Java layer runs LeNet's pairs: the fused
// forward (pooled y and each window's winner), then dx, dw (visiting the winners) and db from the
// pooled gradient. The peer: max_pool2d(conv2d(x, w, b)) and autograd.
Builder conv_pool_case(ConvGeom g) {
  return [g](Case& c) -> ndrt_status {
    auto x = std::make_shared<Tn>(), w = std::make_shared<Tn>(), b = std::make_shared<Tn>(), dy = std::make_shared<Tn>();
    const int64_t oh = g.h - g.r + 1, ow = g.w - g.r + 1, ph = oh / 2, pw = ow / 2;
    TRY(make_f32({g.n, g.c, g.h, g.w}, 1, 0.0f, 1.0f, x.get()));
    TRY(make_f32({g.k, g.c, g.r, g.r}, 2, -0.1f, 0.1f, w.get()));
    TRY(make_f32({g.k}, 3, -0.1f, 0.1f, b.get()));
    TRY(make_f32({g.n, g.k, ph, pw}, 4, -1.0f, 1.0f, dy.get()));
    auto out = std::make_shared<std::vector<ndrt_handle>>(5, 0);
    const int32_t fwd = op("conv2d_bias_max_pool2x2"), bd = op("conv2d_max_pool2x2_bp_data"),
                  bw = op("conv2d_max_pool2x2_bp_weights"), bb = op("conv2d_bp_bias");
    c.run = [=]() -> ndrt_status {
      std::vector<ndrt_handle>& o = *out;
      TRY(ex(fwd, {x->h, w->h, b->h}, {&o[0], &o[1]}));
      TRY(ex(bd, {x->h, w->h, dy->h, o[1]}, {&o[2]}));
      TRY(ex(bw, {x->h, w->h, dy->h, o[1]}, {&o[3]}));
      return ex(bb, {dy->h}, {&o[4]});
    };
    c.check = [=]() -> std::string {
      // y[1,3,1,2] is the largest of its window's four convolution sums, and dw[3,0,1,2] sums dy times
      // x at each window's winner (the index the forward wrote).
      const float *X = x->f(), *W = w->f(), *B = b->f(), *DY = dy->f();
      const uint8_t* win = reinterpret_cast<const uint8_t*>(data_of((*out)[1]));
      double y = -1e300;
      for (int e = 0; e < 4; ++e) {
        double s = B[3];
        for (int64_t ci = 0; ci < g.c; ++ci)
          for (int64_t i = 0; i < g.r; ++i)
            for (int64_t j = 0; j < g.r; ++j)
              s += double(X[((1 * g.c + ci) * g.h + 2 + e / 2 + i) * g.w + 4 + e % 2 + j]) *
                   W[((3 * g.c + ci) * g.r + i) * g.r + j];
        y = std::max(y, s);
      }
      if (!close_to(data_of((*out)[0])[((1 * g.k + 3) * ph + 1) * pw + 2], y, 1e-4)) return "y[1,3,1,2]";
      double dw = 0;
      for (int64_t n = 0; n < g.n; ++n)
        for (int64_t p = 0; p < ph; ++p)
          for (int64_t q = 0; q < pw; ++q) {
            const int64_t at = ((n * g.k + 3) * ph + p) * pw + q, e = win[at];
            dw += double(DY[at]) * X[((n * g.c + 0) * g.h + 2 * p + e / 2 + 1) * g.w + 2 * q + e % 2 + 2];
          }
      if (!close_to(data_of((*out)[3])[((3 * g.c + 0) * g.r + 1) * g.r + 2], dw, 1e-3)) return "dw[3,0,1,2]";
      return all_finite((*out)[2]) && all_finite((*out)[4]) ? "" : "non-finite dx or db";
    };
    return NDRT_OK;
  };
}

// ------------------------------------------------------------------------------------------------
// Max pooling, LeNet's 2x2 / stride 2 pools at batch 64 (named after the conv they follow, so
// run_ops.sh's conv group runs them)
// ------------------------------------------------------------------------------------------------
struct PoolGeom {
  int64_t n, c, h, w;
};
const PoolGeom kPool1 = {64, 20, 24, 24}, kPool2 = {64, 50, 8, 8};

Builder pool_case(PoolGeom g, bool backward) {
  return [g, backward](Case& c) -> ndrt_status {
    auto x = std::make_shared<Tn>(), dy = std::make_shared<Tn>();
    const int64_t oh = g.h / 2, ow = g.w / 2;
    TRY(make_f32({g.n, g.c, g.h, g.w}, 5, -1.0f, 1.0f, x.get()));
    TRY(make_f32({g.n, g.c, oh, ow}, 6, -1.0f, 1.0f, dy.get()));
    auto out = std::make_shared<ndrt_handle>(0);
    const int32_t id = op(backward ? "max_pool2d_bp" : "max_pool2d");
    c.run = [=]() -> ndrt_status {
      return backward ? ex(id, {x->h, dy->h}, {out.get()}, {2, 2, 2}) : ex(id, {x->h}, {out.get()}, {2, 2, 2});
    };
    c.check = [=]() -> std::string {
      // Every window: y is its maximum; dx holds dy at the first maximum and 0 elsewhere.
      const float *X = x->f(), *DY = dy->f(), *O = data_of(*out);
      for (int64_t pl = 0; pl < g.n * g.c; ++pl)
        for (int64_t p = 0; p < oh; ++p)
          for (int64_t q = 0; q < ow; ++q) {
            int64_t best = (pl * g.h + 2 * p) * g.w + 2 * q;
            for (int64_t i = 0; i < 2; ++i)
              for (int64_t j = 0; j < 2; ++j) {
                const int64_t at = (pl * g.h + 2 * p + i) * g.w + 2 * q + j;
                if (X[at] > X[best]) best = at;
              }
            const int64_t yi = (pl * oh + p) * ow + q;
            if (!backward && O[yi] != X[best]) return "y[" + std::to_string(yi) + "]";
            for (int64_t i = 0; backward && i < 2; ++i)
              for (int64_t j = 0; j < 2; ++j) {
                const int64_t at = (pl * g.h + 2 * p + i) * g.w + 2 * q + j;
                if (O[at] != (at == best ? DY[yi] : 0.0f)) return "dx[" + std::to_string(at) + "]";
              }
          }
      return "";
    };
    return NDRT_OK;
  };
}

// ------------------------------------------------------------------------------------------------
// Elementwise and reductions over 16M f32 elements (shared buffers)
// ------------------------------------------------------------------------------------------------
constexpr int64_t kBig = int64_t(16) << 20, kSide = 4096;

struct BigBufs {
  Tn a, b, c;
  ndrt_handle a2d = 0;  // a as [4096, 4096]
  Tn s, rows;           // a scalar and a [4096] output
};
ndrt_status big(BigBufs** out) {
  static BigBufs s;
  static ndrt_status st = [] {
    TRY(make_f32({kBig}, 11, -3.0f, 3.0f, &s.a));
    TRY(make_f32({kBig}, 12, -3.0f, 3.0f, &s.b));
    TRY(make_f32({kBig}, 13, -3.0f, 3.0f, &s.c));
    TRY(reshape_once(s.a.h, {kSide, kSide}, &s.a2d));
    TRY(make(NDRT_F32, {}, &s.s));
    return make(NDRT_F32, {kSide}, &s.rows);
  }();
  *out = &s;
  return st;
}

double ref_unary(const std::string& name, double x) {
  if (name == "relu") return x > 0 ? x : 0;
  if (name == "exp") return std::exp(x);
  if (name == "sigmoid") return 1 / (1 + std::exp(-x));
  return std::tanh(x);
}

Builder elementwise_case(const std::string& name) {
  return [name](Case& c) -> ndrt_status {
    BigBufs* s;
    TRY(big(&s));
    const int32_t id = op(name.c_str());
    const bool binary = name == "add" || name == "mul";
    c.run = [=]() -> ndrt_status {
      ndrt_handle y = s->c.h;
      return binary ? ex(id, {s->a.h, s->b.h}, {&y}) : ex(id, {s->a.h}, {&y});
    };
    c.check = [=]() -> std::string {
      for (int64_t i = 0; i < kBig; i += 4099) {
        const double a = s->a.f()[i], b = s->b.f()[i];
        const double want = name == "add" ? a + b : name == "mul" ? a * b : ref_unary(name, a);
        if (!close_to(s->c.f()[i], want, 1e-5)) return "element " + std::to_string(i);
      }
      return "";
    };
    return NDRT_OK;
  };
}

Builder reduce_case(const std::string& name, bool rows) {
  return [name, rows](Case& c) -> ndrt_status {
    BigBufs* s;
    TRY(big(&s));
    const int32_t id = op(name.c_str());
    c.run = [=]() -> ndrt_status {
      if (!rows) {
        ndrt_handle y = s->s.h;
        return ex(id, {s->a.h}, {&y});  // axes [] = all
      }
      ndrt_handle y = s->rows.h;
      return ex(id, {s->a2d}, {&y}, {1, 1});  // axes [1]
    };
    c.check = [=]() -> std::string {
      auto ref = [&](const float* p, int64_t n) {
        double acc = name == "max" ? -INFINITY : 0.0;
        for (int64_t i = 0; i < n; ++i) acc = name == "max" ? std::max(acc, double(p[i])) : acc + p[i];
        return name == "mean" ? acc / double(n) : acc;
      };
      // Sums of 16M values of either sign: compare with an absolute bound scaled by sqrt(n).
      if (!rows) return std::fabs(s->s.f()[0] - ref(s->a.f(), kBig)) <= 1e-6 * std::sqrt(double(kBig)) * 3 ? "" : "scalar";
      for (int64_t r = 0; r < kSide; r += 257)
        if (std::fabs(s->rows.f()[r] - ref(s->a.f() + r * kSide, kSide)) > 1e-4) return "row " + std::to_string(r);
      return "";
    };
    return NDRT_OK;
  };
}

// ------------------------------------------------------------------------------------------------
// softmax + cross-entropy, forward and backward
// ------------------------------------------------------------------------------------------------
Builder sce_case(int64_t n, int64_t classes) {
  return [n, classes](Case& c) -> ndrt_status {
    auto logits = std::make_shared<Tn>(), labels = std::make_shared<Tn>(), one = std::make_shared<Tn>();
    TRY(make_f32({n, classes}, 21, -4.0f, 4.0f, logits.get()));
    TRY(make_labels(n, classes, 22, labels.get()));
    TRY(make_scalar(1.0f, one.get()));
    auto out = std::make_shared<std::vector<ndrt_handle>>(2, 0);
    const int32_t fwd = op("softmax_cross_entropy"), bwd = op("softmax_cross_entropy_bp");
    c.run = [=]() -> ndrt_status {
      TRY(ex(fwd, {logits->h, labels->h}, {&(*out)[0]}));  // reduction mean (default)
      return ex(bwd, {logits->h, labels->h, one->h}, {&(*out)[1]});
    };
    c.check = [=]() -> std::string {
      const float* L = logits->f();
      const int64_t* Y = static_cast<const int64_t*>(labels->p);
      double loss = 0;
      for (int64_t i = 0; i < n; ++i) {
        double m = -INFINITY, s = 0;
        for (int64_t k = 0; k < classes; ++k) m = std::max(m, double(L[i * classes + k]));
        for (int64_t k = 0; k < classes; ++k) s += std::exp(L[i * classes + k] - m);
        loss += m + std::log(s) - L[i * classes + Y[i]];
        if (i == n - 1) {  // the last row's gradient
          const float* G = data_of((*out)[1]);
          for (int64_t k = 0; k < classes; ++k) {
            const double want = (std::exp(L[i * classes + k] - m) / s - (k == Y[i])) / double(n);
            if (std::fabs(G[i * classes + k] - want) > 1e-6) return "dlogits[" + std::to_string(i) + "]";
          }
        }
      }
      return close_to(data_of((*out)[0])[0], loss / double(n), 1e-5) ? "" : "loss";
    };
    return NDRT_OK;
  };
}

// ------------------------------------------------------------------------------------------------
// One LeNet training step at batch 64 (bench_common.hpp: LeNet)
// ------------------------------------------------------------------------------------------------
Builder lenet_case() {
  return [](Case& c) -> ndrt_status {
    auto net = std::make_shared<LeNet>(64);
    TRY(net->init());
    c.run = [net]() { return net->step(); };
    c.check = [net]() { return net->check(); };
    c.items = double(net->batch);  // images per step
    return NDRT_OK;
  };
}

// ------------------------------------------------------------------------------------------------
// Recurrent layers: batch 64, 100 steps, 256 -> 512 (torch.nn.LSTM / GRU with batch_first)
// ------------------------------------------------------------------------------------------------
Builder rnn_case(bool lstm, bool backward) {
  return [lstm, backward](Case& c) -> ndrt_status {
    const int64_t B = 64, T = 100, I = 256, H = 512, G = (lstm ? 4 : 3) * H;
    const float s = 1.0f / std::sqrt(float(H));  // torch's init range
    auto x = std::make_shared<Tn>(), wih = std::make_shared<Tn>(), whh = std::make_shared<Tn>();
    auto bih = std::make_shared<Tn>(), bhh = std::make_shared<Tn>(), h0 = std::make_shared<Tn>();
    auto c0 = std::make_shared<Tn>(), len = std::make_shared<Tn>(), dy = std::make_shared<Tn>();
    auto dh = std::make_shared<Tn>();
    TRY(make_f32({B, T, I}, 11, -1.0f, 1.0f, x.get()));
    TRY(make_f32({G, I}, 12, -s, s, wih.get()));
    TRY(make_f32({G, H}, 13, -s, s, whh.get()));
    TRY(make_f32({G}, 14, -s, s, bih.get()));
    TRY(make_f32({G}, 15, -s, s, bhh.get()));
    TRY(make_f32({B, H}, 16, 0.0f, 0.0f, h0.get()));
    TRY(make_f32({B, H}, 16, 0.0f, 0.0f, c0.get()));
    TRY(make_f32({B, T, H}, 17, -1.0f, 1.0f, dy.get()));
    TRY(make_f32({B, H}, 18, 0.0f, 0.0f, dh.get()));
    TRY(make(NDRT_I64, {B}, len.get()));
    std::vector<int64_t> full(size_t(B), T);
    TRY(ndrt_tensor_write(len->h, full.data(), full.size() * sizeof(int64_t)));
    auto out = std::make_shared<std::vector<ndrt_handle>>(11, 0);
    const int32_t fwd = op(lstm ? "lstm" : "gru"), bwd = op(lstm ? "lstm_bp" : "gru_bp");
    c.run = [=]() -> ndrt_status {
      std::vector<ndrt_handle>& o = *out;
      if (lstm) {
        TRY(ex(fwd, {x->h, wih->h, whh->h, bih->h, bhh->h, h0->h, c0->h, len->h}, {&o[0], &o[1], &o[2], &o[3]}, {0, 0}));
        if (!backward) return NDRT_OK;
        return ex(bwd, {x->h, wih->h, whh->h, bih->h, bhh->h, h0->h, c0->h, len->h, o[0], o[3], dy->h, dh->h, dh->h},
                  {&o[4], &o[5], &o[6], &o[7], &o[8], &o[9], &o[10]}, {0, 0});
      }
      TRY(ex(fwd, {x->h, wih->h, whh->h, bih->h, bhh->h, h0->h, len->h}, {&o[0], &o[1], &o[3]}, {0, 0}));
      if (!backward) return NDRT_OK;
      return ex(bwd, {x->h, wih->h, whh->h, bih->h, bhh->h, h0->h, len->h, o[0], o[3], dy->h, dh->h},
                {&o[4], &o[5], &o[6], &o[7], &o[8], &o[9]}, {0, 0});
    };
    c.check = [=]() -> std::string {
      // y[b = 1, t = 0, j = 5] from the zero state, in double.
      const float *X = x->f(), *WI = wih->f(), *BI = bih->f(), *BH = bhh->f();
      auto pre = [&](int64_t q) {
        double a = double(BI[q]) + BH[q];
        for (int64_t i = 0; i < I; ++i) a += double(WI[q * I + i]) * X[(1 * T + 0) * I + i];
        return a;
      };
      auto sig = [](double v) { return 1 / (1 + std::exp(-v)); };
      const int64_t j = 5;
      double y;
      if (lstm) {
        y = sig(pre(3 * H + j)) * std::tanh(sig(pre(j)) * std::tanh(pre(2 * H + j)));
      } else {  // r gates W_hn h + b_hn = b_hn; h' = (1 - z) * n
        const double r = sig(pre(j)), z = sig(pre(H + j));
        const double n = std::tanh(pre(2 * H + j) - BH[2 * H + j] + r * BH[2 * H + j]);
        y = (1 - z) * n;
      }
      if (!close_to(data_of((*out)[0])[(1 * T + 0) * H + j], y, 1e-4)) return "y[1,0,5]";
      if (!backward) return "";
      for (int k = 4; k < (lstm ? 11 : 10); ++k)
        if (!all_finite((*out)[size_t(k)])) return "a non-finite gradient";
      return "";
    };
    c.items = double(B);  // sequences per call
    return NDRT_OK;
  };
}

void register_all(const std::vector<int>& threads) {
  std::vector<std::pair<std::string, Builder>> cases = {
      {"conv1_fwd", conv_case(kConv1, false)},   {"conv1_fwdbwd", conv_case(kConv1, true)},
      {"conv2_fwd", conv_case(kConv2, false)},   {"conv2_fwdbwd", conv_case(kConv2, true)},
      {"conv1_maxpool_fwdbwd", conv_pool_case(kConv1)}, {"conv2_maxpool_fwdbwd", conv_pool_case(kConv2)},
      {"conv1_pool_fwd", pool_case(kPool1, false)}, {"conv1_pool_bp", pool_case(kPool1, true)},
      {"conv2_pool_fwd", pool_case(kPool2, false)}, {"conv2_pool_bp", pool_case(kPool2, true)},
  };
  for (const char* e : {"add", "mul", "relu", "exp", "sigmoid", "tanh"}) cases.push_back({e, elementwise_case(e)});
  for (const char* r : {"sum", "max", "mean"}) cases.push_back({std::string(r) + "_all", reduce_case(r, false)});
  for (const char* r : {"sum", "max", "mean"}) cases.push_back({std::string(r) + "_rows", reduce_case(r, true)});
  cases.push_back({"sce_64x10", sce_case(64, 10)});
  cases.push_back({"sce_4096x1000", sce_case(4096, 1000)});
  cases.push_back({"lenet_step_b64", lenet_case()});
  for (bool lstm : {true, false}) {
    const std::string n = lstm ? "lstm" : "gru";
    cases.push_back({n + "_fwd", rnn_case(lstm, false)});
    cases.push_back({n + "_fwdbwd", rnn_case(lstm, true)});
  }
  for (auto& [name, build] : cases)
    for (int t : threads) {
      const std::string full = name + "/threads:" + std::to_string(t);
      benchmark::RegisterBenchmark(full.c_str(), [name = name, t, build = build](benchmark::State& s) { bench(s, name, t, build); })
          ->UseRealTime()
          ->MeasureProcessCPUTime()  // cpu_time: all threads of the process, as the torch side's process_time
          ->Unit(benchmark::kMicrosecond);
    }
}

}  // namespace

int main(int argc, char** argv) {
  // --threads=1,2 (ours; removed before Google Benchmark sees the arguments).
  std::vector<int> threads = {1, 2};
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--threads=", 10) == 0) {
      threads.clear();
      for (const char* p = argv[i] + 10; *p;) {
        threads.push_back(std::max(1, std::atoi(p)));
        while (*p && *p != ',') ++p;
        if (*p == ',') ++p;
      }
      continue;
    }
    argv[kept++] = argv[i];
  }
  argc = kept;
  ndrt_status st = ndrt_thread_attach(NDRT_CPU);
  if (st != NDRT_OK) {
    std::fprintf(stderr, "bench_ops: %s\n", status_text("ndrt_thread_attach", st).c_str());
    return 1;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("ndrt_version", ndrt_version_string());
  benchmark::AddCustomContext("ndrt_bench_build_type", NDRT_BENCH_BUILD_TYPE);
  benchmark::AddCustomContext("lenet_dense", have_op("linear") && have_op("linear_bp") ? "linear (fused)" : "matmul+add+relu");
  benchmark::AddCustomContext("lenet_update", have_op("nesterovs") ? "nesterovs (fused)" : "composed elementwise");
  register_all(threads);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  for (ndrt_handle h : owned()) ndrt_tensor_release(h);
  return 0;
}
