// Module-internal: what backend.cu, context.cu and allocator.cu share beyond cuda_common.cuh.
#pragma once
#include "cuda_common.cuh"

namespace ndrt::cuda {

// A thread's stream and library handles for one logical device.
struct ThreadSlot {
  cudaStream_t stream = nullptr;
#if NDRT_CUDA_CUBLAS
  cublasHandle_t blas = nullptr;
#endif
#if NDRT_CUDA_CUDNN
  cudnnHandle_t dnn = nullptr;
#endif
  // Pinned host staging for host <-> device copies: two buffers, so one fills while the other
  // is on the wire; each buffer's event marks when its last copy finished.
  void* staging[2] = {nullptr, nullptr};
  cudaEvent_t staged[2] = {nullptr, nullptr};
};

const ndrt_cuda_host& host();
// Binds the host table and creates `logical` devices over `physical_count` GPUs (round-robin).
void bind_host(const ndrt_cuda_host* h, int32_t logical, int32_t physical_count);
int32_t logical_count();
int physical(int32_t logical);
// The calling thread's slot for d, created on first use; makes d's GPU current.
ThreadSlot& thread_slot(ndrt_device d);
// The calling thread's stream for a logical device if it has one (null otherwise); never fails.
cudaStream_t existing_stream(int32_t logical_device);
void register_all(void* registry, ndrt_cuda_register_fn fn);

// Allocator (allocator.cu): one caching pool per logical device.
void init_pools(int32_t logical);
void pool_stats(int32_t logical, ndrt_memory_stats* out);
void pool_trim(int32_t logical);
void pool_reset_peak(int32_t logical);

}  // namespace ndrt::cuda
