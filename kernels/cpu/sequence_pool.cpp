// cpu kernels: sequence_pool / sequence_pool_bp (pooling over time under a mask). Any strides:
// every (n, c) pair walks its time steps in place, one pair per parallel work item.
#include <cmath>

#include "convert.hpp"
#include "kernels.hpp"
#include "loops.hpp"
#include "parallel.hpp"

namespace ndrt {

namespace {

enum Mode : int64_t { kMax = 0, kAvg = 1, kSum = 2 };

// Strides of one call in (n, c, t) order whatever the layout.
struct PoolGeom {
  int64_t N, C, T;
  int64_t xn, xc, xt;  // x (and dx)
  int64_t mn, mt;      // mask
  Mode mode;
};

PoolGeom pool_geom(const OpContext& c, const Tensor& x) {
  const bool nwc = c.attrs.get_int(1) == 1;
  const Tensor& m = *c.in[1];
  return {x.shape.d[0], x.shape.d[nwc ? 2 : 1], x.shape.d[nwc ? 1 : 2], x.strides.d[0], x.strides.d[nwc ? 2 : 1],
          x.strides.d[nwc ? 1 : 2], m.strides.d[0], m.strides.d[1], Mode(c.attrs.get_int(0))};
}

// The pooled value of one (n, c) pair and, for max, the step that holds it (-1: no valid step).
template <class T>
double pool_one(const PoolGeom& g, const T* x, const T* mask, int64_t& arg, int64_t& count) {
  using A = compute_t<T>;
  double acc = 0;
  arg = -1;
  count = 0;
  for (int64_t t = 0; t < g.T; ++t) {
    if (A(mask[t * g.mt]) == A(0)) continue;
    const double v = double(A(x[t * g.xt]));
    ++count;
    if (g.mode != kMax) {
      acc += v;
    } else if (arg < 0 || (!std::isnan(acc) && (v > acc || std::isnan(v)))) {
      acc = v;
      arg = t;
    }
  }
  if (count == 0) return 0;
  return g.mode == kAvg ? acc / double(count) : acc;
}

template <class T>
void sequence_pool_kernel(OpContext& c) {
  const Tensor &x = *c.in[0], &y = *c.out[0];
  const PoolGeom g = pool_geom(c, x);
  if (g.N * g.C == 0) return;
  const T *xp = x.data<T>(), *mp = c.in[1]->data<T>();
  T* yp = y.data<T>();
  const int64_t yn = y.strides.d[0], yc = y.strides.d[1];
  parallel_for(g.N * g.C, std::max<int64_t>(1, 16384 / std::max<int64_t>(g.T, 1)), [&](int64_t b, int64_t e) {
    for (int64_t q = b; q < e; ++q) {
      const int64_t n = q / g.C, ch = q % g.C;
      int64_t arg, count;
      const double v = pool_one<T>(g, xp + n * g.xn + ch * g.xc, mp + n * g.mn, arg, count);
      yp[n * yn + ch * yc] = convert<T>(v);
    }
  });
}

template <class T>
void sequence_pool_bp_kernel(OpContext& c) {
  using A = compute_t<T>;
  const Tensor &x = *c.in[0], &dy = *c.in[2], &dx = *c.out[0];
  const PoolGeom g = pool_geom(c, x), d = pool_geom(c, dx);
  if (g.N * g.C * g.T == 0) return;
  const T *xp = x.data<T>(), *mp = c.in[1]->data<T>(), *dyp = dy.data<T>();
  T* dxp = dx.data<T>();
  const int64_t yn = dy.strides.d[0], yc = dy.strides.d[1];
  parallel_for(g.N * g.C, std::max<int64_t>(1, 16384 / g.T), [&](int64_t b, int64_t e) {
    for (int64_t q = b; q < e; ++q) {
      const int64_t n = q / g.C, ch = q % g.C;
      const T* m = mp + n * g.mn;
      int64_t arg = -1, count = 0;
      if (g.mode == kMax) {
        pool_one<T>(g, xp + n * g.xn + ch * g.xc, m, arg, count);
      } else {
        for (int64_t t = 0; t < g.T; ++t) count += A(m[t * g.mt]) != A(0);
      }
      const double gy = double(A(dyp[n * yn + ch * yc]));
      const double share = g.mode == kAvg && count > 0 ? gy / double(count) : gy;
      T* out = dxp + n * d.xn + ch * d.xc;
      for (int64_t t = 0; t < g.T; ++t) {
        const bool gets = g.mode == kMax ? t == arg : A(m[t * g.mt]) != A(0);
        out[t * d.xt] = convert<T>(gets ? share : 0.0);
      }
    }
  });
}

}  // namespace

void register_cpu_sequence_pool(Registry& r) {
  for_types<float, double, Half, BFloat16>([&](auto t) {
    using T = decltype(t);
    r.kernel("sequence_pool", kCpu, {dtype_of<T>()}, sequence_pool_kernel<T>, "ndrt:cpu");
    r.kernel("sequence_pool_bp", kCpu, {dtype_of<T>()}, sequence_pool_bp_kernel<T>, "ndrt:cpu");
  });
}

}  // namespace ndrt
