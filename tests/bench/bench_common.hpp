// Shared by the op-set benchmarks (bench_ops.cpp, cpu) and the GPU benchmarks (bench_gpu.cpp,
// cuda:0): tensors owned for the process, one-call ndrt_exec with outputs kept for the next call,
// and the LeNet training step. Tensors are created on the calling thread's current device, so the
// same code runs on the cpu (thread attached to cpu:0) and on a GPU (thread attached to cuda:0).
// Host data goes in with ndrt_tensor_write and comes back with ndrt_tensor_read (which waits for a
// GPU's pending work); cpu tensors also expose their memory (Tn::p) for in-place fills and checks.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "ndrt/ndrt.h"

namespace ndrt_bench {

using Shape = std::vector<int64_t>;

inline std::string status_text(const char* what, ndrt_status st) {
  return std::string(what) + ": " + ndrt_status_name(st) + ": " + ndrt_last_error();
}

// Any failing call leaves the setup or the run with its status (the message stays in ndrt_last_error).
#define TRY(call)                            \
  do {                                       \
    ndrt_status st_ = (call);                \
    if (st_ != NDRT_OK) return st_;          \
  } while (0)

inline std::vector<ndrt_handle>& owned() {
  static std::vector<ndrt_handle> v;
  return v;
}

inline bool have_op(const char* name) {
  int32_t id = -1;
  return ndrt_op_find(name, &id) == NDRT_OK;
}

inline int32_t op(const char* name) {
  static std::map<std::string, int32_t> ids;
  auto it = ids.find(name);
  if (it != ids.end()) return it->second;
  int32_t id = -1;
  if (ndrt_op_find(name, &id) != NDRT_OK) id = -1;  // ndrt_exec then fails with NDRT_ERR_UNKNOWN_OP
  ids[name] = id;
  return id;
}

// A tensor owned for the life of the process. p: its memory when it is a cpu tensor, else null.
struct Tn {
  ndrt_handle h = 0;
  void* p = nullptr;
  int64_t n = 0;
  float* f() const { return static_cast<float*>(p); }
};

// On the calling thread's current device.
inline ndrt_status make(ndrt_dtype d, const Shape& s, Tn* t) {
  TRY(ndrt_tensor_create(d, int32_t(s.size()), s.data(), NDRT_DEVICE_CURRENT, &t->h));
  owned().push_back(t->h);
  TRY(ndrt_tensor_numel(t->h, &t->n));
  ndrt_device dev = 0;
  TRY(ndrt_tensor_device(t->h, &dev));
  t->p = nullptr;
  if (NDRT_DEVICE_TYPE_OF(dev) == NDRT_DEVICE_TYPE_CPU) TRY(ndrt_tensor_data_ptr(t->h, &t->p));
  return NDRT_OK;
}

// n f32 values uniform in [lo, hi) (splitmix64: fast enough for hundreds of millions).
inline void fill_uniform(float* out, int64_t n, uint32_t seed, float lo, float hi) {
  uint64_t z = seed * 0x9E3779B97F4A7C15ull;
  for (int64_t i = 0; i < n; ++i) {
    uint64_t x = (z += 0x9E3779B97F4A7C15ull);
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    x ^= x >> 31;
    out[i] = lo + (hi - lo) * float(x >> 40) * 0x1.0p-24f;
  }
}

// Fills an f32 tensor from host values (in place on the cpu, every page touched).
inline ndrt_status write_f32(const Tn& t, const std::vector<float>& v) {
  if (t.p) {
    std::memcpy(t.p, v.data(), v.size() * sizeof(float));
    return NDRT_OK;
  }
  return ndrt_tensor_write(t.h, v.data(), v.size() * sizeof(float));
}

// f32 uniform in [lo, hi). `host` (optional) receives the values, for checks on any device.
inline ndrt_status make_f32(const Shape& s, uint32_t seed, float lo, float hi, Tn* t, std::vector<float>* host = nullptr) {
  TRY(make(NDRT_F32, s, t));
  if (t->p && !host) {
    fill_uniform(t->f(), t->n, seed, lo, hi);
    return NDRT_OK;
  }
  std::vector<float> v(static_cast<size_t>(t->n));
  fill_uniform(v.data(), t->n, seed, lo, hi);
  TRY(write_f32(*t, v));
  if (host) *host = std::move(v);
  return NDRT_OK;
}

inline ndrt_status make_labels(int64_t n, int64_t classes, uint32_t seed, Tn* t) {
  TRY(make(NDRT_I64, {n}, t));
  std::mt19937 rng(seed);
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = int64_t(rng() % uint32_t(classes));
  return ndrt_tensor_write(t->h, v.data(), v.size() * sizeof(int64_t));
}

inline ndrt_status make_scalar(float v, Tn* t) {
  TRY(make(NDRT_F32, {}, t));
  return ndrt_tensor_write(t->h, &v, sizeof v);
}

// One ndrt_exec. An output slot holding 0 gets the runtime's new tensor (kept for the next call, so
// from the second call on every output is given and nothing is allocated).
inline ndrt_status ex(int32_t id, std::initializer_list<ndrt_handle> in, std::initializer_list<ndrt_handle*> out,
                      std::initializer_list<int64_t> ints = {}, std::initializer_list<double> floats = {}) {
  ndrt_handle o[8];
  int n = 0;
  for (ndrt_handle* p : out) o[n++] = *p;
  TRY(ndrt_exec(id, in.begin(), int32_t(in.size()), o, n, ints.begin(), int32_t(ints.size()), floats.begin(),
                int32_t(floats.size())));
  n = 0;
  for (ndrt_handle* p : out) {
    if (*p == 0) owned().push_back(o[n]);
    *p = o[n++];
  }
  return NDRT_OK;
}

// A view kept for the process (made once).
inline ndrt_status reshape_once(ndrt_handle src, const Shape& s, ndrt_handle* view) {
  if (*view) return NDRT_OK;
  TRY(ndrt_tensor_reshape(src, int32_t(s.size()), s.data(), view));
  owned().push_back(*view);
  return NDRT_OK;
}

// An f32 tensor's values on the host (any device; empty when the read fails).
inline std::vector<float> read_f32(ndrt_handle h) {
  int64_t n = 0;
  if (ndrt_tensor_numel(h, &n) != NDRT_OK) return {};
  std::vector<float> v(static_cast<size_t>(n));
  if (ndrt_tensor_read(h, v.data(), v.size() * sizeof(float)) != NDRT_OK) return {};
  return v;
}

inline float read_scalar(ndrt_handle h) {
  float v = NAN;
  return ndrt_tensor_read(h, &v, sizeof v) == NDRT_OK ? v : NAN;
}

inline bool all_finite(ndrt_handle h) {
  int64_t n = 0;
  if (ndrt_tensor_numel(h, &n) != NDRT_OK) return false;
  std::vector<float> v = read_f32(h);
  if (int64_t(v.size()) != n) return false;
  for (float x : v)
    if (!std::isfinite(x)) return false;
  return true;
}

// ------------------------------------------------------------------------------------------------
// One LeNet training step (see tests/cpp/ops/lenet_test.cpp for the network and its checks), on the
// calling thread's current device.
// ------------------------------------------------------------------------------------------------
struct LeNet {
  explicit LeNet(int64_t batch_size = 64) : batch(batch_size) {}
  int64_t batch;
  bool fused_dense = false, fused_update = false;
  Tn x, labels, one, P[8], V[8], l2, mu, lr, neg_mu, one_mu;
  ndrt_handle G[8] = {}, a1 = 0, p1 = 0, a2 = 0, p2 = 0, flat = 0, m3 = 0, z3 = 0, h3 = 0, m4 = 0, logits = 0,
              loss = 0, dlogits = 0, dz3 = 0, dh3 = 0, dflat = 0, dp2 = 0, da2 = 0, dp1 = 0, da1 = 0;
  ndrt_handle tmp[8][6] = {};  // composed update temporaries
  double first_loss = NAN;

  ndrt_status init() {
    fused_dense = have_op("linear") && have_op("linear_bp");
    fused_update = have_op("nesterovs");
    TRY(make_f32({batch, 1, 28, 28}, 31, 0.0f, 1.0f, &x));
    TRY(make_labels(batch, 10, 32, &labels));
    TRY(make_scalar(1.0f, &one));
    const Shape shapes[8] = {{20, 1, 5, 5}, {20}, {50, 20, 5, 5}, {50}, {800, 500}, {500}, {500, 10}, {10}};
    const double fans[8] = {25 + 500, 0, 500 + 1250, 0, 800 + 500, 0, 500 + 10, 0};
    for (int i = 0; i < 8; ++i) {
      // Xavier-uniform weights (same variance as DL4J's XAVIER normal), zero biases and velocities.
      const float a = i % 2 ? 0.0f : float(std::sqrt(6.0 / fans[i]));
      TRY(make(NDRT_F32, shapes[i], &P[i]));
      TRY(make(NDRT_F32, shapes[i], &V[i]));
      std::mt19937 rng(40 + uint32_t(i));
      std::uniform_real_distribution<float> u(-1.0f, 1.0f);
      std::vector<float> w(static_cast<size_t>(P[i].n));
      for (float& e : w) e = a * u(rng);
      TRY(write_f32(P[i], w));
      TRY(write_f32(V[i], std::vector<float>(size_t(V[i].n), 0.0f)));
    }
    TRY(make_scalar(0.0005f, &l2));
    TRY(make_scalar(0.9f, &mu));
    TRY(make_scalar(0.01f, &lr));
    TRY(make_scalar(-0.9f, &neg_mu));
    return make_scalar(1.9f, &one_mu);
  }

  ndrt_status dense(ndrt_handle in, int w, bool relu, ndrt_handle* m, ndrt_handle* z, ndrt_handle* y) {
    if (fused_dense) return ex(op("linear"), {in, P[w].h, P[w + 1].h}, {y}, {0, relu ? 1 : 0});
    TRY(ex(op("matmul"), {in, P[w].h}, {m}));
    if (!relu) return ex(op("add"), {*m, P[w + 1].h}, {y});
    TRY(ex(op("add"), {*m, P[w + 1].h}, {z}));
    return ex(op("relu"), {*z}, {y});
  }
  ndrt_status dense_bp(ndrt_handle in, int w, ndrt_handle y, ndrt_handle z, ndrt_handle dy, bool relu, ndrt_handle* dx,
                       ndrt_handle* dz) {
    if (fused_dense)
      return ex(op("linear_bp"), {in, P[w].h, P[w + 1].h, y, dy}, {dx, &G[w], &G[w + 1]}, {0, relu ? 1 : 0});
    ndrt_handle d = dy;
    if (relu) {
      TRY(ex(op("relu_bp"), {z, dy}, {dz}));
      d = *dz;
    }
    TRY(ex(op("matmul"), {in, d}, {&G[w]}, {1, 0}));
    TRY(ex(op("sum"), {d}, {&G[w + 1]}, {1, 0, 0}));
    return ex(op("matmul"), {d, P[w].h}, {dx}, {0, 1});
  }

  // Forward, backward and update; nothing waits for a GPU except the very first step, which reads
  // the loss back (first_loss, for check()).
  ndrt_status step() {
    const int32_t conv = op("conv2d_bias"), pool = op("max_pool2d"), pool_bp = op("max_pool2d_bp");
    TRY(ex(conv, {x.h, P[0].h, P[1].h}, {&a1}));
    TRY(ex(pool, {a1}, {&p1}, {2, 2, 2}));
    TRY(ex(conv, {p1, P[2].h, P[3].h}, {&a2}));
    TRY(ex(pool, {a2}, {&p2}, {2, 2, 2}));
    TRY(reshape_once(p2, {batch, 800}, &flat));
    TRY(dense(flat, 4, true, &m3, &z3, &h3));
    TRY(dense(h3, 6, false, &m4, nullptr, &logits));
    TRY(ex(op("softmax_cross_entropy"), {logits, labels.h}, {&loss}));
    TRY(ex(op("softmax_cross_entropy_bp"), {logits, labels.h, one.h}, {&dlogits}));
    TRY(dense_bp(h3, 6, logits, 0, dlogits, false, &dh3, nullptr));
    TRY(dense_bp(flat, 4, h3, z3, dh3, true, &dflat, &dz3));
    TRY(reshape_once(dflat, {batch, 50, 4, 4}, &dp2));
    TRY(ex(pool_bp, {a2, dp2}, {&da2}, {2, 2, 2}));
    TRY(ex(op("conv2d_bp_weights"), {p1, P[2].h, da2}, {&G[2]}));
    TRY(ex(op("conv2d_bp_bias"), {da2}, {&G[3]}));
    TRY(ex(op("conv2d_bp_data"), {p1, P[2].h, da2}, {&dp1}));
    TRY(ex(pool_bp, {a1, dp1}, {&da1}, {2, 2, 2}));
    TRY(ex(op("conv2d_bp_weights"), {x.h, P[0].h, da1}, {&G[0]}));
    TRY(ex(op("conv2d_bp_bias"), {da1}, {&G[1]}));
    for (int i = 0; i < 8; ++i) TRY(update(i));
    if (std::isnan(first_loss)) first_loss = read_scalar(loss);
    return NDRT_OK;
  }

  // Nesterovs (lr 0.01, momentum 0.9) with L2 0.0005 on the weights, in place.
  ndrt_status update(int i) {
    const double wd = i % 2 ? 0.0 : 0.0005;
    if (fused_update) {
      ndrt_handle p = P[i].h, v = V[i].h;
      return ex(op("nesterovs"), {P[i].h, G[i], V[i].h}, {&p, &v}, {}, {0.01, 0.9, wd});
    }
    ndrt_handle* t = tmp[i];
    ndrt_handle g = G[i];
    if (wd > 0) {
      TRY(ex(op("mul"), {P[i].h, l2.h}, {&t[0]}));
      TRY(ex(op("add"), {G[i], t[0]}, {&t[1]}));
      g = t[1];
    }
    TRY(ex(op("mul"), {g, lr.h}, {&t[2]}));
    TRY(ex(op("mul"), {V[i].h, mu.h}, {&t[3]}));
    TRY(ex(op("sub"), {t[3], t[2]}, {&t[4]}));                 // v'
    TRY(ex(op("mul"), {V[i].h, neg_mu.h}, {&t[5]}));           // -mu v
    TRY(ex(op("mul"), {t[4], one_mu.h}, {&t[3]}));             // (1 + mu) v'
    TRY(ex(op("add"), {t[5], t[3]}, {&t[5]}));
    ndrt_handle p = P[i].h, v = V[i].h;
    TRY(ex(op("add"), {P[i].h, t[5]}, {&p}));
    return ex(op("copy"), {t[4]}, {&v});
  }

  // "" when the loss fell since the first step and every parameter is finite (reads back: waits).
  std::string check() const {
    const float now = read_scalar(loss);
    if (!std::isfinite(now) || !(now < first_loss)) return "the loss did not fall over the warm-up steps";
    for (int i = 0; i < 8; ++i)
      if (!all_finite(P[i].h)) return "non-finite parameters";
    return "";
  }
};

}  // namespace ndrt_bench
