#include "device.hpp"

#include <dlfcn.h>

#include <atomic>
#include <cstring>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <vector>

#include "config.hpp"
#include "cuda_backend.hpp"
#include "error.hpp"

namespace ndrt {

namespace {

// A logical CUDA device's pool: the caching allocator lives in the module; this forwards to it.
class CudaPool final : public Allocator {
 public:
  CudaPool(const ndrt_cuda_backend* b, int32_t index) : b_(b), index_(index) {}
  void* allocate(size_t n) override { return n ? b_->alloc(index_, n) : nullptr; }
  void free(void* p, size_t n) override { b_->free(index_, p, n); }
  ndrt_memory_stats stats() override {
    ndrt_memory_stats s{};
    b_->memory_stats(index_, &s);
    return s;
  }
  void trim() override { b_->trim(index_); }
  void reset_peak() override { b_->reset_peak(index_); }

 private:
  const ndrt_cuda_backend* b_;
  int32_t index_;
};

struct DeviceTable {
  std::vector<std::unique_ptr<Allocator>> cpu;   // one pool per (virtual) cpu device
  std::vector<std::unique_ptr<Allocator>> cuda;  // one pool per logical cuda device
};

std::atomic<bool> g_initialized{false};

// The host table the module calls back through.
[[noreturn]] void host_fail(int32_t status, const char* message) { fail(status, "%s", message); }
void host_log(int32_t level, const char* message) { log(level, "%s", message); }
int64_t host_config_int(int32_t key) {
  Config& c = config();
  switch (key) {
    case NDRT_CUDA_CFG_MAX_CACHED_BYTES: return c.cuda_max_cached_bytes.load(std::memory_order_relaxed);
    case NDRT_CUDA_CFG_MAX_CHUNK_BYTES: return c.cuda_max_chunk_bytes.load(std::memory_order_relaxed);
    case NDRT_CUDA_CFG_MAX_GRID_SIZE: return c.cuda_max_grid_size.load(std::memory_order_relaxed);
    case NDRT_CUDA_CFG_MAX_BLOCK_SIZE: return c.cuda_max_block_size.load(std::memory_order_relaxed);
    case NDRT_CUDA_CFG_MATMUL_ALLOW_TF32: return c.cuda_matmul_allow_tf32.load(std::memory_order_relaxed);
  }
  fail(NDRT_ERR_INTERNAL, "cuda module asked for unknown config key %d", int(key));
}
const ndrt_cuda_host kHost = {1, host_fail, host_log, host_config_int};

// The module links cuBLAS and cuDNN, whose loading costs tens of milliseconds: without a driver
// there is nothing to run on, so the module is not even loaded (NDRT_CUDA_LOAD_WITHOUT_DRIVER=1
// loads it anyway, so its kernel table can be checked on machines without a GPU).
bool driver_present() {
  const char* force = std::getenv("NDRT_CUDA_LOAD_WITHOUT_DRIVER");
  if (force && std::string(force) == "1") return true;
  void* drv = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (!drv) return false;
  dlclose(drv);
  return true;
}

struct CudaModule {
  const ndrt_cuda_backend* backend = nullptr;
  int32_t physical = 0, logical = 0;
};

CudaModule load_cuda_backend() {
  CudaModule m;
  if (!driver_present()) {
    log(NDRT_LOG_INFO, "no CUDA driver (libcuda.so.1 not found): 0 cuda devices");
    return m;
  }
  const char* env = std::getenv("NDRT_CUDA_BACKEND");
  std::string path = env ? env : library_directory() + "libndrt_cuda.so";
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    log(NDRT_LOG_INFO, "cuda backend not loaded (%s): 0 cuda devices", dlerror());
    return m;
  }
  auto entry = reinterpret_cast<ndrt_cuda_backend_entry>(dlsym(lib, "ndrt_cuda_backend_v1"));
  const ndrt_cuda_backend* b = entry ? entry() : nullptr;
  if (!b || b->version != 1) {
    log(NDRT_LOG_WARN, "%s is not an ndrt cuda backend of version 1: 0 cuda devices", path.c_str());
    return m;
  }
  char why[256] = "";
  m.physical = b->device_count(why, sizeof why);
  if (m.physical == 0) log(NDRT_LOG_INFO, "0 cuda devices: %s", why);
  Config& c = config();
  if (m.physical > 1 && !c.cuda_allow_multi_gpu.load()) m.physical = 1;
  int32_t virt = c.cuda_virtual_devices.load();
  m.logical = m.physical == 0 ? 0 : virt > 0 ? virt : m.physical;
  try {
    b->init(&kHost, m.logical);
  } catch (const Error& e) {
    log(NDRT_LOG_WARN, "cuda backend failed to initialise (%s): 0 cuda devices", e.what());
    return CudaModule{};
  }
  m.backend = b;  // the library stays loaded for the life of the process
  return m;
}

const CudaModule& cuda_module() {
  static const CudaModule m = load_cuda_backend();
  return m;
}

DeviceTable& table() {
  static DeviceTable* t = [] {
    auto* d = new DeviceTable;  // never destroyed: storages may outlive static destruction
    int32_t n = config().cpu_virtual_devices.load();
    for (int32_t i = 0; i < n; ++i) d->cpu.push_back(std::make_unique<HostPool>(NDRT_DEVICE(NDRT_DEVICE_TYPE_CPU, i)));
    const CudaModule& m = cuda_module();
    for (int32_t i = 0; i < m.logical; ++i) d->cuda.push_back(std::make_unique<CudaPool>(m.backend, i));
    g_initialized.store(true);
    return d;
  }();
  return *t;
}

std::atomic<uint32_t> g_round_robin{0};
thread_local ndrt_device t_device = NDRT_DEVICE_CURRENT;  // unassigned

}  // namespace

const ndrt_cuda_backend* cuda_backend() { return cuda_module().backend; }

void copy_bytes(ndrt_device dst_device, void* dst, ndrt_device src_device, const void* src, size_t n) {
  if (NDRT_DEVICE_TYPE_OF(dst_device) == NDRT_DEVICE_TYPE_CPU && NDRT_DEVICE_TYPE_OF(src_device) == NDRT_DEVICE_TYPE_CPU) {
    if (n) std::memcpy(dst, src, n);
    return;
  }
  const ndrt_cuda_backend* b = cuda_backend();
  if (!b) fail(NDRT_ERR_INTERNAL, "copy to/from a cuda device without the cuda backend");
  b->copy(dst_device, dst, src_device, src, n);
}

void synchronize(ndrt_device device) {
  check_device("synchronize", device);
  if (NDRT_DEVICE_TYPE_OF(device) == NDRT_DEVICE_TYPE_CUDA) cuda_backend()->synchronize(NDRT_DEVICE_INDEX_OF(device));
}

bool devices_initialized() { return g_initialized.load(); }

std::string library_directory() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(&library_directory), &info) || !info.dli_fname) return "";
  std::string path = info.dli_fname;
  auto slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

int32_t device_count(int32_t type) {
  DeviceTable& t = table();
  if (type == NDRT_DEVICE_TYPE_CPU) return int32_t(t.cpu.size());
  if (type == NDRT_DEVICE_TYPE_CUDA) return int32_t(t.cuda.size());
  fail(NDRT_ERR_INVALID_ARGUMENT, "unknown device type %d (cpu is %d, cuda is %d)", int(type),
       NDRT_DEVICE_TYPE_CPU, NDRT_DEVICE_TYPE_CUDA);
}

bool device_exists(ndrt_device device) {
  if (device < 0) return false;
  int32_t type = NDRT_DEVICE_TYPE_OF(device), index = NDRT_DEVICE_INDEX_OF(device);
  if (type != NDRT_DEVICE_TYPE_CPU && type != NDRT_DEVICE_TYPE_CUDA) return false;
  return index < device_count(type);
}

std::string device_name(ndrt_device device) {
  int32_t type = NDRT_DEVICE_TYPE_OF(device), index = NDRT_DEVICE_INDEX_OF(device);
  const char* t = type == NDRT_DEVICE_TYPE_CPU ? "cpu" : type == NDRT_DEVICE_TYPE_CUDA ? "cuda" : "device";
  if (device < 0) return "device(" + std::to_string(device) + ")";
  return std::string(t) + ":" + std::to_string(index);
}

void check_device(const char* what, ndrt_device device) {
  if (!device_exists(device))
    fail(NDRT_ERR_INVALID_ARGUMENT, "%s: device %s is not present (%d cpu, %d cuda)", what,
         device_name(device).c_str(), int(device_count(NDRT_DEVICE_TYPE_CPU)), int(device_count(NDRT_DEVICE_TYPE_CUDA)));
}

Allocator& allocator_for(ndrt_device device) {
  check_device("allocate", device);
  if (NDRT_DEVICE_TYPE_OF(device) == NDRT_DEVICE_TYPE_CUDA) return *table().cuda[NDRT_DEVICE_INDEX_OF(device)];
  return *table().cpu[NDRT_DEVICE_INDEX_OF(device)];
}

int32_t default_device_type() {
  Config& c = config();
  bool gpu_first = c.priority_gpu.load() > c.priority_cpu.load();
  return gpu_first && device_count(NDRT_DEVICE_TYPE_CUDA) > 0 ? NDRT_DEVICE_TYPE_CUDA : NDRT_DEVICE_TYPE_CPU;
}

ndrt_device thread_device() {
  if (t_device != NDRT_DEVICE_CURRENT) return t_device;
  int32_t type = default_device_type();
  uint32_t n = uint32_t(device_count(type));
  t_device = NDRT_DEVICE(type, int32_t(g_round_robin.fetch_add(1) % n));
  return t_device;
}

void thread_attach(ndrt_device device) {
  check_device("thread_attach", device);
  t_device = device;
}

}  // namespace ndrt
