// What the random, layout and updaters CUDA files share: index spaces over K strided operands
// (axes coalesced on the host, as kernels/cpu/layout_common.hpp's Axes), the CPU's exact
// double -> storage conversion (kernels/cpu/convert.hpp), and dispatch by element size.
#pragma once
#include <cmath>
#include <cstring>
#include <type_traits>

#include "cuda_common.cuh"

namespace ndrt::cuda {

void register_cuda_layout_index();  // layout_index.cu: gather, gather_bp, scatter, scatter_add, one_hot

namespace strided {

// Address of element [0,..,0]. Tensor::base() is not usable in the module: itemsize() calls
// dtype_size in libndrt, a link error under -z defs.
inline char* base_of(const Tensor& t) { return static_cast<char*>(t.storage->data) + t.offset * item_size(t.dtype); }

// An index space of K operands, outermost axis first. Size-1 axes are dropped and an axis merges
// into the previous one when every operand allows it, so row-major order is kept and dense
// operands collapse to rank 1 (then offsets() divides nothing).
template <int K>
struct Walk {
  int32_t rank = 0;
  int64_t shape[NDRT_MAX_RANK];
  int64_t stride[K][NDRT_MAX_RANK];

  // Host: appends an axis of extent n with operand strides s (elements).
  void push(int64_t n, const int64_t (&s)[K]) {
    if (n == 1) return;
    if (rank > 0) {
      bool merge = true;
      for (int k = 0; k < K; ++k) merge &= stride[k][rank - 1] == s[k] * n;
      if (merge) {
        shape[rank - 1] *= n;
        for (int k = 0; k < K; ++k) stride[k][rank - 1] = s[k];
        return;
      }
    }
    shape[rank] = n;
    for (int k = 0; k < K; ++k) stride[k][rank] = s[k];
    ++rank;
  }

  // Element offsets of the operands at row-major position i of the space.
  __host__ __device__ __forceinline__ void offsets(int64_t i, int64_t (&off)[K]) const {
    for (int k = 0; k < K; ++k) off[k] = 0;
    for (int d = rank - 1; d > 0; --d) {
      int64_t q;
      // 32-bit division where it suffices: 64-bit division is a long emulated sequence.
      if (((uint64_t(i) | uint64_t(shape[d])) >> 32) == 0)
        q = int64_t(uint32_t(i) / uint32_t(shape[d]));
      else
        q = i / shape[d];
      const int64_t r = i - q * shape[d];
      for (int k = 0; k < K; ++k) off[k] += r * stride[k][d];
      i = q;
    }
    if (rank > 0)
      for (int k = 0; k < K; ++k) off[k] += i * stride[k][0];
  }
};

// Grid-stride loop bounds of the calling thread.
__device__ __forceinline__ int64_t first_index() { return int64_t(blockIdx.x) * blockDim.x + threadIdx.x; }
__device__ __forceinline__ int64_t grid_step() { return int64_t(gridDim.x) * blockDim.x; }

using rules::float_round_odd;

// A double rounded once to storage type T, exactly as the CPU's convert<T>(double) (cuda::convert
// goes through a nearest float first, which double-rounds for f16/bf16).
template <class T>
__host__ __device__ inline T from_double(double v) {
  if constexpr (std::is_same_v<T, __half>) return __float2half_rn(float_round_odd(v));
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return __float2bfloat16_rn(float_round_odd(v));
  else if constexpr (std::is_same_v<T, bool>) return v != 0.0;
  else if constexpr (std::is_integral_v<T>) return rules::float_to_int<T>(v);
  else return static_cast<T>(v);
}

// The bits of `v` converted to dtype d (cast rules, host), in the low bytes.
inline uint64_t value_bits(ndrt_dtype d, double v) {
  uint64_t bits = 0;
  auto put = [&](auto x) { std::memcpy(&bits, &x, sizeof x); };
  switch (d) {
    case NDRT_F32: put(static_cast<float>(v)); break;
    case NDRT_F64: put(v); break;
    case NDRT_F16: put(from_double<__half>(v)); break;
    case NDRT_BF16: put(from_double<__nv_bfloat16>(v)); break;
    case NDRT_I8: put(from_double<int8_t>(v)); break;
    case NDRT_U8: put(from_double<uint8_t>(v)); break;
    case NDRT_I32: put(from_double<int32_t>(v)); break;
    case NDRT_I64: put(from_double<int64_t>(v)); break;
    default: put(uint8_t(v != 0.0)); break;
  }
  return bits;
}

// Calls f(Word{}) with the unsigned word of an element size: moves are instantiated per size.
template <class F>
void by_word(ndrt_dtype d, F&& f) {
  switch (item_size(d)) {
    case 1: return f(uint8_t{});
    case 2: return f(uint16_t{});
    case 4: return f(uint32_t{});
    default: return f(uint64_t{});
  }
}

// Calls f(I{}) for an index dtype (i32 or i64; inference has checked it).
template <class F>
void by_index(ndrt_dtype d, F&& f) {
  if (d == NDRT_I32) return f(int32_t{});
  return f(int64_t{});
}

template <class Word>
inline Word word_of(uint64_t bits) {
  Word w;
  std::memcpy(&w, &bits, sizeof w);
  return w;
}

}  // namespace strided
}  // namespace ndrt::cuda
