#include "memory.hpp"

#include <sys/sysinfo.h>

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

struct Pressure {
  std::mutex mu;
  int64_t threshold = 0;
  ndrt_pressure_fn fn = nullptr;
  void* user = nullptr;
  int64_t next_trigger = 0;  // fire when in_use reaches this
  std::atomic<bool> armed{false};
};
Pressure& pressure() {
  static Pressure p;
  return p;
}

void check_pressure(int64_t in_use) {
  Pressure& p = pressure();
  if (!p.armed.load(std::memory_order_relaxed)) return;
  ndrt_pressure_fn fn = nullptr;
  void* user = nullptr;
  {
    std::lock_guard<std::mutex> lock(p.mu);
    if (!p.fn) return;
    if (in_use < p.threshold) {
      p.next_trigger = p.threshold;  // fell below: re-arm at the threshold
      return;
    }
    if (in_use < p.next_trigger) return;
    p.next_trigger = in_use + p.threshold;
    fn = p.fn;
    user = p.user;
  }
  fn(in_use, user);  // outside the lock: the host may free tensors from inside it
}

}  // namespace

void set_pressure_callback(int64_t threshold, ndrt_pressure_fn fn, void* user) {
  if (fn && threshold <= 0)
    fail(NDRT_ERR_INVALID_ARGUMENT, "memory pressure threshold must be > 0 bytes, got %lld", (long long)threshold);
  Pressure& p = pressure();
  std::lock_guard<std::mutex> lock(p.mu);
  p.threshold = threshold;
  p.fn = fn;
  p.user = user;
  p.next_trigger = threshold;
  p.armed.store(fn != nullptr);
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
  g_host_in_use.fetch_sub(int64_t(cls), std::memory_order_relaxed);
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
