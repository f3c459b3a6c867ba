// Handle table: int64 handles = (generation << 32) | (slot + 1), never pointers.
// A slot's state word packs [generation:31][live:1][pins:32]. Using a handle pins its slot (one
// CAS) for the duration of a call; release clears `live`, and whoever drops the last pin of a dead
// slot destroys the tensor. So a handle released by another thread mid-call stays valid until the
// call ends, and a stale, twice-released, zero or invented handle is reported, never dereferenced.
#pragma once
#include <atomic>
#include <cstdint>

#include "tensor.hpp"

namespace ndrt {

class HandleTable {
 public:
  // Takes ownership of a new tensor and returns its handle.
  ndrt_handle insert(Tensor&& t);
  // Pins the slot; throws NDRT_ERR_INVALID_HANDLE naming `what` when the handle is not live.
  Tensor* pin(ndrt_handle h, const char* what);
  void unpin(ndrt_handle h);
  // Marks the handle dead; throws NDRT_ERR_INVALID_HANDLE when it is not live.
  void release(ndrt_handle h);
  int64_t live() const { return live_.load(std::memory_order_relaxed); }

 private:
  struct Slot {
    std::atomic<uint64_t> state{0};
    Tensor* tensor = nullptr;
    uint32_t next_free = 0;  // free-list link (slot + 1; 0 ends the list)
  };
  static constexpr uint32_t kChunkBits = 12, kChunkSize = 1u << kChunkBits, kMaxChunks = 1u << 14;
  Slot* slot(uint32_t index) const;
  Slot* lookup(ndrt_handle h) const;
  void destroy(Slot* s, uint32_t index);

  std::atomic<Slot*> chunks_[kMaxChunks] = {};  // chunks never move or die: lock-free lookup
  std::atomic<int64_t> live_{0};
  // Free list and growth are guarded by a plain spin-free mutex in handles.cpp.
  uint32_t free_head_ = 0;
  uint32_t used_ = 0;
};

HandleTable& handles();

// RAII pin: `Pinned t(h, "add: input 0")` then use *t / t->.
class Pinned {
 public:
  Pinned() = default;
  Pinned(ndrt_handle h, const char* what) : h_(h), t_(handles().pin(h, what)) {}
  Pinned(const Pinned&) = delete;
  Pinned& operator=(const Pinned&) = delete;
  ~Pinned() {
    if (t_) handles().unpin(h_);
  }
  Tensor* operator->() const { return t_; }
  Tensor& operator*() const { return *t_; }
  Tensor* get() const { return t_; }

 private:
  ndrt_handle h_ = 0;
  Tensor* t_ = nullptr;
};

}  // namespace ndrt
