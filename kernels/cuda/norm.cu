// CUDA norm family: batch norm (training with running statistics, inference, backward) and layer
// norm (forward, backward), f32 and f64 as on the cpu (kernels/cpu/norm*.cpp), with the same
// arithmetic: statistics in f64 (two passes, mean then squared deviations, the deviation taken in
// T), per-channel coefficients in f64 rounded to T, the elementwise pass in T.
//  - batch norm: x seen densely as [outer, C, inner]; per-channel sums by chan::channel_sums (f64,
//    fixed order), a per-channel finishing step (statistics, running-stat update, coefficients),
//    then one elementwise pass out = a u + b (x - m) + k.
//  - layer norm: x seen as [R, D]; one block per row (block reductions in f64); the backward's
//    dgamma/dbeta are column sums over rows, taken before dx is written (dx may be dy's view).
// Every per-channel input is read by the thread that writes that channel's outputs, before it
// writes them, so outputs may be the inputs' own views (running statistics updated in place).
#include <cmath>

#include "channel_sums.cuh"
#include "cuda_common.cuh"
#include "dense_copy.cuh"

namespace ndrt::cuda {

namespace {

using dense::base_of;
using dense::first_index;
using dense::grid_step;

// A strided rank-1 vector.
template <class T>
struct Vec {
  T* p;
  int64_t s;
  __device__ T& operator[](int64_t i) const { return p[i * s]; }
};
template <class T>
Vec<T> vec_of(const Tensor& t) {
  return {reinterpret_cast<T*>(base_of(t)), t.strides.d[0]};
}

struct Chan {
  int64_t outer = 1, C = 1, inner = 1;
  int64_t count() const { return outer * inner; }  // elements per channel
};

Chan chan_of(const Tensor& x, int64_t axis_attr) {
  const int axis = int(axis_attr < 0 ? axis_attr + x.rank() : axis_attr);
  Chan L;
  for (int i = 0; i < x.rank(); ++i) {
    if (i < axis) L.outer *= x.shape.d[i];
    if (i > axis) L.inner *= x.shape.d[i];
  }
  L.C = x.shape.d[axis];
  return L;
}

// ---- batch norm ---------------------------------------------------------------------------------

template <class T>
struct SumX {
  const T* x;
  __device__ void operator()(int64_t e, int64_t, double* v) const { v[0] = double(x[e]); }
};
struct StoreMean {
  double* mean;
  double n;
  __device__ void operator()(int64_t c, const double* s) const { mean[c] = s[0] / n; }
};
template <class T>
struct SqDev {
  const T* x;
  const double* mean;
  __device__ void operator()(int64_t e, int64_t c, double* v) const {
    const double d = double(x[e] - T(mean[c]));
    v[0] = d * d;
  }
};

// Coefficients of the elementwise pass per channel: out = a u + b (x - m) + k.
template <class T>
struct Coef {
  T m, a, b, k;
};

// Training statistics of channel c -> mean, invstd, running statistics, coefficients.
template <class T>
struct FinishStats {
  const double* mean;
  double n, eps, momentum;
  Vec<const T> gamma, beta, rmean, rvar;
  Vec<T> mean_out, invstd_out, rmean_out, rvar_out;
  Coef<T>* coef;
  __device__ void operator()(int64_t c, const double* s) const {
    const double g = double(gamma[c]), bt = double(beta[c]), rm = double(rmean[c]), rv = double(rvar[c]);
    const double mu = mean[c], var = s[0] / n;
    const double is = 1.0 / sqrt(var + eps), scale = g * is;
    mean_out[c] = T(mu);
    invstd_out[c] = T(is);
    rmean_out[c] = T((1 - momentum) * rm + momentum * mu);
    rvar_out[c] = T((1 - momentum) * rv + momentum * var * n / (n - 1));
    coef[c] = {T(mu), T(0), T(scale), T(bt)};
  }
};

template <class T>
__global__ void inference_coef(Vec<const T> gamma, Vec<const T> beta, Vec<const T> rmean, Vec<const T> rvar,
                               double eps, Coef<T>* coef, int64_t C) {
  for (int64_t c = first_index(); c < C; c += grid_step())
    coef[c] = {T(rmean[c]), T(0), T(double(gamma[c]) / sqrt(double(rvar[c]) + eps)), T(beta[c])};
}

// out = a u + b (x - m) + k per element (u null: no a term), channel (e / inner) % C.
template <class T>
__global__ void channel_affine(const T* x, const T* u, T* out, int64_t total, int64_t C, int64_t inner,
                               const Coef<T>* coef) {
  for (int64_t e = first_index(); e < total; e += grid_step()) {
    const Coef<T> q = coef[(e / inner) % C];
    const T v = q.b * (x[e] - q.m) + q.k;
    out[e] = u ? q.a * u[e] + v : v;
  }
}

template <class T>
void launch_affine(const OpContext& c, const Chan& L, const T* x, const T* u, const Tensor& out, const Coef<T>* coef) {
  const int64_t total = out.numel();
  if (total == 0) return;
  dense::Out O(c, out);
  const Launch l = launch_for(total);
  channel_affine<T><<<l.grid, l.block, 0, stream(c)>>>(x, u, O.as<T>(), total, L.C, L.inner, coef);
  check_launch(c.op->name);
  O.finish();
}

template <class T>
void batch_norm_run(OpContext& c) {
  const Tensor& x = *c.in[0];
  const Chan L = chan_of(x, c.attrs.get_int(0));
  const double momentum = c.attrs.get_float(1), eps = c.attrs.get_float(2);
  if (L.C == 0) return;
  const double n = double(L.count());
  dense::In X(c, x);
  Scratch mean(c.device, size_t(L.C) * sizeof(double));
  Scratch coef(c.device, size_t(L.C) * sizeof(Coef<T>));
  chan::channel_sums<1>(c, L.outer, L.C, L.inner, SumX<T>{X.as<T>()}, StoreMean{mean.as<double>(), n});
  FinishStats<T> fin{mean.as<double>(), n, eps, momentum,
                     vec_of<const T>(*c.in[1]), vec_of<const T>(*c.in[2]), vec_of<const T>(*c.in[3]),
                     vec_of<const T>(*c.in[4]), vec_of<T>(*c.out[1]), vec_of<T>(*c.out[2]), vec_of<T>(*c.out[3]),
                     vec_of<T>(*c.out[4]), coef.as<Coef<T>>()};
  chan::channel_sums<1>(c, L.outer, L.C, L.inner, SqDev<T>{X.as<T>(), mean.as<double>()}, fin);
  launch_affine<T>(c, L, X.as<T>(), nullptr, *c.out[0], coef.as<Coef<T>>());
}

template <class T>
void batch_norm_inference_run(OpContext& c) {
  const Tensor& x = *c.in[0];
  const Chan L = chan_of(x, c.attrs.get_int(0));
  if (x.numel() == 0) return;
  Scratch coef(c.device, size_t(L.C) * sizeof(Coef<T>));
  const Launch l = launch_for(L.C, 128);
  inference_coef<T><<<l.grid, l.block, 0, stream(c)>>>(vec_of<const T>(*c.in[1]), vec_of<const T>(*c.in[2]),
                                                       vec_of<const T>(*c.in[3]), vec_of<const T>(*c.in[4]),
                                                       c.attrs.get_float(1), coef.as<Coef<T>>(), L.C);
  check_launch(c.op->name);
  dense::In X(c, x);
  launch_affine<T>(c, L, X.as<T>(), nullptr, *c.out[0], coef.as<Coef<T>>());
}

template <class T>
struct BpSums {
  const T* x;
  const T* dy;
  Vec<const T> mean;
  __device__ void operator()(int64_t e, int64_t c, double* v) const {
    v[0] = double(dy[e]);
    v[1] = double(dy[e]) * double(x[e] - mean[c]);
  }
};

// dx = gamma invstd (dy - mean(dy) - xhat mean(dy xhat)) as a dy + b (x - mean) + k.
template <class T>
struct FinishBp {
  double n;
  Vec<const T> gamma, mean, invstd;
  Vec<T> dgamma, dbeta;
  Coef<T>* coef;
  __device__ void operator()(int64_t c, const double* s) const {
    const double sdy = s[0], sdyx = s[1], is = double(invstd[c]), g = double(gamma[c]);
    const T m = mean[c];
    dbeta[c] = T(sdy);
    dgamma[c] = T(sdyx * is);
    const double b = n > 0 ? -g * is * is * is * sdyx / n : 0, k = n > 0 ? -g * is * sdy / n : 0;
    coef[c] = {m, T(g * is), T(b), T(k)};
  }
};

template <class T>
void batch_norm_bp_run(OpContext& c) {
  const Tensor& x = *c.in[0];
  const Chan L = chan_of(x, c.attrs.get_int(0));
  if (L.C == 0) return;
  dense::In X(c, x), DY(c, *c.in[4]);
  Scratch coef(c.device, size_t(L.C) * sizeof(Coef<T>));
  FinishBp<T> fin{double(L.count()), vec_of<const T>(*c.in[1]), vec_of<const T>(*c.in[2]),
                  vec_of<const T>(*c.in[3]), vec_of<T>(*c.out[1]), vec_of<T>(*c.out[2]), coef.as<Coef<T>>()};
  chan::channel_sums<2>(c, L.outer, L.C, L.inner, BpSums<T>{X.as<T>(), DY.as<T>(), vec_of<const T>(*c.in[2])}, fin);
  launch_affine<T>(c, L, X.as<T>(), DY.as<T>(), *c.out[0], coef.as<Coef<T>>());
}

// ---- layer norm ---------------------------------------------------------------------------------

void rows_of(const Tensor& x, int64_t axis_attr, int64_t& R, int64_t& D) {
  const int axis = int(axis_attr < 0 ? axis_attr + x.rank() : axis_attr);
  R = D = 1;
  for (int i = 0; i < x.rank(); ++i) (i < axis ? R : D) *= x.shape.d[i];
}

// One block per row (grid-stride over rows); block size a multiple of 32 for chan::block_sum.
Launch row_launch(int64_t R, int64_t D) {
  unsigned want = D >= 256 ? 256u : unsigned((D + 31) / 32 * 32);
  if (want < 32) want = 32;
  Launch l = launch_for(R * int64_t(want), want);
  l.block = l.block >= 32 ? l.block / 32 * 32 : 32;
  return l;
}

template <class T>
__global__ void layer_norm_rows(const T* x, const T* gamma, const T* beta, T* y, T* mean_out, T* invstd_out,
                                int64_t R, int64_t D, double eps) {
  __shared__ double shared[33];
  for (int64_t r = blockIdx.x; r < R; r += gridDim.x) {
    const T* xr = x + r * D;
    double s = 0;
    for (int64_t i = threadIdx.x; i < D; i += blockDim.x) s += double(xr[i]);
    const double mean = chan::block_sum(s, shared) / double(D);  // D = 0: NaN statistics, as the cpu
    const T m = T(mean);
    double q = 0;
    for (int64_t i = threadIdx.x; i < D; i += blockDim.x) {
      const double d = double(xr[i] - m);
      q += d * d;
    }
    const double var = chan::block_sum(q, shared) / double(D);
    const T is = T(1.0 / sqrt(var + eps));
    T* yr = y + r * D;
    for (int64_t i = threadIdx.x; i < D; i += blockDim.x) yr[i] = (xr[i] - m) * is * gamma[i] + beta[i];
    if (threadIdx.x == 0) {
      mean_out[r] = m;
      invstd_out[r] = is;
    }
  }
}

template <class T>
void layer_norm_run(OpContext& c) {
  const Tensor& x = *c.in[0];
  int64_t R, D;
  rows_of(x, c.attrs.get_int(0), R, D);
  if (R == 0) return;
  dense::In X(c, x), G(c, *c.in[1]), B(c, *c.in[2]);
  dense::Out Y(c, *c.out[0]), MEAN(c, *c.out[1]), IS(c, *c.out[2]);
  const Launch l = row_launch(R, D);
  layer_norm_rows<T><<<l.grid, l.block, 0, stream(c)>>>(X.as<T>(), G.as<T>(), B.as<T>(), Y.as<T>(), MEAN.as<T>(),
                                                        IS.as<T>(), R, D, c.attrs.get_float(1));
  check_launch("layer_norm");
  Y.finish();
  MEAN.finish();
  IS.finish();
}

// Column sums over rows: dgamma += dy xhat, dbeta += dy.
template <class T>
struct LnBpColumns {
  const T* x;
  const T* dy;
  const T* mean;
  const T* invstd;
  int64_t D;
  __device__ void operator()(int64_t e, int64_t col, double* v) const {
    const int64_t r = (e - col) / D;
    const T h = (x[e] - mean[r]) * invstd[r], d = dy[e];
    v[0] = double(d * h);
    v[1] = double(d);
  }
};
template <class T>
struct StoreTwo {
  T* a;
  T* b;
  __device__ void operator()(int64_t c, const double* s) const {
    a[c] = T(s[0]);
    b[c] = T(s[1]);
  }
};

// Per row: g = dy gamma, xhat = (x - mean) invstd, dx = invstd (g - mean(g) - xhat mean(g xhat)).
template <class T>
__global__ void layer_norm_bp_rows(const T* x, const T* gamma, const T* mean, const T* invstd, const T* dy, T* dx,
                                   int64_t R, int64_t D) {
  __shared__ double shared[33];
  for (int64_t r = blockIdx.x; r < R; r += gridDim.x) {
    const T *xr = x + r * D, *dr = dy + r * D;
    const T m = mean[r], s = invstd[r];
    double sg = 0, sgx = 0;
    for (int64_t i = threadIdx.x; i < D; i += blockDim.x) {
      const T g = dr[i] * gamma[i], h = (xr[i] - m) * s;
      sg += double(g);
      sgx += double(g) * double(h);
    }
    const T a = T(chan::block_sum(sg, shared) / double(D)), k = T(chan::block_sum(sgx, shared) / double(D));
    T* o = dx + r * D;
    for (int64_t i = threadIdx.x; i < D; i += blockDim.x) {
      const T g = dr[i] * gamma[i], h = (xr[i] - m) * s;
      o[i] = s * (g - a - h * k);
    }
  }
}

template <class T>
void layer_norm_bp_run(OpContext& c) {
  const Tensor& x = *c.in[0];
  int64_t R, D;
  rows_of(x, c.attrs.get_int(0), R, D);
  if (D == 0) return;
  dense::In X(c, x), G(c, *c.in[1]), MEAN(c, *c.in[2]), IS(c, *c.in[3]), DY(c, *c.in[4]);
  dense::Out DX(c, *c.out[0]), DG(c, *c.out[1]), DB(c, *c.out[2]);
  chan::channel_sums<2>(c, R, D, 1, LnBpColumns<T>{X.as<T>(), DY.as<T>(), MEAN.as<T>(), IS.as<T>(), D},
                        StoreTwo<T>{DG.as<T>(), DB.as<T>()});
  DG.finish();
  DB.finish();
  if (R == 0) return;
  const Launch l = row_launch(R, D);
  layer_norm_bp_rows<T><<<l.grid, l.block, 0, stream(c)>>>(X.as<T>(), G.as<T>(), MEAN.as<T>(), IS.as<T>(),
                                                           DY.as<T>(), DX.as<T>(), R, D);
  check_launch("layer_norm_bp");
  DX.finish();
}

template <template <class> class Run>
void by_dtype(OpContext& c) {
  c.impl = "cuda";
  visit<NDRT_F32, NDRT_F64>(c.in[0]->dtype, c.op->name, [&](auto t) { Run<decltype(t)>::go(c); });
}
template <class T> struct BatchNorm { static void go(OpContext& c) { batch_norm_run<T>(c); } };
template <class T> struct BatchNormInference { static void go(OpContext& c) { batch_norm_inference_run<T>(c); } };
template <class T> struct BatchNormBp { static void go(OpContext& c) { batch_norm_bp_run<T>(c); } };
template <class T> struct LayerNorm { static void go(OpContext& c) { layer_norm_run<T>(c); } };
template <class T> struct LayerNormBp { static void go(OpContext& c) { layer_norm_bp_run<T>(c); } };

}  // namespace

void register_cuda_norm() {
  reg("batch_norm", {NDRT_F32, NDRT_F64}, by_dtype<BatchNorm>, "cuda");
  reg("batch_norm_inference", {NDRT_F32, NDRT_F64}, by_dtype<BatchNormInference>, "cuda");
  reg("batch_norm_bp", {NDRT_F32, NDRT_F64}, by_dtype<BatchNormBp>, "cuda");
  reg("layer_norm", {NDRT_F32, NDRT_F64}, by_dtype<LayerNorm>, "cuda");
  reg("layer_norm_bp", {NDRT_F32, NDRT_F64}, by_dtype<LayerNormBp>, "cuda");
}

}  // namespace ndrt::cuda
