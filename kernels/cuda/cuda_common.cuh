// What every CUDA kernel file of libndrt_cuda.so shares: errors, the calling thread's stream and
// library handles for a logical device, stream-ordered scratch memory, launch geometry bounded by
// configuration, strided views passed to kernels by value, dtype -> device type mapping, and
// kernel registration.
//
// The module is loaded with dlopen and may only call libndrt through the host table
// (ndrt_cuda_host): it is linked with -z defs, so a stray call to a libndrt function (ndrt::fail,
// dtype_size, Tensor::is_contiguous, ...) is a link error, not a load failure on the GPU machine.
// Use the functions below instead.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
// NDRT_CUDA_CUBLAS / NDRT_CUDA_CUDNN: 1 when the toolkit had the library at configure time (the
// top CMakeLists.txt); the files that need one are built only with it.
#if NDRT_CUDA_CUBLAS
#include <cublas_v2.h>
#endif
#if NDRT_CUDA_CUDNN
#include <cudnn.h>
#endif

#include <cstdint>
#include <initializer_list>

#include "cuda_backend.hpp"
#include "value_rules.hpp"
#include "registry.hpp"

namespace ndrt::cuda {

// ---- errors ------------------------------------------------------------------------------------
// Throws (from libndrt, through the host table) an ndrt::Error with the formatted message.
[[noreturn]] void fail(ndrt_status status, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
// NDRT_ERR_BACKEND naming `what` and CUDA's message when e != cudaSuccess.
void check(cudaError_t e, const char* what);
#if NDRT_CUDA_CUBLAS
void check(cublasStatus_t s, const char* what);
#endif
#if NDRT_CUDA_CUDNN
void check(cudnnStatus_t s, const char* what);
#endif
// After a <<<...>>> launch: reports a bad launch configuration at once (not at the next sync).
inline void check_launch(const char* what) { check(cudaGetLastError(), what); }
void log_info(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// ---- devices, streams, handles -----------------------------------------------------------------
// Logical device index of an ndrt_device (cuda:N -> N).
inline int32_t logical(ndrt_device d) { return NDRT_DEVICE_INDEX_OF(d); }
// Makes the physical GPU behind logical device d current on this thread and returns this thread's
// stream for d (created on first use; every (thread, logical device) pair has its own stream).
cudaStream_t stream(ndrt_device d);
inline cudaStream_t stream(const OpContext& c) { return stream(c.device); }
// This thread's cuBLAS / cuDNN handle for d, bound to stream(d).
#if NDRT_CUDA_CUBLAS
cublasHandle_t cublas(ndrt_device d);
#endif
#if NDRT_CUDA_CUDNN
cudnnHandle_t cudnn(ndrt_device d);
#endif
// Properties of the physical GPU behind d.
const cudaDeviceProp& props(ndrt_device d);

// ---- memory ------------------------------------------------------------------------------------
// Device memory from the caching allocator, ordered on this thread's stream for `device`: it may be
// freed as soon as the kernels that use it are enqueued (the next user of the block on that stream
// runs after them). Never null for n > 0; throws NDRT_ERR_OUT_OF_MEMORY.
void* device_alloc(int32_t logical_device, size_t n);
void device_free(int32_t logical_device, void* p, size_t n);
struct Scratch {
  Scratch(ndrt_device d, size_t n) : dev(logical(d)), bytes(n), ptr(device_alloc(dev, n)) {}
  ~Scratch() { device_free(dev, ptr, bytes); }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  template <class T> T* as() const { return static_cast<T*>(ptr); }
  int32_t dev;
  size_t bytes;
  void* ptr;
};

// ---- launch geometry ---------------------------------------------------------------------------
// Threads per block and blocks per grid for n independent items, within the configured limits
// (cuda.max_block_size, cuda.max_grid_size); kernels loop grid-stride over what is left.
struct Launch {
  unsigned grid, block;
};
Launch launch_for(int64_t n, unsigned block = 256);
// cuda.matmul.allow_tf32: whether f32 GEMMs may compute in TF32 (read at each call).
bool matmul_allow_tf32();

// ---- tensors -----------------------------------------------------------------------------------
// dtype sizes and names without calling libndrt.
int64_t item_size(ndrt_dtype d);
const char* type_name(ndrt_dtype d);
bool is_contiguous(const Tensor& t);

// A strided view by value, for kernels. offset_of(i) maps the row-major linear index i of the view's
// shape to an element offset from base. Broadcasting: build with the output's shape
// (strides 0 on broadcast axes).
struct View {
  char* base;
  int32_t rank;
  int64_t shape[NDRT_MAX_RANK];
  int64_t stride[NDRT_MAX_RANK];  // elements
  __host__ __device__ int64_t offset_of(int64_t i) const {
    int64_t off = 0;
    for (int d = rank - 1; d >= 0; --d) {
      int64_t q = i / shape[d];
      off += (i - q * shape[d]) * stride[d];
      i = q;
    }
    return off;
  }
  template <class T> __device__ T& at(int64_t i) const { return reinterpret_cast<T*>(base)[offset_of(i)]; }
};
View view_of(const Tensor& t);
// t seen with `shape` (t broadcasts to it numpy-style: missing or size-1 axes get stride 0).
View broadcast_view(const Tensor& t, const Dims& shape);

// ---- dtypes ------------------------------------------------------------------------------------
// Device storage type of an ndrt dtype, and the type arithmetic runs in (f16/bf16 compute in
// float, as on the CPU).
template <ndrt_dtype D> struct DType;
template <> struct DType<NDRT_F32> { using type = float; using compute = float; };
template <> struct DType<NDRT_F64> { using type = double; using compute = double; };
template <> struct DType<NDRT_F16> { using type = __half; using compute = float; };
template <> struct DType<NDRT_BF16> { using type = __nv_bfloat16; using compute = float; };
template <> struct DType<NDRT_I8> { using type = int8_t; using compute = int32_t; };
template <> struct DType<NDRT_U8> { using type = uint8_t; using compute = int32_t; };
template <> struct DType<NDRT_I32> { using type = int32_t; using compute = int32_t; };
template <> struct DType<NDRT_I64> { using type = int64_t; using compute = int64_t; };
template <> struct DType<NDRT_BOOL> { using type = bool; using compute = bool; };
template <class T> struct Compute { using type = T; };
template <> struct Compute<__half> { using type = float; };
template <> struct Compute<__nv_bfloat16> { using type = float; };
template <> struct Compute<int8_t> { using type = int32_t; };
template <> struct Compute<uint8_t> { using type = int32_t; };
template <class T> using compute_t = typename Compute<T>::type;

// Conversions that work for every storage type, host and device (f16/bf16 round to nearest even).
template <class To, class From>
__host__ __device__ inline To convert(From v) {
  // From double: one rounding straight to 16 bits (through float would round twice).
  if constexpr (std::is_same_v<To, __half> && std::is_same_v<From, double>) return __double2half(v);
  else if constexpr (std::is_same_v<To, __nv_bfloat16> && std::is_same_v<From, double>) return __double2bfloat16(v);
  else if constexpr (std::is_same_v<To, __half>) return __float2half_rn(float(v));
  else if constexpr (std::is_same_v<To, __nv_bfloat16>) return __float2bfloat16_rn(float(v));
  else if constexpr (std::is_same_v<From, __half>) return To(__half2float(v));
  else if constexpr (std::is_same_v<From, __nv_bfloat16>) return To(__bfloat162float(v));
  else return To(v);
}

// Calls f(T{}) with the device storage type of d, for the listed dtypes only (others: NOT_SUPPORTED).
template <ndrt_dtype... Ds, class F>
void visit(ndrt_dtype d, const char* what, F&& f) {
  bool done = ((d == Ds ? (f(typename DType<Ds>::type{}), true) : false) || ...);
  if (!done) fail(NDRT_ERR_NOT_SUPPORTED, "%s: no cuda kernel for dtype %s", what, type_name(d));
}

// ---- registration ------------------------------------------------------------------------------
// Registers fn as the cuda kernel of `op` for each dtype; `impl` names the implementation for the
// profiler ("cuda", "cublas", "cudnn", ...). An unknown op name is an error at load.
void reg(const char* op, std::initializer_list<ndrt_dtype> dtypes, KernelFn fn, const char* impl);

// Kernel families (one file each): each registers its kernels with reg().
void register_cuda_creation();
void register_cuda_elementwise();
void register_cuda_reduce();
void register_cuda_linalg();
void register_cuda_random();
void register_cuda_layout();
void register_cuda_softmax_loss();
void register_cuda_conv();
void register_cuda_conv_pool();
void register_cuda_norm();
void register_cuda_updaters();
// The ops of a library this module was built without: their kernels report NDRT_ERR_NOT_SUPPORTED.
void register_unavailable_cublas();
void register_unavailable_cudnn();

}  // namespace ndrt::cuda
