// Concurrency.*: many host threads calling the C ABI at once. CI runs these under ThreadSanitizer
// (ctest -R Concurrency). NDRT_STRESS_CYCLES scales the stress loops (default 100000 per thread).
// Fork.*: ops in a child of fork() (not under ThreadSanitizer, which does not support it).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "common/ndrt_test.hpp"

using namespace nt;

namespace {

int64_t stress_cycles() {
  const char* e = std::getenv("NDRT_STRESS_CYCLES");
  if (e && *e) {
    long long v = std::atoll(e);
    if (v > 0) return v;
  }
  return 100000;
}

struct Ids {
  int32_t add, sub, mul, sum;
  Ids() : add(op_id("add")), sub(op_id("sub")), mul(op_id("mul")), sum(op_id("sum")) {}
};

// Failures inside worker threads are counted and the first few described, not asserted there.
struct Errors {
  std::atomic<int64_t> count{0};
  std::mutex mu;
  std::vector<std::string> first;
  void add(const std::string& what) {
    if (count.fetch_add(1) < 8) {
      std::lock_guard<std::mutex> lock(mu);
      first.push_back(what);
    }
  }
  std::string report() {
    std::lock_guard<std::mutex> lock(mu);
    std::string r;
    for (const std::string& s : first) r += "\n  " + s;
    return r;
  }
};

#define STRESS_CHECK(errs, expr)                                                         \
  do {                                                                                   \
    ndrt_status s_ = (expr);                                                             \
    if (s_ != NDRT_OK) (errs).add(std::string(#expr) + " -> " + describe_status(s_));    \
  } while (0)

uint64_t mix(uint64_t h, uint64_t v) { return (h ^ v) * 1099511628211ull; }

// One thread's deterministic sequence of create / exec / read / release cycles. Returns a checksum
// of everything read back; `wrong` counts results that differ from exact arithmetic.
uint64_t run_sequence(uint32_t seed, int64_t cycles, const Ids& ids, Errors& errs, std::atomic<int64_t>& wrong) {
  std::mt19937 rng(seed);
  uint64_t h = 1469598103934665603ull;
  for (int64_t i = 0; i < cycles; ++i) {
    const int64_t n = 1 + int64_t(rng() % 8);
    const bool ints = (rng() & 3) == 0;
    const bool bcast = (rng() & 7) == 0;  // b is [1], broadcast
    const int64_t nb = bcast ? 1 : n;
    ndrt_handle a = 0, b = 0, c = 0, d = 0, s = 0;
    if (!ints) {
      float av[8], bv[8];
      for (int64_t j = 0; j < n; ++j) av[j] = float(int(rng() % 41) - 20);
      for (int64_t j = 0; j < nb; ++j) bv[j] = float(int(rng() % 21) - 10);
      STRESS_CHECK(errs, ndrt_tensor_from_host(NDRT_F32, 1, &n, av, size_t(n) * 4, NDRT_DEVICE_CURRENT, &a));
      STRESS_CHECK(errs, ndrt_tensor_from_host(NDRT_F32, 1, &nb, bv, size_t(nb) * 4, NDRT_DEVICE_CURRENT, &b));
      ndrt_handle in1[2] = {a, b};
      STRESS_CHECK(errs, ndrt_exec(ids.add, in1, 2, &c, 1, nullptr, 0, nullptr, 0));
      ndrt_handle in2[2] = {c, b};
      STRESS_CHECK(errs, ndrt_exec(ids.mul, in2, 2, &d, 1, nullptr, 0, nullptr, 0));
      STRESS_CHECK(errs, ndrt_exec(ids.sum, &d, 1, &s, 1, nullptr, 0, nullptr, 0));
      float got = 0;
      STRESS_CHECK(errs, ndrt_tensor_read(s, &got, 4));
      float want = 0;
      for (int64_t j = 0; j < n; ++j) want += (av[j] + bv[bcast ? 0 : j]) * bv[bcast ? 0 : j];
      if (got != want) wrong++;
      uint32_t bits;
      std::memcpy(&bits, &got, 4);
      h = mix(h, bits);
    } else {
      int32_t av[8], bv[8];
      for (int64_t j = 0; j < n; ++j) av[j] = int32_t(rng() % 2001) - 1000;
      for (int64_t j = 0; j < nb; ++j) bv[j] = int32_t(rng() % 201) - 100;
      STRESS_CHECK(errs, ndrt_tensor_from_host(NDRT_I32, 1, &n, av, size_t(n) * 4, NDRT_DEVICE_CURRENT, &a));
      STRESS_CHECK(errs, ndrt_tensor_from_host(NDRT_I32, 1, &nb, bv, size_t(nb) * 4, NDRT_DEVICE_CURRENT, &b));
      ndrt_handle in1[2] = {a, b};
      STRESS_CHECK(errs, ndrt_exec(ids.sub, in1, 2, &c, 1, nullptr, 0, nullptr, 0));
      ndrt_handle in2[2] = {c, b};
      STRESS_CHECK(errs, ndrt_exec(ids.mul, in2, 2, &d, 1, nullptr, 0, nullptr, 0));
      STRESS_CHECK(errs, ndrt_exec(ids.sum, &d, 1, &s, 1, nullptr, 0, nullptr, 0));
      int32_t got = 0;
      STRESS_CHECK(errs, ndrt_tensor_read(s, &got, 4));
      int32_t want = 0;
      for (int64_t j = 0; j < n; ++j) want += (av[j] - bv[bcast ? 0 : j]) * bv[bcast ? 0 : j];
      if (got != want) wrong++;
      h = mix(h, uint32_t(got));
    }
    for (ndrt_handle x : {a, b, c, d, s}) STRESS_CHECK(errs, ndrt_tensor_release(x));
  }
  return h;
}

TEST(Concurrency, EightThreadsGiveTheSameResultsAsOne) {
  const int kThreads = 8;
  const int64_t cycles = stress_cycles();
  const Ids ids;
  const int64_t live0 = live_handles();
  const int64_t in_use0 = stats().in_use;
  Errors errs;
  std::atomic<int64_t> wrong{0};
  auto t0 = std::chrono::steady_clock::now();
  std::vector<uint64_t> single(kThreads), multi(kThreads);
  for (int t = 0; t < kThreads; ++t) single[size_t(t)] = run_sequence(uint32_t(1000 + t), cycles, ids, errs, wrong);
  auto t1 = std::chrono::steady_clock::now();
  std::vector<std::thread> ts;
  for (int t = 0; t < kThreads; ++t)
    ts.emplace_back([&, t] { multi[size_t(t)] = run_sequence(uint32_t(1000 + t), cycles, ids, errs, wrong); });
  for (auto& t : ts) t.join();
  auto t2 = std::chrono::steady_clock::now();
  std::printf("%d x %lld cycles: single-threaded %.2f s, %d threads %.2f s\n", kThreads, (long long)cycles,
              std::chrono::duration<double>(t1 - t0).count(), kThreads, std::chrono::duration<double>(t2 - t1).count());
  EXPECT_EQ(errs.count.load(), 0) << errs.report();
  EXPECT_EQ(wrong.load(), 0) << "results differ from exact arithmetic";
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(multi[size_t(t)], single[size_t(t)]) << "thread " << t << " checksum";
  EXPECT_EQ(live_handles(), live0) << "handles leaked";
  EXPECT_EQ(live_handles(), 0);
  EXPECT_EQ(stats().in_use, in_use0) << "memory leaked";
}

// One thread releases (and replaces) handles that other threads are using in exec, read, retain
// and view calls: every call gives OK or NDRT_ERR_INVALID_HANDLE, results are right, nothing leaks.
TEST(Concurrency, ReleasingHandlesOtherThreadsAreUsing) {
  const int kSlots = 32, kWorkers = 4;
  const int64_t rounds = std::max<int64_t>(200, stress_cycles() / 200);
  const Ids ids;
  const int32_t neg = op_id("neg");
  const int64_t live0 = live_handles();
  const int64_t in_use0 = stats().in_use;
  std::atomic<ndrt_handle> slots[kSlots];
  const int64_t n = 64;
  std::vector<float> ones(size_t(n), 1.5f);
  auto make = [&] {
    ndrt_handle h = 0;
    ndrt_tensor_from_host(NDRT_F32, 1, &n, ones.data(), ones.size() * 4, NDRT_DEVICE_CURRENT, &h);
    return h;
  };
  for (auto& s : slots) s.store(make());
  std::atomic<bool> stop{false};
  std::atomic<int64_t> ok_calls{0}, refused{0}, wrong{0};
  Errors errs;
  auto expect_ok_or_invalid = [&](ndrt_status s, const char* what) {
    if (s == NDRT_OK) {
      ok_calls++;
      return true;
    }
    if (s == NDRT_ERR_INVALID_HANDLE) {
      refused++;
      return false;
    }
    errs.add(std::string(what) + " -> " + describe_status(s));
    return false;
  };
  std::vector<std::thread> workers;
  for (int w = 0; w < kWorkers; ++w)
    workers.emplace_back([&, w] {
      std::mt19937 rng(w);
      std::vector<float> buf(static_cast<size_t>(n));
      ndrt_handle h = 0;
      for (uint64_t iter = 0; !stop.load(std::memory_order_relaxed); ++iter) {
        if (iter % 4 == 0) h = slots[rng() % kSlots].load();  // keep using it: it may die meanwhile
        if (iter % 16 == 15) std::this_thread::yield();     // let the releaser run on a busy machine
        switch (rng() % 5) {
          case 0: {
            ndrt_handle in[2] = {h, h}, out = 0;
            if (expect_ok_or_invalid(ndrt_exec(ids.add, in, 2, &out, 1, nullptr, 0, nullptr, 0), "exec add")) {
              if (ndrt_tensor_read(out, buf.data(), buf.size() * 4) != NDRT_OK || buf[0] != 3.0f || buf[size_t(n - 1)] != 3.0f)
                wrong++;
              if (ndrt_tensor_release(out) != NDRT_OK) errs.add("release of an exec output failed");
            } else if (out != 0) {
              errs.add("failed exec left an output handle");
            }
            break;
          }
          case 1:
            if (expect_ok_or_invalid(ndrt_tensor_read(h, buf.data(), buf.size() * 4), "read") && buf[7] != 1.5f) wrong++;
            break;
          case 2: {
            ndrt_handle r = 0;
            if (expect_ok_or_invalid(ndrt_tensor_retain(h, &r), "retain")) {
              if (ndrt_tensor_read(r, buf.data(), buf.size() * 4) != NDRT_OK || buf[3] != 1.5f) wrong++;
              if (ndrt_tensor_release(r) != NDRT_OK) errs.add("release of a retained handle failed");
            }
            break;
          }
          case 3: {
            ndrt_handle v = 0;
            if (expect_ok_or_invalid(ndrt_tensor_slice(h, 0, 63, -65, -2, &v), "slice")) {
              ndrt_handle out = 0;
              if (ndrt_exec(neg, &v, 1, &out, 1, nullptr, 0, nullptr, 0) != NDRT_OK) errs.add("neg of a live view failed");
              if (ndrt_tensor_read(out, buf.data(), 32 * 4) != NDRT_OK || buf[31] != -1.5f) wrong++;
              ndrt_tensor_release(out);
              if (ndrt_tensor_release(v) != NDRT_OK) errs.add("release of a view failed");
            }
            break;
          }
          case 4: {
            ndrt_handle out = 0;
            if (expect_ok_or_invalid(ndrt_exec(ids.sum, &h, 1, &out, 1, nullptr, 0, nullptr, 0), "exec sum")) {
              float s = 0;
              if (ndrt_tensor_read(out, &s, 4) != NDRT_OK || s != 96.0f) wrong++;
              ndrt_tensor_release(out);
            }
            break;
          }
        }
      }
    });
  int64_t released = 0;
  // Bounded in time as well as in rounds: with 7 busy threads on 2 cores the releaser may be starved.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(8);
  const int64_t min_calls = std::max<int64_t>(2000, stress_cycles() / 5);
  for (int64_t r = 0; (r < rounds || ok_calls.load() + refused.load() < min_calls) &&
                      std::chrono::steady_clock::now() < deadline;
       ++r)
    for (auto& s : slots) {
      ndrt_status st;
      if (r % 2) {  // replace, then release the old handle (callers may hold it mid-call)
        st = ndrt_tensor_release(s.exchange(make()));
      } else {  // release first: for a moment the slot holds a dead handle
        st = ndrt_tensor_release(s.load());
        s.store(make());
      }
      if (st != NDRT_OK) errs.add("releaser: " + describe_status(st));
      ++released;
    }
  stop.store(true);
  for (auto& t : workers) t.join();
  for (auto& s : slots) EXPECT_OK(ndrt_tensor_release(s.exchange(0)));
  EXPECT_EQ(errs.count.load(), 0) << errs.report();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_GT(ok_calls.load(), 0);
  std::printf("released %lld handles; calls OK %lld, refused %lld\n", (long long)released, (long long)ok_calls.load(),
              (long long)refused.load());
  EXPECT_EQ(live_handles(), live0);
  EXPECT_EQ(stats().in_use, in_use0);
}

// Two threads release the same handles: exactly one release of each succeeds.
TEST(Concurrency, DoubleReleaseRaceReleasesEachHandleOnce) {
  const int kHandles = 20000;
  const int64_t live0 = live_handles();
  std::vector<ndrt_handle> hs;
  for (int i = 0; i < kHandles; ++i) hs.push_back(create(NDRT_F32, {4}).take());
  std::atomic<int64_t> ok{0}, invalid{0}, other{0};
  auto releaser = [&](bool backwards) {
    for (int i = 0; i < kHandles; ++i) {
      ndrt_status s = ndrt_tensor_release(hs[size_t(backwards ? kHandles - 1 - i : i)]);
      (s == NDRT_OK ? ok : s == NDRT_ERR_INVALID_HANDLE ? invalid : other)++;
    }
  };
  std::thread a(releaser, false), b(releaser, true), c(releaser, false);
  a.join();
  b.join();
  c.join();
  EXPECT_EQ(ok.load(), kHandles);
  EXPECT_EQ(invalid.load(), 2 * kHandles);
  EXPECT_EQ(other.load(), 0);
  EXPECT_EQ(live_handles(), live0);
}

// Large ops (intra-op parallel paths) issued from several host threads at once stay correct.
void parallel_kernels_from_many_host_threads() {
  const int kThreads = 4;
  const int64_t iters = std::max<int64_t>(3, std::min<int64_t>(20, stress_cycles() / 5000));
  Errors errs;
  std::atomic<int64_t> wrong{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < kThreads; ++t)
    ts.emplace_back([&, t] {
      try {
        std::vector<double> av(300 * 1001), bv(1001);
        for (size_t i = 0; i < av.size(); ++i) av[i] = double(int((i * 7 + size_t(t)) % 17) - 8);
        for (size_t i = 0; i < bv.size(); ++i) bv[i] = double(int(i % 5) + 1);
        Tensor a = from_values(NDRT_F64, {300, 1001}, av);
        Tensor b = from_values(NDRT_F64, {1001}, bv);
        Tensor at = transpose(a, 0, 1);
        for (int64_t it = 0; it < iters; ++it) {
          Tensor c = run("mul", {&a, &b});
          std::vector<double> cv = read_values(c);
          for (size_t i = 0; i < cv.size(); i += 97)
            if (cv[i] != av[i] * bv[i % 1001]) {
              wrong++;
              break;
            }
          Tensor s = run("sum", {&at}, reduce_attrs({0}, false));  // sum over rows of the transpose
          std::vector<double> sv = read_values(s);
          double want0 = 0;
          for (int j = 0; j < 1001; ++j) want0 += av[size_t(j)];
          if (sv.size() != 300 || sv[0] != want0) wrong++;
          Tensor m = run("matmul", {&a, &at});
          if (m.shape() != Shape{300, 300}) wrong++;
        }
      } catch (const std::exception& e) {
        errs.add(e.what());
      }
    });
  for (auto& t : ts) t.join();
  EXPECT_EQ(errs.count.load(), 0) << errs.report();
  EXPECT_EQ(wrong.load(), 0);
}

// Both intra-op pools (cpu.pool): OpenMP's team where the build has OpenMP (not under
// ThreadSanitizer), and ndrt's own workers.
TEST(Concurrency, ParallelKernelsFromManyHostThreads) {
  for (const char* pool : {"openmp", "ndrt"}) {
    SCOPED_TRACE(pool);
    const ndrt_status st = ndrt_config_set("cpu.pool", pool);
    if (st != NDRT_OK) {
      EXPECT_EQ(std::string(pool), "openmp") << ndrt_last_error();
      continue;  // a build without OpenMP
    }
    char name[16];
    EXPECT_OK(ndrt_config_get("cpu.pool", name, sizeof name, nullptr));
    EXPECT_STREQ(name, pool);
    parallel_kernels_from_many_host_threads();
  }
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_config_set("cpu.pool", "tbb"));
}

// Allocation statistics stay consistent while many threads allocate and free.
TEST(Concurrency, MemoryStatisticsUnderContention) {
  const int kThreads = 8;
  const int64_t per_thread = std::max<int64_t>(1000, stress_cycles() / 20);
  ASSERT_OK(ndrt_memory_trim(NDRT_CPU));
  const ndrt_memory_stats s0 = stats();
  Errors errs;
  std::vector<std::thread> ts;
  for (int t = 0; t < kThreads; ++t)
    ts.emplace_back([&, t] {
      std::mt19937 rng(t);
      std::vector<ndrt_handle> held;
      for (int64_t i = 0; i < per_thread; ++i) {
        int64_t n = 1 + int64_t(rng() % 20000);
        ndrt_handle h = 0;
        ndrt_status s = ndrt_tensor_create(NDRT_U8, 1, &n, NDRT_DEVICE_CURRENT, &h);
        if (s != NDRT_OK) errs.add("create: " + describe_status(s));
        held.push_back(h);
        if (held.size() > 16 || (rng() & 1)) {
          size_t k = rng() % held.size();
          if (ndrt_tensor_release(held[k]) != NDRT_OK) errs.add("release failed");
          held.erase(held.begin() + long(k));
        }
        if (t == 0 && i % 1000 == 0) {
          ndrt_memory_stats st{};
          if (ndrt_memory_stats_get(NDRT_CPU, &st) != NDRT_OK || st.in_use < 0 || st.cached < 0 || st.peak < st.in_use)
            errs.add("inconsistent stats while running");
        }
      }
      for (ndrt_handle h : held)
        if (ndrt_tensor_release(h) != NDRT_OK) errs.add("final release failed");
    });
  for (auto& t : ts) t.join();
  const ndrt_memory_stats s1 = stats();
  EXPECT_EQ(errs.count.load(), 0) << errs.report();
  EXPECT_EQ(s1.in_use, s0.in_use);
  EXPECT_EQ((s1.hits - s0.hits) + (s1.misses - s0.misses), kThreads * per_thread);
  EXPECT_GT(s1.hits - s0.hits, 0);
  EXPECT_GE(s1.peak, s0.in_use);
}

// A child of fork() runs ops on its calling thread (worker threads do not survive a fork, and
// OpenMP's team would wait for them forever): a parallel elementwise op, a oneDNN convolution and
// an OpenBLAS matmul all finish there with the parent's results.
TEST(Fork, ChildRunsOpsOnItsCallingThread) {
  std::mt19937 rng(3);
  auto values = [&](size_t n) {
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<double> v(n);
    for (double& x : v) x = u(rng);
    return v;
  };
  Tensor a = from_values(NDRT_F32, {1 << 21}, values(1 << 21));
  Tensor x = from_values(NDRT_F32, {16, 20, 12, 12}, values(16 * 20 * 12 * 12));
  Tensor w = from_values(NDRT_F32, {50, 20, 5, 5}, values(50 * 20 * 5 * 5));
  Tensor m = from_values(NDRT_F32, {300, 300}, values(300 * 300));
  auto compute = [&] {
    return std::vector<std::vector<double>>{read_values(run("add", {&a, &a})), read_values(run("conv2d", {&x, &w})),
                                            read_values(run("matmul", {&m, &m}))};
  };
  const auto want = compute();  // the parent's worker threads exist before the fork
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    int code = 0;
    try {
      const auto got = compute();
      for (size_t k = 0; k < got.size(); ++k)
        for (size_t i = 0; i < got[k].size(); ++i)
          if (!(std::fabs(got[k][i] - want[k][i]) <= 1e-4 * (1 + std::fabs(want[k][i])))) code = 10 + int(k);
    } catch (...) {
      code = 2;
    }
    _exit(code);
  }
  int status = 0;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > until) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      FAIL() << "the forked child hung";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "10 + k: result k differs from the parent's; 2: an exception";
}

}  // namespace
