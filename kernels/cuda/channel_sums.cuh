// Per-channel sums for the norm and conv CUDA kernels (batch-norm statistics, layer-norm and bias
// gradients): a dense tensor seen as [outer, C, inner], S values per element summed per channel in
// f64. Partial sums over fixed chunks are added in a fixed order, so results depend only on the
// sizes (deterministic run to run, no atomics), as the cpu kernels' f64 chunked sums.
//  - long runs (inner >= 32, e.g. NCHW planes): one block per (channel, chunk of outer), threads
//    along the run;
//  - short runs (NC, NHWC, layer-norm columns): the tensor is a matrix [outer, C * inner]; blocks
//    of 32 adjacent columns x 8 rows read coalesced rows, and the columns of one channel are
//    folded at the end.
// A finishing kernel gives each channel's S sums to a caller functor (one thread per channel).
#pragma once
#include <algorithm>

#include "dense_copy.cuh"

namespace ndrt::cuda::chan {

constexpr int kRunThreads = 256;   // long-run blocks
constexpr int kColWidth = 32;      // short-run blocks: 32 columns x 8 rows
constexpr int kColRows = 8;
constexpr int64_t kChunkElems = 16384;  // elements per partial sum (about)
constexpr int64_t kMaxSplits = 1024;

// Sum over a 1-D block whose size is a multiple of 32; every thread gets the result. The order is
// fixed by the block size. `shared` holds >= 32 values.
template <class A>
__device__ A block_sum(A v, A* shared) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = (blockDim.x + 31) >> 5;
  __syncthreads();  // the previous call's readers are done with `shared`
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  if (warp == 0) {
    A r = lane < warps ? shared[lane] : A(0);
    for (int o = 16; o > 0; o >>= 1) r += __shfl_down_sync(0xffffffffu, r, o);
    if (lane == 0) shared[32] = r;
  }
  __syncthreads();
  return shared[32];
}

// f(e, c, v) fills v[0..S) for dense element e of channel c.
template <int S, class F>
__global__ void run_partials(F f, int64_t outer, int64_t C, int64_t inner, int32_t splits, double* part) {
  __shared__ double shared[33];
  const int64_t c = blockIdx.x;
  const int64_t p = blockIdx.y;
  const int64_t o0 = outer * p / splits, o1 = outer * (p + 1) / splits;
  const int64_t count = (o1 - o0) * inner;
  double acc[S];
  for (int s = 0; s < S; ++s) acc[s] = 0;
  for (int64_t j = threadIdx.x; j < count; j += blockDim.x) {
    const int64_t o = o0 + j / inner, i = j - (j / inner) * inner;
    double v[S];
    f((o * C + c) * inner + i, c, v);
    for (int s = 0; s < S; ++s) acc[s] += v[s];
  }
  for (int s = 0; s < S; ++s) {
    const double t = block_sum(acc[s], shared);
    if (threadIdx.x == 0) part[(p * S + s) * C + c] = t;
  }
}

template <int S, class F>
__global__ void column_partials(F f, int64_t rows, int64_t K, int64_t inner, int32_t splits, double* part) {
  __shared__ double shared[S][kColRows][kColWidth + 1];
  const int64_t k = int64_t(blockIdx.x) * kColWidth + threadIdx.x;
  const int64_t p = blockIdx.y;
  const int64_t r0 = rows * p / splits, r1 = rows * (p + 1) / splits;
  double acc[S];
  for (int s = 0; s < S; ++s) acc[s] = 0;
  if (k < K)
    for (int64_t r = r0 + threadIdx.y; r < r1; r += kColRows) {
      double v[S];
      f(r * K + k, k / inner, v);
      for (int s = 0; s < S; ++s) acc[s] += v[s];
    }
  for (int s = 0; s < S; ++s) shared[s][threadIdx.y][threadIdx.x] = acc[s];
  __syncthreads();
  if (threadIdx.y == 0 && k < K)
    for (int s = 0; s < S; ++s) {
      double t = 0;
      for (int y = 0; y < kColRows; ++y) t += shared[s][y][threadIdx.x];
      part[(p * S + s) * K + k] = t;
    }
}

// fin(c, sums) with sums[s] = partials of channel c over every split (and its `fold` adjacent
// columns), added in order.
template <int S, class Fin>
__global__ void finish_channels(Fin fin, const double* part, int32_t splits, int64_t C, int64_t cols, int64_t fold) {
  for (int64_t c = dense::first_index(); c < C; c += dense::grid_step()) {
    double sums[S];
    for (int s = 0; s < S; ++s) sums[s] = 0;
    for (int64_t p = 0; p < splits; ++p)
      for (int s = 0; s < S; ++s) {
        const double* row = part + (p * S + s) * cols + c * fold;
        for (int64_t q = 0; q < fold; ++q) sums[s] += row[q];
      }
    fin(c, sums);
  }
}

inline int32_t split_count(int64_t outer, int64_t per_outer) {
  const int64_t want = outer * per_outer / kChunkElems;
  return int32_t(std::max<int64_t>(1, std::min({want, outer, kMaxSplits})));
}

// Sums S values per element of a dense [outer, C, inner] tensor per channel; then fin(c, sums)
// for every channel (device functors, passed by value).
template <int S, class F, class Fin>
void channel_sums(const OpContext& ctx, int64_t outer, int64_t C, int64_t inner, const F& f, const Fin& fin) {
  if (C <= 0) return;
  cudaStream_t st = stream(ctx);
  const bool runs = inner >= 32;
  const int64_t cols = runs ? C : C * inner, fold = runs ? 1 : inner;
  // inner == 0 (a size-0 axis after the channel): no elements, every sum is 0. No partials kernel
  // then: its grid would have 0 blocks, a launch error.
  const int32_t splits = cols == 0 ? 0 : runs ? split_count(outer, inner) : split_count(outer, kColWidth);
  if (C > 0x7fffffff || (cols + kColWidth - 1) / kColWidth > 0x7fffffff)
    fail(NDRT_ERR_NOT_SUPPORTED, "%s: %lld channels are more than one cuda grid holds", ctx.op->name, (long long)C);
  Scratch part(ctx.device, std::max<size_t>(1, size_t(splits) * S * size_t(cols)) * sizeof(double));
  double* pp = part.as<double>();
  if (splits > 0) {
    if (runs) {
      run_partials<S><<<dim3(unsigned(C), unsigned(splits)), kRunThreads, 0, st>>>(f, outer, C, inner, splits, pp);
    } else {
      const dim3 grid(unsigned((cols + kColWidth - 1) / kColWidth), unsigned(splits));
      column_partials<S><<<grid, dim3(kColWidth, kColRows), 0, st>>>(f, outer, cols, inner, splits, pp);
    }
    check_launch(ctx.op->name);
  }
  const Launch l = launch_for(C, 128);
  finish_channels<S><<<l.grid, l.block, 0, st>>>(fin, pp, splits, C, cols, fold);
  check_launch(ctx.op->name);
}

}  // namespace ndrt::cuda::chan
