#include "config.hpp"

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "blas.hpp"
#include "cores.hpp"
#include "device.hpp"
#include "error.hpp"
#include "parallel.hpp"
#include "profiler.hpp"

namespace ndrt {

namespace {

// Constant-initialised; setters below use it directly because they also run while the environment
// is applied (inside config()'s once-guard, where calling config() again would deadlock).
Config g_config;

int64_t parse_int(const char* key, const char* value, int64_t lo, int64_t hi) {
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(value, &end, 10);
  if (errno || end == value || *end != '\0' || v < lo || v > hi)
    fail(NDRT_ERR_INVALID_ARGUMENT, "config %s: '%s' is not an integer in %lld..%lld", key, value,
         (long long)lo, (long long)hi);
  return v;
}

const char* const kLevels[] = {"error", "warn", "info", "debug"};

struct Key {
  const char* name;
  const char* env;
  void (*set)(const char* key, const char* value);
  std::string (*get)();
};

const Key kKeys[] = {
    {"log.level", "NDRT_LOG_LEVEL",
     [](const char* k, const char* v) {
       for (int i = 0; i < 4; ++i)
         if (std::strcmp(v, kLevels[i]) == 0) return g_config.log_level.store(i);
       fail(NDRT_ERR_INVALID_ARGUMENT, "config %s: '%s' is not one of error, warn, info, debug", k, v);
     },
     [] { return std::string(kLevels[g_config.log_level.load()]); }},
    {"cpu.threads", "NDRT_CPU_THREADS",
     [](const char* k, const char* v) { set_cpu_threads(int32_t(parse_int(k, v, 1, 4096))); },
     [] { return std::to_string(cpu_threads()); }},
    {"cpu.adapt_threads", "NDRT_CPU_ADAPT_THREADS",
     [](const char* k, const char* v) { set_adapt_threads(parse_int(k, v, 0, 1) != 0); },
     [] { return std::string(adapt_threads() ? "1" : "0"); }},
    {"cpu.flush_denormals", "NDRT_CPU_FLUSH_DENORMALS",
     [](const char* k, const char* v) { g_config.cpu_flush_denormals.store(int32_t(parse_int(k, v, 0, 1))); },
     [] { return std::to_string(g_config.cpu_flush_denormals.load()); }},
    {"cpu.active_threads", nullptr,
     [](const char* k, const char*) {
       fail(NDRT_ERR_INVALID_ARGUMENT, "config %s: read-only (the threads ops run on now; set cpu.threads)", k);
     },
     [] { return std::to_string(active_threads()); }},
    {"cpu.direct_conv", nullptr,
     [](const char* k, const char*) {
       fail(NDRT_ERR_INVALID_ARGUMENT, "config %s: read-only (whether this CPU runs ndrt's direct convolution)", k);
     },
     [] { return std::string(cpu_has_avx512() ? "1" : "0"); }},
    {"cpu.pool", "NDRT_CPU_POOL",
     [](const char* k, const char* v) {
       if (!set_pool(v)) fail(NDRT_ERR_INVALID_ARGUMENT, "config %s: '%s' is not openmp or ndrt (openmp: built with OpenMP only)", k, v);
     },
     [] { return std::string(pool_name()); }},
    {"cpu.blas_library", "NDRT_CPU_BLAS_LIBRARY", [](const char*, const char* v) { blas::set_library(v); },
     [] { return blas::library(); }},
    {"cpu.blas_core", "NDRT_CPU_BLAS_CORE", [](const char*, const char* v) { blas::set_requested_core(v); },
     [] { return blas::core_setting(); }},
    {"cpu.virtual_devices", "NDRT_CPU_VIRTUAL_DEVICES",
     [](const char* k, const char* v) {
       int32_t n = int32_t(parse_int(k, v, 1, 64));
       if (devices_initialized() && n != g_config.cpu_virtual_devices.load())
         fail(NDRT_ERR_INVALID_ARGUMENT, "config %s: devices are already in use; set it before the first device use", k);
       g_config.cpu_virtual_devices.store(n);
     },
     [] { return std::to_string(g_config.cpu_virtual_devices.load()); }},
    {"memory.host.max_cached_bytes", "NDRT_MEMORY_HOST_MAX_CACHED_BYTES",
     [](const char* k, const char* v) { g_config.host_max_cached_bytes.store(parse_int(k, v, 0, INT64_MAX)); },
     [] { return std::to_string(g_config.host_max_cached_bytes.load()); }},
    {"memory.host.max_chunk_bytes", "NDRT_MEMORY_HOST_MAX_CHUNK_BYTES",
     [](const char* k, const char* v) { g_config.host_max_chunk_bytes.store(parse_int(k, v, 0, INT64_MAX)); },
     [] { return std::to_string(g_config.host_max_chunk_bytes.load()); }},
    {"cuda.virtual_devices", "NDRT_CUDA_VIRTUAL_DEVICES",
     [](const char* k, const char* v) {
       int32_t n = int32_t(parse_int(k, v, 0, 64));
       if (devices_initialized() && n != g_config.cuda_virtual_devices.load())
         fail(NDRT_ERR_INVALID_ARGUMENT, "config %s: devices are already in use; set it before the first device use", k);
       g_config.cuda_virtual_devices.store(n);
     },
     [] { return std::to_string(g_config.cuda_virtual_devices.load()); }},
    {"cuda.allow_multi_gpu", "NDRT_CUDA_ALLOW_MULTI_GPU",
     [](const char* k, const char* v) {
       int32_t on = int32_t(parse_int(k, v, 0, 1));
       if (devices_initialized() && on != g_config.cuda_allow_multi_gpu.load())
         fail(NDRT_ERR_INVALID_ARGUMENT, "config %s: devices are already in use; set it before the first device use", k);
       g_config.cuda_allow_multi_gpu.store(on);
     },
     [] { return std::to_string(g_config.cuda_allow_multi_gpu.load()); }},
    {"memory.cuda.max_cached_bytes", "NDRT_MEMORY_CUDA_MAX_CACHED_BYTES",
     [](const char* k, const char* v) { g_config.cuda_max_cached_bytes.store(parse_int(k, v, 0, INT64_MAX)); },
     [] { return std::to_string(g_config.cuda_max_cached_bytes.load()); }},
    {"memory.cuda.max_chunk_bytes", "NDRT_MEMORY_CUDA_MAX_CHUNK_BYTES",
     [](const char* k, const char* v) { g_config.cuda_max_chunk_bytes.store(parse_int(k, v, 0, INT64_MAX)); },
     [] { return std::to_string(g_config.cuda_max_chunk_bytes.load()); }},
    {"cuda.max_grid_size", "NDRT_CUDA_MAX_GRID_SIZE",
     [](const char* k, const char* v) { g_config.cuda_max_grid_size.store(parse_int(k, v, 0, INT32_MAX)); },
     [] { return std::to_string(g_config.cuda_max_grid_size.load()); }},
    {"cuda.max_block_size", "NDRT_CUDA_MAX_BLOCK_SIZE",
     [](const char* k, const char* v) {
       int64_t n = parse_int(k, v, 32, 1024);
       // Own kernels reduce with warp shuffles over whole warps.
       if (n % 32) fail(NDRT_ERR_INVALID_ARGUMENT, "config %s: %lld is not a multiple of 32 (the warp size)", k, (long long)n);
       g_config.cuda_max_block_size.store(n);
     },
     [] { return std::to_string(g_config.cuda_max_block_size.load()); }},
    {"cuda.matmul.allow_tf32", "NDRT_CUDA_MATMUL_ALLOW_TF32",
     [](const char* k, const char* v) { g_config.cuda_matmul_allow_tf32.store(int32_t(parse_int(k, v, 0, 1))); },
     [] { return std::to_string(g_config.cuda_matmul_allow_tf32.load()); }},
    {"dist.timeout_s", "NDRT_DIST_TIMEOUT_S",
     [](const char* k, const char* v) { g_config.dist_timeout_s.store(int32_t(parse_int(k, v, 0, 86400 * 365))); },
     [] { return std::to_string(g_config.dist_timeout_s.load()); }},
    {"dist.verify", "NDRT_DIST_VERIFY",
     [](const char* k, const char* v) { g_config.dist_verify.store(int32_t(parse_int(k, v, 0, 1))); },
     [] { return std::to_string(g_config.dist_verify.load()); }},
    {"profiler.enabled", "NDRT_PROFILE",
     [](const char* k, const char* v) { profiler_set_enabled(parse_int(k, v, 0, 1) != 0); },
     [] { return std::string(profiler_enabled() ? "1" : "0"); }},
    {"backend.priority.cpu", "BACKEND_PRIORITY_CPU",
     [](const char* k, const char* v) { g_config.priority_cpu.store(int32_t(parse_int(k, v, INT32_MIN, INT32_MAX))); },
     [] { return std::to_string(g_config.priority_cpu.load()); }},
    {"backend.priority.gpu", "BACKEND_PRIORITY_GPU",
     [](const char* k, const char* v) { g_config.priority_gpu.store(int32_t(parse_int(k, v, INT32_MIN, INT32_MAX))); },
     [] { return std::to_string(g_config.priority_gpu.load()); }},
};

const Key& find_key(const char* key) {
  if (!key) fail(NDRT_ERR_INVALID_ARGUMENT, "config: key is NULL");
  for (const Key& k : kKeys)
    if (std::strcmp(k.name, key) == 0) return k;
  fail(NDRT_ERR_INVALID_ARGUMENT, "config: unknown key '%s'", key);
}

struct LogSink {
  std::mutex mu;
  ndrt_log_fn fn = nullptr;
  void* user = nullptr;
};
LogSink& log_sink() {
  static LogSink s;
  return s;
}

}  // namespace

Config& config() {
  static std::once_flag env_once;
  static std::vector<std::string> env_warnings;
  static std::atomic<bool> env_warned{false};
  std::call_once(env_once, [] {
    // A bad value is reported and the default kept: there is no caller to fail to here.
    for (const Key& k : kKeys) {
      const char* v = k.env ? std::getenv(k.env) : nullptr;
      if (!v) continue;
      try {
        k.set(k.name, v);
      } catch (const Error& e) {
        env_warnings.push_back(std::string(k.env) + "=" + v + " ignored: " + e.what());
      }
    }
  });
  // Reported after the once-guard (log() itself calls config()), through the host's log sink.
  if (!env_warned.load(std::memory_order_acquire) && !env_warned.exchange(true))
    for (const std::string& w : env_warnings) log(NDRT_LOG_WARN, "%s", w.c_str());
  return g_config;
}

void config_set(const char* key, const char* value) {
  const Key& k = find_key(key);
  if (!value) fail(NDRT_ERR_INVALID_ARGUMENT, "config %s: value is NULL", key);
  config();  // environment applied before the override
  k.set(k.name, value);
}

std::string config_get(const char* key) {
  const Key& k = find_key(key);
  config();
  return k.get();
}

void set_log_callback(ndrt_log_fn fn, void* user) {
  LogSink& s = log_sink();
  std::lock_guard<std::mutex> lock(s.mu);
  s.fn = fn;
  s.user = user;
}

void log(int32_t level, const char* fmt, ...) {
  if (level > config().log_level.load(std::memory_order_relaxed)) return;
  char buf[1024];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, args);
  va_end(args);
  LogSink& s = log_sink();
  ndrt_log_fn fn;
  void* user;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    fn = s.fn;
    user = s.user;
  }
  // Outside the lock: a callback may log again or swap the callback.
  if (fn)
    fn(level, buf, user);
  else
    std::fprintf(stderr, "[ndrt %s] %s\n", kLevels[level < 0 ? 0 : level > 3 ? 3 : level], buf);
}

}  // namespace ndrt
