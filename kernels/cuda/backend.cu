// libndrt_cuda.so: the CUDA backend module, loaded by libndrt with dlopen on first device use.
// This first version answers device enumeration and properties; memory, streams and kernels
// join this table as they are built (the table grows only at the end).
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>

#include "cuda_backend.hpp"

namespace {

int32_t device_count(char* why, size_t why_capacity) {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    // No driver or no GPU is a normal condition: report 0 devices and say why.
    std::snprintf(why, why_capacity, "%s", cudaGetErrorString(e));
    cudaGetLastError();  // clear the sticky error
    return 0;
  }
  return n;
}

int32_t device_props(int32_t index, ndrt_cuda_device_props* out) {
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, index) != cudaSuccess) return 1;
  std::snprintf(out->name, sizeof out->name, "%s", p.name);
  out->total_memory = int64_t(p.totalGlobalMem);
  out->multiprocessors = p.multiProcessorCount;
  out->cc_major = p.major;
  out->cc_minor = p.minor;
  return 0;
}

const ndrt_cuda_backend kBackend = {1, device_count, device_props};

}  // namespace

extern "C" __attribute__((visibility("default"))) const ndrt_cuda_backend* ndrt_cuda_backend_v1(void) {
  return &kBackend;
}
