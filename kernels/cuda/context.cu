// The module's runtime context: the host table, logical -> physical devices, the calling thread's
// stream and cuBLAS/cuDNN handles per logical device, launch geometry, views and registration.
#include <cstdarg>
#include <cstdio>
#include <memory>
#include <mutex>
#include <vector>

#include "context.cuh"

namespace ndrt::cuda {

namespace {

const ndrt_cuda_host* g_host = nullptr;
void* g_registry = nullptr;  // set only while register_all runs
ndrt_cuda_register_fn g_register = nullptr;

// Per logical device: the physical GPU, its properties (read on first use), and the stream/handle
// sets of threads that have exited, kept for the next thread (streams are never destroyed while
// cached memory may still be keyed by them).
struct LogicalDevice {
  int physical = 0;
  std::once_flag props_once;
  cudaDeviceProp props{};
  std::mutex mu;
  std::vector<ThreadSlot> spare;
};
// Never destroyed: storages released during static destruction still reach their device.
std::vector<LogicalDevice*>& g_devices = *new std::vector<LogicalDevice*>;

// The calling thread's slots, one per logical device, given back to the device on thread exit.
struct ThreadSlots {
  std::vector<ThreadSlot> slot;
  ~ThreadSlots() {
    for (size_t i = 0; i < slot.size(); ++i)
      if (slot[i].stream) {
        LogicalDevice& d = *g_devices[i];
        std::lock_guard<std::mutex> lock(d.mu);
        d.spare.push_back(slot[i]);
      }
  }
};
thread_local ThreadSlots t_slots;

LogicalDevice& device(int32_t logical) {
  if (logical < 0 || size_t(logical) >= g_devices.size())
    fail(NDRT_ERR_INVALID_ARGUMENT, "cuda:%d is not a device of this process (%zu logical devices)", int(logical),
         g_devices.size());
  return *g_devices[size_t(logical)];
}

}  // namespace

const ndrt_cuda_host& host() { return *g_host; }

void bind_host(const ndrt_cuda_host* h, int32_t logical, int32_t physical_count) {
  g_host = h;
  for (int32_t i = 0; i < logical; ++i) {
    auto* d = new LogicalDevice;
    d->physical = physical_count > 0 ? i % physical_count : 0;
    g_devices.push_back(d);
  }
}

int32_t logical_count() { return int32_t(g_devices.size()); }

void fail(ndrt_status status, const char* fmt, ...) {
  char buf[1024];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, args);
  va_end(args);
  g_host->fail(status, buf);
  std::abort();  // host->fail throws; unreachable
}

void log_info(const char* fmt, ...) {
  char buf[1024];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, args);
  va_end(args);
  g_host->log(NDRT_LOG_INFO, buf);
}

void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  cudaGetLastError();  // clear a non-sticky error so the next call does not report it again
  fail(e == cudaErrorMemoryAllocation ? NDRT_ERR_OUT_OF_MEMORY : NDRT_ERR_BACKEND, "%s: CUDA error %s (%s)", what,
       cudaGetErrorName(e), cudaGetErrorString(e));
}
#if NDRT_CUDA_CUBLAS
void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) fail(NDRT_ERR_BACKEND, "%s: cuBLAS error %s", what, cublasGetStatusString(s));
}
#endif
#if NDRT_CUDA_CUDNN
void check(cudnnStatus_t s, const char* what) {
  if (s != CUDNN_STATUS_SUCCESS) fail(NDRT_ERR_BACKEND, "%s: cuDNN error %s", what, cudnnGetErrorString(s));
}
#endif

int physical(int32_t logical) { return device(logical).physical; }

ThreadSlot& thread_slot(ndrt_device d) {
  int32_t i = logical(d);
  LogicalDevice& dev = device(i);
  check(cudaSetDevice(dev.physical), "cudaSetDevice");
  if (t_slots.slot.size() <= size_t(i)) t_slots.slot.resize(g_devices.size());
  ThreadSlot& s = t_slots.slot[size_t(i)];
  if (!s.stream) {
    std::lock_guard<std::mutex> lock(dev.mu);
    if (!dev.spare.empty()) {
      s = dev.spare.back();
      dev.spare.pop_back();
    }
  }
  if (!s.stream) check(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking), "cudaStreamCreate");
  return s;
}

cudaStream_t stream(ndrt_device d) { return thread_slot(d).stream; }

cudaStream_t existing_stream(int32_t logical_device) {
  if (logical_device < 0 || t_slots.slot.size() <= size_t(logical_device)) return nullptr;
  return t_slots.slot[size_t(logical_device)].stream;
}

#if NDRT_CUDA_CUBLAS
cublasHandle_t cublas(ndrt_device d) {
  ThreadSlot& s = thread_slot(d);
  if (!s.blas) {
    check(cublasCreate(&s.blas), "cublasCreate");
    check(cublasSetStream(s.blas, s.stream), "cublasSetStream");
  }
  return s.blas;
}
#endif

#if NDRT_CUDA_CUDNN
cudnnHandle_t cudnn(ndrt_device d) {
  ThreadSlot& s = thread_slot(d);
  if (!s.dnn) {
    check(cudnnCreate(&s.dnn), "cudnnCreate");
    check(cudnnSetStream(s.dnn, s.stream), "cudnnSetStream");
  }
  return s.dnn;
}
#endif

const cudaDeviceProp& props(ndrt_device d) {
  LogicalDevice& dev = device(logical(d));
  std::call_once(dev.props_once, [&] { check(cudaGetDeviceProperties(&dev.props, dev.physical), "cudaGetDeviceProperties"); });
  return dev.props;
}

Launch launch_for(int64_t n, unsigned block) {
  int64_t max_block = host().config_int(NDRT_CUDA_CFG_MAX_BLOCK_SIZE);
  int64_t max_grid = host().config_int(NDRT_CUDA_CFG_MAX_GRID_SIZE);
  if (max_grid <= 0) max_grid = 65536;  // enough blocks to fill any current GPU many times
  if (block > max_block) block = unsigned(max_block);
  int64_t blocks = (n + block - 1) / block;
  if (blocks < 1) blocks = 1;
  if (blocks > max_grid) blocks = max_grid;
  return {unsigned(blocks), block};
}

bool matmul_allow_tf32() { return host().config_int(NDRT_CUDA_CFG_MATMUL_ALLOW_TF32) != 0; }

int64_t item_size(ndrt_dtype d) { return valid_dtype_size(d); }

const char* type_name(ndrt_dtype d) {
  static const char* const names[] = {"?", "f32", "f64", "f16", "bf16", "i8", "u8", "i32", "i64", "bool"};
  return d >= NDRT_F32 && d <= NDRT_BOOL ? names[d] : "?";
}

bool is_contiguous(const Tensor& t) {
  int64_t expect = 1;
  for (int i = t.rank() - 1; i >= 0; --i) {
    if (t.shape.d[i] == 1) continue;
    if (t.strides.d[i] != expect) return false;
    expect *= t.shape.d[i];
  }
  return true;
}

View view_of(const Tensor& t) {
  View v{};
  v.base = t.base();
  v.rank = t.rank();
  for (int i = 0; i < t.rank(); ++i) {
    v.shape[i] = t.shape.d[i];
    v.stride[i] = t.strides.d[i];
  }
  return v;
}

View broadcast_view(const Tensor& t, const Dims& shape) {
  View v{};
  v.base = t.base();
  v.rank = shape.rank;
  int off = shape.rank - t.rank();
  for (int i = 0; i < shape.rank; ++i) {
    int j = i - off;
    v.shape[i] = shape.d[i];
    v.stride[i] = (j < 0 || t.shape.d[j] == 1) ? 0 : t.strides.d[j];
  }
  return v;
}

void reg(const char* op, std::initializer_list<ndrt_dtype> dtypes, KernelFn fn, const char* impl) {
  for (ndrt_dtype d : dtypes) g_register(g_registry, op, d, reinterpret_cast<void*>(fn), impl);
}

void register_cuda_sequence_pool();  // sequence_pool.cu
void register_cuda_rnn();            // rnn.cu, rnn_gru.cu

void register_all(void* registry, ndrt_cuda_register_fn fn) {
  g_registry = registry;
  g_register = fn;
  register_cuda_creation();
  register_cuda_elementwise();
  register_cuda_reduce();
#if NDRT_CUDA_CUBLAS
  register_cuda_linalg();
  register_cuda_rnn();
#else
  register_unavailable_cublas();
#endif
  register_cuda_random();
  register_cuda_layout();
  register_cuda_softmax_loss();
#if NDRT_CUDA_CUDNN
  register_cuda_conv();
#else
  register_unavailable_cudnn();
#endif
  register_cuda_conv_pool();
  register_cuda_norm();
  register_cuda_updaters();
  register_cuda_sequence_pool();
  g_registry = nullptr;
}

}  // namespace ndrt::cuda
