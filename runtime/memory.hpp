// Caching allocators. Freed chunks go back to a cache keyed by size class (four classes per power
// of two above 512 bytes, so at most 25% is wasted and varying batch sizes reuse chunks).
#pragma once
#include <atomic>
#include <cstddef>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "ndrt/ndrt.h"

namespace ndrt {

// Bytes actually reserved for a request of n bytes (0 for 0).
size_t size_class(size_t n);

class Allocator {
 public:
  virtual ~Allocator() = default;
  // Never returns null for n > 0: throws NDRT_ERR_OUT_OF_MEMORY. Returns null for n == 0.
  virtual void* allocate(size_t n) = 0;
  virtual void free(void* p, size_t n) = 0;
  virtual ndrt_memory_stats stats() = 0;
  virtual void trim() = 0;
  virtual void reset_peak() = 0;
  std::atomic<int64_t> wrapped_bytes{0};  // caller memory wrapped on this device, still alive
};

// Host memory, 64-byte aligned. Caps come from the config keys memory.host.max_cached_bytes and
// memory.host.max_chunk_bytes, read on every free (cheap atomics).
class HostPool final : public Allocator {
 public:
  explicit HostPool(ndrt_device device) : device_(device) {}
  ~HostPool() override;
  void* allocate(size_t n) override;
  void free(void* p, size_t n) override;
  ndrt_memory_stats stats() override;
  void trim() override;
  void reset_peak() override;

 private:
  void release_cache_locked();
  ndrt_device device_;
  std::mutex mu_;
  std::unordered_map<size_t, std::vector<void*>> cache_;  // size class -> free chunks
  int64_t in_use_ = 0, cached_ = 0, peak_ = 0, hits_ = 0, misses_ = 0, ooms_ = 0;
};

// Accounting for wrapped caller memory (Storage calls these).
void note_wrapped_created(ndrt_device device, size_t n);
void note_wrapped_released(ndrt_device device, size_t n);

// Memory-pressure hook (see ndrt_memory_set_pressure_callback).
void set_pressure_callback(int64_t threshold, ndrt_pressure_fn fn, void* user);

}  // namespace ndrt
