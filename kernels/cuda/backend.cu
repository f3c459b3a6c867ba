// libndrt_cuda.so: the CUDA backend module, loaded by libndrt with dlopen on first device use.
// This file is the exported table (cuda_backend.hpp): device enumeration, initialisation, kernel
// registration, the allocator entry points, copies and synchronisation.
#include <cstdio>
#include <cstring>
#include <mutex>
#include <set>
#include <utility>

#include "context.cuh"

namespace ndrt::cuda {
namespace {

constexpr size_t kStagingBytes = size_t(4) << 20;

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

void init(const ndrt_cuda_host* h, int32_t logical) {
  char why[256] = "";
  int32_t physical_count = device_count(why, sizeof why);
  bind_host(h, logical, physical_count);
  init_pools(logical);
}

void register_kernels(void* registry, ndrt_cuda_register_fn fn) { register_all(registry, fn); }

void* alloc(int32_t logical, size_t n) { return device_alloc(logical, n); }
void free_block(int32_t logical, void* p, size_t n) { device_free(logical, p, n); }
void memory_stats(int32_t logical, ndrt_memory_stats* out) { pool_stats(logical, out); }
void trim(int32_t logical) { pool_trim(logical); }
void reset_peak(int32_t logical) { pool_reset_peak(logical); }

bool is_cuda(ndrt_device d) { return NDRT_DEVICE_TYPE_OF(d) == NDRT_DEVICE_TYPE_CUDA; }

void ensure_staging(ThreadSlot& s) {
  if (s.staging[0]) return;
  for (int i = 0; i < 2; ++i) {
    check(cudaHostAlloc(&s.staging[i], kStagingBytes, cudaHostAllocPortable), "cudaHostAlloc (staging)");
    check(cudaEventCreateWithFlags(&s.staged[i], cudaEventDisableTiming), "cudaEventCreate");
  }
}

// Host -> device through the pinned buffers: the caller's buffer is free again on return.
void host_to_device(ndrt_device dev, void* dst, const void* src, size_t n) {
  ThreadSlot& s = thread_slot(dev);
  ensure_staging(s);
  for (size_t done = 0, k = 0; done < n; ++k) {
    size_t len = std::min(kStagingBytes, n - done);
    int b = int(k & 1);
    check(cudaEventSynchronize(s.staged[b]), "staging wait");  // its previous copy has left
    std::memcpy(s.staging[b], static_cast<const char*>(src) + done, len);
    check(cudaMemcpyAsync(static_cast<char*>(dst) + done, s.staging[b], len, cudaMemcpyHostToDevice, s.stream),
          "copy to device");
    check(cudaEventRecord(s.staged[b], s.stream), "cudaEventRecord");
    done += len;
  }
}

// Device -> host: ordered after the thread's pending work on the device; returns with dst filled.
void device_to_host(ndrt_device dev, void* dst, const void* src, size_t n) {
  ThreadSlot& s = thread_slot(dev);
  ensure_staging(s);
  size_t pending_at = 0, pending_len = 0;
  int pending_buf = -1;
  for (size_t done = 0, k = 0; done < n || pending_buf >= 0; ++k) {
    int b = int(k & 1);
    size_t len = std::min(kStagingBytes, n - done);
    if (len) {
      check(cudaMemcpyAsync(s.staging[b], static_cast<const char*>(src) + done, len, cudaMemcpyDeviceToHost, s.stream),
            "copy to host");
      check(cudaEventRecord(s.staged[b], s.stream), "cudaEventRecord");
    }
    if (pending_buf >= 0) {  // drain the previous chunk while this one is on the wire
      check(cudaEventSynchronize(s.staged[pending_buf]), "copy to host");
      std::memcpy(static_cast<char*>(dst) + pending_at, s.staging[pending_buf], pending_len);
    }
    pending_buf = len ? b : -1;
    pending_at = done;
    pending_len = len;
    done += len;
  }
}

void enable_peer_access(int from, int to) {
  static std::mutex mu;
  static std::set<std::pair<int, int>> done;
  std::lock_guard<std::mutex> lock(mu);
  if (!done.insert({from, to}).second) return;
  int can = 0;
  if (cudaDeviceCanAccessPeer(&can, from, to) == cudaSuccess && can) {
    cudaSetDevice(from);
    cudaDeviceEnablePeerAccess(to, 0);
    cudaGetLastError();  // already enabled is fine
  }
}

// Device -> device on the destination's stream, after the source stream's pending work; the source
// stream then waits for the copy, so the source block is not reused under it.
void device_to_device(ndrt_device dst_dev, void* dst, ndrt_device src_dev, const void* src, size_t n) {
  cudaStream_t src_stream = stream(src_dev);
  if (dst_dev == src_dev) {
    check(cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToDevice, src_stream), "copy on device");
    return;
  }
  int src_phys = physical(logical(src_dev)), dst_phys = physical(logical(dst_dev));
  cudaEvent_t src_ready, copied;
  check(cudaEventCreateWithFlags(&src_ready, cudaEventDisableTiming), "cudaEventCreate");
  check(cudaEventRecord(src_ready, src_stream), "cudaEventRecord");
  cudaStream_t dst_stream = stream(dst_dev);  // makes the destination GPU current
  check(cudaStreamWaitEvent(dst_stream, src_ready, 0), "cudaStreamWaitEvent");
  if (src_phys == dst_phys) {
    check(cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToDevice, dst_stream), "copy between devices");
  } else {
    enable_peer_access(dst_phys, src_phys);
    cudaSetDevice(dst_phys);
    check(cudaMemcpyPeerAsync(dst, dst_phys, src, src_phys, n, dst_stream), "peer copy");
  }
  check(cudaEventCreateWithFlags(&copied, cudaEventDisableTiming), "cudaEventCreate");
  check(cudaEventRecord(copied, dst_stream), "cudaEventRecord");
  check(cudaStreamWaitEvent(stream(src_dev), copied, 0), "cudaStreamWaitEvent");
  cudaEventDestroy(src_ready);  // released once the recorded work completes
  cudaEventDestroy(copied);
}

void copy(ndrt_device dst_dev, void* dst, ndrt_device src_dev, const void* src, size_t n) {
  if (n == 0) return;
  if (is_cuda(dst_dev) && is_cuda(src_dev)) return device_to_device(dst_dev, dst, src_dev, src, n);
  if (is_cuda(dst_dev)) return host_to_device(dst_dev, dst, src, n);
  if (is_cuda(src_dev)) return device_to_host(src_dev, dst, src, n);
  fail(NDRT_ERR_INTERNAL, "cuda copy asked for a host-to-host copy");
}

void synchronize(int32_t logical_device) {
  check(cudaStreamSynchronize(stream(NDRT_DEVICE(NDRT_DEVICE_TYPE_CUDA, logical_device))), "synchronize");
}

ndrt_device cuda_device(int32_t logical_device) { return NDRT_DEVICE(NDRT_DEVICE_TYPE_CUDA, logical_device); }

void* event_record(int32_t logical_device) {
  cudaStream_t s = stream(cuda_device(logical_device));
  cudaEvent_t e;
  check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
  cudaError_t r = cudaEventRecord(e, s);
  if (r != cudaSuccess) cudaEventDestroy(e);
  check(r, "cudaEventRecord");
  return e;
}
void event_wait(void* e, int32_t logical_device) {
  check(cudaStreamWaitEvent(stream(cuda_device(logical_device)), static_cast<cudaEvent_t>(e), 0), "cudaStreamWaitEvent");
}
void event_synchronize(void* e) { check(cudaEventSynchronize(static_cast<cudaEvent_t>(e)), "cudaEventSynchronize"); }
int32_t event_query(void* e) {
  cudaError_t r = cudaEventQuery(static_cast<cudaEvent_t>(e));
  if (r == cudaErrorNotReady) {
    cudaGetLastError();
    return 0;
  }
  check(r, "cudaEventQuery");
  return 1;
}
void event_destroy(void* e) { cudaEventDestroy(static_cast<cudaEvent_t>(e)); }

const ndrt_cuda_backend kBackend = {1,           device_count,      device_props, init,         register_kernels,
                                    alloc,       free_block,        memory_stats, trim,         reset_peak,
                                    copy,        synchronize,       event_record, event_wait,   event_synchronize,
                                    event_query, event_destroy};

}  // namespace
}  // namespace ndrt::cuda

extern "C" __attribute__((visibility("default"))) const ndrt_cuda_backend* ndrt_cuda_backend_v1(void) {
  return &ndrt::cuda::kBackend;
}
