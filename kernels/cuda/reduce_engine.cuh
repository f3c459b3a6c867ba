// The CUDA reduction engine shared by reduce.cu, reduce_bp.cu and the softmax/loss files.
//
// A reduction splits x's axes into kept (one output each, numbered m row-major) and reduced
// (numbered j row-major), size-1 axes dropped and mergeable axes merged as on the CPU. Each output
// is reduced by a group of G threads (G a power of two: 1 for column reductions, where neighbouring
// threads then read neighbouring outputs' elements; up to a block for long contiguous runs), and a
// long reduction is cut into P parts: part results go to a scratch buffer and a second kernel
// combines them in part order (deterministic, no atomics).
//
// A reduction R (passed by value to the kernels) supplies Acc and Param (trivially copyable),
// init(), param(m) (a per-output value from an earlier pass), step(acc, x, j, param) with x in the
// compute type, combine(a, b) (a holds the lower indices) and write(m, oy, acc, n, param), which
// stores the result (to the output at element offset oy, or to a buffer indexed by m).
#pragma once
#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <optional>
#include <type_traits>

#include "cuda_common.cuh"

namespace ndrt::cuda::red {

// ---- device math ---------------------------------------------------------------------------------
__device__ inline float dexp(float v) { return expf(v); }
__device__ inline double dexp(double v) { return exp(v); }
__device__ inline float dlog(float v) { return logf(v); }
__device__ inline double dlog(double v) { return log(v); }
__device__ inline float dlog1p(float v) { return log1pf(v); }
__device__ inline double dlog1p(double v) { return log1p(v); }
__device__ inline float dsqrt(float v) { return sqrtf(v); }
__device__ inline double dsqrt(double v) { return sqrt(v); }
__device__ inline float dabs(float v) { return fabsf(v); }
__device__ inline double dabs(double v) { return fabs(v); }
template <class C>
__device__ inline bool finite(C v) {
  return dabs(v) <= std::numeric_limits<C>::max();  // false for +-inf and NaN
}
template <class C>
__host__ __device__ constexpr C nan_of() {
  return std::numeric_limits<C>::quiet_NaN();
}

// The accumulator of sums, as on the CPU: f64 for f32/f64, f32 for f16/bf16, i64 for integers.
template <class T>
using sum_acc_t = std::conditional_t<std::is_integral_v<T>, int64_t,
                                     std::conditional_t<sizeof(T) == 2, float, double>>;

// Integers wrap (two's complement); floats add.
template <class A, class B>
__device__ inline A add_wrap(A a, B b) {
  if constexpr (std::is_integral_v<A>)
    return A(uint64_t(a) + uint64_t(int64_t(b)));
  else
    return a + A(b);
}

// q = a / b, r = a % b for a >= 0, b > 0; 32-bit division where both fit (64-bit division is a
// long instruction sequence on the GPU).
__device__ inline void divmod(int64_t a, int64_t b, int64_t& q, int64_t& r) {
  if (((uint64_t(a) | uint64_t(b)) >> 32) == 0) {
    const uint32_t q32 = uint32_t(a) / uint32_t(b);
    q = q32;
    r = a - int64_t(q32) * b;
  } else {
    q = a / b;
    r = a - q * b;
  }
}

// ---- index spaces ----------------------------------------------------------------------------------
// Axes of one index space (kept or reduced): input strides sx, output strides sy (kept only).
struct Space {
  int32_t rank = 0;
  int64_t shape[NDRT_MAX_RANK];
  int64_t sx[NDRT_MAX_RANK];
  int64_t sy[NDRT_MAX_RANK];
  int64_t size() const {
    int64_t n = 1;
    for (int i = 0; i < rank; ++i) n *= shape[i];
    return n;
  }
  void push(int64_t n, int64_t x, int64_t y) {
    if (n == 1) return;
    if (rank > 0 && sx[rank - 1] == x * n && sy[rank - 1] == y * n) {
      shape[rank - 1] *= n;
      sx[rank - 1] = x;
      sy[rank - 1] = y;
      return;
    }
    shape[rank] = n;
    sx[rank] = x;
    sy[rank] = y;
    ++rank;
  }
  // Input and output offsets of flat index f.
  __device__ void offsets(int64_t f, int64_t& ox, int64_t& oy) const {
    ox = oy = 0;
    for (int i = rank - 1; i >= 0; --i) {
      int64_t q, k;
      divmod(f, shape[i], q, k);
      ox += k * sx[i];
      oy += k * sy[i];
      f = q;
    }
  }
  // Input offset of flat index f (the reduced space: one merged axis is the common case).
  __device__ int64_t offset_x(int64_t f) const {
    if (rank == 1) return f * sx[0];
    int64_t off = 0;
    for (int i = rank - 1; i >= 0; --i) {
      int64_t q, k;
      divmod(f, shape[i], q, k);
      off += k * sx[i];
      f = q;
    }
    return off;
  }
};

struct Plan {
  Space kept, red;
  int64_t M = 0, N = 0;
};

// x reduced over `mask`; ystrides: the output's strides, one per output axis (reduced axes too when
// keep). Null ystrides: outputs go to buffers indexed by m (output offsets unused).
inline Plan make_plan(const Tensor& x, uint32_t mask, const int64_t* ystrides, bool keep) {
  Plan p;
  for (int i = 0, j = 0; i < x.rank(); ++i) {
    if (mask & (1u << i)) {
      p.red.push(x.shape.d[i], x.strides.d[i], 0);
      if (keep) ++j;
    } else {
      p.kept.push(x.shape.d[i], x.strides.d[i], ystrides ? ystrides[j] : 0);
      ++j;
    }
  }
  p.M = p.kept.size();
  p.N = p.red.size();
  return p;
}

// The `axes` attribute (empty = all) as a mask; the op's shape function validated it.
inline uint32_t axes_mask(const Attrs& a, int k, int rank) {
  if (a.list_size(k) == 0) return rank ? (1u << rank) - 1 : 0;
  uint32_t mask = 0;
  for (int i = 0; i < a.list_size(k); ++i) {
    const int64_t ax = a.list_data(k)[i];
    mask |= 1u << (ax < 0 ? ax + rank : ax);
  }
  return mask;
}

// K tensors of one shape walked together (elementwise passes): size-1 axes dropped, axes merged
// where every tensor allows it. offsets(i) maps the row-major index i to each tensor's offset.
template <int K>
struct Iter {
  int32_t rank = 0;
  int64_t shape[NDRT_MAX_RANK];
  int64_t st[K][NDRT_MAX_RANK];
  __device__ void offsets(int64_t i, int64_t (&off)[K]) const {
    if (rank == 1) {  // contiguous and simply strided tensors: no division
      for (int k = 0; k < K; ++k) off[k] = i * st[k][0];
      return;
    }
    for (int k = 0; k < K; ++k) off[k] = 0;
    for (int d = rank - 1; d >= 0; --d) {
      int64_t q, r;
      divmod(i, shape[d], q, r);
      for (int k = 0; k < K; ++k) off[k] += r * st[k][d];
      i = q;
    }
  }
};

template <int K>
Iter<K> make_iter(const Dims& shape, const std::array<const int64_t*, K>& strides) {
  Iter<K> it;
  for (int i = 0; i < shape.rank; ++i) {
    const int64_t n = shape.d[i];
    if (n == 1) continue;
    if (it.rank > 0) {
      bool merge = true;
      for (int k = 0; k < K; ++k) merge &= it.st[k][it.rank - 1] == strides[size_t(k)][i] * n;
      if (merge) {
        it.shape[it.rank - 1] *= n;
        for (int k = 0; k < K; ++k) it.st[k][it.rank - 1] = strides[size_t(k)][i];
        continue;
      }
    }
    it.shape[it.rank] = n;
    for (int k = 0; k < K; ++k) it.st[k][it.rank] = strides[size_t(k)][i];
    ++it.rank;
  }
  return it;
}

// ---- group reductions ------------------------------------------------------------------------------
// Shuffle of any trivially copyable value, word by word.
template <class A>
__device__ inline A shfl_down(const A& v, int delta, int width) {
  static_assert(sizeof(A) % 4 == 0, "accumulators are whole 32-bit words");
  constexpr int W = int(sizeof(A) / 4);
  uint32_t w[W];
  memcpy(w, &v, sizeof(A));
  for (int k = 0; k < W; ++k) w[k] = __shfl_down_sync(0xffffffffu, w[k], delta, width);
  A r;
  memcpy(&r, w, sizeof(A));
  return r;
}
template <class A>
__device__ inline A shfl_first(const A& v, int width) {  // lane 0 of each width-segment
  constexpr int W = int(sizeof(A) / 4);
  uint32_t w[W];
  memcpy(w, &v, sizeof(A));
  for (int k = 0; k < W; ++k) w[k] = __shfl_sync(0xffffffffu, w[k], 0, width);
  A r;
  memcpy(&r, w, sizeof(A));
  return r;
}

// Space for group_reduce: one value per warp of a block of at most 1024 threads.
template <class A>
struct GroupSmem {
  alignas(16) unsigned char raw[32 * sizeof(A)];
  __device__ A* slots() { return reinterpret_cast<A*>(raw); }
};

// Combines the values of each group of G consecutive threads (G a power of two dividing blockDim,
// blockDim a multiple of 32). Every thread of the block must call it (it may __syncthreads). The
// result is in the group's first thread; with `all`, in every thread of the group.
template <class A, class Combine>
__device__ A group_reduce(A v, int G, Combine combine, GroupSmem<A>& smem, bool all = false) {
  const int w = G < 32 ? G : 32;
  for (int off = w / 2; off > 0; off >>= 1) v = combine(v, shfl_down(v, off, w));
  if (G <= 32) return all ? shfl_first(v, w) : v;
  A* s = smem.slots();
  const int lane = int(threadIdx.x) % 32, warp = int(threadIdx.x) / 32, wpg = G / 32;
  __syncthreads();  // the slots may still be read from a previous call
  if (lane == 0) s[warp] = v;
  __syncthreads();
  const int first = warp - warp % wpg;  // first warp of this group
  if (warp == first) {                  // warp-uniform: the whole warp shuffles
    A u = s[first + (lane < wpg ? lane : 0)];
    for (int off = 16; off > 0; off >>= 1) {
      A o = shfl_down(u, off, 32);
      if (lane + off < wpg) u = combine(u, o);
    }
    v = u;
  }
  if (!all) return v;
  __syncthreads();
  if (int(threadIdx.x) % G == 0) s[first] = v;
  __syncthreads();
  return s[first];
}

// Threads per group for outputs of n elements each, and the launch, adjusted so that G divides the
// block and the block is whole warps.
struct GroupLaunch {
  Launch L;
  int G;
};
inline GroupLaunch group_launch(int64_t groups, int G, unsigned want_block) {
  Launch L = launch_for(std::max<int64_t>(groups, 1) * G, want_block);
  unsigned b = L.block >= 32 ? L.block - L.block % 32 : L.block;
  if (b < 32) G = 1;  // no partial-warp shuffles
  while (G > 1 && (unsigned(G) > b || b % unsigned(G))) G /= 2;
  L.block = b;
  return {L, G};
}
inline int pow2_at_least(int64_t n, int cap) {
  int g = 1;
  while (g < n && g < cap) g *= 2;
  return g;
}

// ---- the reduction kernels -------------------------------------------------------------------------
template <class T, class R>
__global__ void reduce_groups(const T* x, Plan p, R r, int G, int64_t P, int64_t chunk, typename R::Acc* partial) {
  using Acc = typename R::Acc;
  using C = compute_t<T>;
  __shared__ GroupSmem<Acc> smem;
  const int per_block = int(blockDim.x) / G, lane = int(threadIdx.x) % G;
  const int64_t total = p.M * P;
  // The loop bound is uniform across the block, so every thread reaches group_reduce's barriers.
  for (int64_t g0 = int64_t(blockIdx.x) * per_block; g0 < total; g0 += int64_t(gridDim.x) * per_block) {
    const int64_t g = g0 + int(threadIdx.x) / G;
    Acc acc = r.init();
    typename R::Param prm{};
    int64_t m = 0, oy = 0;
    if (g < total) {
      m = g % p.M;  // neighbouring groups: neighbouring outputs (coalesced column reductions)
      const int64_t part = g / p.M, begin = part * chunk, end = begin + chunk < p.N ? begin + chunk : p.N;
      int64_t ox;
      p.kept.offsets(m, ox, oy);
      prm = r.param(m);
      const T* xb = x + ox;
      // Four loads in flight per thread before the four steps, in index order (the result is that
      // of the plain loop): one load at a time leaves too few bytes in flight to fill HBM.
      int64_t j = begin + lane;
      for (; j + 3 * G < end; j += 4 * G) {
        const C v0 = convert<C>(xb[p.red.offset_x(j)]), v1 = convert<C>(xb[p.red.offset_x(j + G)]);
        const C v2 = convert<C>(xb[p.red.offset_x(j + 2 * G)]), v3 = convert<C>(xb[p.red.offset_x(j + 3 * G)]);
        acc = r.step(acc, v0, j, prm);
        acc = r.step(acc, v1, j + G, prm);
        acc = r.step(acc, v2, j + 2 * G, prm);
        acc = r.step(acc, v3, j + 3 * G, prm);
      }
      for (; j < end; j += G) acc = r.step(acc, convert<C>(xb[p.red.offset_x(j)]), j, prm);
    }
    acc = group_reduce(acc, G, [&](const Acc& a, const Acc& b) { return r.combine(a, b); }, smem);
    if (g < total && lane == 0) {
      if (P == 1)
        r.write(m, oy, acc, p.N, prm);
      else
        partial[g] = acc;
    }
  }
}

// Combines the P part results of each output (one group of G threads per output) and writes it.
template <class R>
__global__ void reduce_combine(const typename R::Acc* partial, Plan p, R r, int G, int64_t P) {
  using Acc = typename R::Acc;
  __shared__ GroupSmem<Acc> smem;
  const int per_block = int(blockDim.x) / G, lane = int(threadIdx.x) % G;
  for (int64_t m0 = int64_t(blockIdx.x) * per_block; m0 < p.M; m0 += int64_t(gridDim.x) * per_block) {
    const int64_t m = m0 + int(threadIdx.x) / G;
    Acc acc = r.init();
    if (m < p.M)
      for (int64_t q = lane; q < P; q += G) acc = r.combine(acc, partial[q * p.M + m]);
    acc = group_reduce(acc, G, [&](const Acc& a, const Acc& b) { return r.combine(a, b); }, smem);
    if (m < p.M && lane == 0) {
      int64_t ox, oy;
      p.kept.offsets(m, ox, oy);
      r.write(m, oy, acc, p.N, r.param(m));
    }
  }
}

// Runs reduction R of plan p over x (the base of the view the plan was made from) on c's stream.
template <class T, class R>
void run(const OpContext& c, const Plan& p, const T* x, const R& r, const char* what) {
  using Acc = typename R::Acc;
  if (p.M == 0) return;
  cudaStream_t s = stream(c);
  const cudaDeviceProp& dp = props(c.device);
  const int64_t target = int64_t(dp.multiProcessorCount) * dp.maxThreadsPerMultiProcessor;
  const bool red_inner = p.red.rank > 0 && p.red.sx[p.red.rank - 1] == 1;
  // Column reduction (the kept innermost axis is contiguous and at least a warp wide): one thread
  // per output, neighbouring threads reading neighbouring elements. Otherwise a group per output
  // walks the reduced elements.
  const bool columns = !red_inner && p.kept.rank > 0 && p.kept.sx[p.kept.rank - 1] == 1 &&
                       p.kept.shape[p.kept.rank - 1] >= 32;
  int G = columns || p.N <= 1 ? 1 : pow2_at_least(p.N, 256);
  GroupLaunch gl = group_launch(p.M, G, 256);
  G = gl.G;
  // Parts: enough threads to fill the GPU, at least 64 elements per thread, at most kMaxParts.
  constexpr int64_t kMaxParts = 1024;
  int64_t P = 1;
  if (p.M * G < target)
    P = std::max<int64_t>(1, std::min({(target + p.M * G - 1) / (p.M * G), p.N / (int64_t(G) * 64), kMaxParts}));
  int64_t chunk = p.N;
  if (P > 1) {
    chunk = (p.N + P - 1) / P;
    chunk = (chunk + G - 1) / G * G;  // whole strides of the group: aligned runs
    P = (p.N + chunk - 1) / chunk;
  }
  if (P == 1) {
    reduce_groups<T, R><<<gl.L.grid, gl.L.block, 0, s>>>(x, p, r, G, 1, std::max<int64_t>(p.N, 1), nullptr);
    check_launch(what);
    return;
  }
  gl = group_launch(p.M * P, G, 256);
  G = gl.G;
  Scratch partial(c.device, size_t(p.M * P) * sizeof(Acc));
  reduce_groups<T, R><<<gl.L.grid, gl.L.block, 0, s>>>(x, p, r, G, P, chunk, partial.as<Acc>());
  check_launch(what);
  const GroupLaunch cl = group_launch(p.M, 32, 256);
  reduce_combine<R><<<cl.L.grid, cl.L.block, 0, s>>>(partial.as<Acc>(), p, r, cl.G, P);
  check_launch(what);
}

struct None {};

// ---- host helpers ----------------------------------------------------------------------------------
// Typed address of element [0, ..] (Tensor::base() would call libndrt's dtype_size).
template <class T>
T* data(const Tensor& t) {
  return static_cast<T*>(t.storage->data) + t.offset;
}

template <class T>
constexpr ndrt_dtype dtype_of() {
  if constexpr (std::is_same_v<T, float>) return NDRT_F32;
  else if constexpr (std::is_same_v<T, double>) return NDRT_F64;
  else if constexpr (std::is_same_v<T, __half>) return NDRT_F16;
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return NDRT_BF16;
  else if constexpr (std::is_same_v<T, int8_t>) return NDRT_I8;
  else if constexpr (std::is_same_v<T, uint8_t>) return NDRT_U8;
  else if constexpr (std::is_same_v<T, int32_t>) return NDRT_I32;
  else if constexpr (std::is_same_v<T, int64_t>) return NDRT_I64;
  else return NDRT_BOOL;
}

template <class T>
struct Tag {
  using type = T;
};
// Calls f(Tag<T>{}) for each listed storage type (registration loops).
template <class... Ts, class F>
void for_types(F&& f) {
  (f(Tag<Ts>{}), ...);
}

// ---- per-group passes shared by the forward reductions and their gradients ---------------------------
// The group mean in the sum accumulator, to mean[m]; with hi/lo also split into two compute-type
// values hi = C(mean), lo = C(mean - hi) (deviations (x - hi) - lo then lose nothing to the rounding
// of the mean), as the CPU gradients do.
template <class T>
struct MeanPass {
  using Acc = sum_acc_t<T>;
  using C = compute_t<T>;
  using Param = None;
  Acc* mean;
  C* hi = nullptr;
  C* lo = nullptr;
  __device__ Acc init() const { return Acc(0); }
  __device__ Param param(int64_t) const { return {}; }
  __device__ Acc step(Acc a, C x, int64_t, Param) const { return a + Acc(x); }
  __device__ Acc combine(Acc a, Acc b) const { return a + b; }
  __device__ void write(int64_t m, int64_t, Acc a, int64_t n, Param) const {
    const Acc v = a / Acc(n);
    mean[m] = v;
    if (hi) {
      const C h = C(v);
      hi[m] = h;
      lo[m] = finite(v) ? C(v - Acc(h)) : C(0);
    }
  }
};

// The group maximum (Less: minimum) in the compute type, to out[m]; NaN sticks.
template <class T, bool Less>
struct ExtremePass {
  using C = compute_t<T>;
  using Acc = C;
  using Param = None;
  C* out;
  __device__ static C pick(C a, C x) {
    if constexpr (Less)
      return (x < a || x != x) ? x : a;
    else
      return (x > a || x != x) ? x : a;
  }
  __device__ Acc init() const {
    if constexpr (std::numeric_limits<C>::has_infinity)
      return Less ? std::numeric_limits<C>::infinity() : -std::numeric_limits<C>::infinity();
    else
      return Less ? std::numeric_limits<C>::max() : std::numeric_limits<C>::lowest();
  }
  __device__ Param param(int64_t) const { return {}; }
  __device__ Acc step(Acc a, C x, int64_t, Param) const { return pick(a, x); }
  __device__ Acc combine(Acc a, Acc b) const { return pick(a, b); }
  __device__ void write(int64_t m, int64_t, Acc a, int64_t, Param) const { out[m] = a; }
};

}  // namespace ndrt::cuda::red
