// Configuration: one table of keys (runtime/config.cpp), each with its environment variable,
// default, parser and the atomic it sets. Values read on hot paths are plain atomics here.
#pragma once
#include <atomic>
#include <cstdint>
#include <string>

#include "ndrt/ndrt.h"

namespace ndrt {

struct Config {
  std::atomic<int32_t> log_level{NDRT_LOG_WARN};
  std::atomic<int32_t> cpu_threads{0};          // 0 until resolved from the core count
  std::atomic<int32_t> cpu_virtual_devices{1};
  std::atomic<int64_t> host_max_cached_bytes{int64_t(1) << 30};
  std::atomic<int64_t> host_max_chunk_bytes{int64_t(256) << 20};
  std::atomic<int32_t> priority_cpu{0};
  std::atomic<int32_t> priority_gpu{100};
  // CUDA: logical devices (0: one per GPU; N: N logical devices spread over the GPUs, so one GPU
  // can test multi-device paths), whether more than the first GPU is used, pool caps, and the
  // launch limits of own kernels (max grid 0: the module's default).
  std::atomic<int32_t> cuda_virtual_devices{0};
  std::atomic<int32_t> cuda_allow_multi_gpu{1};
  std::atomic<int64_t> cuda_max_cached_bytes{INT64_MAX};
  std::atomic<int64_t> cuda_max_chunk_bytes{INT64_MAX};
  std::atomic<int64_t> cuda_max_grid_size{0};
  std::atomic<int64_t> cuda_max_block_size{1024};
  // f32 matmuls on tensor cores in TF32 (10-bit mantissa inputs, f32 accumulation): faster, less
  // exact, so off unless asked for (torch.backends.cuda.matmul.allow_tf32 is off by default too).
  std::atomic<int32_t> cuda_matmul_allow_tf32{0};
  // Distributed: seconds a collective may wait for its peers (0: forever), and whether each
  // collective first checks that every rank made the same call.
  std::atomic<int32_t> dist_timeout_s{300};
  std::atomic<int32_t> dist_verify{1};
  // CPU kernels with subnormals flushed to zero (runtime/fp_mode.hpp); off: IEEE 754.
  std::atomic<int32_t> cpu_flush_denormals{0};
};

// The process-wide configuration, with environment variables applied on first use.
Config& config();

void config_set(const char* key, const char* value);
std::string config_get(const char* key);

// Logging: to the host's callback when set, else stderr.
void log(int32_t level, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void set_log_callback(ndrt_log_fn fn, void* user);

}  // namespace ndrt
