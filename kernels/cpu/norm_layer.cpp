// cpu kernels: layer norm forward and backward. x is seen densely as [R, D] (D the normalised
// trailing elements); each row is one block of work. dgamma/dbeta sum over rows in f64 partials
// of fixed row chunks, added in order (deterministic for any thread count).
#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels.hpp"
#include "norm_dense.hpp"
#include "reduce_math.hpp"

namespace ndrt {

namespace {

void rows_of(const Tensor& x, int64_t axis_attr, int64_t& R, int64_t& D) {
  const int axis = int(axis_attr < 0 ? axis_attr + x.rank() : axis_attr);
  R = D = 1;
  for (int i = 0; i < x.rank(); ++i) (i < axis ? R : D) *= x.shape.d[i];
}

template <class T>
void layer_norm_kernel(OpContext& c) {
  const Tensor& x = *c.in[0];
  int64_t R, D;
  rows_of(x, c.attrs.get_int(0), R, D);
  const double eps = c.attrs.get_float(1);
  if (R == 0) return;
  nrm::DenseIn<T> X(x), G(*c.in[1]), B(*c.in[2]);
  nrm::DenseOut<T> Y(*c.out[0]), MEAN(*c.out[1]), IS(*c.out[2]);
  const T *xp = X.p, *gp = G.p, *bp = B.p;
  parallel_for(R, std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(D, 1)), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const T* xr = xp + r * D;
      const double mean = red::run_sum<double>(xr, D) / double(D);  // D = 0: NaN statistics
      const double var = red::run_sqdev<double>(xr, D, T(mean)) / double(D);
      const double is = 1.0 / std::sqrt(var + eps);
      const T m = T(mean), s = T(is);
      T* yr = Y.p + r * D;
      for (int64_t i = 0; i < D; ++i) yr[i] = (xr[i] - m) * s * gp[i] + bp[i];
      MEAN.p[r] = m;
      IS.p[r] = s;
    }
  });
  Y.finish();
  MEAN.finish();
  IS.finish();
}

// xhat = (x - m) s, g = dy gamma, and dgamma += dy xhat, dbeta += dy for one row (restrict: the
// scratch never aliases the inputs, so this vectorises).
template <class T>
inline void bp_row_terms(const T* __restrict x, const T* __restrict dy, const T* __restrict gamma, T m, T s,
                         T* __restrict xh, T* __restrict g, T* __restrict dg, T* __restrict db, int64_t D) {
  for (int64_t i = 0; i < D; ++i) {
    const T h = (x[i] - m) * s, d = dy[i];
    xh[i] = h;
    g[i] = d * gamma[i];
    dg[i] += d * h;
    db[i] += d;
  }
}

// Per row: g = dy gamma, xhat = (x - mean) invstd, dx = invstd (g - mean(g) - xhat mean(g xhat)).
template <class T>
void layer_norm_bp_kernel(OpContext& c) {
  const Tensor& x = *c.in[0];
  int64_t R, D;
  rows_of(x, c.attrs.get_int(0), R, D);
  nrm::DenseIn<T> X(x), G(*c.in[1]), MEAN(*c.in[2]), IS(*c.in[3]), DY(*c.in[4]);
  nrm::DenseOut<T> DX(*c.out[0]), DG(*c.out[1]), DB(*c.out[2]);
  const T *xp = X.p, *gp = G.p, *mp = MEAN.p, *ip = IS.p, *dyp = DY.p;
  const int64_t P = std::max<int64_t>(1, std::min<int64_t>({R, 64, R * D / nrm::kChunk}));
  std::vector<double> part(size_t(2 * P * D), 0.0);  // per chunk: dgamma [D], dbeta [D]
  if (R > 0 && D > 0)
    parallel_for(P, 1, [&](int64_t b, int64_t e) {
      // Row scratch (g = dy gamma, xhat) and dgamma/dbeta in T over at most 32 rows, then f64.
      std::vector<T> buf(4 * static_cast<size_t>(D));
      T *g = buf.data(), *xh = g + D, *dgt = xh + D, *dbt = dgt + D;
      for (int64_t p = b; p < e; ++p) {
        double* dg = &part[size_t(2 * p * D)];
        double* db = dg + D;
        const int64_t r0 = R * p / P, r1 = R * (p + 1) / P;
        for (int64_t rb = r0; rb < r1; rb += 32) {
          std::fill(dgt, dgt + 2 * D, T(0));
          for (int64_t r = rb; r < std::min(r1, rb + 32); ++r) {
            const T *xr = xp + r * D, *gr = dyp + r * D;
            const T m = mp[r], s = ip[r];
            // dgamma / dbeta read dy before dx is written: dx may be the same view as dy.
            bp_row_terms(xr, gr, gp, m, s, xh, g, dgt, dbt, D);
            const T a = T(red::run_sum<double>(g, D) / double(D)), k = T(red::run_dot2<double>(g, xh, D) / double(D));
            T* o = DX.p + r * D;
            for (int64_t i = 0; i < D; ++i) o[i] = s * (g[i] - a - xh[i] * k);
          }
          for (int64_t i = 0; i < D; ++i) {
            dg[i] += double(dgt[i]);
            db[i] += double(dbt[i]);
          }
        }
      }
    });
  for (int64_t i = 0; i < D; ++i) {
    double dg = 0, db = 0;
    for (int64_t p = 0; p < P; ++p) {
      dg += part[size_t(2 * p * D + i)];
      db += part[size_t(2 * p * D + D + i)];
    }
    DG.p[i] = T(dg);
    DB.p[i] = T(db);
  }
  DX.finish();
  DG.finish();
  DB.finish();
}

}  // namespace

void register_cpu_norm_layer(Registry& r) {
  for_types<float, double>([&](auto t) {
    using T = decltype(t);
    r.kernel("layer_norm", kCpu, {dtype_of<T>()}, layer_norm_kernel<T>, "ndrt:cpu");
    r.kernel("layer_norm_bp", kCpu, {dtype_of<T>()}, layer_norm_bp_kernel<T>, "ndrt:cpu");
  });
}

}  // namespace ndrt
