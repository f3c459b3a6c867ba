// Rows along one axis of K tensors of one shape (softmax and the class losses): every index of the
// other axes is one row of n elements; the rows are numbered row-major over the other axes, and
// each row is one block of work (along-dimension parallelism).
#pragma once
#include <array>
#include <cstdint>

#include "loops.hpp"

namespace ndrt {

void register_cpu_softmax_loss_class(Registry& r);      // kernels/cpu/softmax_loss_class.cpp
void register_cpu_softmax_loss_pointwise(Registry& r);  // kernels/cpu/softmax_loss_pointwise.cpp

namespace red {

// Elements of work per parallel chunk for row kernels (rows are never split).
constexpr int64_t kRowGrain = 16384;

template <int K>
struct Rows {
  int rank = 0;  // the other axes, size-1 axes dropped, mergeable axes merged
  int64_t shape[NDRT_MAX_RANK];
  int64_t st[K][NDRT_MAX_RANK];
  int64_t n = 1;      // row length
  int64_t along[K];   // strides along the axis
  int64_t count = 1;  // number of rows
  void offsets(int64_t m, int64_t* off) const {
    for (int k = 0; k < K; ++k) off[k] = 0;
    for (int i = rank - 1; i >= 0; --i) {
      int64_t q = m % shape[i];
      m /= shape[i];
      for (int k = 0; k < K; ++k) off[k] += q * st[k][i];
    }
  }
  bool contiguous() const {
    for (int k = 0; k < K; ++k)
      if (along[k] != 1 && n > 1) return false;
    return true;
  }
};

// axis < 0 (only for rank 0): a single row of one element.
template <int K>
Rows<K> make_rows(const std::array<const Tensor*, K>& t, int axis) {
  Rows<K> r;
  const Dims& s = t[0]->shape;
  for (int k = 0; k < K; ++k) r.along[k] = 1;
  if (axis >= 0) {
    r.n = s.d[axis];
    for (int k = 0; k < K; ++k) r.along[k] = t[size_t(k)]->strides.d[axis];
  }
  for (int i = 0; i < s.rank; ++i) {
    if (i == axis) continue;
    r.count *= s.d[i];
    if (s.d[i] == 1) continue;
    if (r.rank > 0) {
      bool merge = true;
      for (int k = 0; k < K; ++k) merge &= r.st[k][r.rank - 1] == t[size_t(k)]->strides.d[i] * s.d[i];
      if (merge) {
        r.shape[r.rank - 1] *= s.d[i];
        for (int k = 0; k < K; ++k) r.st[k][r.rank - 1] = t[size_t(k)]->strides.d[i];
        continue;
      }
    }
    r.shape[r.rank] = s.d[i];
    for (int k = 0; k < K; ++k) r.st[k][r.rank] = t[size_t(k)]->strides.d[i];
    ++r.rank;
  }
  return r;
}

// The axis attribute normalised (the shape function validated it); -1 for rank 0.
inline int row_axis(int64_t axis, int rank) {
  if (rank == 0) return -1;
  return int(axis < 0 ? axis + rank : axis);
}

}  // namespace red
}  // namespace ndrt
