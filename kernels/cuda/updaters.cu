// cuda kernels: fused updater steps (sgd, nesterovs, adagrad, rmsprop, adam, adamw), one pass over
// param, grad and the states, one thread per element. Same rules, hyperparameters and operation
// order as kernels/cpu/updaters.cpp, so f32 results match the CPU up to FMA contraction (both
// builds contract; where they pick different pairs results differ in the last bit). In place is
// the usual call (outputs are the very same views as their inputs): each thread reads all its
// operands before it writes, and inference refuses any other overlap.
#include <cmath>

#include "../updater_hyper.hpp"
#include "strided.cuh"

namespace ndrt::cuda {

namespace {

using strided::Walk;

using updater::Hyper;
using updater::Kind;

// A rule returns the new param and updates states s1, s2 in place.
struct Sgd {
  static constexpr Kind kKind = Kind::Sgd;
  static constexpr int kStates = 0;
  template <class C> __device__ static C step(const Hyper<C>& h, C p, C g, C&, C&) { return p - h.lr * (g + h.wd * p); }
};
struct Nesterovs {
  static constexpr Kind kKind = Kind::Nesterovs;
  static constexpr int kStates = 1;
  template <class C>
  __device__ static C step(const Hyper<C>& h, C p, C g, C& v, C&) {
    g += h.wd * p;
    const C v0 = v;
    v = h.mu * v0 - h.lr * g;
    return p - h.mu * v0 + h.mu1 * v;
  }
};
struct AdaGrad {
  static constexpr Kind kKind = Kind::AdaGrad;
  static constexpr int kStates = 1;
  template <class C>
  __device__ static C step(const Hyper<C>& h, C p, C g, C& a, C&) {
    g += h.wd * p;
    a += g * g;
    return p - h.lr * g / (sqrt(a) + h.eps);
  }
};
struct RmsProp {
  static constexpr Kind kKind = Kind::RmsProp;
  static constexpr int kStates = 1;
  template <class C>
  __device__ static C step(const Hyper<C>& h, C p, C g, C& s, C&) {
    g += h.wd * p;
    s = h.rho * s + h.rho1 * (g * g);
    return p - h.lr * g / (sqrt(s) + h.eps);
  }
};
template <bool kDecoupled>
struct AdamRule {
  static constexpr Kind kKind = Kind::Adam;
  static constexpr int kStates = 2;
  template <class C>
  __device__ static C step(const Hyper<C>& h, C p, C g, C& m, C& v) {
    if (!kDecoupled) g += h.wd * p;
    m = h.b1 * m + h.b1c * g;
    v = h.b2 * v + h.b2c * (g * g);
    const C upd = h.alpha_t * m / (sqrt(v) + h.eps);
    return kDecoupled ? p - h.lr_wd * p - upd : p - upd;
  }
};
using Adam = AdamRule<false>;
using AdamW = AdamRule<true>;

// Operand slots of the walk: outputs param', s1', s2', then inputs param, grad, s1, s2 (slots of
// states a rule lacks are unused and stay null).
constexpr int kSlots = 7;
enum { kPOut = 0, kS1Out = 1, kS2Out = 2, kP = 3, kG = 4, kS1 = 5, kS2 = 6 };
template <class T>
struct Operands {
  T* ptr[kSlots];
};

template <class R, class T>
__global__ void updater_kernel(Hyper<T> h, Operands<T> o, Walk<kSlots> w, int64_t n) {
  for (int64_t i = strided::first_index(); i < n; i += strided::grid_step()) {
    int64_t off[kSlots];
    w.offsets(i, off);
    T s1 = R::kStates > 0 ? o.ptr[kS1][off[kS1]] : T(0);
    T s2 = R::kStates > 1 ? o.ptr[kS2][off[kS2]] : T(0);
    const T p = R::step(h, o.ptr[kP][off[kP]], o.ptr[kG][off[kG]], s1, s2);
    o.ptr[kPOut][off[kPOut]] = p;
    if (R::kStates > 0) o.ptr[kS1Out][off[kS1Out]] = s1;
    if (R::kStates > 1) o.ptr[kS2Out][off[kS2Out]] = s2;
  }
}

template <class R, class T>
void updater_run(OpContext& c) {
  constexpr int NS = R::kStates;
  const Tensor& p_out = *c.out[0];
  const int64_t n = p_out.numel();
  if (n == 0) return;
  // Slot -> tensor: outputs 0..NS, inputs param, grad, then the states.
  const Tensor* t[kSlots] = {};
  for (int k = 0; k <= NS; ++k) t[k] = c.out[k];
  for (int k = 0; k < 2 + NS; ++k) t[kP + k] = c.in[k];
  Operands<T> o{};
  for (int k = 0; k < kSlots; ++k) o.ptr[k] = t[k] ? reinterpret_cast<T*>(strided::base_of(*t[k])) : nullptr;
  Walk<kSlots> w;
  for (int d = 0; d < p_out.rank(); ++d) {
    int64_t s[kSlots];
    for (int k = 0; k < kSlots; ++k) s[k] = t[k] ? t[k]->strides.d[d] : 0;
    w.push(p_out.shape.d[d], s);
  }
  const Launch L = launch_for(n);
  updater_kernel<R, T><<<L.grid, L.block, 0, stream(c)>>>(updater::hyper_of<R::kKind, T>(c.attrs), o, w, n);
  check_launch(c.op->name);
}

template <class R>
void updater_fn(OpContext& c) {
  visit<NDRT_F32, NDRT_F64>(c.key_dtype, c.op->name, [&](auto t) { updater_run<R, decltype(t)>(c); });
}

}  // namespace

void register_cuda_updaters() {
  reg("sgd", {NDRT_F32, NDRT_F64}, updater_fn<Sgd>, "cuda");
  reg("nesterovs", {NDRT_F32, NDRT_F64}, updater_fn<Nesterovs>, "cuda");
  reg("adagrad", {NDRT_F32, NDRT_F64}, updater_fn<AdaGrad>, "cuda");
  reg("rmsprop", {NDRT_F32, NDRT_F64}, updater_fn<RmsProp>, "cuda");
  reg("adam", {NDRT_F32, NDRT_F64}, updater_fn<Adam>, "cuda");
  reg("adamw", {NDRT_F32, NDRT_F64}, updater_fn<AdamW>, "cuda");
}

}  // namespace ndrt::cuda
