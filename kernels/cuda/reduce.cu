// CUDA reductions: sum, mean, prod, max, min, norm1, norm2, var, std, logsumexp, argmax, argmin
// (the engine is in reduce_engine.cuh; the gradients in reduce_bp.cu). Accumulators follow the CPU
// kernels: sums in f64 for f32/f64, f32 for f16/bf16, i64 (wrapping) for integers.
#include "reduce_engine.cuh"

namespace ndrt::cuda {

void register_cuda_reduce_bp();  // reduce_bp.cu

namespace {

using red::None;
using red::sum_acc_t;

enum { kAxes = 0, kKeepdims = 1, kCorrection = 2 };

template <class T, bool Mean>
struct SumR {
  using Acc = sum_acc_t<T>;
  using Param = None;
  T* y;
  __device__ Acc init() const { return Acc(0); }
  __device__ Param param(int64_t) const { return {}; }
  __device__ Acc step(Acc a, compute_t<T> x, int64_t, Param) const { return red::add_wrap(a, x); }
  __device__ Acc combine(Acc a, Acc b) const { return red::add_wrap(a, b); }
  __device__ void write(int64_t, int64_t oy, Acc a, int64_t n, Param) const {
    if constexpr (Mean)
      y[oy] = convert<T>(a / Acc(n));  // n = 0 gives NaN
    else
      y[oy] = convert<T>(a);
  }
};

template <class T>
struct ProdR {
  // Integers multiply in uint64 (wraps); floats in the sum accumulator.
  using Acc = std::conditional_t<std::is_integral_v<T>, uint64_t, sum_acc_t<T>>;
  using Param = None;
  T* y;
  __device__ Acc init() const { return Acc(1); }
  __device__ Param param(int64_t) const { return {}; }
  __device__ Acc step(Acc a, compute_t<T> x, int64_t, Param) const {
    if constexpr (std::is_integral_v<T>)
      return a * uint64_t(int64_t(x));
    else
      return a * Acc(x);
  }
  __device__ Acc combine(Acc a, Acc b) const { return a * b; }
  __device__ void write(int64_t, int64_t oy, Acc a, int64_t, Param) const {
    if constexpr (std::is_integral_v<T>)
      y[oy] = T(int64_t(a));
    else
      y[oy] = convert<T>(a);
  }
};

// max / min: the shared pass, written to the output in its dtype.
template <class T, bool Less>
struct ExtremeR : red::ExtremePass<T, Less> {
  T* y;
  using Acc = compute_t<T>;
  __device__ void write(int64_t, int64_t oy, Acc a, int64_t, None) const { y[oy] = convert<T>(a); }
};

template <class T, bool Square>
struct NormR {
  using Acc = sum_acc_t<T>;
  using Param = None;
  T* y;
  __device__ Acc init() const { return Acc(0); }
  __device__ Param param(int64_t) const { return {}; }
  __device__ Acc step(Acc a, compute_t<T> x, int64_t, Param) const {
    if constexpr (Square)
      return a + Acc(x) * Acc(x);
    else
      return a + Acc(red::dabs(x));
  }
  __device__ Acc combine(Acc a, Acc b) const { return a + b; }
  __device__ void write(int64_t, int64_t oy, Acc a, int64_t, Param) const {
    y[oy] = convert<T>(Square ? red::dsqrt(a) : a);
  }
};

// Pass 2 of var/std: squared deviations from the pass-1 mean; NaN when n - correction <= 0.
template <class T, bool Sqrt>
struct SqDevR {
  using Acc = sum_acc_t<T>;
  using Param = Acc;
  T* y;
  const Acc* mean;
  double denom;
  __device__ Acc init() const { return Acc(0); }
  __device__ Param param(int64_t m) const { return mean[m]; }
  __device__ Acc step(Acc a, compute_t<T> x, int64_t, Param mu) const {
    const Acc d = Acc(x) - mu;
    return a + d * d;
  }
  __device__ Acc combine(Acc a, Acc b) const { return a + b; }
  __device__ void write(int64_t, int64_t oy, Acc a, int64_t, Param) const {
    if (denom <= 0) {
      y[oy] = convert<T>(red::nan_of<double>());
      return;
    }
    const double v = double(a) / denom;
    y[oy] = convert<T>(Sqrt ? sqrt(v) : v);
  }
};

// Pass 2 of logsumexp: m + log(sum exp(x - m)) in f64, m the pass-1 maximum; a non-finite m is the
// result (no elements or all -inf: -inf; +inf; NaN).
template <class T>
struct SumExpR {
  using C = compute_t<T>;
  using Acc = double;
  using Param = C;
  T* y;
  const C* mx;
  __device__ Acc init() const { return 0.0; }
  __device__ Param param(int64_t m) const { return mx[m]; }
  __device__ Acc step(Acc a, C x, int64_t, C m) const { return a + double(red::dexp(C(x - m))); }
  __device__ Acc combine(Acc a, Acc b) const { return a + b; }
  __device__ void write(int64_t, int64_t oy, Acc a, int64_t, C m) const {
    y[oy] = red::finite(m) ? convert<T>(double(m) + log(a)) : convert<T>(m);
  }
};

// argmax / argmin: the index travels with the value; ties and NaN as the CPU (first index of the
// extreme; a NaN beats everything, the first NaN wins). combine breaks ties by index, so the order
// in which lanes and parts meet does not matter.
template <class T, bool Less>
struct ArgR {
  using C = compute_t<T>;
  struct Acc {
    C v;
    int64_t i;  // -1: nothing seen yet
  };
  using Param = None;
  int64_t* y;
  __device__ static bool better(const Acc& a, C v, int64_t i) {
    if (a.i < 0) return true;
    if (v != v) return a.v == a.v || i < a.i;
    if (a.v != a.v) return false;
    if (Less ? v < a.v : v > a.v) return true;
    return v == a.v && i < a.i;
  }
  __device__ Acc init() const { return Acc{C(0), -1}; }
  __device__ Param param(int64_t) const { return {}; }
  __device__ Acc step(Acc a, C x, int64_t j, Param) const { return better(a, x, j) ? Acc{x, j} : a; }
  __device__ Acc combine(Acc a, Acc b) const { return b.i >= 0 && better(a, b.v, b.i) ? b : a; }
  __device__ void write(int64_t, int64_t oy, Acc a, int64_t, Param) const { y[oy] = a.i < 0 ? 0 : a.i; }
};

// One-pass reductions whose R holds only the output pointer.
template <class T, class R>
void plain_kernel(OpContext& c) {
  const Tensor& x = *c.in[0];
  const red::Plan p =
      red::make_plan(x, red::axes_mask(c.attrs, kAxes, x.rank()), c.out[0]->strides.d, c.attrs.get_bool(kKeepdims));
  R r{};
  r.y = red::data<T>(*c.out[0]);
  red::run<T>(c, p, red::data<T>(x), r, c.op->name);
}

template <class T, bool Sqrt>
void var_kernel(OpContext& c) {
  using Acc = sum_acc_t<T>;
  const Tensor& x = *c.in[0];
  const uint32_t mask = red::axes_mask(c.attrs, kAxes, x.rank());
  const red::Plan flat = red::make_plan(x, mask, nullptr, false);
  if (flat.M == 0) return;
  Scratch mean(c.device, size_t(flat.M) * sizeof(Acc));
  red::run<T>(c, flat, red::data<T>(x), red::MeanPass<T>{mean.as<Acc>()}, c.op->name);
  const red::Plan p = red::make_plan(x, mask, c.out[0]->strides.d, c.attrs.get_bool(kKeepdims));
  const double denom = double(flat.N) - double(c.attrs.get_int(kCorrection));
  red::run<T>(c, p, red::data<T>(x), SqDevR<T, Sqrt>{red::data<T>(*c.out[0]), mean.as<Acc>(), denom}, c.op->name);
}

template <class T>
void logsumexp_kernel(OpContext& c) {
  using C = compute_t<T>;
  const Tensor& x = *c.in[0];
  const uint32_t mask = red::axes_mask(c.attrs, kAxes, x.rank());
  const red::Plan flat = red::make_plan(x, mask, nullptr, false);
  if (flat.M == 0) return;
  Scratch mx(c.device, size_t(flat.M) * sizeof(C));
  red::run<T>(c, flat, red::data<T>(x), red::ExtremePass<T, false>{mx.as<C>()}, c.op->name);
  const red::Plan p = red::make_plan(x, mask, c.out[0]->strides.d, c.attrs.get_bool(kKeepdims));
  red::run<T>(c, p, red::data<T>(x), SumExpR<T>{red::data<T>(*c.out[0]), mx.as<C>()}, c.op->name);
}

template <class T, bool Less>
void arg_kernel(OpContext& c) {
  const Tensor& x = *c.in[0];
  uint32_t mask = 0;
  if (x.rank() > 0) {
    const int64_t axis = c.attrs.get_int(0);
    mask = 1u << (axis < 0 ? axis + x.rank() : axis);
  }
  const red::Plan p = red::make_plan(x, mask, c.out[0]->strides.d, c.attrs.get_bool(1));
  red::run<T>(c, p, red::data<T>(x), ArgR<T, Less>{red::data<int64_t>(*c.out[0])}, c.op->name);
}

constexpr const char* kImpl = "cuda";

}  // namespace

void register_cuda_reduce() {
  red::for_types<float, double, __half, __nv_bfloat16, int32_t, int64_t>([](auto tag) {
    using T = typename decltype(tag)::type;
    const ndrt_dtype d = red::dtype_of<T>();
    reg("sum", {d}, plain_kernel<T, SumR<T, false>>, kImpl);
    reg("prod", {d}, plain_kernel<T, ProdR<T>>, kImpl);
  });
  red::for_types<float, double, __half, __nv_bfloat16, int8_t, uint8_t, int32_t, int64_t>([](auto tag) {
    using T = typename decltype(tag)::type;
    const ndrt_dtype d = red::dtype_of<T>();
    reg("max", {d}, plain_kernel<T, ExtremeR<T, false>>, kImpl);
    reg("min", {d}, plain_kernel<T, ExtremeR<T, true>>, kImpl);
    reg("argmax", {d}, arg_kernel<T, false>, kImpl);
    reg("argmin", {d}, arg_kernel<T, true>, kImpl);
  });
  red::for_types<float, double, __half, __nv_bfloat16>([](auto tag) {
    using T = typename decltype(tag)::type;
    const ndrt_dtype d = red::dtype_of<T>();
    reg("mean", {d}, plain_kernel<T, SumR<T, true>>, kImpl);
    reg("norm1", {d}, plain_kernel<T, NormR<T, false>>, kImpl);
    reg("norm2", {d}, plain_kernel<T, NormR<T, true>>, kImpl);
    reg("var", {d}, var_kernel<T, false>, kImpl);
    reg("std", {d}, var_kernel<T, true>, kImpl);
    reg("logsumexp", {d}, logsumexp_kernel<T>, kImpl);
  });
  register_cuda_reduce_bp();
}

}  // namespace ndrt::cuda
