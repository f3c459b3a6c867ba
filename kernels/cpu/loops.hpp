// Strided elementwise iteration shared by the cpu kernels. N operands (output first) all span the
// output's shape; broadcast inputs carry stride 0. Axes that are contiguous for every operand are
// merged, so a dense or scalar-broadcast op becomes one flat loop the compiler vectorises.
#pragma once
#include <array>
#include <cstdint>

#include "parallel.hpp"
#include "tensor.hpp"

namespace ndrt {

// The arithmetic type for a storage type: f16/bf16 load into float, compute, and round back to
// nearest even on store (static_cast<T>(float)); every other type computes in itself.
template <class T> struct ComputeType { using type = T; };
template <> struct ComputeType<Half> { using type = float; };
template <> struct ComputeType<BFloat16> { using type = float; };
template <class T> using compute_t = typename ComputeType<T>::type;

template <int N>
struct Loop {
  int rank = 0;  // >= 1 after build (a scalar is one axis of size 1)
  int64_t shape[NDRT_MAX_RANK];
  int64_t stride[N][NDRT_MAX_RANK];  // elements
  char* base[N];
  int64_t item[N];
  int64_t numel() const {
    int64_t n = 1;
    for (int i = 0; i < rank; ++i) n *= shape[i];
    return n;
  }
};

// Strides of `t` seen with `shape` (t broadcasts to shape: missing/size-1 axes get stride 0).
inline void broadcast_strides(const Tensor& t, const Dims& shape, int64_t* out) {
  int off = shape.rank - t.rank();
  for (int i = 0; i < shape.rank; ++i) {
    int j = i - off;
    out[i] = (j < 0 || t.shape.d[j] == 1) ? 0 : t.strides.d[j];
  }
}

template <int N>
Loop<N> make_loop(const Tensor& out, const std::array<const Tensor*, N - 1>& ins) {
  Loop<N> L;
  const Dims& s = out.shape;
  int64_t st[N][NDRT_MAX_RANK];
  for (int i = 0; i < s.rank; ++i) st[0][i] = out.strides.d[i];
  for (int k = 1; k < N; ++k) broadcast_strides(*ins[k - 1], s, st[k]);
  L.base[0] = out.base();
  L.item[0] = out.itemsize();
  for (int k = 1; k < N; ++k) {
    L.base[k] = ins[k - 1]->base();
    L.item[k] = ins[k - 1]->itemsize();
  }
  // Drop size-1 axes, then merge an axis into the next inner one when every operand allows it.
  int r = 0;
  for (int i = 0; i < s.rank; ++i) {
    if (s.d[i] == 1) continue;
    if (r > 0) {
      bool merge = true;
      for (int k = 0; k < N; ++k) {  // a caller's stride times an extent may not fit int64
        int64_t outer;
        merge &= checked_mul(st[k][i], s.d[i], outer) && L.stride[k][r - 1] == outer;
      }
      if (merge) {
        L.shape[r - 1] *= s.d[i];
        for (int k = 0; k < N; ++k) L.stride[k][r - 1] = st[k][i];
        continue;
      }
    }
    L.shape[r] = s.d[i];
    for (int k = 0; k < N; ++k) L.stride[k][r] = st[k][i];
    ++r;
  }
  if (r == 0) {  // all axes size 1: one element
    L.shape[0] = 1;
    for (int k = 0; k < N; ++k) L.stride[k][0] = 1;
    r = 1;
  }
  L.rank = r;
  return L;
}

// Calls row(ptrs, n, inner_strides) over runs along the innermost axis covering flat indices
// [begin, end) of the loop, in row-major order.
template <int N, class Row>
void for_rows(const Loop<N>& L, int64_t begin, int64_t end, Row&& row) {
  int r = L.rank;
  int64_t idx[NDRT_MAX_RANK];
  int64_t rem = begin;
  for (int i = r - 1; i >= 0; --i) {
    idx[i] = rem % L.shape[i];
    rem /= L.shape[i];
  }
  char* p[N];
  int64_t inner[N];
  for (int k = 0; k < N; ++k) {
    int64_t off = 0;
    for (int i = 0; i < r; ++i) off += idx[i] * L.stride[k][i];
    p[k] = L.base[k] + off * L.item[k];
    inner[k] = L.stride[k][r - 1];
  }
  int64_t pos = begin;
  while (pos < end) {
    int64_t n = L.shape[r - 1] - idx[r - 1];
    if (n > end - pos) n = end - pos;
    row(p, n, inner);
    pos += n;
    if (pos >= end) break;
    // Advance: finish this row, carry into outer axes.
    for (int k = 0; k < N; ++k) p[k] += (n - 0) * inner[k] * L.item[k];
    idx[r - 1] += n;
    for (int i = r - 1; i > 0 && idx[i] == L.shape[i]; --i) {
      for (int k = 0; k < N; ++k) p[k] += (L.stride[k][i - 1] - L.shape[i] * L.stride[k][i]) * L.item[k];
      idx[i] = 0;
      ++idx[i - 1];
    }
  }
}

constexpr int64_t kElementwiseGrain = 32768;

// Runs row() over the whole loop, split across the intra-op pool for large tensors.
template <int N, class Row>
void run_loop(const Loop<N>& L, Row&& row) {
  parallel_for(L.numel(), kElementwiseGrain, [&](int64_t b, int64_t e) { for_rows(L, b, e, row); });
}

}  // namespace ndrt
