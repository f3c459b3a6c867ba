// ndrt on cuda:0 beside raw CUDA peers in the same binary (cudaMemcpyAsync, cuBLAS), and, through
// peer_torch_gpu.py, beside PyTorch on CUDA: run_gpu.sh alternates the two and report_gpu.py prints
// the ratios. Without a GPU every case is skipped (the binary says so and exits 0).
//
// Cases (f32 unless named; every name is "<case>/real_time"):
//   add, mul, exp, relu       256M elements (1 GiB per operand), output given      bytes: 3/3/2/2 x 1 GiB
//   sum_all, max_all          256M elements to a scalar                            bytes: 1 GiB
//   memcpy_d2d                raw peer: cudaMemcpyAsync device to device of 1 GiB  bytes: 2 GiB (read + write)
//   matmul_f32/_tf32/_bf16    ndrt "matmul" [8192,8192] @ [8192,8192] (tf32: cuda.matmul.allow_tf32=1 for
//                             the case; bf16: bf16 in and out, f32 accumulation)  flop: 2 x 8192^3
//   cublas_f32/_tf32/_bf16    raw peer: cublasGemmEx with the same types and compute (32F, 32F_FAST_TF32, 32F)
//   neg_1                     launch overhead: "neg" on one f32 element, output given
//   memset_4B                 raw peer of neg_1: cudaMemsetAsync of 4 bytes (the floor of one async call)
//   conv{1,2}_{fwd,fwdbwd}_b{64,512}   LeNet convolutions as bench_ops.cpp (conv1 x [N,1,28,28] w [20,1,5,5];
//                             conv2 x [N,20,12,12] w [50,20,5,5]; stride 1, no padding, NCHW); fwdbwd =
//                             conv2d_bias + conv2d_bp_data + conv2d_bp_weights + conv2d_bp_bias
//   lenet_step_b64, lenet_step_b512   one LeNet training step (bench_common.hpp), thread on cuda:0
//
// Timing: work is asynchronous, so each case is timed over batches: B calls issued back to back,
// then one wait (ndrt_synchronize(cuda:0), or cudaStreamSynchronize for the raw peers), the timer
// running over all batches (wall clock, UseRealTime). B is chosen once per case so that a batch
// takes about --batch_ms (default 10 ms) and is reported as the counter "batch"; the time per
// iteration is the time per call, waits included (one per batch). Counters "bytes" and "flop" give
// the work of one call (report_gpu.py turns them into GB/s and TFLOP/s).
// Each case is checked once against a host reference before it is timed (a fast wrong kernel
// reports no time); the raw peers are checked alike.
#include <benchmark/benchmark.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench_common.hpp"
#include "ndrt/ndrt.h"

#ifndef NDRT_BENCH_BUILD_TYPE
#define NDRT_BENCH_BUILD_TYPE "unknown"
#endif

namespace {

using namespace ndrt_bench;

constexpr ndrt_device kCuda0 = NDRT_DEVICE(NDRT_DEVICE_TYPE_CUDA, 0);
double g_batch_seconds = 0.010;

int32_t cuda_devices() {
  static int32_t n = [] {
    int32_t c = 0;
    return ndrt_device_count(NDRT_DEVICE_TYPE_CUDA, &c) == NDRT_OK ? c : 0;
  }();
  return n;
}

// ------------------------------------------------------------------------------------------------
// Raw CUDA / cuBLAS: errors become NDRT_ERR_BACKEND with the message kept here.
// ------------------------------------------------------------------------------------------------
std::string& raw_error() {
  static std::string e;
  return e;
}
ndrt_status cu(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return NDRT_OK;
  raw_error() = std::string(what) + ": " + cudaGetErrorString(e);
  return NDRT_ERR_BACKEND;
}
ndrt_status cb(cublasStatus_t s, const char* what) {
  if (s == CUBLAS_STATUS_SUCCESS) return NDRT_OK;
  raw_error() = std::string(what) + ": cublas status " + std::to_string(int(s));
  return NDRT_ERR_BACKEND;
}
std::string fail_text(const std::string& what, ndrt_status st) {
  std::string s = status_text(what.c_str(), st);
  if (!raw_error().empty()) s += " (" + raw_error() + ")";
  raw_error().clear();
  return s;
}

// The raw peers' stream and cuBLAS handle (made on first use, kept for the process).
struct Raw {
  cudaStream_t stream = nullptr;
  cublasHandle_t blas = nullptr;
};
ndrt_status raw(Raw** out) {
  static Raw r;
  static ndrt_status st = [] {
    TRY(cu(cudaSetDevice(0), "cudaSetDevice"));
    TRY(cu(cudaStreamCreateWithFlags(&r.stream, cudaStreamNonBlocking), "cudaStreamCreate"));
    TRY(cb(cublasCreate(&r.blas), "cublasCreate"));
    return cb(cublasSetStream(r.blas, r.stream), "cublasSetStream");
  }();
  *out = &r;
  return st;
}
ndrt_status raw_sync() {
  Raw* r;
  TRY(raw(&r));
  return cu(cudaStreamSynchronize(r->stream), "cudaStreamSynchronize");
}
// Device memory for the raw peers (never freed: kept for the process like ndrt's tensors).
ndrt_status raw_alloc(size_t n, void** p) { return cu(cudaMalloc(p, n), "cudaMalloc"); }

ndrt_status nd_sync() { return ndrt_synchronize(kCuda0); }

// ------------------------------------------------------------------------------------------------
// A case: built on first use, run many times, checked once. check() returns "" when right.
// ------------------------------------------------------------------------------------------------
struct Case {
  std::function<ndrt_status()> run;   // issues one call (asynchronous)
  std::function<ndrt_status()> sync;  // waits for everything run() issued
  std::function<std::string()> check;
  std::function<ndrt_status(bool)> scope;  // optional: (true) before the case runs, (false) after
  double bytes = 0, flop = 0, items = 0;   // per call; items: images (LeNet)
};
using Builder = std::function<ndrt_status(Case&)>;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Calls per batch so that a batch takes about g_batch_seconds (at least 1).
ndrt_status calibrate(Case& c, int64_t* batch) {
  for (int64_t k = 1;; k *= 4) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < k; ++i) TRY(c.run());
    TRY(c.sync());
    const double dt = seconds_since(t0);
    if (dt >= 2e-3 || k >= (int64_t(1) << 20)) {
      *batch = std::clamp<int64_t>(int64_t(std::ceil(g_batch_seconds * double(k) / std::max(dt, 1e-9))), 1,
                                   int64_t(1) << 20);
      return NDRT_OK;
    }
  }
}

void bench(benchmark::State& state, const std::string& name, const Builder& build) {
  if (cuda_devices() == 0) {
    state.SkipWithError("no cuda device");
    return;
  }
  static std::map<std::string, std::unique_ptr<Case>> cases;
  static std::map<std::string, ndrt_status> built;
  static std::map<std::string, std::string> setup_error;
  if (!cases.count(name)) {
    cases[name] = std::make_unique<Case>();
    built[name] = build(*cases[name]);
    if (built[name] != NDRT_OK) setup_error[name] = fail_text("setup of " + name, built[name]);
  }
  if (built[name] != NDRT_OK) {
    state.SkipWithError(setup_error[name].c_str());
    return;
  }
  Case& c = *cases[name];
  struct Scope {  // leaves the case's scope on every path out
    Case& c;
    ndrt_status st;
    explicit Scope(Case& k) : c(k), st(k.scope ? k.scope(true) : NDRT_OK) {}
    ~Scope() {
      if (c.scope) c.scope(false);
    }
  } scope(c);
  ndrt_status st = scope.st;
  // Warm: plans, cuBLAS/cuDNN heuristics, first-call allocation of outputs.
  for (int i = 0; i < 2 && st == NDRT_OK; ++i) st = c.run();
  if (st == NDRT_OK) st = c.sync();
  if (st != NDRT_OK) {
    state.SkipWithError(fail_text(name, st).c_str());
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
  static std::map<std::string, int64_t> batches;  // the same batch for every repetition
  if (!batches.count(name)) {
    int64_t b = 1;
    st = calibrate(c, &b);
    if (st != NDRT_OK) {
      state.SkipWithError(fail_text(name, st).c_str());
      return;
    }
    batches[name] = b;
  }
  const int64_t batch = batches[name];
  while (state.KeepRunningBatch(batch)) {
    for (int64_t i = 0; i < batch && st == NDRT_OK; ++i) st = c.run();
    if (st == NDRT_OK) st = c.sync();
    if (__builtin_expect(st != NDRT_OK, 0)) {
      state.SkipWithError(fail_text(name, st).c_str());
      break;
    }
  }
  if (st != NDRT_OK) return;
  const double iters = double(state.iterations());
  state.counters["batch"] = double(batch);
  if (c.bytes > 0) {
    state.counters["bytes"] = c.bytes;
    state.SetBytesProcessed(int64_t(c.bytes * iters));
  }
  if (c.flop > 0) {
    state.counters["flop"] = c.flop;
    state.counters["TFLOP"] = benchmark::Counter(c.flop * iters * 1e-12, benchmark::Counter::kIsRate);
  }
  if (c.items > 0) state.counters["items_per_s"] = benchmark::Counter(c.items * iters, benchmark::Counter::kIsRate);
}

bool close_abs(double got, double want, double tol) { return std::fabs(got - want) <= tol; }

// ------------------------------------------------------------------------------------------------
// Bandwidth: elementwise and full reductions over 256M f32 elements; the D2D copy peer
// ------------------------------------------------------------------------------------------------
constexpr int64_t kBig = int64_t(256) << 20;
constexpr double kBigBytes = double(kBig) * sizeof(float);

struct BigBufs {
  Tn a, b, c, s;
  std::vector<float> ha, hb;  // a and b on the host, for the checks
};
ndrt_status big(BigBufs** out) {
  static BigBufs s;
  static ndrt_status st = [] {
    TRY(make_f32({kBig}, 11, -3.0f, 3.0f, &s.a, &s.ha));
    TRY(make_f32({kBig}, 12, -3.0f, 3.0f, &s.b, &s.hb));
    TRY(make(NDRT_F32, {kBig}, &s.c));
    return make(NDRT_F32, {}, &s.s);
  }();
  *out = &s;
  return st;
}

double ref_unary(const std::string& name, double x) { return name == "relu" ? (x > 0 ? x : 0) : std::exp(x); }

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
    c.sync = nd_sync;
    c.check = [=]() -> std::string {
      const std::vector<float> y = read_f32(s->c.h);
      if (int64_t(y.size()) != kBig) return "could not read the output";
      for (int64_t i = 0; i < kBig; i += 4099) {
        const double a = s->ha[size_t(i)], b = s->hb[size_t(i)];
        const double want = name == "add" ? a + b : name == "mul" ? a * b : ref_unary(name, a);
        if (!close_abs(y[size_t(i)], want, 1e-5 * std::fabs(want) + 1e-6)) return "element " + std::to_string(i);
      }
      return "";
    };
    c.bytes = (binary ? 3 : 2) * kBigBytes;
    return NDRT_OK;
  };
}

Builder reduce_case(const std::string& name) {
  return [name](Case& c) -> ndrt_status {
    BigBufs* s;
    TRY(big(&s));
    const int32_t id = op(name.c_str());
    c.run = [=]() -> ndrt_status {
      ndrt_handle y = s->s.h;
      return ex(id, {s->a.h}, {&y});  // axes [] = all
    };
    c.sync = nd_sync;
    c.check = [=]() -> std::string {
      const double got = read_scalar(s->s.h);
      if (name == "max") {
        float m = -INFINITY;
        for (float v : s->ha) m = std::max(m, v);
        return got == double(m) ? "" : "max";
      }
      double sum = 0, abs_sum = 0;
      for (float v : s->ha) {
        sum += v;
        abs_sum += std::fabs(v);
      }
      // The CPU's bound (2^-22 sum|x|) with room for another summation order, plus the f32 result.
      return close_abs(got, sum, 4 * 0x1.0p-22 * abs_sum + 1e-6 * std::fabs(sum)) ? "" : "sum";
    };
    c.bytes = kBigBytes;
    return NDRT_OK;
  };
}

Builder memcpy_case() {
  return [](Case& c) -> ndrt_status {
    Raw* r;
    TRY(raw(&r));
    void *src = nullptr, *dst = nullptr;
    const size_t n = size_t(kBigBytes);
    TRY(raw_alloc(n, &src));
    TRY(raw_alloc(n, &dst));
    // Values: the same generator as ndrt's a, so the check can compare a sample.
    auto host = std::make_shared<std::vector<float>>(static_cast<size_t>(kBig));
    fill_uniform(host->data(), kBig, 11, -3.0f, 3.0f);
    TRY(cu(cudaMemcpy(src, host->data(), n, cudaMemcpyHostToDevice), "cudaMemcpy"));
    c.run = [=]() { return cu(cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToDevice, r->stream), "cudaMemcpyAsync"); };
    c.sync = raw_sync;
    c.check = [=]() -> std::string {
      for (int64_t i = 0; i < kBig; i += (int64_t(1) << 20) + 7) {
        float v = 0;
        if (cudaMemcpy(&v, static_cast<float*>(dst) + i, sizeof v, cudaMemcpyDeviceToHost) != cudaSuccess)
          return "could not read the copy";
        if (v != (*host)[size_t(i)]) return "element " + std::to_string(i);
      }
      return "";
    };
    c.bytes = 2 * kBigBytes;  // read + write
    return NDRT_OK;
  };
}

// ------------------------------------------------------------------------------------------------
// matmul 8192^3: ndrt "matmul" vs cublasGemmEx
// ------------------------------------------------------------------------------------------------
constexpr int64_t kMM = 8192;

// Round to bf16 (nearest even), as ndrt's cast and the raw peer's host conversion do.
uint16_t bf16_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x40);  // NaN stays NaN
  u += 0x7fffu + ((u >> 16) & 1u);
  return uint16_t(u >> 16);
}
float bf16_float(uint16_t b) {
  uint32_t u = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

struct MMHost {
  std::vector<float> a, b;      // f32 inputs
  std::vector<float> a16, b16;  // the same rounded to bf16 (as floats)
};
const MMHost& mm_host() {
  static MMHost h = [] {
    MMHost m;
    m.a.resize(size_t(kMM * kMM));
    m.b.resize(size_t(kMM * kMM));
    fill_uniform(m.a.data(), kMM * kMM, 51, -1.0f, 1.0f);
    fill_uniform(m.b.data(), kMM * kMM, 52, -1.0f, 1.0f);
    m.a16.resize(m.a.size());
    m.b16.resize(m.b.size());
    for (size_t i = 0; i < m.a.size(); ++i) m.a16[i] = bf16_float(bf16_bits(m.a[i]));
    for (size_t i = 0; i < m.b.size(); ++i) m.b16[i] = bf16_float(bf16_bits(m.b[i]));
    return m;
  }();
  return h;
}

// kind: "f32", "tf32", "bf16". Checks 16 elements of y (row-major [8192, 8192], read as floats)
// against f64 sums of the (rounded) inputs.
std::string check_product(const std::string& kind, const std::vector<float>& y) {
  if (int64_t(y.size()) != kMM * kMM) return "could not read the output";
  const MMHost& h = mm_host();
  const bool bf = kind == "bf16";
  const std::vector<float>& A = bf ? h.a16 : h.a;
  const std::vector<float>& B = bf ? h.b16 : h.b;
  for (int t = 0; t < 16; ++t) {
    const int64_t i = (t * 1237 + 5) % kMM, j = (t * 3571 + 11) % kMM;
    double sum = 0, abs_sum = 0;
    for (int64_t k = 0; k < kMM; ++k) {
      const double p = double(A[size_t(i * kMM + k)]) * B[size_t(k * kMM + j)];
      sum += p;
      abs_sum += std::fabs(p);
    }
    // f32: accumulation order only; tf32: inputs rounded to 10-bit mantissas (2^-11 per product);
    // bf16: f32 accumulation, then the result rounded to bf16 (2^-9 relative).
    const double tol = kind == "f32" ? 1e-5 * abs_sum : kind == "tf32" ? 2e-3 * abs_sum : 1e-4 * abs_sum + 8e-3 * std::fabs(sum);
    if (!close_abs(y[size_t(i * kMM + j)], sum, tol))
      return "y[" + std::to_string(i) + "," + std::to_string(j) + "] = " + std::to_string(y[size_t(i * kMM + j)]) +
             ", want " + std::to_string(sum);
  }
  return "";
}

std::vector<float> read_as_f32(ndrt_handle h) {
  ndrt_dtype d = 0;
  if (ndrt_tensor_dtype(h, &d) != NDRT_OK) return {};
  if (d == NDRT_F32) return read_f32(h);
  int64_t n = 0;
  if (d != NDRT_BF16 || ndrt_tensor_numel(h, &n) != NDRT_OK) return {};
  std::vector<uint16_t> b(static_cast<size_t>(n));
  if (ndrt_tensor_read(h, b.data(), b.size() * 2) != NDRT_OK) return {};
  std::vector<float> f(b.size());
  for (size_t i = 0; i < b.size(); ++i) f[i] = bf16_float(b[i]);
  return f;
}

ndrt_status set_tf32(bool on) { return ndrt_config_set("cuda.matmul.allow_tf32", on ? "1" : "0"); }

Builder matmul_case(const std::string& kind) {
  return [kind](Case& c) -> ndrt_status {
    const MMHost& h = mm_host();
    auto a = std::make_shared<Tn>(), b = std::make_shared<Tn>();
    TRY(make(NDRT_F32, {kMM, kMM}, a.get()));
    TRY(make(NDRT_F32, {kMM, kMM}, b.get()));
    TRY(write_f32(*a, h.a));
    TRY(write_f32(*b, h.b));
    auto in = std::make_shared<std::vector<ndrt_handle>>(2, 0);
    if (kind == "bf16") {
      TRY(ndrt_tensor_cast(a->h, NDRT_BF16, &(*in)[0]));
      owned().push_back((*in)[0]);
      TRY(ndrt_tensor_cast(b->h, NDRT_BF16, &(*in)[1]));
      owned().push_back((*in)[1]);
    } else {
      *in = {a->h, b->h};
    }
    auto y = std::make_shared<ndrt_handle>(0);
    const int32_t id = op("matmul");
    c.run = [=]() { return ex(id, {(*in)[0], (*in)[1]}, {y.get()}); };
    c.sync = nd_sync;
    if (kind == "tf32") c.scope = set_tf32;
    c.check = [=]() { return check_product(kind, read_as_f32(*y)); };
    c.flop = 2.0 * double(kMM) * double(kMM) * double(kMM);
    return NDRT_OK;
  };
}

Builder cublas_case(const std::string& kind) {
  return [kind](Case& c) -> ndrt_status {
    Raw* r;
    TRY(raw(&r));
    const MMHost& h = mm_host();
    const bool bf = kind == "bf16";
    const size_t n = size_t(kMM * kMM), es = bf ? 2 : 4;
    void *A = nullptr, *B = nullptr, *C = nullptr;
    TRY(raw_alloc(n * es, &A));
    TRY(raw_alloc(n * es, &B));
    TRY(raw_alloc(n * es, &C));
    if (bf) {
      std::vector<uint16_t> t(n);
      for (size_t i = 0; i < n; ++i) t[i] = bf16_bits(h.a[i]);
      TRY(cu(cudaMemcpy(A, t.data(), n * 2, cudaMemcpyHostToDevice), "cudaMemcpy"));
      for (size_t i = 0; i < n; ++i) t[i] = bf16_bits(h.b[i]);
      TRY(cu(cudaMemcpy(B, t.data(), n * 2, cudaMemcpyHostToDevice), "cudaMemcpy"));
    } else {
      TRY(cu(cudaMemcpy(A, h.a.data(), n * 4, cudaMemcpyHostToDevice), "cudaMemcpy"));
      TRY(cu(cudaMemcpy(B, h.b.data(), n * 4, cudaMemcpyHostToDevice), "cudaMemcpy"));
    }
    const cudaDataType t = bf ? CUDA_R_16BF : CUDA_R_32F;
    const cublasComputeType_t compute = kind == "tf32" ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    const int m = int(kMM);
    // Row-major C = A B as column-major C^T = B^T A^T (as ndrt's linalg.cu does).
    c.run = [=]() -> ndrt_status {
      const float alpha = 1.0f, beta = 0.0f;
      return cb(cublasGemmEx(r->blas, CUBLAS_OP_N, CUBLAS_OP_N, m, m, m, &alpha, B, t, m, A, t, m, &beta, C, t, m,
                             compute, CUBLAS_GEMM_DEFAULT),
                "cublasGemmEx");
    };
    c.sync = raw_sync;
    c.check = [=]() -> std::string {
      std::vector<float> y(n);
      if (bf) {
        std::vector<uint16_t> t16(n);
        if (cudaMemcpy(t16.data(), C, n * 2, cudaMemcpyDeviceToHost) != cudaSuccess) return "could not read C";
        for (size_t i = 0; i < n; ++i) y[i] = bf16_float(t16[i]);
      } else if (cudaMemcpy(y.data(), C, n * 4, cudaMemcpyDeviceToHost) != cudaSuccess) {
        return "could not read C";
      }
      return check_product(kind, y);
    };
    c.flop = 2.0 * double(kMM) * double(kMM) * double(kMM);
    return NDRT_OK;
  };
}

// ------------------------------------------------------------------------------------------------
// Launch overhead: neg on one element (ns per op), and the raw floor, a 4-byte cudaMemsetAsync
// ------------------------------------------------------------------------------------------------
Builder neg_case() {
  return [](Case& c) -> ndrt_status {
    auto x = std::make_shared<Tn>(), y = std::make_shared<Tn>();
    TRY(make_f32({1}, 61, 0.5f, 1.0f, x.get()));
    TRY(make(NDRT_F32, {1}, y.get()));
    const int32_t id = op("neg");
    c.run = [=]() {
      ndrt_handle o = y->h;
      return ex(id, {x->h}, {&o});
    };
    c.sync = nd_sync;
    c.check = [=]() -> std::string {
      const float xv = read_scalar(x->h), yv = read_scalar(y->h);
      return std::isfinite(xv) && yv == -xv ? "" : "y != -x";
    };
    return NDRT_OK;
  };
}

Builder memset_case() {
  return [](Case& c) -> ndrt_status {
    Raw* r;
    TRY(raw(&r));
    void* p = nullptr;
    TRY(raw_alloc(4, &p));
    c.run = [=]() { return cu(cudaMemsetAsync(p, 0, 4, r->stream), "cudaMemsetAsync"); };
    c.sync = raw_sync;
    return NDRT_OK;
  };
}

// ------------------------------------------------------------------------------------------------
// Convolutions, LeNet shapes (bench_ops.cpp's cases at batch 64 and 512)
// ------------------------------------------------------------------------------------------------
struct ConvGeom {
  int64_t n, c, h, w, k, r;
};

Builder conv_case(ConvGeom g, bool backward) {
  return [g, backward](Case& c) -> ndrt_status {
    auto x = std::make_shared<Tn>(), w = std::make_shared<Tn>(), b = std::make_shared<Tn>(), dy = std::make_shared<Tn>();
    auto hx = std::make_shared<std::vector<float>>(), hw = std::make_shared<std::vector<float>>(),
         hb = std::make_shared<std::vector<float>>(), hdy = std::make_shared<std::vector<float>>();
    const int64_t oh = g.h - g.r + 1, ow = g.w - g.r + 1;
    TRY(make_f32({g.n, g.c, g.h, g.w}, 1, 0.0f, 1.0f, x.get(), hx.get()));
    TRY(make_f32({g.k, g.c, g.r, g.r}, 2, -0.1f, 0.1f, w.get(), hw.get()));
    TRY(make_f32({g.k}, 3, -0.1f, 0.1f, b.get(), hb.get()));
    TRY(make_f32({g.n, g.k, oh, ow}, 4, -1.0f, 1.0f, dy.get(), hdy.get()));
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
    c.sync = nd_sync;
    c.check = [=]() -> std::string {
      // One output element and one weight-gradient element against direct sums; the tolerance
      // scales with the sum of |terms| (cuDNN may use TF32 tensor cores for f32).
      const float *X = hx->data(), *W = hw->data(), *B = hb->data(), *DY = hdy->data();
      double y = B[3], ya = std::fabs(B[3]);
      for (int64_t ci = 0; ci < g.c; ++ci)
        for (int64_t i = 0; i < g.r; ++i)
          for (int64_t j = 0; j < g.r; ++j) {
            const double t = double(X[((1 * g.c + ci) * g.h + 2 + i) * g.w + 5 + j]) * W[((3 * g.c + ci) * g.r + i) * g.r + j];
            y += t;
            ya += std::fabs(t);
          }
      const std::vector<float> Y = read_f32((*out)[0]);
      if (Y.empty() || !close_abs(Y[size_t(((1 * g.k + 3) * oh + 2) * ow + 5)], y, 1e-3 * ya + 1e-6)) return "conv2d_bias y[1,3,2,5]";
      if (!backward) return "";
      double dw = 0, dwa = 0;
      for (int64_t n = 0; n < g.n; ++n)
        for (int64_t p = 0; p < oh; ++p)
          for (int64_t q = 0; q < ow; ++q) {
            const double t = double(DY[((n * g.k + 3) * oh + p) * ow + q]) * X[((n * g.c + 0) * g.h + p + 1) * g.w + q + 2];
            dw += t;
            dwa += std::fabs(t);
          }
      const std::vector<float> DW = read_f32((*out)[2]);
      if (DW.empty() || !close_abs(DW[size_t(((3 * g.c + 0) * g.r + 1) * g.r + 2)], dw, 1e-3 * dwa + 1e-6))
        return "conv2d_bp_weights dw[3,0,1,2]";
      return all_finite((*out)[1]) && all_finite((*out)[3]) ? "" : "non-finite dx or db";
    };
    return NDRT_OK;
  };
}

Builder lenet_case(int64_t batch) {
  return [batch](Case& c) -> ndrt_status {
    auto net = std::make_shared<LeNet>(batch);
    TRY(net->init());
    c.run = [net]() { return net->step(); };
    c.sync = nd_sync;
    c.check = [net]() { return net->check(); };
    c.items = double(batch);  // images per step
    return NDRT_OK;
  };
}

void register_all() {
  std::vector<std::pair<std::string, Builder>> cases;
  for (const char* e : {"add", "mul", "exp", "relu"}) cases.push_back({e, elementwise_case(e)});
  for (const char* r : {"sum", "max"}) cases.push_back({std::string(r) + "_all", reduce_case(r)});
  cases.push_back({"memcpy_d2d", memcpy_case()});
  for (const char* k : {"f32", "tf32", "bf16"}) {
    cases.push_back({std::string("matmul_") + k, matmul_case(k)});
    cases.push_back({std::string("cublas_") + k, cublas_case(k)});
  }
  cases.push_back({"neg_1", neg_case()});
  cases.push_back({"memset_4B", memset_case()});
  for (int64_t n : {64, 512}) {
    const std::string b = "_b" + std::to_string(n);
    const ConvGeom conv1 = {n, 1, 28, 28, 20, 5}, conv2 = {n, 20, 12, 12, 50, 5};
    cases.push_back({"conv1_fwd" + b, conv_case(conv1, false)});
    cases.push_back({"conv1_fwdbwd" + b, conv_case(conv1, true)});
    cases.push_back({"conv2_fwd" + b, conv_case(conv2, false)});
    cases.push_back({"conv2_fwdbwd" + b, conv_case(conv2, true)});
  }
  for (int64_t n : {64, 512}) cases.push_back({"lenet_step_b" + std::to_string(n), lenet_case(n)});
  for (auto& [name, build] : cases)
    benchmark::RegisterBenchmark(name.c_str(), [name = name, build = build](benchmark::State& s) { bench(s, name, build); })
        ->UseRealTime()
        ->Unit(benchmark::kMicrosecond);
}

}  // namespace

int main(int argc, char** argv) {
  // --batch_ms=10 (ours; removed before Google Benchmark sees the arguments).
  int kept = 1;
  bool listing = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--benchmark_list_tests", 22) == 0) listing = std::strcmp(argv[i], "--benchmark_list_tests=false") != 0;
    if (std::strncmp(argv[i], "--batch_ms=", 11) == 0) {
      g_batch_seconds = std::max(0.01, std::atof(argv[i] + 11)) * 1e-3;
      continue;
    }
    argv[kept++] = argv[i];
  }
  argc = kept;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  if (listing) {  // the names, GPU or not
    register_all();
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
  }
  if (cuda_devices() == 0) {
    // No GPU (or no driver, or a build whose libndrt_cuda.so is missing): nothing to measure.
    std::fprintf(stderr, "ndrt_bench_gpu: no cuda device (ndrt_device_count(CUDA) is 0): every case skipped\n");
    return 0;
  }
  ndrt_status st = ndrt_thread_attach(kCuda0);
  if (st != NDRT_OK) {
    std::fprintf(stderr, "ndrt_bench_gpu: %s\n", status_text("ndrt_thread_attach(cuda:0)", st).c_str());
    return 1;
  }
  char dev[128] = "?";
  ndrt_device_name(kCuda0, dev, sizeof dev);
  cudaDeviceProp prop{};
  const bool have_prop = cudaGetDeviceProperties(&prop, 0) == cudaSuccess;
  int runtime = 0;
  cudaRuntimeGetVersion(&runtime);
  benchmark::AddCustomContext("ndrt_version", ndrt_version_string());
  benchmark::AddCustomContext("ndrt_bench_build_type", NDRT_BENCH_BUILD_TYPE);
  benchmark::AddCustomContext("ndrt_device", dev);
  benchmark::AddCustomContext("gpu_name", have_prop ? prop.name : "?");
  benchmark::AddCustomContext("cuda_runtime", std::to_string(runtime));
  char batch_ms[32];
  std::snprintf(batch_ms, sizeof batch_ms, "%g", g_batch_seconds * 1e3);
  benchmark::AddCustomContext("batch_ms", batch_ms);
  benchmark::AddCustomContext("lenet_dense", have_op("linear") && have_op("linear_bp") ? "linear (fused)" : "matmul+add+relu");
  benchmark::AddCustomContext("lenet_update", have_op("nesterovs") ? "nesterovs (fused)" : "composed elementwise");
  register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  st = ndrt_synchronize(kCuda0);
  for (ndrt_handle h : owned()) ndrt_tensor_release(h);
  return st == NDRT_OK ? 0 : 1;
}
