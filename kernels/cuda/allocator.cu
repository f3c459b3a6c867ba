// Caching device allocator, one pool per logical device. Blocks are rounded to size classes (small
// requests to 512 bytes, larger ones to four classes per power of two, so at most 25% is wasted and
// varying batch sizes reuse blocks) and cached per (stream, class): a freed block is reused only
// by the stream it was allocated on, where stream order already puts the new user after every
// kernel that used it — no event or sync is needed. Out of memory: free the cache, retry once,
// then fail with what is in use, cached and free.
#include <map>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "context.cuh"

namespace ndrt::cuda {

namespace {

size_t device_size_class(size_t n) {
  if (n <= (size_t(1) << 20)) return (n + 511) & ~size_t(511);
  int k = 63 - __builtin_clzll(n - 1);  // 2^k < n <= 2^(k+1)
  size_t step = size_t(1) << (k - 2);
  return (n + step - 1) & ~(step - 1);
}

struct Pool {
  int32_t logical = 0;
  std::mutex mu;
  std::map<std::pair<cudaStream_t, size_t>, std::vector<void*>> cache;  // (stream, class) -> blocks
  std::unordered_map<void*, cudaStream_t> owner;                        // live block -> its stream
  int64_t in_use = 0, cached = 0, peak = 0, hits = 0, misses = 0, ooms = 0;

  // Gives every cached block back to CUDA (cudaFree waits for the device).
  void release_cache_locked() {
    cudaSetDevice(physical(logical));
    for (auto& [key, blocks] : cache)
      for (void* p : blocks) cudaFree(p);
    cache.clear();
    cached = 0;
  }
};

std::vector<Pool*>& g_pools = *new std::vector<Pool*>;  // never destroyed (see context.cu)

Pool& pool(int32_t logical) {
  if (logical < 0 || size_t(logical) >= g_pools.size())
    fail(NDRT_ERR_INVALID_ARGUMENT, "cuda:%d has no memory pool (%zu logical devices)", int(logical), g_pools.size());
  return *g_pools[size_t(logical)];
}

}  // namespace

void init_pools(int32_t logical) {
  for (int32_t i = 0; i < logical; ++i) {
    auto* p = new Pool;
    p->logical = i;
    g_pools.push_back(p);
  }
}

void* device_alloc(int32_t logical, size_t n) {
  if (n == 0) return nullptr;
  Pool& p = pool(logical);
  size_t cls = device_size_class(n);
  cudaStream_t s = thread_slot(NDRT_DEVICE(NDRT_DEVICE_TYPE_CUDA, logical)).stream;  // also sets the device
  {
    std::lock_guard<std::mutex> lock(p.mu);
    auto it = p.cache.find({s, cls});
    if (it != p.cache.end() && !it->second.empty()) {
      void* ptr = it->second.back();
      it->second.pop_back();
      p.cached -= int64_t(cls);
      p.owner[ptr] = s;
      p.in_use += int64_t(cls);
      p.peak = std::max(p.peak, p.in_use);
      ++p.hits;
      return ptr;
    }
  }
  void* ptr = nullptr;
  cudaError_t e = cudaMalloc(&ptr, cls);
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    std::lock_guard<std::mutex> lock(p.mu);
    p.release_cache_locked();
    e = cudaMalloc(&ptr, cls);
  }
  std::lock_guard<std::mutex> lock(p.mu);
  if (e != cudaSuccess) {
    cudaGetLastError();
    ++p.ooms;
    size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    fail(e == cudaErrorMemoryAllocation ? NDRT_ERR_OUT_OF_MEMORY : NDRT_ERR_BACKEND,
         "cuda:%d: cannot allocate %zu bytes (%s): %lld bytes in use, %lld cached, %zu of %zu free on the GPU",
         int(logical), cls, cudaGetErrorString(e), (long long)p.in_use, (long long)p.cached, free_b, total_b);
  }
  p.owner[ptr] = s;
  p.in_use += int64_t(cls);
  p.peak = std::max(p.peak, p.in_use);
  ++p.misses;
  return ptr;
}

void device_free(int32_t logical, void* ptr, size_t n) {
  if (!ptr || logical < 0 || size_t(logical) >= g_pools.size()) return;
  Pool& p = *g_pools[size_t(logical)];
  size_t cls = device_size_class(n);
  std::lock_guard<std::mutex> lock(p.mu);
  auto it = p.owner.find(ptr);
  if (it == p.owner.end()) return;  // not ours: nothing sensible to do in a destructor path
  cudaStream_t s = it->second;
  p.owner.erase(it);
  // Freed from another thread's stream (which may still be using the block): the owner stream,
  // which will hand the block out next, first waits for the work queued on the freeing stream.
  // Work on a third stream is the caller's to synchronize (as with PyTorch's record_stream).
  cudaStream_t here = existing_stream(logical);
  if (here && here != s) {
    cudaEvent_t e;
    if (cudaEventCreateWithFlags(&e, cudaEventDisableTiming) == cudaSuccess) {
      if (cudaEventRecord(e, here) == cudaSuccess) cudaStreamWaitEvent(s, e, 0);
      cudaEventDestroy(e);
    }
    cudaGetLastError();  // nothing to report from a destructor path
  }
  p.in_use -= int64_t(cls);
  int64_t max_chunk = host().config_int(NDRT_CUDA_CFG_MAX_CHUNK_BYTES);
  int64_t max_cached = host().config_int(NDRT_CUDA_CFG_MAX_CACHED_BYTES);
  if (int64_t(cls) > max_chunk || p.cached + int64_t(cls) > max_cached) {
    cudaSetDevice(physical(logical));
    cudaFree(ptr);  // waits for the device, so kernels still using the block finish first
    return;
  }
  p.cache[{s, cls}].push_back(ptr);
  p.cached += int64_t(cls);
}

void pool_stats(int32_t logical, ndrt_memory_stats* out) {
  Pool& p = pool(logical);
  std::lock_guard<std::mutex> lock(p.mu);
  *out = ndrt_memory_stats{};
  out->in_use = p.in_use;
  out->cached = p.cached;
  out->peak = p.peak;
  out->hits = p.hits;
  out->misses = p.misses;
  out->oom_count = p.ooms;
}

void pool_trim(int32_t logical) {
  Pool& p = pool(logical);
  std::lock_guard<std::mutex> lock(p.mu);
  p.release_cache_locked();
}

void pool_reset_peak(int32_t logical) {
  Pool& p = pool(logical);
  std::lock_guard<std::mutex> lock(p.mu);
  p.peak = p.in_use;
}

}  // namespace ndrt::cuda
