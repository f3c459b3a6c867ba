#include "device.hpp"

#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <vector>

#include "config.hpp"
#include "cuda_backend.hpp"
#include "error.hpp"

namespace ndrt {

namespace {

struct DeviceTable {
  std::vector<std::unique_ptr<Allocator>> cpu;  // one pool per (virtual) cpu device
  int32_t cuda_count = 0;
};

std::atomic<bool> g_initialized{false};

// Directory of libndrt itself, to find libndrt_cuda.so beside it.
std::string own_directory() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(&own_directory), &info) || !info.dli_fname) return "";
  std::string path = info.dli_fname;
  auto slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

const ndrt_cuda_backend* load_cuda_backend() {
  const char* env = std::getenv("NDRT_CUDA_BACKEND");
  std::string path = env ? env : own_directory() + "libndrt_cuda.so";
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    log(NDRT_LOG_INFO, "cuda backend not loaded (%s): 0 cuda devices", dlerror());
    return nullptr;
  }
  auto entry = reinterpret_cast<ndrt_cuda_backend_entry>(dlsym(lib, "ndrt_cuda_backend_v1"));
  const ndrt_cuda_backend* b = entry ? entry() : nullptr;
  if (!b || b->version != 1) {
    log(NDRT_LOG_WARN, "%s is not an ndrt cuda backend of version 1: 0 cuda devices", path.c_str());
    return nullptr;
  }
  return b;  // the library stays loaded for the life of the process
}

DeviceTable& table() {
  static DeviceTable* t = [] {
    auto* d = new DeviceTable;  // never destroyed: storages may outlive static destruction
    int32_t n = config().cpu_virtual_devices.load();
    for (int32_t i = 0; i < n; ++i) d->cpu.push_back(std::make_unique<HostPool>(NDRT_DEVICE(NDRT_DEVICE_TYPE_CPU, i)));
    if (const ndrt_cuda_backend* b = cuda_backend()) {
      char why[256] = "";
      d->cuda_count = b->device_count(why, sizeof why);
      if (d->cuda_count == 0) log(NDRT_LOG_INFO, "0 cuda devices: %s", why);
    }
    g_initialized.store(true);
    return d;
  }();
  return *t;
}

std::atomic<uint32_t> g_round_robin{0};
thread_local ndrt_device t_device = NDRT_DEVICE_CURRENT;  // unassigned

}  // namespace

const ndrt_cuda_backend* cuda_backend() {
  static const ndrt_cuda_backend* b = load_cuda_backend();
  return b;
}

bool devices_initialized() { return g_initialized.load(); }

int32_t device_count(int32_t type) {
  DeviceTable& t = table();
  if (type == NDRT_DEVICE_TYPE_CPU) return int32_t(t.cpu.size());
  if (type == NDRT_DEVICE_TYPE_CUDA) return t.cuda_count;
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
  if (NDRT_DEVICE_TYPE_OF(device) == NDRT_DEVICE_TYPE_CUDA)
    fail(NDRT_ERR_NOT_SUPPORTED, "cuda memory is not implemented in this build yet (%s)", device_name(device).c_str());
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
