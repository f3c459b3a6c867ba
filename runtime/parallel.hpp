// Intra-op parallelism: cpu.threads - 1 workers plus the calling thread; OpenMP's team where the
// build has OpenMP (the threads oneDNN runs on: one set of workers, not two competing for the
// cores), else ndrt's own process-wide pool. When another host thread holds the pool, a caller runs
// its work inline instead of queueing, so many host threads calling at once never put more than
// cpu.threads threads on ops of their own.
#pragma once
#include <cstdint>
#include <functional>

namespace ndrt {

int32_t cpu_threads();
void set_cpu_threads(int32_t n);

// True in a child of fork() (after ndrt was loaded): worker threads do not survive a fork, and
// OpenMP's team would wait for them forever, so the child runs ops on the calling thread only
// (as PyTorch does), oneDNN included.
bool forked_child();

// cpu.pool: "openmp" (the default where built) or "ndrt" (own workers, the only ones under
// ThreadSanitizer). set_pool returns false for a name this build does not have.
bool set_pool(const char* name);
const char* pool_name();

void parallel_for_impl(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn);

// Runs fn(begin, end) over [0, n) in chunks of at least `grain` items, possibly in parallel.
// fn must not throw (kernels record errors and throw after the loop). Small n runs inline with no
// std::function or pool traffic: the common case for tiny ops stays cheap.
template <class F>
inline void parallel_for(int64_t n, int64_t grain, F&& fn) {
  if (n <= 0) return;
  if (n <= grain || cpu_threads() == 1) {
    fn(int64_t(0), n);
    return;
  }
  parallel_for_impl(n, grain, std::function<void(int64_t, int64_t)>(std::ref(fn)));
}

}  // namespace ndrt
