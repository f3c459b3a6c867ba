// The CUDA backend lives in its own shared object (libndrt_cuda.so), loaded with dlopen on first
// device use, so libndrt loads and runs on machines without CUDA libraries, driver or GPU.
// Two C tables cross the boundary: the module exports ndrt_cuda_backend (through the one symbol
// ndrt_cuda_backend_v1) and libndrt hands the module ndrt_cuda_host, the only way the module calls
// back (errors, logging, configuration, kernel registration). Both tables only grow at the end.
#pragma once
#include <cstddef>
#include <cstdint>

#include "ndrt/ndrt.h"

extern "C" {

struct ndrt_cuda_device_props {
  char name[256];
  int64_t total_memory;
  int32_t multiprocessors;
  int32_t cc_major, cc_minor;
};

// Configuration values the module reads (ndrt_cuda_host::config_int).
enum ndrt_cuda_config {
  NDRT_CUDA_CFG_MAX_CACHED_BYTES = 0,  // per logical device
  NDRT_CUDA_CFG_MAX_CHUNK_BYTES = 1,   // larger blocks are never cached
  NDRT_CUDA_CFG_MAX_GRID_SIZE = 2,     // blocks per launch of own kernels (0: 32 per SM)
  NDRT_CUDA_CFG_MAX_BLOCK_SIZE = 3,    // threads per block of own kernels
  NDRT_CUDA_CFG_MATMUL_ALLOW_TF32 = 4, // 1: f32 matmuls compute in TF32 on tensor cores
};

struct ndrt_cuda_host {
  uint32_t version;  // 1
  // Throws the runtime's error (status + message) from libndrt; never returns.
  void (*fail)(int32_t status, const char* message);
  void (*log)(int32_t level, const char* message);
  int64_t (*config_int)(int32_t key);
};

// Registers `fn` (an ndrt::KernelFn) as op's cuda kernel for dtype; an unknown op fails.
typedef void (*ndrt_cuda_register_fn)(void* registry, const char* op, int32_t dtype, void* fn, const char* impl);

struct ndrt_cuda_backend {
  uint32_t version;  // 1
  // Number of physical devices; 0 (and a reason in `why`) without driver or GPU.
  int32_t (*device_count)(char* why, size_t why_capacity);
  int32_t (*device_props)(int32_t physical, ndrt_cuda_device_props* out);  // 0 = OK

  // Everything below fails through host->fail (an exception crossing back into libndrt).
  // Binds the host table and maps `logical` devices onto the physical ones round-robin
  // (logical i -> physical i % count); nothing touches a GPU until a logical device is used.
  void (*init)(const ndrt_cuda_host* host, int32_t logical);
  // Registers every cuda kernel through `reg`; no GPU needed.
  void (*register_kernels)(void* registry, ndrt_cuda_register_fn reg);
  // Caching allocator of a logical device, ordered on the calling thread's stream for it.
  void* (*alloc)(int32_t logical, size_t n);
  void (*free)(int32_t logical, void* p, size_t n);  // never fails
  void (*memory_stats)(int32_t logical, ndrt_memory_stats* out);
  void (*trim)(int32_t logical);
  void (*reset_peak)(int32_t logical);
  // Copies n bytes between dense buffers on any two devices (ndrt_device values, at least one
  // cuda), on the calling thread's streams: returns when a host buffer involved is done with;
  // device-to-device copies stay asynchronous, ordered after the source device's pending work.
  void (*copy)(ndrt_device dst_device, void* dst, ndrt_device src_device, const void* src, size_t n);
  // Waits for all work the calling thread issued on the logical device.
  void (*synchronize)(int32_t logical);
  // Events (a cudaEvent_t behind void*): recorded on the calling thread's stream of a logical
  // device; wait makes that thread's stream of another (or the same) device wait for it.
  void* (*event_record)(int32_t logical);
  void (*event_wait)(void* event, int32_t logical);
  void (*event_synchronize)(void* event);
  int32_t (*event_query)(void* event);  // 1 complete, 0 not yet
  void (*event_destroy)(void* event);   // never fails
};

typedef const ndrt_cuda_backend* (*ndrt_cuda_backend_entry)(void);
}

namespace ndrt {
// The loaded and initialised backend, or null (with the reason logged at info level) when absent.
const ndrt_cuda_backend* cuda_backend();
}
