// CUDA reduction gradients: sum_bp, mean_bp, max_bp, min_bp, prod_bp, norm1_bp, norm2_bp, var_bp,
// std_bp, logsumexp_bp. As on the CPU, the per-group values a gradient needs (the extremum and its
// tie count, the product of the nonzero elements and the zero count, the norm, the mean split in
// hi/lo, std, logsumexp) are reduced into small buffers indexed by the flat group index; then one
// elementwise pass over x computes dx = f(x, dy, group values) in the compute type, rounding once.
#include "reduce_engine.cuh"

namespace ndrt::cuda {

namespace {

using red::None;
using red::sum_acc_t;

enum { kAxes = 0, kKeepdims = 1, kCorrection = 2 };

// Per element of x: dy's element (stride 0 along the reduced axes) and the flat group index
// (row-major over the kept axes).
struct GradSetup {
  uint32_t mask = 0;
  int64_t n = 1;  // elements per group
  int64_t dy_strides[NDRT_MAX_RANK];
  int64_t group_strides[NDRT_MAX_RANK];
};

GradSetup grad_setup(const OpContext& c) {
  const Tensor &x = *c.in[0], &dy = *c.in[1];
  GradSetup g;
  g.mask = red::axes_mask(c.attrs, kAxes, x.rank());
  const bool keep = c.attrs.get_bool(kKeepdims);
  for (int i = 0, j = 0; i < x.rank(); ++i) {
    if (g.mask & (1u << i)) {
      g.n *= x.shape.d[i];
      g.dy_strides[i] = 0;
      if (keep) ++j;
    } else {
      g.dy_strides[i] = dy.strides.d[j++];
    }
  }
  int64_t acc = 1;
  for (int i = x.rank() - 1; i >= 0; --i) {
    if (g.mask & (1u << i)) {
      g.group_strides[i] = 0;
    } else {
      g.group_strides[i] = acc;
      acc *= x.shape.d[i];
    }
  }
  return g;
}

template <class T, class F>
__global__ void grad_kernel(T* dx, const T* x, const T* dy, red::Iter<4> it, int64_t total, F f) {
  using C = compute_t<T>;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t off[4];
    it.offsets(i, off);
    const C g = convert<C>(dy[off[2]]);
    const C xv = F::kUsesX ? convert<C>(x[off[1]]) : C(0);
    dx[off[0]] = convert<T>(f(xv, g, off[3]));
  }
}

// dx = f(x, dy, group) over x's elements.
template <class T, class F>
void grad_map(const OpContext& c, const GradSetup& s, const F& f) {
  const Tensor &x = *c.in[0], &dy = *c.in[1];
  Tensor& dx = *c.out[0];
  const int64_t total = x.numel();
  if (total == 0) return;
  const red::Iter<4> it =
      red::make_iter<4>(x.shape, {dx.strides.d, x.strides.d, s.dy_strides, s.group_strides});
  const Launch L = launch_for(total);
  grad_kernel<T, F><<<L.grid, L.block, 0, stream(c)>>>(red::data<T>(dx), red::data<T>(x), red::data<T>(dy), it,
                                                       total, f);
  check_launch(c.op->name);
}

// Group buffers of the compute type, one value per group.
template <class C>
struct GroupBuffers {
  GroupBuffers(ndrt_device d, int64_t groups, int count) : mem(d, size_t(groups) * size_t(count) * sizeof(C)), M(groups) {}
  C* operator[](int k) const { return mem.as<C>() + k * M; }
  Scratch mem;
  int64_t M;
};

// ---- elementwise gradient functions ----------------------------------------------------------------
template <class C>
struct ScaleF {  // sum_bp, mean_bp
  static constexpr bool kUsesX = false;
  C scale;
  __device__ C operator()(C, C g, int64_t) const { return g * scale; }
};

// x is the group's extremum m (a NaN m matches the NaNs).
template <class C>
__device__ inline bool hits(C x, C m) {
  return x == m || (x != x && m != m);
}

template <class C>
struct ExtremeF {  // max_bp, min_bp: ties share the gradient
  static constexpr bool kUsesX = true;
  const C* m;
  const C* k;
  __device__ C operator()(C x, C g, int64_t grp) const { return hits(x, m[grp]) ? g / k[grp] : C(0); }
};

template <class C>
struct ProdF {  // zeros: 0 -> P / x; 1 -> P at the zero; 2+ -> 0
  static constexpr bool kUsesX = true;
  const C* prod;
  const C* zeros;
  __device__ C operator()(C x, C g, int64_t grp) const {
    const C p = prod[grp], z = zeros[grp];
    if (z == C(0)) return g * (p / x);
    if (z == C(1)) return x == C(0) ? g * p : C(0);
    return C(0);
  }
};

template <class C>
struct Norm1F {
  static constexpr bool kUsesX = true;
  __device__ C operator()(C x, C g, int64_t) const { return x > C(0) ? g : x < C(0) ? -g : C(0); }
};

template <class C>
struct Norm2F {
  static constexpr bool kUsesX = true;
  const C* norm;
  __device__ C operator()(C x, C g, int64_t grp) const {
    const C y = norm[grp];
    return y == C(0) ? C(0) : g * (x / y);
  }
};

template <class C>
struct VarF {
  static constexpr bool kUsesX = true;
  const C* hi;
  const C* lo;
  C k;  // 2 / (n - correction), NaN when that is <= 0
  __device__ C operator()(C x, C g, int64_t grp) const { return g * (k * ((x - hi[grp]) - lo[grp])); }
};

template <class C>
struct StdF {
  static constexpr bool kUsesX = true;
  const C* hi;
  const C* lo;
  const C* scaled_std;  // (n - correction) * std
  __device__ C operator()(C x, C g, int64_t grp) const {
    const C s = scaled_std[grp];
    return s == C(0) ? C(0) : g * (((x - hi[grp]) - lo[grp]) / s);
  }
};

template <class C>
struct LogSumExpF {
  static constexpr bool kUsesX = true;
  const C* hi;
  const C* lo;
  __device__ C operator()(C x, C g, int64_t grp) const { return g * red::dexp((x - hi[grp]) - lo[grp]); }
};

// ---- per-group passes -------------------------------------------------------------------------------
template <class T>
struct CountHits {  // how many elements equal the pass-1 extremum
  using C = compute_t<T>;
  using Acc = int64_t;
  using Param = C;
  const C* m;
  C* k;
  __device__ Acc init() const { return 0; }
  __device__ Param param(int64_t g) const { return m[g]; }
  __device__ Acc step(Acc a, C x, int64_t, C mv) const { return a + (hits(x, mv) ? 1 : 0); }
  __device__ Acc combine(Acc a, Acc b) const { return a + b; }
  __device__ void write(int64_t g, int64_t, Acc a, int64_t, Param) const { k[g] = C(a); }
};

template <class A>
struct ProdZ {
  A prod;  // of the nonzero elements
  int64_t zeros;
};

template <class T>
struct ProdNonzero {
  using C = compute_t<T>;
  using A = sum_acc_t<T>;  // as prod: f64 for f32/f64, f32 for f16/bf16
  using Acc = ProdZ<A>;
  using Param = None;
  C* prod;
  C* zeros;
  __device__ Acc init() const { return Acc{A(1), 0}; }
  __device__ Param param(int64_t) const { return {}; }
  __device__ Acc step(Acc a, C x, int64_t, Param) const {
    if (x == C(0)) return Acc{a.prod, a.zeros + 1};
    return Acc{a.prod * A(x), a.zeros};
  }
  __device__ Acc combine(Acc a, Acc b) const { return Acc{a.prod * b.prod, a.zeros + b.zeros}; }
  __device__ void write(int64_t g, int64_t, Acc a, int64_t, Param) const {
    prod[g] = C(a.prod);
    zeros[g] = C(a.zeros < 2 ? a.zeros : 2);
  }
};

template <class T>
struct Norm2Pass {
  using C = compute_t<T>;
  using Acc = sum_acc_t<T>;
  using Param = None;
  C* norm;
  __device__ Acc init() const { return Acc(0); }
  __device__ Param param(int64_t) const { return {}; }
  __device__ Acc step(Acc a, C x, int64_t, Param) const { return a + Acc(x) * Acc(x); }
  __device__ Acc combine(Acc a, Acc b) const { return a + b; }
  __device__ void write(int64_t g, int64_t, Acc a, int64_t, Param) const { norm[g] = C(red::dsqrt(a)); }
};

// Sum of squared deviations from the pass-1 mean, rounded to C, then (n - correction) * std as the
// CPU computes it (NaN when n - correction <= 0).
template <class T>
struct StdPass {
  using C = compute_t<T>;
  using Acc = sum_acc_t<T>;
  using Param = Acc;
  const Acc* mean;
  C* scaled_std;
  double denom;
  __device__ Acc init() const { return Acc(0); }
  __device__ Param param(int64_t g) const { return mean[g]; }
  __device__ Acc step(Acc a, C x, int64_t, Param mu) const {
    const Acc d = Acc(x) - mu;
    return a + d * d;
  }
  __device__ Acc combine(Acc a, Acc b) const { return a + b; }
  __device__ void write(int64_t g, int64_t, Acc a, int64_t, Param) const {
    const C ss = C(a);
    scaled_std[g] = denom > 0 ? C(sqrt(double(ss) / denom) * denom) : red::nan_of<C>();
  }
};

// logsumexp of the group as the forward computes it (f64), split into hi/lo compute-type values.
template <class T>
struct LogSumExpPass {
  using C = compute_t<T>;
  using Acc = double;
  using Param = C;
  const C* mx;
  C* hi;
  C* lo;
  __device__ Acc init() const { return 0.0; }
  __device__ Param param(int64_t g) const { return mx[g]; }
  __device__ Acc step(Acc a, C x, int64_t, C m) const { return a + double(red::dexp(C(x - m))); }
  __device__ Acc combine(Acc a, Acc b) const { return a + b; }
  __device__ void write(int64_t g, int64_t, Acc a, int64_t, C m) const {
    const double lse = red::finite(m) ? double(m) + log(a) : double(m);
    const C h = C(lse);
    hi[g] = h;
    lo[g] = red::finite(lse) ? C(lse - double(h)) : C(0);
  }
};

// ---- kernels ----------------------------------------------------------------------------------------
template <class T, bool Mean>
void sum_bp_kernel(OpContext& c) {
  using C = compute_t<T>;
  if (c.in[0]->numel() == 0) return;
  const GradSetup s = grad_setup(c);
  grad_map<T>(c, s, ScaleF<C>{Mean ? C(1.0 / double(s.n)) : C(1)});
}

template <class T, bool Less>
void extreme_bp_kernel(OpContext& c) {
  using C = compute_t<T>;
  const Tensor& x = *c.in[0];
  if (x.numel() == 0) return;
  const GradSetup s = grad_setup(c);
  const red::Plan plan = red::make_plan(x, s.mask, nullptr, false);
  GroupBuffers<C> b(c.device, plan.M, 2);
  red::run<T>(c, plan, red::data<T>(x), red::ExtremePass<T, Less>{b[0]}, c.op->name);
  red::run<T>(c, plan, red::data<T>(x), CountHits<T>{b[0], b[1]}, c.op->name);
  grad_map<T>(c, s, ExtremeF<C>{b[0], b[1]});
}

template <class T>
void prod_bp_kernel(OpContext& c) {
  using C = compute_t<T>;
  const Tensor& x = *c.in[0];
  if (x.numel() == 0) return;
  const GradSetup s = grad_setup(c);
  const red::Plan plan = red::make_plan(x, s.mask, nullptr, false);
  GroupBuffers<C> b(c.device, plan.M, 2);
  red::run<T>(c, plan, red::data<T>(x), ProdNonzero<T>{b[0], b[1]}, c.op->name);
  grad_map<T>(c, s, ProdF<C>{b[0], b[1]});
}

template <class T>
void norm1_bp_kernel(OpContext& c) {
  if (c.in[0]->numel() == 0) return;
  grad_map<T>(c, grad_setup(c), Norm1F<compute_t<T>>{});
}

template <class T>
void norm2_bp_kernel(OpContext& c) {
  using C = compute_t<T>;
  const Tensor& x = *c.in[0];
  if (x.numel() == 0) return;
  const GradSetup s = grad_setup(c);
  const red::Plan plan = red::make_plan(x, s.mask, nullptr, false);
  GroupBuffers<C> b(c.device, plan.M, 1);
  red::run<T>(c, plan, red::data<T>(x), Norm2Pass<T>{b[0]}, c.op->name);
  grad_map<T>(c, s, Norm2F<C>{b[0]});
}

template <class T, bool Std>
void var_bp_kernel(OpContext& c) {
  using C = compute_t<T>;
  using Acc = sum_acc_t<T>;
  const Tensor& x = *c.in[0];
  if (x.numel() == 0) return;
  const GradSetup s = grad_setup(c);
  const double denom = double(s.n) - double(c.attrs.get_int(kCorrection));
  const red::Plan plan = red::make_plan(x, s.mask, nullptr, false);
  GroupBuffers<C> b(c.device, plan.M, 3);  // hi, lo, scaled std
  GroupBuffers<Acc> mean(c.device, plan.M, 1);
  red::run<T>(c, plan, red::data<T>(x), red::MeanPass<T>{mean[0], b[0], b[1]}, c.op->name);
  if constexpr (!Std) {
    const C k = denom > 0 ? C(2.0 / denom) : red::nan_of<C>();
    grad_map<T>(c, s, VarF<C>{b[0], b[1], k});
  } else {
    red::run<T>(c, plan, red::data<T>(x), StdPass<T>{mean[0], b[2], denom}, c.op->name);
    grad_map<T>(c, s, StdF<C>{b[0], b[1], b[2]});
  }
}

template <class T>
void logsumexp_bp_kernel(OpContext& c) {
  using C = compute_t<T>;
  const Tensor& x = *c.in[0];
  if (x.numel() == 0) return;
  const GradSetup s = grad_setup(c);
  const red::Plan plan = red::make_plan(x, s.mask, nullptr, false);
  GroupBuffers<C> b(c.device, plan.M, 3);  // max, hi, lo
  red::run<T>(c, plan, red::data<T>(x), red::ExtremePass<T, false>{b[0]}, c.op->name);
  red::run<T>(c, plan, red::data<T>(x), LogSumExpPass<T>{b[0], b[1], b[2]}, c.op->name);
  grad_map<T>(c, s, LogSumExpF<C>{b[1], b[2]});
}

constexpr const char* kImpl = "cuda";

}  // namespace

void register_cuda_reduce_bp() {
  red::for_types<float, double, __half, __nv_bfloat16>([](auto tag) {
    using T = typename decltype(tag)::type;
    const ndrt_dtype d = red::dtype_of<T>();
    reg("sum_bp", {d}, sum_bp_kernel<T, false>, kImpl);
    reg("mean_bp", {d}, sum_bp_kernel<T, true>, kImpl);
    reg("max_bp", {d}, extreme_bp_kernel<T, false>, kImpl);
    reg("min_bp", {d}, extreme_bp_kernel<T, true>, kImpl);
    reg("prod_bp", {d}, prod_bp_kernel<T>, kImpl);
    reg("norm1_bp", {d}, norm1_bp_kernel<T>, kImpl);
    reg("norm2_bp", {d}, norm2_bp_kernel<T>, kImpl);
    reg("var_bp", {d}, var_bp_kernel<T, false>, kImpl);
    reg("std_bp", {d}, var_bp_kernel<T, true>, kImpl);
    reg("logsumexp_bp", {d}, logsumexp_bp_kernel<T>, kImpl);
  });
}

}  // namespace ndrt::cuda
