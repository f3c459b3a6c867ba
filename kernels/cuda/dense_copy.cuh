// Dense access for the linalg, conv and norm CUDA kernels (the CUDA side of the cpu's
// norm_dense.hpp / conv_dense): libraries (cuBLAS, cuDNN) and multi-pass kernels want packed
// operands, so an input given as a strided view is packed once into stream-ordered scratch and an
// output given as a strided view is computed into scratch and copied out at the end. Contiguous
// tensors (the common case) are used as they are. Copies move bits, so they dispatch on the
// element size only (three kernels serve every dtype).
#pragma once
#include <optional>

#include "cuda_common.cuh"

namespace ndrt::cuda::dense {

// Address of element [0,..,0]. (Tensor::base() calls libndrt's dtype_size: a link error here.)
inline char* base_of(const Tensor& t) { return static_cast<char*>(t.storage->data) + t.offset * item_size(t.dtype); }

// A row-major dense view of `shape` at p.
inline View packed_view(void* p, const Dims& shape) {
  View v{};
  v.base = static_cast<char*>(p);
  v.rank = shape.rank;
  int64_t s = 1;
  for (int i = shape.rank - 1; i >= 0; --i) {
    v.shape[i] = shape.d[i];
    v.stride[i] = s;
    s *= shape.d[i];
  }
  return v;
}

// The tensor's own view (strides as given).
inline View strided_view(const Tensor& t) {
  View v{};
  v.base = base_of(t);
  v.rank = t.rank();
  for (int i = 0; i < t.rank(); ++i) {
    v.shape[i] = t.shape.d[i];
    v.stride[i] = t.strides.d[i];
  }
  return v;
}

// t seen with `shape` by numpy broadcasting (missing or size-1 axes read with stride 0).
inline View broadcast_to(const Tensor& t, const Dims& shape) {
  View v{};
  v.base = base_of(t);
  v.rank = shape.rank;
  const int off = shape.rank - t.rank();
  for (int i = 0; i < shape.rank; ++i) {
    const int j = i - off;
    v.shape[i] = shape.d[i];
    v.stride[i] = (j < 0 || t.shape.d[j] == 1) ? 0 : t.strides.d[j];
  }
  return v;
}

// Storage type of a given element size (copies and zero fills move bits).
template <int Bytes> struct Bits;
template <> struct Bits<1> { using type = uint8_t; };
template <> struct Bits<2> { using type = uint16_t; };
template <> struct Bits<4> { using type = uint32_t; };
template <> struct Bits<8> { using type = uint64_t; };

// Grid-stride loops: for (int64_t i = first_index(); i < n; i += grid_step()).
__device__ inline int64_t first_index() { return blockIdx.x * int64_t(blockDim.x) + threadIdx.x; }
__device__ inline int64_t grid_step() { return int64_t(gridDim.x) * blockDim.x; }

template <class B>
__global__ void copy_view_kernel(View dst, View src, int64_t n) {
  for (int64_t i = first_index(); i < n; i += grid_step()) dst.at<B>(i) = src.at<B>(i);
}

template <class B>
__global__ void zero_view_kernel(View dst, int64_t n) {
  for (int64_t i = first_index(); i < n; i += grid_step()) dst.at<B>(i) = B(0);
}

template <class F>
void by_size(int64_t item, F&& f) {
  switch (item) {
    case 1: return f(Bits<1>::type{});
    case 2: return f(Bits<2>::type{});
    case 4: return f(Bits<4>::type{});
    default: return f(Bits<8>::type{});
  }
}

// Whether v (over n elements) is row-major dense.
inline bool is_packed(const View& v) {
  int64_t s = 1;
  for (int i = v.rank - 1; i >= 0; --i) {
    if (v.shape[i] != 1 && v.stride[i] != s) return false;
    s *= v.shape[i];
  }
  return true;
}

// dst[i] = src[i] for the n elements of two views of the same logical shape.
inline void copy(const OpContext& c, const View& dst, const View& src, int64_t n, int64_t item) {
  if (n <= 0) return;
  cudaStream_t st = stream(c);
  if (is_packed(dst) && is_packed(src)) {
    check(cudaMemcpyAsync(dst.base, src.base, size_t(n * item), cudaMemcpyDeviceToDevice, st), "dense copy");
    return;
  }
  const Launch l = launch_for(n);
  by_size(item, [&](auto b) {
    copy_view_kernel<decltype(b)><<<l.grid, l.block, 0, st>>>(dst, src, n);
  });
  check_launch("dense copy");
}

// Writes zeros (all bits clear: 0.0 for every float type) to every element of t.
inline void zero(const OpContext& c, const Tensor& t) {
  const int64_t n = t.numel();
  if (n <= 0) return;
  cudaStream_t st = stream(c);
  if (is_contiguous(t)) {
    check(cudaMemsetAsync(base_of(t), 0, size_t(n * item_size(t.dtype)), st), "zero fill");
    return;
  }
  const View v = strided_view(t);
  const Launch l = launch_for(n);
  by_size(item_size(t.dtype), [&](auto b) { zero_view_kernel<decltype(b)><<<l.grid, l.block, 0, st>>>(v, n); });
  check_launch("zero fill");
}

// An input as a packed row-major array: the tensor itself when contiguous, else a packed copy.
struct In {
  std::optional<Scratch> own;
  const char* p = nullptr;
  In(const OpContext& c, const Tensor& t) {
    const int64_t n = t.numel();
    if (n == 0 || is_contiguous(t)) {
      p = base_of(t);
      return;
    }
    const int64_t item = item_size(t.dtype);
    own.emplace(c.device, size_t(n * item));
    copy(c, packed_view(own->ptr, t.shape), strided_view(t), n, item);
    p = static_cast<const char*>(own->ptr);
  }
  template <class T> const T* as() const { return reinterpret_cast<const T*>(p); }
};

// An output written as a packed row-major array: the tensor itself when contiguous, else scratch
// that finish() copies into the view.
struct Out {
  const OpContext& c;
  const Tensor& t;
  std::optional<Scratch> own;
  char* p = nullptr;
  Out(const OpContext& ctx, const Tensor& out) : c(ctx), t(out) {
    const int64_t n = out.numel();
    if (n == 0 || is_contiguous(out)) {
      p = base_of(out);
      return;
    }
    own.emplace(ctx.device, size_t(n * item_size(out.dtype)));
    p = static_cast<char*>(own->ptr);
  }
  template <class T> T* as() const { return reinterpret_cast<T*>(p); }
  void finish() {
    if (own) copy(c, strided_view(t), packed_view(own->ptr, t.shape), t.numel(), item_size(t.dtype));
  }
};

}  // namespace ndrt::cuda::dense
