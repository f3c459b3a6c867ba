// ndrt core benchmarks, each side by side with a peer in the same binary so that the ratio of the
// two is what gets reported (run_core.sh prints the table). Speed is never pass/fail here.
//
// Naming: every benchmark is "<case>/ndrt" or "<case>/peer"; run_core.sh pairs them by <case>.
//   exec_add1            ndrt_exec("add") on 1-element f32 tensors, given output   | non-inlined C call
//   exec_add1_newout     the same with output 0 (runtime allocates, caller releases) | (none, informative)
//   add16M/threads:T     16M-element f32 add, given output, T intra-op threads       | triad c[i]=a[i]+b[i]
//   matmul<N>/threads:T  N x N f32 matmul through ndrt_exec                          | cblas_sgemm
//   alloc_1MiB           ndrt_tensor_create + ndrt_tensor_release of a cached 1 MiB   | malloc + free
//
// Peers work on the very same buffers as ndrt (taken with ndrt_tensor_data_ptr), so page layout,
// alignment, transparent huge pages and first-touch are identical on both sides. All times are
// wall-clock (UseRealTime): ndrt runs work on pool threads that the main thread's cpu time misses.
#include <benchmark/benchmark.h>
#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "ndrt/ndrt.h"

extern "C" {
// Declared again in case the cblas.h found is not OpenBLAS's (same signatures as OpenBLAS's).
void openblas_set_num_threads(int num_threads);
int openblas_get_num_threads(void);
}

#ifndef NDRT_BENCH_BUILD_TYPE
#define NDRT_BENCH_BUILD_TYPE "unknown"
#endif

namespace {

int g_default_threads = 1;  // ndrt's cpu.threads before any benchmark changed it

std::string status_text(const char* what, ndrt_status st) {
  return std::string(what) + ": " + ndrt_status_name(st) + ": " + ndrt_last_error();
}

// Evaluates an ndrt call; on failure reports it to the benchmark and leaves the function.
#define BENCH_CHECK(state, call)                                   \
  do {                                                             \
    ndrt_status st_ = (call);                                      \
    if (st_ != NDRT_OK) {                                          \
      (state).SkipWithError(status_text(#call, st_).c_str());      \
      return;                                                      \
    }                                                              \
  } while (0)

bool set_threads(benchmark::State& state, int threads) {
  std::string v = std::to_string(threads);
  ndrt_status st = ndrt_config_set("cpu.threads", v.c_str());
  if (st != NDRT_OK) {
    state.SkipWithError(status_text("ndrt_config_set(cpu.threads)", st).c_str());
    return false;
  }
  return true;
}

// A contiguous f32 tensor owned for the life of the process, filled (and so pre-faulted).
struct Buf {
  ndrt_handle h = 0;
  float* p = nullptr;
  int64_t n = 0;
};

ndrt_status make_buf(int32_t rank, const int64_t* shape, uint32_t seed, Buf* out) {
  ndrt_status st = ndrt_tensor_create(NDRT_F32, rank, shape, NDRT_CPU, &out->h);
  if (st != NDRT_OK) return st;
  out->n = 1;
  for (int i = 0; i < rank; ++i) out->n *= shape[i];
  void* p = nullptr;
  st = ndrt_tensor_data_ptr(out->h, &p);
  if (st != NDRT_OK) return st;
  out->p = static_cast<float*>(p);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int64_t i = 0; i < out->n; ++i) out->p[i] = dist(rng);  // touches every page
  return NDRT_OK;
}

std::vector<ndrt_handle>& owned_handles() {
  static std::vector<ndrt_handle> v;
  return v;
}

// ------------------------------------------------------------------------------------------------
// a. Exec overhead
// ------------------------------------------------------------------------------------------------

// The peer: a real call (not inlined, not analysed across the call) doing the same 1-element add.
extern "C" __attribute__((noinline, noipa)) int32_t peer_add1(const float* a, const float* b, float* c) {
  c[0] = a[0] + b[0];
  return 0;
}

struct Scalars {
  Buf a, b, c;
  int32_t add_id = -1;
};

ndrt_status scalars(Scalars** out) {
  static Scalars s;
  static ndrt_status st = [] {
    const int64_t shape[1] = {1};
    ndrt_status r;
    if ((r = make_buf(1, shape, 1, &s.a)) || (r = make_buf(1, shape, 2, &s.b)) || (r = make_buf(1, shape, 3, &s.c)))
      return r;
    owned_handles().insert(owned_handles().end(), {s.a.h, s.b.h, s.c.h});
    return ndrt_op_find("add", &s.add_id);
  }();
  *out = &s;
  return st;
}

void BM_exec_add1_ndrt(benchmark::State& state) {
  Scalars* s;
  BENCH_CHECK(state, scalars(&s));
  if (!set_threads(state, g_default_threads)) return;
  const int32_t op = s->add_id;  // looked up once, outside the loop
  const ndrt_handle in[2] = {s->a.h, s->b.h};
  ndrt_handle out[1] = {s->c.h};
  BENCH_CHECK(state, ndrt_exec(op, in, 2, out, 1, nullptr, 0, nullptr, 0));
  if (std::fabs(s->c.p[0] - (s->a.p[0] + s->b.p[0])) > 1e-6f) {
    state.SkipWithError("ndrt add gave a wrong result");
    return;
  }
  for (auto _ : state) {
    ndrt_status st = ndrt_exec(op, in, 2, out, 1, nullptr, 0, nullptr, 0);
    if (__builtin_expect(st != NDRT_OK, 0)) {
      state.SkipWithError(status_text("ndrt_exec(add)", st).c_str());
      break;
    }
  }
}

void BM_exec_add1_peer(benchmark::State& state) {
  Scalars* s;
  BENCH_CHECK(state, scalars(&s));
  const float* a = s->a.p;
  const float* b = s->b.p;
  float* c = s->c.p;
  for (auto _ : state) {
    benchmark::DoNotOptimize(a);
    benchmark::DoNotOptimize(b);
    benchmark::DoNotOptimize(c);
    int32_t st = peer_add1(a, b, c);
    benchmark::DoNotOptimize(st);
    if (__builtin_expect(st != 0, 0)) {
      state.SkipWithError("peer_add1 failed");
      break;
    }
  }
  benchmark::ClobberMemory();
}

// Informative, no peer: the same call with the output allocated by the runtime (pool hit), then
// released — what a caller that does not preallocate pays.
void BM_exec_add1_newout_ndrt(benchmark::State& state) {
  Scalars* s;
  BENCH_CHECK(state, scalars(&s));
  if (!set_threads(state, g_default_threads)) return;
  const int32_t op = s->add_id;
  const ndrt_handle in[2] = {s->a.h, s->b.h};
  for (auto _ : state) {
    ndrt_handle out[1] = {0};
    ndrt_status st = ndrt_exec(op, in, 2, out, 1, nullptr, 0, nullptr, 0);
    if (st == NDRT_OK) st = ndrt_tensor_release(out[0]);
    if (__builtin_expect(st != NDRT_OK, 0)) {
      state.SkipWithError(status_text("ndrt_exec(add, new output)", st).c_str());
      break;
    }
  }
}

// ------------------------------------------------------------------------------------------------
// b. 16M-element f32 add vs triad
// ------------------------------------------------------------------------------------------------

constexpr int64_t kBig = int64_t(16) << 20;  // 16M floats = 64 MiB per buffer

struct Big {
  Buf a, b, c;
  int32_t add_id = -1;
};

ndrt_status big(Big** out) {
  static Big s;
  static ndrt_status st = [] {
    const int64_t shape[1] = {kBig};
    ndrt_status r;
    if ((r = make_buf(1, shape, 11, &s.a)) || (r = make_buf(1, shape, 12, &s.b)) || (r = make_buf(1, shape, 13, &s.c)))
      return r;
    owned_handles().insert(owned_handles().end(), {s.a.h, s.b.h, s.c.h});
    return ndrt_op_find("add", &s.add_id);
  }();
  *out = &s;
  return st;
}

__attribute__((noinline)) void triad(const float* __restrict a, const float* __restrict b, float* __restrict c,
                                     int64_t begin, int64_t end) {
  for (int64_t i = begin; i < end; ++i) c[i] = a[i] + b[i];
}

// Same static split as a parallel-for: part p gets [n*p/T, n*(p+1)/T); the caller runs part 0.
void triad_threads(const float* a, const float* b, float* c, int64_t n, int threads) {
  if (threads <= 1) {
    triad(a, b, c, 0, n);
    return;
  }
  std::vector<std::thread> workers;
  workers.reserve(size_t(threads - 1));
  for (int p = 1; p < threads; ++p)
    workers.emplace_back([=] { triad(a, b, c, n * p / threads, n * (p + 1) / threads); });
  triad(a, b, c, 0, n / threads);
  for (auto& w : workers) w.join();
}

void set_bytes(benchmark::State& state) {
  state.SetBytesProcessed(int64_t(state.iterations()) * 3 * kBig * int64_t(sizeof(float)));
}

void BM_add16M_ndrt(benchmark::State& state, int threads) {
  Big* s;
  BENCH_CHECK(state, big(&s));
  if (!set_threads(state, threads)) return;
  const ndrt_handle in[2] = {s->a.h, s->b.h};
  ndrt_handle out[1] = {s->c.h};
  BENCH_CHECK(state, ndrt_exec(s->add_id, in, 2, out, 1, nullptr, 0, nullptr, 0));  // warm (pool start)
  static bool checked = false;
  if (!checked) {
    for (int64_t i = 0; i < kBig; ++i)
      if (s->c.p[i] != s->a.p[i] + s->b.p[i]) {
        state.SkipWithError(("ndrt add gave a wrong result at element " + std::to_string(i)).c_str());
        return;
      }
    checked = true;
  }
  for (auto _ : state) {
    ndrt_status st = ndrt_exec(s->add_id, in, 2, out, 1, nullptr, 0, nullptr, 0);
    if (__builtin_expect(st != NDRT_OK, 0)) {
      state.SkipWithError(status_text("ndrt_exec(add)", st).c_str());
      break;
    }
  }
  set_bytes(state);
}

void BM_add16M_peer(benchmark::State& state, int threads) {
  Big* s;
  BENCH_CHECK(state, big(&s));
  triad_threads(s->a.p, s->b.p, s->c.p, kBig, threads);  // warm
  for (auto _ : state) {
    triad_threads(s->a.p, s->b.p, s->c.p, kBig, threads);
    benchmark::ClobberMemory();
  }
  set_bytes(state);
}

// ------------------------------------------------------------------------------------------------
// c. matmul vs cblas_sgemm
// ------------------------------------------------------------------------------------------------

struct Mat {
  Buf a, b, c;
  int32_t matmul_id = -1;
};

ndrt_status mats(int64_t n, Mat** out) {
  static Mat m1024, m2048;
  static ndrt_status st1024 = NDRT_ERR_INTERNAL, st2048 = NDRT_ERR_INTERNAL;
  static bool done1024 = false, done2048 = false;
  Mat& m = n == 1024 ? m1024 : m2048;
  ndrt_status& st = n == 1024 ? st1024 : st2048;
  bool& done = n == 1024 ? done1024 : done2048;
  *out = &m;
  if (done) return st;
  done = true;
  const int64_t shape[2] = {n, n};
  if ((st = make_buf(2, shape, 21, &m.a)) || (st = make_buf(2, shape, 22, &m.b)) || (st = make_buf(2, shape, 23, &m.c)))
    return st;
  owned_handles().insert(owned_handles().end(), {m.a.h, m.b.h, m.c.h});
  return st = ndrt_op_find("matmul", &m.matmul_id);
}

void set_flops(benchmark::State& state, int64_t n) {
  state.counters["GFLOP/s"] =
      benchmark::Counter(2.0 * double(n) * double(n) * double(n) * double(state.iterations()) / 1e9,
                         benchmark::Counter::kIsRate);
}

void sgemm(const Mat& m, int64_t n) {
  const int N = int(n);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, N, N, 1.0f, m.a.p, N, m.b.p, N, 0.0f, m.c.p, N);
}

void BM_matmul_ndrt(benchmark::State& state, int64_t n, int threads) {
  Mat* m;
  BENCH_CHECK(state, mats(n, &m));
  if (!set_threads(state, threads)) return;
  const ndrt_handle in[2] = {m->a.h, m->b.h};
  ndrt_handle out[1] = {m->c.h};
  // No attributes given: transpose_a = transpose_b = false (defaults). Warm and check once
  // against sgemm on the same inputs.
  BENCH_CHECK(state, ndrt_exec(m->matmul_id, in, 2, out, 1, nullptr, 0, nullptr, 0));
  static bool checked[2] = {false, false};
  if (!checked[n == 1024 ? 0 : 1]) {
    std::vector<float> got(m->c.p, m->c.p + m->c.n);
    int saved = openblas_get_num_threads();
    sgemm(*m, n);
    openblas_set_num_threads(saved);
    for (int64_t i = 0; i < m->c.n; ++i)
      if (std::fabs(got[size_t(i)] - m->c.p[i]) > 1e-3f * (1.0f + std::fabs(m->c.p[i]))) {
        state.SkipWithError(("ndrt matmul disagrees with sgemm at element " + std::to_string(i)).c_str());
        return;
      }
    checked[n == 1024 ? 0 : 1] = true;
  }
  for (auto _ : state) {
    ndrt_status st = ndrt_exec(m->matmul_id, in, 2, out, 1, nullptr, 0, nullptr, 0);
    if (__builtin_expect(st != NDRT_OK, 0)) {
      state.SkipWithError(status_text("ndrt_exec(matmul)", st).c_str());
      break;
    }
  }
  set_flops(state, n);
}

void BM_matmul_peer(benchmark::State& state, int64_t n, int threads) {
  Mat* m;
  BENCH_CHECK(state, mats(n, &m));
  // Give OpenBLAS the thread count ndrt is given; put back what was there so the ndrt side never
  // inherits the peer's setting (it must manage OpenBLAS threads itself).
  int saved = openblas_get_num_threads();
  openblas_set_num_threads(threads);
  sgemm(*m, n);  // warm
  for (auto _ : state) {
    sgemm(*m, n);
    benchmark::ClobberMemory();
  }
  openblas_set_num_threads(saved);
  set_flops(state, n);
}

// ------------------------------------------------------------------------------------------------
// d. allocate + release of a cached 1 MiB tensor vs malloc + free
// ------------------------------------------------------------------------------------------------

constexpr int64_t kMiBFloats = (int64_t(1) << 20) / int64_t(sizeof(float));

void BM_alloc_1MiB_ndrt(benchmark::State& state) {
  const int64_t shape[1] = {kMiBFloats};
  ndrt_handle h = 0;
  BENCH_CHECK(state, ndrt_tensor_create(NDRT_F32, 1, shape, NDRT_CPU, &h));  // fills the cache
  BENCH_CHECK(state, ndrt_tensor_release(h));
  for (auto _ : state) {
    ndrt_status st = ndrt_tensor_create(NDRT_F32, 1, shape, NDRT_CPU, &h);
    if (st == NDRT_OK) st = ndrt_tensor_release(h);
    if (__builtin_expect(st != NDRT_OK, 0)) {
      state.SkipWithError(status_text("ndrt_tensor_create/release", st).c_str());
      break;
    }
  }
}

void BM_alloc_1MiB_peer(benchmark::State& state) {
  for (auto _ : state) {
    void* p = std::malloc(size_t(1) << 20);
    benchmark::DoNotOptimize(p);
    if (__builtin_expect(!p, 0)) {
      state.SkipWithError("malloc failed");
      break;
    }
    std::free(p);
    benchmark::ClobberMemory();
  }
}

void register_all() {
  using benchmark::RegisterBenchmark;
  RegisterBenchmark("exec_add1/ndrt", BM_exec_add1_ndrt)->UseRealTime();
  RegisterBenchmark("exec_add1/peer", BM_exec_add1_peer)->UseRealTime();
  RegisterBenchmark("exec_add1_newout/ndrt", BM_exec_add1_newout_ndrt)->UseRealTime();
  RegisterBenchmark("alloc_1MiB/ndrt", BM_alloc_1MiB_ndrt)->UseRealTime();
  RegisterBenchmark("alloc_1MiB/peer", BM_alloc_1MiB_peer)->UseRealTime();

  std::vector<int> thread_counts = {1};
  if (g_default_threads > 1) thread_counts.push_back(g_default_threads);
  for (int t : thread_counts) {
    std::string c = "add16M/threads:" + std::to_string(t);
    RegisterBenchmark((c + "/ndrt").c_str(), BM_add16M_ndrt, t)->UseRealTime()->Unit(benchmark::kMillisecond);
    RegisterBenchmark((c + "/peer").c_str(), BM_add16M_peer, t)->UseRealTime()->Unit(benchmark::kMillisecond);
  }
  for (int64_t n : {1024, 2048})
    for (int t : thread_counts) {
      std::string c = "matmul" + std::to_string(n) + "/threads:" + std::to_string(t);
      RegisterBenchmark((c + "/ndrt").c_str(), BM_matmul_ndrt, n, t)->UseRealTime()->Unit(benchmark::kMillisecond);
      RegisterBenchmark((c + "/peer").c_str(), BM_matmul_peer, n, t)->UseRealTime()->Unit(benchmark::kMillisecond);
    }
}

}  // namespace

int main(int argc, char** argv) {
  ndrt_status st = ndrt_thread_attach(NDRT_CPU);
  if (st != NDRT_OK) {
    std::fprintf(stderr, "ndrt_bench: ndrt_thread_attach(cpu:0): %s: %s\n", ndrt_status_name(st), ndrt_last_error());
    return 1;
  }
  char buf[32] = "";
  size_t needed = 0;
  st = ndrt_config_get("cpu.threads", buf, sizeof buf, &needed);
  if (st != NDRT_OK) {
    std::fprintf(stderr, "ndrt_bench: ndrt_config_get(cpu.threads): %s: %s\n", ndrt_status_name(st), ndrt_last_error());
    return 1;
  }
  g_default_threads = std::max(1, std::atoi(buf));

  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("ndrt_version", ndrt_version_string());
  benchmark::AddCustomContext("ndrt_bench_build_type", NDRT_BENCH_BUILD_TYPE);
  benchmark::AddCustomContext("ndrt_default_cpu_threads", std::to_string(g_default_threads));
  benchmark::AddCustomContext("openblas_threads_at_start", std::to_string(openblas_get_num_threads()));
  register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();

  for (ndrt_handle h : owned_handles()) ndrt_tensor_release(h);
  return 0;
}
