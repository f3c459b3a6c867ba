// Shared by softmax_loss.cu and softmax_loss_pointwise.cu: rows along one axis (one group of
// threads per row, along-dimension parallelism), the stable row statistics (max, sum of exp), and
// the deterministic f64 sum that turns per-item losses into a mean or sum (no atomics: block
// partials, then one block adds them in order).
#pragma once
#include "reduce_engine.cuh"

namespace ndrt::cuda::sl {

enum { kNone = 0, kMean = 1, kSum = 2 };

// Rows along `axis` of K tensors of one shape; the other axes are walked by `other`.
template <int K>
struct Rows {
  red::Iter<K> other;
  int64_t n = 1;  // row length
  int64_t along[K];
  int64_t count = 1;  // number of rows
};

// axis < 0 (rank 0): a single row of one element.
template <int K>
Rows<K> make_rows(const std::array<const Tensor*, K>& t, int axis) {
  Rows<K> r;
  const Dims& s = t[0]->shape;
  Dims other{};
  other.rank = 0;
  int64_t st[K][NDRT_MAX_RANK];
  for (int k = 0; k < K; ++k) r.along[k] = axis >= 0 ? t[size_t(k)]->strides.d[axis] : 1;
  if (axis >= 0) r.n = s.d[axis];
  for (int i = 0; i < s.rank; ++i) {
    if (i == axis) continue;
    for (int k = 0; k < K; ++k) st[k][other.rank] = t[size_t(k)]->strides.d[i];
    other.d[other.rank++] = s.d[i];
  }
  std::array<const int64_t*, K> sp;
  for (int k = 0; k < K; ++k) sp[size_t(k)] = st[k];
  r.other = red::make_iter<K>(other, sp);
  r.count = other.numel();
  return r;
}

inline int row_axis(int64_t axis, int rank) {
  if (rank == 0) return -1;
  return int(axis < 0 ? axis + rank : axis);
}

// Launch for `rows` rows of n elements: one group of G threads per row. Blocks reach kMaxRowBlock
// threads, so the row kernels declare it in __launch_bounds__: without it they compile to 60-95
// registers per thread, and 1024 x that exceeds the 64K registers of an SM (the launch fails with
// "too many resources requested").
constexpr unsigned kMaxRowBlock = 1024;
inline red::GroupLaunch row_launch(int64_t rows, int64_t n) {
  const unsigned block = n >= 4096 ? kMaxRowBlock : 256;
  return red::group_launch(rows, red::pow2_at_least(n, int(block)), block);
}

template <class C>
__device__ inline C max_nan(C a, C b) {
  return (b > a || b != b) ? b : a;  // NaN sticks
}

// The row's maximum m (NaN sticks) and s = sum exp(x - m) in f64, in every thread of the group.
// load(j) gives element j in the compute type; inactive groups still take part (no elements).
template <class C, class Load>
__device__ void row_stats(bool active, int64_t n, int lane, int G, Load load, C& m, double& s,
                          red::GroupSmem<C>& smc, red::GroupSmem<double>& smd) {
  C mx = -std::numeric_limits<C>::infinity();
  if (active)
    for (int64_t j = lane; j < n; j += G) mx = max_nan(mx, load(j));
  m = red::group_reduce(mx, G, [](C a, C b) { return max_nan(a, b); }, smc, true);
  double sum = 0;
  if (active)
    for (int64_t j = lane; j < n; j += G) sum += double(red::dexp(C(load(j) - m)));
  s = red::group_reduce(sum, G, [](double a, double b) { return a + b; }, smd, true);
}

// Sum over the group, in every thread.
__device__ inline double group_sum(double v, int G, red::GroupSmem<double>& smd) {
  return red::group_reduce(v, G, [](double a, double b) { return a + b; }, smd, true);
}

// Block partial sums of v(i), i in [0, total): partial[blockIdx.x]. blockDim is a power of two.
template <class F>
__global__ void partial_sums(int64_t total, F v, double* partial) {
  __shared__ red::GroupSmem<double> smd;
  double acc = 0;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x)
    acc += v(i);
  acc = red::group_reduce(acc, int(blockDim.x), [](double a, double b) { return a + b; }, smd);
  if (threadIdx.x == 0) partial[blockIdx.x] = acc;
}

// out = sum of the k partials, divided by `count` for the mean (0 / 0 is NaN); one block.
template <class T>
__global__ void finish_sum(const double* partial, int64_t k, double count, bool mean, T* out) {
  __shared__ red::GroupSmem<double> smd;
  double acc = 0;
  for (int64_t i = threadIdx.x; i < k; i += blockDim.x) acc += partial[i];
  acc = red::group_reduce(acc, int(blockDim.x), [](double a, double b) { return a + b; }, smd);
  if (threadIdx.x == 0) *out = T(mean ? acc / count : acc);
}

// A block of whole warps whose size is a power of two (group_reduce over the whole block).
inline unsigned pow2_block(unsigned want) {
  return unsigned(red::group_launch(int64_t(1) << 16, int(want), want).G);
}

// Writes the mean (count items) or sum of v(i), i in [0, total), to *out on c's stream.
template <class T, class F>
void reduce_loss(const OpContext& c, int64_t total, double count, bool mean, const F& v, T* out) {
  cudaStream_t s = stream(c);
  const unsigned block = pow2_block(256);
  int64_t blocks = 0;
  if (total > 0) blocks = std::min<int64_t>(launch_for(total, block).grid, 1024);
  Scratch partial(c.device, size_t(std::max<int64_t>(blocks, 1)) * sizeof(double));
  if (blocks > 0) {
    partial_sums<F><<<unsigned(blocks), block, 0, s>>>(total, v, partial.as<double>());
    check_launch(c.op->name);
  }
  finish_sum<T><<<1, block, 0, s>>>(partial.as<double>(), blocks, count, mean, out);
  check_launch(c.op->name);
}

// Class indices of an [N] i32 or i64 tensor, any stride.
struct Labels {
  const char* base;
  int64_t stride;  // bytes
  bool wide;
  __device__ int64_t operator()(int64_t n) const {
    const char* p = base + n * stride;
    return wide ? *reinterpret_cast<const int64_t*>(p) : int64_t(*reinterpret_cast<const int32_t*>(p));
  }
};
inline Labels labels_of(const Tensor& t) {
  const int64_t item = t.dtype == NDRT_I64 ? 8 : 4;
  return {static_cast<const char*>(t.storage->data) + t.offset * item, t.strides.d[0] * item, t.dtype == NDRT_I64};
}

}  // namespace ndrt::cuda::sl
