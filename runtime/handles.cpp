#include "handles.hpp"

#include <mutex>

#include "error.hpp"

namespace ndrt {

namespace {
constexpr uint64_t kLive = uint64_t(1) << 32;
constexpr uint64_t kPinMask = kLive - 1;
inline uint32_t gen_of(uint64_t state) { return uint32_t(state >> 33); }
std::mutex g_free_mu;
}  // namespace

HandleTable& handles() {
  static HandleTable* t = new HandleTable;  // never destroyed: handles may be released at exit
  return *t;
}

HandleTable::Slot* HandleTable::slot(uint32_t index) const {
  Slot* chunk = chunks_[index >> kChunkBits].load(std::memory_order_acquire);
  return chunk ? &chunk[index & (kChunkSize - 1)] : nullptr;
}

HandleTable::Slot* HandleTable::lookup(ndrt_handle h) const {
  if (h <= 0) return nullptr;
  uint64_t low = uint64_t(h) & 0xffffffffu;
  if (low == 0 || low > uint64_t(kChunkSize) * kMaxChunks) return nullptr;
  return slot(uint32_t(low - 1));
}

ndrt_handle HandleTable::insert(Tensor&& t) {
  Tensor* owned = new Tensor(std::move(t));
  uint32_t index;
  {
    std::lock_guard<std::mutex> lock(g_free_mu);
    if (free_head_) {
      index = free_head_ - 1;
      free_head_ = slot(index)->next_free;
    } else {
      if (used_ == kChunkSize * kMaxChunks) {
        delete owned;
        fail(NDRT_ERR_OUT_OF_MEMORY, "handle table is full (%u live handles)", used_);
      }
      index = used_++;
      if ((index & (kChunkSize - 1)) == 0) chunks_[index >> kChunkBits].store(new Slot[kChunkSize], std::memory_order_release);
    }
  }
  Slot* s = slot(index);
  s->tensor = owned;
  // Next generation (1..2^31-1, wrapping past 0), live, no pins.
  uint32_t gen = gen_of(s->state.load(std::memory_order_relaxed)) + 1;
  if (gen >= (1u << 31)) gen = 1;
  s->state.store((uint64_t(gen) << 33) | kLive, std::memory_order_release);
  live_.fetch_add(1, std::memory_order_relaxed);
  return ndrt_handle((uint64_t(gen) << 32) | (uint64_t(index) + 1));
}

Tensor* HandleTable::pin(ndrt_handle h, const char* what) {
  Slot* s = lookup(h);
  if (s) {
    uint32_t gen = uint32_t(uint64_t(h) >> 32);
    uint64_t st = s->state.load(std::memory_order_acquire);
    while (gen_of(st) == gen && (st & kLive)) {
      if (s->state.compare_exchange_weak(st, st + 1, std::memory_order_acquire)) return s->tensor;
    }
  }
  fail(NDRT_ERR_INVALID_HANDLE, "%s: handle %lld is not a live tensor (never issued, or already released)", what,
       (long long)h);
}

void HandleTable::unpin(ndrt_handle h) {
  Slot* s = lookup(h);
  uint64_t prev = s->state.fetch_sub(1, std::memory_order_acq_rel);
  if (!(prev & kLive) && (prev & kPinMask) == 1) destroy(s, uint32_t((uint64_t(h) & 0xffffffffu) - 1));
}

void HandleTable::release(ndrt_handle h) {
  Slot* s = lookup(h);
  if (s) {
    uint32_t gen = uint32_t(uint64_t(h) >> 32);
    uint64_t st = s->state.load(std::memory_order_acquire);
    while (gen_of(st) == gen && (st & kLive)) {
      if (s->state.compare_exchange_weak(st, st & ~kLive, std::memory_order_acq_rel)) {
        live_.fetch_sub(1, std::memory_order_relaxed);
        if ((st & kPinMask) == 0) destroy(s, uint32_t((uint64_t(h) & 0xffffffffu) - 1));
        return;
      }
    }
  }
  fail(NDRT_ERR_INVALID_HANDLE, "tensor_release: handle %lld is not a live tensor (never issued, or already released)",
       (long long)h);
}

void HandleTable::destroy(Slot* s, uint32_t index) {
  Tensor* t = s->tensor;
  s->tensor = nullptr;
  delete t;  // may run a release hook: outside the free-list lock
  std::lock_guard<std::mutex> lock(g_free_mu);
  s->next_free = free_head_;
  free_head_ = index + 1;
}

}  // namespace ndrt
