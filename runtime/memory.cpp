#include "memory.hpp"

#include <sys/sysinfo.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "config.hpp"
#include "device.hpp"
#include "error.hpp"

namespace ndrt {

size_t size_class(size_t n) {
  if (n == 0) return 0;
  if (n <= 512) return (n + 63) & ~size_t(63);
  int k = 63 - __builtin_clzll(n - 1);  // 2^k < n <= 2^(k+1), k >= 9
  size_t step = size_t(1) << (k - 2);   // four classes between 2^k and 2^(k+1): waste < 25%
  return (n + step - 1) & ~(step - 1);
}

namespace {

// Host bytes in use over all host pools, for the pressure hook.
std::atomic<int64_t> g_host_in_use{0};

// The allocation path reads one atomic (next_trigger) when nothing is due; the lock is taken only to
// fire. While in_use stays at or above the threshold the hook fires again after every eighth of the
// threshold of growth, counted from in_use when the previous call returned: a hook that releases
// memory (a garbage-collected host) is called again soon after, not only once in_use has grown by a
// whole threshold above its peak, which let in_use climb by a threshold per call.
struct Pressure {
  std::mutex mu;  // set_pressure_callback and firing
  std::atomic<int64_t> threshold{0};
  std::atomic<int64_t> next_trigger{INT64_MAX};  // fire when in_use reaches this; INT64_MAX: no hook
  ndrt_pressure_fn fn = nullptr;
  void* user = nullptr;
  uint64_t generation = 0;  // set_pressure_callback calls: a call in flight must not re-arm a newer hook
};
Pressure& pressure() {
  static Pressure p;
  return p;
}

int64_t pressure_step(int64_t threshold) { return std::max<int64_t>(threshold / 8, 1); }

void check_pressure(int64_t in_use) {
  Pressure& p = pressure();
  if (in_use < p.next_trigger.load(std::memory_order_relaxed)) return;
  ndrt_pressure_fn fn = nullptr;
  void* user = nullptr;
  uint64_t generation = 0;
  int64_t threshold = 0;
  {
    std::lock_guard<std::mutex> lock(p.mu);
    if (!p.fn) {
      p.next_trigger.store(INT64_MAX, std::memory_order_relaxed);
      return;
    }
    if (in_use < p.next_trigger.load(std::memory_order_relaxed)) return;
    threshold = p.threshold.load(std::memory_order_relaxed);
    p.next_trigger.store(in_use + pressure_step(threshold), std::memory_order_relaxed);  // others: later
    fn = p.fn;
    user = p.user;
    generation = p.generation;
  }
  fn(in_use, user);  // outside the lock: the host may free tensors from inside it
  int64_t now = g_host_in_use.load(std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(p.mu);
  if (p.generation == generation)
    p.next_trigger.store(now < threshold ? threshold : now + pressure_step(threshold), std::memory_order_relaxed);
}

// A free that takes in_use below the threshold re-arms the hook at the threshold.
void rearm_pressure(int64_t in_use) {
  Pressure& p = pressure();
  int64_t threshold = p.threshold.load(std::memory_order_relaxed);
  if (in_use < threshold && p.next_trigger.load(std::memory_order_relaxed) > threshold) {
    std::lock_guard<std::mutex> lock(p.mu);
    if (p.fn && p.threshold.load(std::memory_order_relaxed) == threshold)
      p.next_trigger.store(threshold, std::memory_order_relaxed);
  }
}

}  // namespace

void set_pressure_callback(int64_t threshold, ndrt_pressure_fn fn, void* user) {
  if (fn && threshold <= 0)
    fail(NDRT_ERR_INVALID_ARGUMENT, "memory pressure threshold must be > 0 bytes, got %lld", (long long)threshold);
  Pressure& p = pressure();
  std::lock_guard<std::mutex> lock(p.mu);
  p.threshold.store(fn ? threshold : 0, std::memory_order_relaxed);
  p.fn = fn;
  p.user = user;
  ++p.generation;
  p.next_trigger.store(fn ? threshold : INT64_MAX, std::memory_order_relaxed);
}

HostPool::~HostPool() { trim(); }

void* HostPool::allocate(size_t n) {
  if (n == 0) return nullptr;
  size_t cls = size_class(n);
  void* p = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = cache_.find(cls);
    if (it != cache_.end() && !it->second.empty()) {
      p = it->second.back();
      it->second.pop_back();
      cached_ -= int64_t(cls);
      ++hits_;
    } else {
      ++misses_;
      p = std::aligned_alloc(64, cls);
      if (!p && cached_ > 0) {  // give the cache back and try once more
        release_cache_locked();
        p = std::aligned_alloc(64, cls);
      }
      if (!p) {
        ++ooms_;
        struct sysinfo si {};
        sysinfo(&si);
        fail(NDRT_ERR_OUT_OF_MEMORY,
             "out of memory allocating %zu bytes on %s (in use %lld, cached %lld, free %llu bytes)", n,
             device_name(device_).c_str(), (long long)in_use_, (long long)cached_,
             (unsigned long long)si.freeram * si.mem_unit);
      }
    }
    in_use_ += int64_t(cls);
    if (in_use_ > peak_) peak_ = in_use_;
  }
  int64_t total = g_host_in_use.fetch_add(int64_t(cls), std::memory_order_relaxed) + int64_t(cls);
  check_pressure(total);
  return p;
}

void HostPool::free(void* p, size_t n) {
  if (!p) return;
  size_t cls = size_class(n);
  int64_t max_cached = config().host_max_cached_bytes.load(std::memory_order_relaxed);
  int64_t max_chunk = config().host_max_chunk_bytes.load(std::memory_order_relaxed);
  bool keep;
  {
    std::lock_guard<std::mutex> lock(mu_);
    in_use_ -= int64_t(cls);
    keep = int64_t(cls) <= max_chunk && cached_ + int64_t(cls) <= max_cached;
    if (keep) {
      cache_[cls].push_back(p);
      cached_ += int64_t(cls);
    }
  }
  rearm_pressure(g_host_in_use.fetch_sub(int64_t(cls), std::memory_order_relaxed) - int64_t(cls));
  if (!keep) std::free(p);
}

ndrt_memory_stats HostPool::stats() {
  std::lock_guard<std::mutex> lock(mu_);
  ndrt_memory_stats s{};
  s.in_use = in_use_;
  s.cached = cached_;
  s.peak = peak_;
  s.hits = hits_;
  s.misses = misses_;
  s.oom_count = ooms_;
  s.wrapped = wrapped_bytes.load();
  return s;
}

void HostPool::release_cache_locked() {
  for (auto& [cls, chunks] : cache_)
    for (void* p : chunks) std::free(p);
  cache_.clear();
  cached_ = 0;
}

void HostPool::trim() {
  std::lock_guard<std::mutex> lock(mu_);
  release_cache_locked();
}

void HostPool::reset_peak() {
  std::lock_guard<std::mutex> lock(mu_);
  peak_ = in_use_;
}

void note_wrapped_created(ndrt_device device, size_t n) { allocator_for(device).wrapped_bytes += int64_t(n); }
void note_wrapped_released(ndrt_device device, size_t n) { allocator_for(device).wrapped_bytes -= int64_t(n); }

}  // namespace ndrt
