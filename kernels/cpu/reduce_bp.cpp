// Reduction gradients on cpu. dy is seen with the keepdims shape (reduced axes as size 1, stride 0),
// which the elementwise loop broadcasts back over x.
//  - sum_bp / mean_bp: dx = dy (scaled by 1/n for mean).
//  - the others need a per-group value of the forward (the maximum and its tie count, the product
//    of the nonzero elements, the norm, the mean and std, logsumexp). The reduce engine computes it
//    into small buffers indexed by the flat group index (make_flat_plan), laid out as contiguous
//    tensors of the keepdims shape; then one elementwise pass over x computes
//    dx = g(x, dy, params...) in the compute type (f32 for f16/bf16) and rounds once.
#include <array>
#include <cmath>
#include <limits>
#include <vector>

#include "elementwise_map.hpp"
#include "elementwise_math.hpp"
#include "kernels.hpp"
#include "reduce_engine.hpp"
#include "reduce_math.hpp"

namespace ndrt {

namespace {

enum { kAxes = 0, kKeepdims = 1, kCorrection = 2 };

// Reduced-axis mask, keepdims view of dy over x's axes, and n (elements per group).
struct GradSetup {
  uint32_t mask = 0;
  Tensor dyv;
  int64_t n = 1;
};

GradSetup grad_setup(const OpContext& c) {
  const Tensor &x = *c.in[0], &dy = *c.in[1];
  GradSetup g;
  g.mask = red::axes_mask(c.attrs, kAxes, x.rank());
  const bool keep = c.attrs.get_bool(kKeepdims);
  g.dyv = dy;  // metadata copy: a view of dy's storage
  g.dyv.shape.rank = g.dyv.strides.rank = x.rank();
  for (int i = 0, j = 0; i < x.rank(); ++i) {
    if (g.mask & (1u << i)) {
      g.n *= x.shape.d[i];
      g.dyv.shape.d[i] = 1;
      g.dyv.strides.d[i] = 0;
      if (keep) ++j;
    } else {
      g.dyv.shape.d[i] = dy.shape.d[j];
      g.dyv.strides.d[i] = dy.strides.d[j];
      ++j;
    }
  }
  return g;
}

template <class T, bool Mean>
void sum_bp_kernel(OpContext& c) {
  using C = compute_t<T>;
  Tensor& dx = *c.out[0];
  const GradSetup s = grad_setup(c);
  const C scale = Mean ? C(1.0 / double(s.n)) : C(1);
  Loop<2> L = make_loop<2>(dx, {&s.dyv});
  run_loop(L, [&](char** p, int64_t k, const int64_t* st) {
    T* o = reinterpret_cast<T*>(p[0]);
    const T* g = reinterpret_cast<const T*>(p[1]);
    if (st[0] == 1 && st[1] == 0) {
      const T val = convert<T>(red::load(*g) * scale);
      for (int64_t i = 0; i < k; ++i) o[i] = val;
    } else {
      for (int64_t i = 0; i < k; ++i) o[i * st[0]] = convert<T>(red::load(g[i * st[1]]) * scale);
    }
  });
}

// A per-group parameter buffer: a contiguous tensor of x's keepdims shape in the compute type, so
// its flat index is the flat group index of make_flat_plan and the loop broadcasts it over x.
template <class C>
Tensor param_tensor(const Tensor& x, uint32_t mask, ndrt_device dev) {
  Dims s = x.shape;
  for (int i = 0; i < x.rank(); ++i)
    if (mask & (1u << i)) s.d[i] = 1;
  return alloc_tensor(dtype_of<C>(), s, dev);
}

// dx = f(x, dy, p) over x's elements, p[k] the value of parameter tensor k for the element's group.
// Rows run in blocks converted to the compute type (elementwise_map.hpp's load/store, vectorised
// for f16/bf16); when dy and the parameters are constant along the row (the reduced axis is
// innermost) they are hoisted and the block loop vectorises.
template <class T, int NP, class F>
void grad_map(const Tensor& dx, const Tensor& x, const Tensor& dyv, const std::array<const Tensor*, NP>& prm, F f) {
  using C = compute_t<T>;
  constexpr int N = 3 + NP;
  constexpr int64_t B = elt::kBlock;
  std::array<const Tensor*, N - 1> ins;
  ins[0] = &x;
  ins[1] = &dyv;
  for (int k = 0; k < NP; ++k) ins[size_t(2 + k)] = prm[size_t(k)];
  Loop<N> L = make_loop<N>(dx, ins);
  // flatten: the math (vmath::exp, ...) is inlined into the block loops, which then vectorise.
  auto row = [&](char** p, int64_t n, const int64_t* s) __attribute__((flatten)) {
    T* o = reinterpret_cast<T*>(p[0]);
    const T* xp = reinterpret_cast<const T*>(p[1]);
    const T* gp = reinterpret_cast<const T*>(p[2]);
    const C* pp[NP > 0 ? NP : 1] = {};
    bool hoist = s[2] == 0;
    for (int k = 0; k < NP; ++k) {
      pp[k] = reinterpret_cast<const C*>(p[3 + k]);
      hoist &= s[3 + k] == 0;
    }
    // f32/f64 dense runs are read and written in place; everything else goes through buffers.
    const bool direct_x = std::is_same_v<T, C> && s[1] == 1, direct_y = std::is_same_v<T, C> && s[0] == 1;
    C xb[B], yb[B];
    for (int64_t off = 0; off < n; off += B) {
      const int64_t m = std::min(B, n - off);
      const C* xi = xb;
      C* yo = yb;
      if constexpr (std::is_same_v<T, C>) {
        if (direct_x) xi = xp + off;
        if (direct_y) yo = o + off;
      }
      if (!direct_x) elt::load(xb, xp + off * s[1], s[1], m);
      if (hoist) {
        const C g = red::load(*gp);
        C pv[NP > 0 ? NP : 1] = {};
        for (int k = 0; k < NP; ++k) pv[k] = *pp[k];
        for (int64_t i = 0; i < m; ++i) yo[i] = f(xi[i], g, pv);
      } else {
        C gb[B];
        elt::load(gb, gp + off * s[2], s[2], m);
        for (int64_t i = 0; i < m; ++i) {
          C pv[NP > 0 ? NP : 1] = {};
          for (int k = 0; k < NP; ++k) pv[k] = pp[k][(off + i) * s[3 + k]];
          yo[i] = f(xi[i], gb[i], pv);
        }
      }
      if (!direct_y) elt::store(o + off * s[0], s[0], yb, m);
    }
  };
  run_loop(L, row);
}

// ---- per-group passes (reduce engine ops; Out is the compute type C) -----------------------------

// The maximum (Less: minimum); NaN sticks.
template <class T, bool Less>
struct ExtremeC {
  using C = compute_t<T>;
  using Acc = C;
  using Out = C;
  static Acc init() { return Less ? std::numeric_limits<C>::infinity() : -std::numeric_limits<C>::infinity(); }
  static Acc pick(Acc a, Acc x) {
    if constexpr (Less)
      return (x < a || x != x) ? x : a;
    else
      return (x > a || x != x) ? x : a;
  }
  template <class P>
  static Acc step(Acc a, C x, int64_t, P) {
    return pick(a, x);
  }
  static Acc combine(Acc a, Acc b) { return pick(a, b); }
  template <class P>
  static Acc fold_contig(const T* x, int64_t n, int64_t, P, Acc acc) {
    if constexpr (std::is_same_v<T, C>) {
      return pick(acc, red::run_extreme<Less>(x, n));
    } else {
      red::for_float_blocks(x, n,
                            [&](const float* b, int64_t k, int64_t) { acc = pick(acc, red::run_extreme<Less>(b, k)); });
      return acc;
    }
  }
  template <class P>
  static Out finish(Acc a, int64_t, P) {
    return a;
  }
};

// x is the group's extremum m (a NaN m matches the NaNs).
template <class C>
inline bool hits(C x, C m) {
  return (x == m) | ((x != x) & (m != m));  // no short-circuit: the loops stay branch-free
}

// How many elements equal the pass-1 extremum (the tie count), as C.
template <class T>
struct CountHits {
  using C = compute_t<T>;
  using Acc = int64_t;
  using Out = C;
  static Acc init() { return 0; }
  static Acc step(Acc a, C x, int64_t, C m) { return a + (hits(x, m) ? 1 : 0); }
  static Acc combine(Acc a, Acc b) { return a + b; }
  static int64_t count(const C* x, int64_t n, C m) {
    int32_t lane[8] = {};  // blocks of at most 512: no overflow
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
      for (int l = 0; l < 8; ++l) lane[l] += int32_t(hits(x[i + l], m));
    int64_t k = 0;
    for (int l = 0; l < 8; ++l) k += lane[l];
    for (; i < n; ++i) k += hits(x[i], m);
    return k;
  }
  static Acc fold_contig(const T* x, int64_t n, int64_t, C m, Acc acc) {
    if constexpr (std::is_same_v<T, C>) {
      for (int64_t b = 0; b < n; b += 512) acc += count(x + b, std::min<int64_t>(512, n - b), m);
    } else {
      red::for_float_blocks(x, n, [&](const float* b, int64_t k, int64_t) { acc += count(b, k, m); });
    }
    return acc;
  }
  static Out finish(Acc a, int64_t, C) { return C(a); }
};

template <class T, bool Less>
void extreme_bp_kernel(OpContext& c) {
  using C = compute_t<T>;
  const Tensor& x = *c.in[0];
  if (x.numel() == 0) return;
  const GradSetup s = grad_setup(c);
  const red::Plan plan = red::make_flat_plan(x, s.mask);
  Tensor m = param_tensor<C>(x, s.mask, c.device), k = param_tensor<C>(x, s.mask, c.device);
  const C* mp = m.data<C>();
  red::reduce_exec<T, ExtremeC<T, Less>>(plan, x.data<T>(), m.data<C>());
  red::reduce_exec<T, CountHits<T>>(plan, x.data<T>(), k.data<C>(), [&](int64_t g) { return mp[g]; });
  grad_map<T, 2>(*c.out[0], x, s.dyv, {&m, &k},
                 [](C xv, C g, const C* p) { return vmath::pick(hits(xv, p[0]), g / p[1], C(0)); });
}

// Product of the nonzero elements and the number of zeros.
template <class A>
struct ProdZ {
  A prod;
  int64_t zeros;
};

template <class T>
struct ProdNonzero {
  using C = compute_t<T>;
  using A = red::sum_acc_t<T>;  // as prod: f64 for f32/f64, f32 for f16/bf16
  using Acc = ProdZ<A>;
  using Out = Acc;
  static Acc init() { return {A(1), 0}; }
  template <class P>
  static Acc step(Acc a, C x, int64_t, P) {
    if (x == C(0)) return {a.prod, a.zeros + 1};
    return {a.prod * A(x), a.zeros};
  }
  static Acc combine(Acc a, Acc b) { return {a.prod * b.prod, a.zeros + b.zeros}; }
  template <class P>
  static Out finish(Acc a, int64_t, P) {
    return a;
  }
};

template <class T>
void prod_bp_kernel(OpContext& c) {
  using C = compute_t<T>;
  using A = red::sum_acc_t<T>;
  const Tensor& x = *c.in[0];
  if (x.numel() == 0) return;
  const GradSetup s = grad_setup(c);
  const red::Plan plan = red::make_flat_plan(x, s.mask);
  std::vector<ProdZ<A>> pz(size_t(plan.M));
  red::reduce_exec<T, ProdNonzero<T>>(plan, x.data<T>(), pz.data());
  Tensor pt = param_tensor<C>(x, s.mask, c.device), zt = param_tensor<C>(x, s.mask, c.device);
  C *pp = pt.data<C>(), *zp = zt.data<C>();
  for (size_t g = 0; g < pz.size(); ++g) {
    pp[g] = C(pz[g].prod);
    zp[g] = C(pz[g].zeros < 2 ? pz[g].zeros : 2);
  }
  grad_map<T, 2>(*c.out[0], x, s.dyv, {&pt, &zt}, [](C xv, C g, const C* p) {
    // zeros: 0 -> P / x; 1 -> P at the zero; 2+ -> 0 (selects, so the loop vectorises)
    const C one_zero = vmath::pick(xv == C(0), g * p[0], C(0));
    return vmath::pick(p[1] == C(0), g * (p[0] / xv), vmath::pick(p[1] == C(1), one_zero, C(0)));
  });
}

template <class T>
void norm1_bp_kernel(OpContext& c) {
  using C = compute_t<T>;
  const Tensor& x = *c.in[0];
  if (x.numel() == 0) return;
  const GradSetup s = grad_setup(c);
  grad_map<T, 0>(*c.out[0], x, s.dyv, {},
                 [](C xv, C g, const C*) { return vmath::pick(xv > C(0), g, vmath::pick(xv < C(0), -g, C(0))); });
}

// sqrt(sum of x^2), accumulated as norm2 does.
template <class T>
struct Norm2C {
  using C = compute_t<T>;
  using Acc = red::sum_acc_t<T>;
  using Out = C;
  static Acc init() { return 0; }
  template <class P>
  static Acc step(Acc a, C x, int64_t, P) {
    return a + Acc(x) * Acc(x);
  }
  static Acc combine(Acc a, Acc b) { return a + b; }
  template <class P>
  static Out finish(Acc a, int64_t, P) {
    return C(std::sqrt(a));
  }
};

template <class T>
void norm2_bp_kernel(OpContext& c) {
  using C = compute_t<T>;
  const Tensor& x = *c.in[0];
  if (x.numel() == 0) return;
  const GradSetup s = grad_setup(c);
  const red::Plan plan = red::make_flat_plan(x, s.mask);
  Tensor nt = param_tensor<C>(x, s.mask, c.device);
  red::reduce_exec<T, Norm2C<T>>(plan, x.data<T>(), nt.data<C>());
  grad_map<T, 1>(*c.out[0], x, s.dyv, {&nt},
                 [](C xv, C g, const C* p) { return vmath::pick(p[0] == C(0), C(0), g * (xv / p[0])); });
}

// The group mean, accumulated as sum, kept in the accumulator type.
template <class T>
struct MeanAcc {
  using C = compute_t<T>;
  using Acc = red::sum_acc_t<T>;
  using Out = Acc;
  static Acc init() { return 0; }
  template <class P>
  static Acc step(Acc a, C x, int64_t, P) {
    return a + Acc(x);
  }
  static Acc combine(Acc a, Acc b) { return a + b; }
  template <class P>
  static Out finish(Acc a, int64_t n, P) {
    return a / Acc(n);
  }
};

// A per-group value v (f64 for f32 inputs) as two compute-type parameters hi = C(v), lo = C(v - hi):
// (x - hi) - lo then loses nothing to the rounding of v even where x is close to v (x - hi is exact
// there), which keeps deviations from the mean and x - logsumexp accurate.
template <class C, class V>
void split_param(const std::vector<V>& v, Tensor& hi, Tensor& lo) {
  C *h = hi.data<C>(), *l = lo.data<C>();
  for (size_t g = 0; g < v.size(); ++g) {
    h[g] = C(v[g]);
    l[g] = std::isfinite(v[g]) ? C(v[g] - V(h[g])) : C(0);
  }
}

// Sum of squared deviations from the pass-1 mean (std_bp turns it into (n - correction) * std).
template <class T>
struct StdC {
  using C = compute_t<T>;
  using Acc = red::sum_acc_t<T>;
  using Out = C;
  static Acc init() { return 0; }
  static Acc step(Acc a, C x, int64_t, Acc mean) {
    const Acc d = Acc(x) - mean;
    return a + d * d;
  }
  static Acc combine(Acc a, Acc b) { return a + b; }
  static Out finish(Acc a, int64_t, Acc) { return C(a); }  // the sum; std_bp_kernel scales it
};

template <class T, bool Std>
void var_bp_kernel(OpContext& c) {
  using C = compute_t<T>;
  using Acc = red::sum_acc_t<T>;
  const Tensor& x = *c.in[0];
  if (x.numel() == 0) return;
  const GradSetup s = grad_setup(c);
  const double denom = double(s.n) - double(c.attrs.get_int(kCorrection));
  const red::Plan plan = red::make_flat_plan(x, s.mask);
  std::vector<Acc> mean(size_t(plan.M));
  red::reduce_exec<T, MeanAcc<T>>(plan, x.data<T>(), mean.data());
  Tensor mh = param_tensor<C>(x, s.mask, c.device), ml = param_tensor<C>(x, s.mask, c.device);
  split_param<C>(mean, mh, ml);
  const C nan = std::numeric_limits<C>::quiet_NaN();
  if constexpr (!Std) {
    const C k = denom > 0 ? C(2.0 / denom) : nan;
    grad_map<T, 2>(*c.out[0], x, s.dyv, {&mh, &ml},
                   [k](C xv, C g, const C* p) { return g * (k * ((xv - p[0]) - p[1])); });
  } else {
    Tensor st = param_tensor<C>(x, s.mask, c.device);
    C* sp = st.data<C>();
    red::reduce_exec<T, StdC<T>>(plan, x.data<T>(), sp, [&](int64_t g) { return mean[size_t(g)]; });
    for (int64_t g = 0; g < plan.M; ++g)  // sum of squared deviations -> denom * std
      sp[g] = denom > 0 ? C(std::sqrt(double(sp[g]) / denom) * denom) : nan;
    grad_map<T, 3>(*c.out[0], x, s.dyv, {&mh, &ml, &st}, [](C xv, C g, const C* p) {
      return vmath::pick(p[2] == C(0), C(0), g * (((xv - p[0]) - p[1]) / p[2]));
    });
  }
}

// logsumexp of the group (as the forward: max, then m + log(sum exp(x - m)) in f64).
template <class T>
struct SumExpC {
  using C = compute_t<T>;
  using Acc = double;
  using Out = double;
  static Acc init() { return 0; }
  static Acc step(Acc a, C x, int64_t, C m) { return a + double(red::fast_exp(C(x - m))); }
  static Acc combine(Acc a, Acc b) { return a + b; }
  static Acc fold_contig(const T* x, int64_t n, int64_t, C m, Acc acc) {
    if constexpr (std::is_same_v<T, C>) {
      return acc + red::run_exp_sum(x, n, m, static_cast<C*>(nullptr));
    } else {
      red::for_float_blocks(x, n, [&](const float* b, int64_t k, int64_t) {
        acc += red::run_exp_sum(b, k, m, static_cast<float*>(nullptr));
      });
      return acc;
    }
  }
  static Out finish(Acc a, int64_t, C m) {
    if (!std::isfinite(m)) return m;  // all -inf: -inf; +inf; NaN
    return double(m) + std::log(a);
  }
};

template <class T>
void logsumexp_bp_kernel(OpContext& c) {
  using C = compute_t<T>;
  const Tensor& x = *c.in[0];
  if (x.numel() == 0) return;
  const GradSetup s = grad_setup(c);
  const red::Plan plan = red::make_flat_plan(x, s.mask);
  Tensor mt = param_tensor<C>(x, s.mask, c.device), hi = param_tensor<C>(x, s.mask, c.device),
         lo = param_tensor<C>(x, s.mask, c.device);
  const C* mp = mt.data<C>();
  std::vector<double> lse(size_t(plan.M));
  red::reduce_exec<T, ExtremeC<T, false>>(plan, x.data<T>(), mt.data<C>());
  red::reduce_exec<T, SumExpC<T>>(plan, x.data<T>(), lse.data(), [&](int64_t g) { return mp[g]; });
  split_param<C>(lse, hi, lo);
  grad_map<T, 2>(*c.out[0], x, s.dyv, {&hi, &lo}, [](C xv, C g, const C* p) {
    const C d = (xv - p[0]) - p[1];
    if constexpr (std::is_same_v<C, double>)
      return g * std::exp(d);
    else
      return g * vmath::exp(d);  // branch-free: the loop vectorises
  });
}

}  // namespace

void register_cpu_reduce_bp(Registry& r) {
  for_types<float, double, Half, BFloat16>([&](auto t) {
    using T = decltype(t);
    const ndrt_dtype d = dtype_of<T>();
    r.kernel("sum_bp", kCpu, {d}, sum_bp_kernel<T, false>, "ndrt:cpu");
    r.kernel("mean_bp", kCpu, {d}, sum_bp_kernel<T, true>, "ndrt:cpu");
    r.kernel("max_bp", kCpu, {d}, extreme_bp_kernel<T, false>, "ndrt:cpu");
    r.kernel("min_bp", kCpu, {d}, extreme_bp_kernel<T, true>, "ndrt:cpu");
    r.kernel("prod_bp", kCpu, {d}, prod_bp_kernel<T>, "ndrt:cpu");
    r.kernel("norm1_bp", kCpu, {d}, norm1_bp_kernel<T>, "ndrt:cpu");
    r.kernel("norm2_bp", kCpu, {d}, norm2_bp_kernel<T>, "ndrt:cpu");
    r.kernel("var_bp", kCpu, {d}, var_bp_kernel<T, false>, "ndrt:cpu");
    r.kernel("std_bp", kCpu, {d}, var_bp_kernel<T, true>, "ndrt:cpu");
    r.kernel("logsumexp_bp", kCpu, {d}, logsumexp_bp_kernel<T>, "ndrt:cpu");
  });
}

}  // namespace ndrt
