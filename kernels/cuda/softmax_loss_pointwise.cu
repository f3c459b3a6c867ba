// CUDA kernels of the pointwise losses (mse, l1, binary cross-entropy on probabilities and on
// logits) and their gradients, computed in the dtype as on the CPU. Reduced losses sum in f64 with
// block partials added in order (deterministic); the gradients of reduced losses read dy (a device
// scalar) in every thread rather than on the host.
#include "softmax_loss_common.cuh"

namespace ndrt::cuda {

namespace {

template <class C>
__device__ inline C max_of(C a, C b) {
  return a < b ? b : a;  // as std::max: a NaN a stays
}

struct Mse {
  template <class C>
  __device__ static C f(C p, C t) {
    const C d = p - t;
    return d * d;
  }
  template <class C>
  __device__ static C df(C p, C t) {
    return C(2) * (p - t);
  }
};
struct L1 {
  template <class C>
  __device__ static C f(C p, C t) {
    return red::dabs(p - t);
  }
  template <class C>
  __device__ static C df(C p, C t) {
    return p > t ? C(1) : p < t ? C(-1) : C(0);
  }
};
// On probabilities; each log clamped at -100 as PyTorch, so p = 0 or 1 stays finite.
struct Bce {
  template <class C>
  __device__ static C f(C p, C t) {
    const C lp = max_of(red::dlog(p), C(-100)), lq = max_of(red::dlog1p(-p), C(-100));
    return -(t * lp + (C(1) - t) * lq);
  }
  template <class C>
  __device__ static C df(C p, C t) {
    return (p - t) / max_of(p * (C(1) - p), C(1e-12));
  }
};
// On logits: max(x, 0) - x t + log(1 + e^-|x|), stable for any x.
struct BceLogits {
  template <class C>
  __device__ static C f(C x, C t) {
    return max_of(x, C(0)) - x * t + red::dlog1p(red::dexp(-red::dabs(x)));
  }
  template <class C>
  __device__ static C df(C x, C t) {
    const C e = red::dexp(-red::dabs(x));  // sigmoid without overflow for either sign
    const C s = x >= C(0) ? C(1) / (C(1) + e) : e / (C(1) + e);
    return s - t;
  }
};

template <class T, class F>
__global__ void loss_elements(T* out, const T* p, const T* t, red::Iter<3> it, int64_t total) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t off[3];
    it.offsets(i, off);
    out[off[0]] = F::f(p[off[1]], t[off[2]]);
  }
}

// The loss of element i in f64, for the reduced sums.
template <class T, class F>
struct LossAt {
  const T* p;
  const T* t;
  red::Iter<2> it;
  __device__ double operator()(int64_t i) const {
    int64_t off[2];
    it.offsets(i, off);
    return double(F::f(p[off[0]], t[off[1]]));
  }
};

// dx = df(p, t) * dy elementwise (reduction none).
template <class T, class F>
__global__ void grad_elements(T* dx, const T* p, const T* t, const T* dy, red::Iter<4> it, int64_t total) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t off[4];
    it.offsets(i, off);
    dx[off[0]] = F::df(p[off[1]], t[off[2]]) * dy[off[3]];
  }
}

// dx = df(p, t) * g, g = dy / divisor (dy the scalar gradient of a mean or sum).
template <class T, class F>
__global__ void grad_scaled(T* dx, const T* p, const T* t, const T* dy, double divisor, red::Iter<3> it,
                            int64_t total) {
  const T g = T(double(*dy) / divisor);
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t off[3];
    it.offsets(i, off);
    dx[off[0]] = F::df(p[off[1]], t[off[2]]) * g;
  }
}

template <class T, class F>
void loss_kernel(OpContext& c) {
  const Tensor &p = *c.in[0], &t = *c.in[1];
  Tensor& out = *c.out[0];
  const int64_t red = c.attrs.get_int(0), total = p.numel();
  if (red == sl::kNone) {
    if (total == 0) return;
    const red::Iter<3> it = red::make_iter<3>(p.shape, {out.strides.d, p.strides.d, t.strides.d});
    const Launch L = launch_for(total);
    loss_elements<T, F><<<L.grid, L.block, 0, stream(c)>>>(red::data<T>(out), red::data<T>(p), red::data<T>(t), it,
                                                           total);
    check_launch(c.op->name);
    return;
  }
  const LossAt<T, F> at{red::data<T>(p), red::data<T>(t), red::make_iter<2>(p.shape, {p.strides.d, t.strides.d})};
  sl::reduce_loss<T>(c, total, double(total), red == sl::kMean, at, red::data<T>(out));
}

template <class T, class F>
void loss_bp_kernel(OpContext& c) {
  const Tensor &p = *c.in[0], &t = *c.in[1], &dy = *c.in[2];
  Tensor& dx = *c.out[0];
  const int64_t red = c.attrs.get_int(0), total = p.numel();
  if (total == 0) return;
  const Launch L = launch_for(total);
  if (red == sl::kNone) {
    const red::Iter<4> it = red::make_iter<4>(p.shape, {dx.strides.d, p.strides.d, t.strides.d, dy.strides.d});
    grad_elements<T, F><<<L.grid, L.block, 0, stream(c)>>>(red::data<T>(dx), red::data<T>(p), red::data<T>(t),
                                                           red::data<T>(dy), it, total);
  } else {
    const red::Iter<3> it = red::make_iter<3>(p.shape, {dx.strides.d, p.strides.d, t.strides.d});
    grad_scaled<T, F><<<L.grid, L.block, 0, stream(c)>>>(red::data<T>(dx), red::data<T>(p), red::data<T>(t),
                                                         red::data<T>(dy), red == sl::kMean ? double(total) : 1.0, it,
                                                         total);
  }
  check_launch(c.op->name);
}

constexpr const char* kImpl = "cuda";

}  // namespace

void register_cuda_softmax_loss_pointwise() {
  red::for_types<float, double>([](auto tag) {
    using T = typename decltype(tag)::type;
    const ndrt_dtype d = red::dtype_of<T>();
    reg("mse_loss", {d}, loss_kernel<T, Mse>, kImpl);
    reg("mse_loss_bp", {d}, loss_bp_kernel<T, Mse>, kImpl);
    reg("l1_loss", {d}, loss_kernel<T, L1>, kImpl);
    reg("l1_loss_bp", {d}, loss_bp_kernel<T, L1>, kImpl);
    reg("binary_cross_entropy", {d}, loss_kernel<T, Bce>, kImpl);
    reg("binary_cross_entropy_bp", {d}, loss_bp_kernel<T, Bce>, kImpl);
    reg("bce_with_logits", {d}, loss_kernel<T, BceLogits>, kImpl);
    reg("bce_with_logits_bp", {d}, loss_bp_kernel<T, BceLogits>, kImpl);
  });
}

}  // namespace ndrt::cuda
