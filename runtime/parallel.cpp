#include "parallel.hpp"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "cores.hpp"
#include "fp_mode.hpp"

#ifndef NDRT_POOL_OPENMP
#define NDRT_POOL_OPENMP 0
#endif

namespace ndrt {

namespace {

std::atomic<int32_t> g_threads{0};  // 0: not resolved yet
std::atomic<bool> g_forked{false};

// Registered when the library loads, before any worker exists.
[[maybe_unused]] const int g_atfork = pthread_atfork(nullptr, nullptr, [] { g_forked.store(true); });

// How long an idle worker keeps polling for the next job before it sleeps. Ops come in bursts
// (a training step is hundreds of them), and waking a sleeping thread costs tens of microseconds on
// a loaded VM: long enough that the caller used to finish both halves of a 1M-element sum alone.
constexpr auto kSpin = std::chrono::microseconds(50);

// Polls `busy` for at most kSpin; the caller then sleeps on its condition variable if still busy.
template <class F>
void spin_while(F&& busy) {
  auto until = std::chrono::steady_clock::now() + kSpin;
  for (int i = 0; busy(); ++i) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
    if ((i & 63) == 63 && std::chrono::steady_clock::now() > until) return;
  }
}

class Pool {
 public:
  // Returns false (caller should run inline) when the pool is busy with another host thread.
  // `parts` pieces of work for `threads` threads (the caller and threads - 1 workers).
  bool run(int32_t parts, int32_t threads, const std::function<void(int32_t)>& job) {
    std::unique_lock<std::mutex> owner(owner_mu_, std::try_to_lock);
    if (!owner.owns_lock()) return false;
    const int32_t helpers = std::min(parts, threads) - 1;
    ensure_workers(helpers);
    {
      std::lock_guard<std::mutex> lock(mu_);
      job_ = &job;
      helpers_ = helpers;
      next_part_ = 1;  // part 0 is the caller's
      parts_ = parts;
      pending_.store(parts - 1, std::memory_order_relaxed);
      epoch_.fetch_add(1, std::memory_order_release);
    }
    cv_.notify_all();
    job(0);
    // Help with parts no worker has claimed yet, then wait for the rest.
    for (int32_t p; (p = claim(epoch_seen())) >= 0;) {
      job(p);
      std::lock_guard<std::mutex> lock(mu_);
      --pending_;
    }
    spin_while([&] { return pending_.load(std::memory_order_acquire) != 0; });
    std::unique_lock<std::mutex> lock(mu_);
    done_cv_.wait(lock, [&] { return pending_.load(std::memory_order_relaxed) == 0; });
    job_ = nullptr;
    return true;
  }

 private:
  void ensure_workers(int32_t n) {
    while (int32_t(workers_.size()) < n) {
      int32_t index = int32_t(workers_.size());
      workers_.emplace_back([this, index] { worker(index); });
      workers_.back().detach();  // lives for the process; never joined at exit
    }
  }
  uint64_t epoch_seen() { return epoch_.load(std::memory_order_acquire); }
  // Next unclaimed part of the job of `epoch`, or -1. Claiming under the lock and checking the
  // epoch means a late worker can never take a part of a newer job with an older job's function.
  int32_t claim(uint64_t epoch) {
    std::lock_guard<std::mutex> lock(mu_);
    if (epoch != epoch_.load(std::memory_order_relaxed) || !job_ || next_part_ >= parts_) return -1;
    return next_part_++;
  }
  // Worker `index` joins a job only while index < helpers_: workers started for a larger
  // cpu.threads sit out, so a job never runs on more threads than configured.
  void worker(int32_t index) {
    uint64_t seen = 0;
    for (;;) {
      spin_while([&] { return epoch_.load(std::memory_order_acquire) == seen; });
      const std::function<void(int32_t)>* job;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return epoch_.load(std::memory_order_relaxed) != seen; });
        seen = epoch_.load(std::memory_order_relaxed);
        job = index < helpers_ ? job_ : nullptr;
      }
      for (int32_t p; job && (p = claim(seen)) >= 0;) {
        (*job)(p);
        std::lock_guard<std::mutex> lock(mu_);
        if (--pending_ == 0) done_cv_.notify_one();
      }
    }
  }

  std::mutex owner_mu_;  // held by the host thread whose job is running
  std::mutex mu_;
  std::condition_variable cv_, done_cv_;
  std::vector<std::thread> workers_;
  const std::function<void(int32_t)>* job_ = nullptr;
  int32_t next_part_ = 0, parts_ = 0, helpers_ = 0;  // guarded by mu_
  std::atomic<int32_t> pending_{0};     // changed under mu_; the caller polls it without the lock
  std::atomic<uint64_t> epoch_{0};  // changed under mu_; idle workers poll it without the lock
};

#if NDRT_POOL_OPENMP
// The same contract on OpenMP's threads: oneDNN runs on OpenMP (Debian's build), and two sets of
// spinning workers on the same cores slow each other down; one set serves both.
class OmpPool {
 public:
  bool run(int32_t parts, int32_t threads, const std::function<void(int32_t)>& job) {
    std::unique_lock<std::mutex> owner(owner_mu_, std::try_to_lock);
    if (!owner.owns_lock()) return false;
    std::atomic<int32_t> next{0};
#pragma omp parallel num_threads(std::min(parts, threads))
    for (int32_t p; (p = next.fetch_add(1, std::memory_order_relaxed)) < parts;) job(p);
    return true;
  }

 private:
  std::mutex owner_mu_;  // held by the host thread whose job is running
};

OmpPool& omp_pool() {
  static OmpPool* p = new OmpPool;
  return *p;
}
#endif

Pool& own_pool() {
  static Pool* p = new Pool;  // workers are detached; never destroyed
  return *p;
}

std::atomic<bool> g_use_omp{NDRT_POOL_OPENMP != 0};

}  // namespace

int32_t cpu_threads() {
  int32_t n = g_threads.load(std::memory_order_relaxed);
  if (n == 0) {
    // Resolved once: glibc answers hardware_concurrency() by reading /sys on every call.
    static const int32_t cores = [] {
      unsigned hw = std::thread::hardware_concurrency();
      return hw ? int32_t(hw) : 1;
    }();
    n = cores;
  }
  return n;
}

void set_cpu_threads(int32_t n) { g_threads.store(n); }

bool set_pool(const char* name) {
  if (std::strcmp(name, "ndrt") == 0) return g_use_omp.store(false), true;
  if (std::strcmp(name, "openmp") == 0 && NDRT_POOL_OPENMP) return g_use_omp.store(true), true;
  return false;
}
const char* pool_name() { return g_use_omp.load() ? "openmp" : "ndrt"; }

bool forked_child() { return g_forked.load(std::memory_order_relaxed); }

void parallel_for_impl(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn) {
  if (forked_child()) return fn(0, n);
  if (grain < 1) grain = 1;
  // More parts than threads, claimed one by one: when a thread is descheduled or woken late (a
  // shared 2-core VM), the others take its remaining parts instead of waiting for a fixed half.
  // 16 per thread rather than 4: the last parts of an op are short, so the thread that finishes
  // first waits less at the end (LeNet training at 2 threads: 11,200 vs 10,700 img/s, medians of 6
  // alternating runs).
  constexpr int64_t kPartsPerThread = 16;
  const int64_t threads = active_threads();  // cpu.threads, less the cores others keep busy
  int64_t parts = std::min<int64_t>(threads * kPartsPerThread, (n + grain - 1) / grain);
  if (parts <= 1) {
    fn(0, n);
    return;
  }
  const uint32_t mode = fp_mode();  // the caller's (cpu.flush_denormals): every part runs in it
  std::function<void(int32_t)> job = [&](int32_t p) {
    FpModeScope fp(mode);
    int64_t begin = n * p / parts, end = n * (p + 1) / parts;
    fn(begin, end);
  };
#if NDRT_POOL_OPENMP
  if (g_use_omp.load(std::memory_order_relaxed)) {
    if (!omp_pool().run(int32_t(parts), int32_t(threads), job)) fn(0, n);
    return;
  }
#endif
  if (!own_pool().run(int32_t(parts), int32_t(threads), job)) fn(0, n);
}

}  // namespace ndrt
