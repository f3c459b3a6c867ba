// cpu kernels: batch norm forward (training and inference) and backward. x is seen densely as
// [outer, C, inner] around the channel axis. Per-channel sums are taken in f64 over fixed chunks
// and added in order (deterministic for any thread count): long runs of one channel (NCHW) split
// by (channel, chunk of outer); short runs (NC, NHWC) go row by row over all channels with
// per-position accumulators, so both vectorise. Statistics take two passes (mean, then squared
// deviations) so large means do not cancel.
#include <cmath>
#include <vector>

#include "kernels.hpp"
#include "norm_dense.hpp"
#include "reduce_math.hpp"

namespace ndrt {

namespace {

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

// Per-channel statistics: Sum (x), SqDev ((x - center_c)^2), Bp (dy and dy (x - center_c)).
enum class Stat { Sum, SqDev, Bp };

// out[s * C + c]: the S statistics of channel c, f64 partial sums over fixed chunks of outer.
template <Stat M, class T>
std::vector<double> channel_stats(const Chan& L, const T* x, const T* dy, const std::vector<double>& center) {
  constexpr int S = M == Stat::Bp ? 2 : 1;
  const int64_t C = L.C, outer = L.outer, inner = L.inner, K = C * inner;
  std::vector<double> out(size_t(S * C), 0.0);
  if (C == 0 || L.count() == 0) return out;
  const bool long_runs = inner >= 16;
  // Chunks of outer: about kChunk elements of one channel (long runs) or of all channels (short).
  const int64_t P =
      std::max<int64_t>(1, std::min<int64_t>({outer, 256, outer * (long_runs ? inner : K) / nrm::kChunk}));
  if (long_runs) {
    std::vector<double> part(size_t(C * P * S), 0.0);  // [channel][chunk][S]
    parallel_for(C * P, 1, [&](int64_t b, int64_t e) {
      for (int64_t t = b; t < e; ++t) {
        const int64_t c = t / P, p = t % P;
        const T m = T(center.empty() ? 0.0 : center[size_t(c)]);
        double* acc = &part[size_t(t * S)];
        for (int64_t o = outer * p / P; o < outer * (p + 1) / P; ++o) {
          const int64_t off = (o * C + c) * inner;
          if constexpr (M == Stat::Sum) acc[0] += red::run_sum<double>(x + off, inner);
          if constexpr (M == Stat::SqDev) acc[0] += red::run_sqdev<double>(x + off, inner, m);
          if constexpr (M == Stat::Bp) {
            acc[0] += red::run_sum<double>(dy + off, inner);
            acc[1] += red::run_dot_dev<double>(x + off, dy + off, inner, m);
          }
        }
      }
    });
    for (int64_t c = 0; c < C; ++c)
      for (int64_t p = 0; p < P; ++p)
        for (int q = 0; q < S; ++q) out[size_t(q * C + c)] += part[size_t((c * P + p) * S + q)];
    return out;
  }
  // Short runs (NC, NHWC): whole rows of K = C * inner elements, per-position accumulators.
  std::vector<T> mk(size_t(K), T(0));
  if (!center.empty())
    for (int64_t k = 0; k < K; ++k) mk[size_t(k)] = T(center[size_t(k / inner)]);
  std::vector<double> part(size_t(P * S * K), 0.0);  // [chunk][S][K]
  parallel_for(P, 1, [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      double* a0 = &part[size_t(p * S * K)];
      double* a1 = a0 + K;
      for (int64_t o = outer * p / P; o < outer * (p + 1) / P; ++o) {
        const T* xr = x + o * K;
        if constexpr (M == Stat::Sum)
          for (int64_t k = 0; k < K; ++k) a0[k] += double(xr[k]);
        if constexpr (M == Stat::SqDev)
          for (int64_t k = 0; k < K; ++k) {
            const double d = double(xr[k] - mk[size_t(k)]);
            a0[k] += d * d;
          }
        if constexpr (M == Stat::Bp) {
          const T* gr = dy + o * K;
          for (int64_t k = 0; k < K; ++k) {
            a0[k] += double(gr[k]);
            a1[k] += double(gr[k]) * double(xr[k] - mk[size_t(k)]);
          }
        }
      }
    }
  });
  for (int64_t p = 0; p < P; ++p)
    for (int q = 0; q < S; ++q)
      for (int64_t k = 0; k < K; ++k) out[size_t(q * C + k / inner)] += part[size_t((p * S + q) * K + k)];
  return out;
}

// out = a_c u + b_c (x - m_c) + k_c over every element (u null: the a term is absent).
template <class T>
void channel_affine(const Chan& L, const T* x, const T* u, T* out, const std::vector<double>& m,
                    const std::vector<double>& a, const std::vector<double>& b, const std::vector<double>& k) {
  const int64_t C = L.C, inner = L.inner, K = C * inner;
  if (L.outer * K == 0) return;
  if (inner >= 16) {
    parallel_for(L.outer * C, std::max<int64_t>(1, kElementwiseGrain / inner), [&](int64_t rb, int64_t re) {
      for (int64_t r = rb; r < re; ++r) {
        const size_t c = size_t(r % C);
        const T mv = T(m[c]), av = T(a[c]), bv = T(b[c]), kv = T(k[c]);
        const T* xr = x + r * inner;
        T* o = out + r * inner;
        if (u) {
          const T* ur = u + r * inner;
          for (int64_t j = 0; j < inner; ++j) o[j] = av * ur[j] + bv * (xr[j] - mv) + kv;
        } else {
          for (int64_t j = 0; j < inner; ++j) o[j] = bv * (xr[j] - mv) + kv;
        }
      }
    });
    return;
  }
  const size_t nk = static_cast<size_t>(K);
  std::vector<T> me(nk), ae(nk), be(nk), ke(nk);  // per row position
  for (int64_t j = 0; j < K; ++j) {
    const size_t c = size_t(j / inner);
    me[size_t(j)] = T(m[c]);
    ae[size_t(j)] = T(a[c]);
    be[size_t(j)] = T(b[c]);
    ke[size_t(j)] = T(k[c]);
  }
  parallel_for(L.outer, std::max<int64_t>(1, kElementwiseGrain / K), [&](int64_t ob, int64_t oe) {
    for (int64_t o = ob; o < oe; ++o) {
      const T* xr = x + o * K;
      T* r = out + o * K;
      if (u) {
        const T* ur = u + o * K;
        for (int64_t j = 0; j < K; ++j)
          r[j] = ae[size_t(j)] * ur[j] + be[size_t(j)] * (xr[j] - me[size_t(j)]) + ke[size_t(j)];
      } else {
        for (int64_t j = 0; j < K; ++j) r[j] = be[size_t(j)] * (xr[j] - me[size_t(j)]) + ke[size_t(j)];
      }
    }
  });
}

template <class T>
void batch_norm_kernel(OpContext& c) {
  const Tensor& x = *c.in[0];
  const Chan L = chan_of(x, c.attrs.get_int(0));
  const double momentum = c.attrs.get_float(1), eps = c.attrs.get_float(2);
  const int64_t C = L.C;
  const double n = double(L.count());
  // Read every per-channel input before writing any output: outputs 3/4 may be the running
  // statistics themselves (in place).
  const std::vector<double> gamma = nrm::read_vec<T>(*c.in[1]), beta = nrm::read_vec<T>(*c.in[2]);
  std::vector<double> rmean = nrm::read_vec<T>(*c.in[3]), rvar = nrm::read_vec<T>(*c.in[4]);
  if (C == 0) return;
  nrm::DenseIn<T> X(x);
  std::vector<double> mean = channel_stats<Stat::Sum>(L, X.p, static_cast<const T*>(nullptr), {});
  for (double& m : mean) m /= n;
  std::vector<double> var = channel_stats<Stat::SqDev>(L, X.p, static_cast<const T*>(nullptr), mean);
  std::vector<double> invstd(static_cast<size_t>(C)), scale(static_cast<size_t>(C));
  for (int64_t ch = 0; ch < C; ++ch) {
    const size_t i = size_t(ch);
    var[i] /= n;
    invstd[i] = 1.0 / std::sqrt(var[i] + eps);
    scale[i] = gamma[i] * invstd[i];
    rmean[i] = (1 - momentum) * rmean[i] + momentum * mean[i];
    rvar[i] = (1 - momentum) * rvar[i] + momentum * var[i] * n / (n - 1);
  }
  nrm::DenseOut<T> Y(*c.out[0]);
  channel_affine<T>(L, X.p, nullptr, Y.p, mean, scale, scale, beta);  // centred first: exact for large means
  Y.finish();
  nrm::write_vec<T>(*c.out[1], mean);
  nrm::write_vec<T>(*c.out[2], invstd);
  nrm::write_vec<T>(*c.out[3], rmean);
  nrm::write_vec<T>(*c.out[4], rvar);
}

template <class T>
void batch_norm_inference_kernel(OpContext& c) {
  const Tensor& x = *c.in[0];
  const Chan L = chan_of(x, c.attrs.get_int(0));
  const double eps = c.attrs.get_float(1);
  const std::vector<double> gamma = nrm::read_vec<T>(*c.in[1]), beta = nrm::read_vec<T>(*c.in[2]);
  const std::vector<double> rmean = nrm::read_vec<T>(*c.in[3]), rvar = nrm::read_vec<T>(*c.in[4]);
  std::vector<double> scale(gamma.size());
  for (size_t i = 0; i < scale.size(); ++i) scale[i] = gamma[i] / std::sqrt(rvar[i] + eps);
  if (x.numel() == 0) return;
  nrm::DenseIn<T> X(x);
  nrm::DenseOut<T> Y(*c.out[0]);
  channel_affine<T>(L, X.p, nullptr, Y.p, rmean, scale, scale, beta);
  Y.finish();
}

// dx = gamma invstd (dy - mean(dy) - xhat mean(dy xhat)), written as dx = a dy + b (x - mean) + k.
template <class T>
void batch_norm_bp_kernel(OpContext& c) {
  const Tensor& x = *c.in[0];
  const Chan L = chan_of(x, c.attrs.get_int(0));
  const int64_t C = L.C;
  const double n = double(L.count());
  const std::vector<double> gamma = nrm::read_vec<T>(*c.in[1]), mean = nrm::read_vec<T>(*c.in[2]),
                            invstd = nrm::read_vec<T>(*c.in[3]);
  nrm::DenseIn<T> X(x), DY(*c.in[4]);
  std::vector<double> s = channel_stats<Stat::Bp>(L, X.p, DY.p, mean);
  const size_t nc = static_cast<size_t>(C);
  std::vector<double> dgamma(nc), dbeta(nc), a(nc), b(nc), k(nc);
  for (size_t i = 0; i < nc; ++i) {
    const double sdy = s[i], sdyx = s[nc + i], is = invstd[i], g = gamma[i];
    dbeta[i] = sdy;
    dgamma[i] = sdyx * is;
    a[i] = g * is;
    b[i] = n > 0 ? -g * is * is * is * sdyx / n : 0;
    k[i] = n > 0 ? -g * is * sdy / n : 0;
  }
  if (x.numel() > 0) {
    nrm::DenseOut<T> DX(*c.out[0]);
    channel_affine<T>(L, X.p, DY.p, DX.p, mean, a, b, k);
    DX.finish();
  }
  nrm::write_vec<T>(*c.out[1], dgamma);
  nrm::write_vec<T>(*c.out[2], dbeta);
}

}  // namespace

void register_cpu_norm(Registry& r) {
  for_types<float, double>([&](auto t) {
    using T = decltype(t);
    const ndrt_dtype d = dtype_of<T>();
    r.kernel("batch_norm", kCpu, {d}, batch_norm_kernel<T>, "ndrt:cpu");
    r.kernel("batch_norm_inference", kCpu, {d}, batch_norm_inference_kernel<T>, "ndrt:cpu");
    r.kernel("batch_norm_bp", kCpu, {d}, batch_norm_bp_kernel<T>, "ndrt:cpu");
  });
  register_cpu_norm_layer(r);
}

}  // namespace ndrt
