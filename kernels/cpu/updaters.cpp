// cpu kernels: fused updater steps (sgd, nesterovs, adagrad, rmsprop, adam, adamw), one pass over
// param, grad and the states. Operands of a call: outputs [param', state1', state2'] then inputs
// [param, grad, state1, state2]. The usual call runs in place on contiguous tensors: that path
// reads and writes through one pointer per tensor so the loop vectorises; rules with a square
// root work in L1-sized chunks with an explicit AVX sqrt pass (std::sqrt stays a scalar libm call
// under -fmath-errno). Any other layout (strided, out of place) takes a plain strided loop.
#include <algorithm>
#include <array>
#include <cmath>

#include "../updater_hyper.hpp"
#include "kernels.hpp"
#include "loops.hpp"
#if defined(__AVX__)
#include <immintrin.h>
#endif

namespace ndrt {

namespace {

using updater::Hyper;
using updater::Kind;

// A rule updates (p, s1, s2) from g. Rules without a root do everything in step(); rules with one
// split into pre() (states, numerator q and radicand r) and post() (param from q and sqrt(r)).
struct Sgd {
  static constexpr Kind kKind = Kind::Sgd;
  static constexpr int kStates = 0;
  static constexpr bool kRoot = false;
  template <class C> static C step(const Hyper<C>& h, C p, C g, C&, C&) { return p - h.lr * (g + h.wd * p); }
};
struct Nesterovs {
  static constexpr Kind kKind = Kind::Nesterovs;
  static constexpr int kStates = 1;
  static constexpr bool kRoot = false;
  template <class C>
  static C step(const Hyper<C>& h, C p, C g, C& v, C&) {
    g += h.wd * p;
    const C v0 = v;
    v = h.mu * v0 - h.lr * g;
    return p - h.mu * v0 + h.mu1 * v;
  }
};
struct AdaGrad {
  static constexpr Kind kKind = Kind::AdaGrad;
  static constexpr int kStates = 1;
  static constexpr bool kRoot = true;
  template <class C>
  static void pre(const Hyper<C>& h, C p, C g, C& a, C&, C& q, C& r) {
    g += h.wd * p;
    a += g * g;
    q = g;
    r = a;
  }
  template <class C> static C post(const Hyper<C>& h, C p, C q, C root) { return p - h.lr * q / (root + h.eps); }
};
struct RmsProp {
  static constexpr Kind kKind = Kind::RmsProp;
  static constexpr int kStates = 1;
  static constexpr bool kRoot = true;
  template <class C>
  static void pre(const Hyper<C>& h, C p, C g, C& s, C&, C& q, C& r) {
    g += h.wd * p;
    s = h.rho * s + h.rho1 * (g * g);
    q = g;
    r = s;
  }
  template <class C> static C post(const Hyper<C>& h, C p, C q, C root) { return p - h.lr * q / (root + h.eps); }
};
template <bool kDecoupled>
struct AdamRule {
  static constexpr Kind kKind = Kind::Adam;
  static constexpr int kStates = 2;
  static constexpr bool kRoot = true;
  template <class C>
  static void pre(const Hyper<C>& h, C p, C g, C& m, C& v, C& q, C& r) {
    if (!kDecoupled) g += h.wd * p;
    m = h.b1 * m + h.b1c * g;
    v = h.b2 * v + h.b2c * (g * g);
    q = m;
    r = v;
  }
  template <class C>
  static C post(const Hyper<C>& h, C p, C q, C root) {
    const C upd = h.alpha_t * q / (root + h.eps);
    return kDecoupled ? p - h.lr_wd * p - upd : p - upd;
  }
};
using Adam = AdamRule<false>;
using AdamW = AdamRule<true>;

template <class C>
void sqrt_block(C* x, int64_t n) {
  int64_t i = 0;
#if defined(__AVX__)
  if constexpr (std::is_same_v<C, float>)
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(x + i, _mm256_sqrt_ps(_mm256_loadu_ps(x + i)));
  else
    for (; i + 4 <= n; i += 4) _mm256_storeu_pd(x + i, _mm256_sqrt_pd(_mm256_loadu_pd(x + i)));
#endif
  for (; i < n; ++i) x[i] = std::sqrt(x[i]);
}

template <class R, class C>
C rule_scalar(const Hyper<C>& h, C p, C g, C& s1, C& s2) {
  if constexpr (R::kRoot) {
    C q, r;
    R::pre(h, p, g, s1, s2, q, r);
    return R::post(h, p, q, std::sqrt(r));
  } else {
    return R::step(h, p, g, s1, s2);
  }
}

// In place and contiguous: p, s1, s2 are read and written through the same pointers.
template <class R, class T>
void run_dense_in_place(const Hyper<T>& h, T* p, const T* g, T* s1, T* s2, int64_t n) {
  if constexpr (!R::kRoot) {
    for (int64_t i = 0; i < n; ++i) {
      T a = R::kStates > 0 ? s1[i] : T(0), b = R::kStates > 1 ? s2[i] : T(0);
      p[i] = R::step(h, p[i], g[i], a, b);
      if (R::kStates > 0) s1[i] = a;
      if (R::kStates > 1) s2[i] = b;
    }
  } else {
    constexpr int64_t kChunk = 512;
    T q[kChunk], r[kChunk];
    for (int64_t i0 = 0; i0 < n; i0 += kChunk) {
      const int64_t len = std::min(kChunk, n - i0);
      T* pp = p + i0;
      const T* gg = g + i0;
      T* a1 = s1 + i0;
      T* a2 = R::kStates > 1 ? s2 + i0 : nullptr;
      for (int64_t j = 0; j < len; ++j) {
        T a = a1[j], b = R::kStates > 1 ? a2[j] : T(0);
        R::pre(h, pp[j], gg[j], a, b, q[j], r[j]);
        a1[j] = a;
        if (R::kStates > 1) a2[j] = b;
      }
      sqrt_block(r, len);
      for (int64_t j = 0; j < len; ++j) pp[j] = R::post(h, pp[j], q[j], r[j]);
    }
  }
}

template <class R, class T>
void updater_kernel(OpContext& c) {
  constexpr int NS = R::kStates, NO = 1 + NS, N = NO + 2 + NS;
  const Tensor& p_out = *c.out[0];
  if (p_out.numel() == 0) return;
  const Hyper<T> h = updater::hyper_of<R::kKind, T>(c.attrs);
  std::array<const Tensor*, N - 1> ops;
  for (int o = 1; o < NO; ++o) ops[size_t(o - 1)] = c.out[o];
  for (int i = 0; i < 2 + NS; ++i) ops[size_t(NO - 1 + i)] = c.in[i];
  Loop<N> L = make_loop<N>(p_out, ops);
  run_loop(L, [&](char** ptr, int64_t n, const int64_t* st) {
    // Operand k: outputs 0..NO-1, then param, grad, states; input of output o is NO + (o ? o + 1 : 0).
    bool dense_in_place = true;
    for (int k = 0; k < N; ++k) dense_in_place &= st[k] == 1;
    dense_in_place &= ptr[0] == ptr[NO];
    for (int o = 1; o < NO; ++o) dense_in_place &= ptr[o] == ptr[NO + o + 1];
    T* p = reinterpret_cast<T*>(ptr[0]);
    if (dense_in_place) {
      T* s1 = NS > 0 ? reinterpret_cast<T*>(ptr[1]) : nullptr;
      T* s2 = NS > 1 ? reinterpret_cast<T*>(ptr[2]) : nullptr;
      return run_dense_in_place<R, T>(h, p, reinterpret_cast<const T*>(ptr[NO + 1]), s1, s2, n);
    }
    auto at = [&](int k, int64_t i) { return reinterpret_cast<T*>(ptr[k]) + i * st[k]; };
    for (int64_t i = 0; i < n; ++i) {
      T a = NS > 0 ? *at(NO + 2, i) : T(0), b = NS > 1 ? *at(NO + 3, i) : T(0);
      const T pv = rule_scalar<R, T>(h, *at(NO, i), *at(NO + 1, i), a, b);
      *at(0, i) = pv;
      if (NS > 0) *at(1, i) = a;
      if (NS > 1) *at(2, i) = b;
    }
  });
}

template <class R>
void reg(Registry& r, const char* name) {
  r.kernel(name, kCpu, {NDRT_F32}, updater_kernel<R, float>, "ndrt:cpu");
  r.kernel(name, kCpu, {NDRT_F64}, updater_kernel<R, double>, "ndrt:cpu");
}

}  // namespace

void register_cpu_updaters(Registry& r) {
  reg<Sgd>(r, "sgd");
  reg<Nesterovs>(r, "nesterovs");
  reg<AdaGrad>(r, "adagrad");
  reg<RmsProp>(r, "rmsprop");
  reg<Adam>(r, "adam");
  reg<AdamW>(r, "adamw");
}

}  // namespace ndrt
