// cuda kernels: sequence_pool / sequence_pool_bp (pooling over time under a mask), the CPU's
// semantics exactly (kernels/cpu/sequence_pool.cpp): one thread per (n, c) pair walks its time
// steps in place through the operands' strides; sums in double, max propagates NaN and keeps the
// first maximum; a row without valid steps gives 0.
#include "strided.cuh"

namespace ndrt::cuda {

namespace {

using strided::base_of;

enum Mode : int64_t { kMax = 0, kAvg = 1, kSum = 2 };

struct PoolGeom {
  int64_t N, C, T;
  int64_t xn, xc, xt;  // x / dx
  int64_t mn, mt;      // mask
  int64_t yn, yc;      // y / dy
  int64_t dn, dc, dt;  // dx (bp only)
  Mode mode;
};

PoolGeom pool_geom(const OpContext& c) {
  const bool nwc = c.attrs.get_int(1) == 1;
  const Tensor &x = *c.in[0], &m = *c.in[1];
  const Tensor& y = c.n_in == 3 ? *c.in[2] : *c.out[0];
  const Tensor& dx = *c.out[0];
  const int ca = nwc ? 2 : 1, ta = nwc ? 1 : 2;
  return {x.shape.d[0],   x.shape.d[ca],    x.shape.d[ta],    x.strides.d[0], x.strides.d[ca], x.strides.d[ta],
          m.strides.d[0], m.strides.d[1],   y.strides.d[0],   y.strides.d[1], dx.strides.d[0],
          dx.rank() == 3 ? dx.strides.d[ca] : 0, dx.rank() == 3 ? dx.strides.d[ta] : 0, Mode(c.attrs.get_int(0))};
}

template <class T>
__device__ double pool_one(const PoolGeom& g, const T* x, const T* mask, int64_t& arg, int64_t& count) {
  using A = compute_t<T>;
  double acc = 0;
  arg = -1;
  count = 0;
  for (int64_t t = 0; t < g.T; ++t) {
    if (convert<A>(mask[t * g.mt]) == A(0)) continue;
    const double v = double(convert<A>(x[t * g.xt]));
    ++count;
    if (g.mode != kMax) {
      acc += v;
    } else if (arg < 0 || (!isnan(acc) && (v > acc || isnan(v)))) {
      acc = v;
      arg = t;
    }
  }
  if (count == 0) return 0;
  return g.mode == kAvg ? acc / double(count) : acc;
}

template <class T>
__global__ void pool_kernel(PoolGeom g, const T* x, const T* mask, T* y) {
  for (int64_t q = strided::first_index(); q < g.N * g.C; q += strided::grid_step()) {
    const int64_t n = q / g.C, ch = q % g.C;
    int64_t arg, count;
    const double v = pool_one<T>(g, x + n * g.xn + ch * g.xc, mask + n * g.mn, arg, count);
    y[n * g.yn + ch * g.yc] = convert<T>(v);
  }
}

template <class T>
__global__ void pool_bp_kernel(PoolGeom g, const T* x, const T* mask, const T* dy, T* dx) {
  using A = compute_t<T>;
  for (int64_t q = strided::first_index(); q < g.N * g.C; q += strided::grid_step()) {
    const int64_t n = q / g.C, ch = q % g.C;
    const T* m = mask + n * g.mn;
    int64_t arg = -1, count = 0;
    if (g.mode == kMax) {
      pool_one<T>(g, x + n * g.xn + ch * g.xc, m, arg, count);
    } else {
      for (int64_t t = 0; t < g.T; ++t) count += convert<A>(m[t * g.mt]) != A(0);
    }
    const double gy = double(convert<A>(dy[n * g.yn + ch * g.yc]));
    const double share = g.mode == kAvg && count > 0 ? gy / double(count) : gy;
    T* out = dx + n * g.dn + ch * g.dc;
    for (int64_t t = 0; t < g.T; ++t) {
      const bool gets = g.mode == kMax ? t == arg : convert<A>(m[t * g.mt]) != A(0);
      out[t * g.dt] = convert<T>(gets ? share : 0.0);
    }
  }
}

void sequence_pool_fn(OpContext& c) {
  const PoolGeom g = pool_geom(c);
  if (g.N * g.C == 0) return;
  const Launch L = launch_for(g.N * g.C);
  visit<NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16>(c.in[0]->dtype, "sequence_pool", [&](auto t) {
    using T = decltype(t);
    pool_kernel<T><<<L.grid, L.block, 0, stream(c)>>>(g, reinterpret_cast<const T*>(base_of(*c.in[0])),
                                                      reinterpret_cast<const T*>(base_of(*c.in[1])),
                                                      reinterpret_cast<T*>(base_of(*c.out[0])));
  });
  check_launch("sequence_pool");
}

void sequence_pool_bp_fn(OpContext& c) {
  const PoolGeom g = pool_geom(c);
  if (g.N * g.C * g.T == 0) return;
  const Launch L = launch_for(g.N * g.C);
  visit<NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16>(c.in[0]->dtype, "sequence_pool_bp", [&](auto t) {
    using T = decltype(t);
    pool_bp_kernel<T><<<L.grid, L.block, 0, stream(c)>>>(
        g, reinterpret_cast<const T*>(base_of(*c.in[0])), reinterpret_cast<const T*>(base_of(*c.in[1])),
        reinterpret_cast<const T*>(base_of(*c.in[2])), reinterpret_cast<T*>(base_of(*c.out[0])));
  });
  check_launch("sequence_pool_bp");
}

}  // namespace

void register_cuda_sequence_pool() {
  reg("sequence_pool", {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16}, sequence_pool_fn, "cuda");
  reg("sequence_pool_bp", {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16}, sequence_pool_bp_fn, "cuda");
}

}  // namespace ndrt::cuda
