// The CUDA backend lives in its own shared object (libndrt_cuda.so), loaded with dlopen on first
// device use, so libndrt loads and runs on machines without CUDA libraries, driver or GPU.
// This is the C table the module exports through one symbol, ndrt_cuda_backend_v1.
#pragma once
#include <cstddef>
#include <cstdint>

extern "C" {

struct ndrt_cuda_device_props {
  char name[256];
  int64_t total_memory;
  int32_t multiprocessors;
  int32_t cc_major, cc_minor;
};

struct ndrt_cuda_backend {
  uint32_t version;  // 1
  // Number of usable devices; 0 (and a reason in `why`) without driver or GPU.
  int32_t (*device_count)(char* why, size_t why_capacity);
  int32_t (*device_props)(int32_t index, ndrt_cuda_device_props* out);  // 0 = OK
};

typedef const ndrt_cuda_backend* (*ndrt_cuda_backend_entry)(void);
}

namespace ndrt {
// The loaded backend, or null (with the reason logged at info level) when it is absent.
const ndrt_cuda_backend* cuda_backend();
}
