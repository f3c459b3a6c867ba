#include "blas.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>

#include "config.hpp"
#include "error.hpp"

namespace ndrt::blas {

namespace {

std::mutex g_mu;  // guards the requested core and the load
std::string g_requested = "auto";
std::string g_library = "libopenblas.so.0";
std::atomic<const Api*> g_api{nullptr};

// The best kernel set for f32/f64 GEMM that every OpenBLAS with runtime dispatch has, from the
// CPU's features alone, whatever its vendor or model name: OpenBLAS's own detection goes by
// vendor and model, and falls back to old SSE kernels on CPUs it does not know (Debian 12's 0.3.21:
// AMD Zen 4/5, and Intel Xeons that report a generic model, where SkylakeX ran sgemm 5x faster).
// Cooperlake and SapphireRapids add bf16 GEMM only (ndrt's bf16 goes through oneDNN), and not
// every OpenBLAS knows them; a name OpenBLAS does not know would send it back to its detection.
const char* core_for_this_cpu() {
  __builtin_cpu_init();
  const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
                      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw") &&
                      __builtin_cpu_supports("avx512vl");
  if (avx512) return "SkylakeX";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
  return nullptr;  // OpenBLAS's own detection
}

// The OPENBLAS_CORETYPE to load with: empty for OpenBLAS's own detection, null to leave the
// environment as it is (the user's own OPENBLAS_CORETYPE under cpu.blas_core auto).
const char* core_to_force() {
  if (g_requested == "native") return "";
  if (g_requested != "auto") return g_requested.c_str();
  if (std::getenv("OPENBLAS_CORETYPE")) return nullptr;
  return core_for_this_cpu();
}

template <class F>
F sym(void* lib, const char* name) {
  void* p = dlsym(lib, name);
  if (!p) fail(NDRT_ERR_BACKEND, "%s has no symbol %s (not OpenBLAS?)", g_library.c_str(), name);
  return reinterpret_cast<F>(p);
}

// Loads OpenBLAS (with g_mu held); `note` says which kernels, for a log line outside the lock
// (a host's log callback may call back into the config).
const Api* load(std::string& note) {
  const char* force = core_to_force();
  // OpenBLAS reads the variable in its constructor; the environment is put back right after.
  const char* prev = std::getenv("OPENBLAS_CORETYPE");
  const std::string saved = prev ? prev : "";
  if (force) *force ? setenv("OPENBLAS_CORETYPE", force, 1) : unsetenv("OPENBLAS_CORETYPE");
  void* lib = dlopen(g_library.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (force) prev ? setenv("OPENBLAS_CORETYPE", saved.c_str(), 1) : unsetenv("OPENBLAS_CORETYPE");
  if (!lib) fail(NDRT_ERR_BACKEND, "OpenBLAS could not be loaded (Debian: libopenblas0): %s", dlerror());
  // Unloaded again on a missing symbol, so a corrected cpu.blas_library can be loaded next time.
  std::unique_ptr<void, int (*)(void*)> handle(lib, dlclose);
  auto a = std::make_unique<Api>();
  a->sgemm = sym<decltype(a->sgemm)>(lib, "cblas_sgemm");
  a->dgemm = sym<decltype(a->dgemm)>(lib, "cblas_dgemm");
  a->set_num_threads = sym<decltype(a->set_num_threads)>(lib, "openblas_set_num_threads");
  a->get_num_threads = sym<decltype(a->get_num_threads)>(lib, "openblas_get_num_threads");
  a->core = sym<char* (*)()>(lib, "openblas_get_corename")();
  handle.release();  // process lifetime
  note = std::string("OpenBLAS kernels: ") + a->core + " (cpu.blas_core " + g_requested + ", OPENBLAS_CORETYPE " +
         (!force ? (prev ? saved : "unset") : *force ? force : "unset for the load") + ")";
  return a.release();  // process lifetime, like the library
}

}  // namespace

const Api& api() {
  if (const Api* a = g_api.load(std::memory_order_acquire)) return *a;
  config();  // NDRT_CPU_BLAS_CORE applied (it takes g_mu) before the load takes it
  std::string note;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    if (!g_api.load(std::memory_order_relaxed)) g_api.store(load(note), std::memory_order_release);
  }
  if (!note.empty()) log(NDRT_LOG_INFO, "%s", note.c_str());
  return *g_api.load(std::memory_order_acquire);
}

std::string core_setting() {
  std::lock_guard<std::mutex> lock(g_mu);
  const Api* a = g_api.load(std::memory_order_relaxed);
  return a ? a->core : g_requested;
}

namespace {
bool same_name(const std::string& a, const char* b) {
  return a.size() == std::strlen(b) &&
         std::equal(a.begin(), a.end(), b, [](char x, char y) { return std::tolower(x) == std::tolower(y); });
}
}  // namespace

void set_requested_core(const char* value) {
  std::lock_guard<std::mutex> lock(g_mu);
  const size_t n = std::strlen(value);
  bool name = n > 0 && n <= 32;
  for (size_t i = 0; i < n; ++i) name &= std::isalnum(static_cast<unsigned char>(value[i])) != 0;
  if (!name)
    fail(NDRT_ERR_INVALID_ARGUMENT, "config cpu.blas_core: '%s' is not auto, native or an OpenBLAS core name", value);
  const Api* loaded = g_api.load(std::memory_order_relaxed);
  if (loaded && g_requested != value && !same_name(value, loaded->core))
    fail(NDRT_ERR_INVALID_ARGUMENT,
         "config cpu.blas_core: OpenBLAS is already loaded (kernels %s); set it before the first matrix product "
         "or with NDRT_CPU_BLAS_CORE",
         g_api.load()->core);
  g_requested = value;
}

std::string library() {
  std::lock_guard<std::mutex> lock(g_mu);
  return g_library;
}

void set_library(const char* value) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (!*value) fail(NDRT_ERR_INVALID_ARGUMENT, "config cpu.blas_library: empty (a library name or path)");
  if (g_api.load(std::memory_order_relaxed) && g_library != value)
    fail(NDRT_ERR_INVALID_ARGUMENT,
         "config cpu.blas_library: OpenBLAS is already loaded; set it before the first matrix product or with "
         "NDRT_CPU_BLAS_LIBRARY");
  g_library = value;
}

}  // namespace ndrt::blas
