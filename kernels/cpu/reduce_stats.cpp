// Statistics reductions on cpu: norm1, norm2, var, std, logsumexp. var/std and logsumexp take two
// passes through the engine: the first writes a per-output parameter (mean, max) to a buffer
// indexed by the flat output index, the second folds with it (exact deviations, stable exp).
#include <cmath>
#include <limits>
#include <vector>

#include "kernels.hpp"
#include "reduce_engine.hpp"
#include "reduce_math.hpp"

namespace ndrt {

namespace {

template <class T, bool Square>
struct NormOp {
  using C = compute_t<T>;
  using Acc = red::sum_acc_t<T>;
  using Out = T;
  static Acc init() { return 0; }
  template <class P>
  static Acc step(Acc a, C x, int64_t, P) {
    if constexpr (Square)
      return a + Acc(x) * Acc(x);
    else
      return a + Acc(std::fabs(x));
  }
  static Acc combine(Acc a, Acc b) { return a + b; }
  template <class P>
  static Out finish(Acc a, int64_t, P) {
    return convert<T>(Square ? std::sqrt(a) : a);
  }
};

// Pass 1 of var/std: the mean, kept in the accumulator type.
template <class T>
struct MeanAccOp : NormOp<T, false> {
  using Acc = red::sum_acc_t<T>;
  using Out = Acc;
  template <class P>
  static Acc step(Acc a, compute_t<T> x, int64_t, P) {
    return a + Acc(x);
  }
  template <class P>
  static Out finish(Acc a, int64_t n, P) {
    return a / Acc(n);
  }
};

template <class Acc>
struct VarParam {
  Acc mean;
  double denom;  // n - correction
};

// Pass 2 of var/std: sum of squared deviations from the pass-1 mean.
template <class T, bool Sqrt>
struct SqDevOp {
  using C = compute_t<T>;
  using Acc = red::sum_acc_t<T>;
  using Out = T;
  static Acc init() { return 0; }
  template <class P>
  static Acc step(Acc a, C x, int64_t, P p) {
    Acc d = Acc(x) - p.mean;
    return a + d * d;
  }
  static Acc combine(Acc a, Acc b) { return a + b; }
  template <class P>
  static Out finish(Acc a, int64_t, P p) {
    if (p.denom <= 0) return convert<T>(std::numeric_limits<double>::quiet_NaN());
    double v = double(a) / p.denom;
    return convert<T>(Sqrt ? std::sqrt(v) : v);
  }
};

template <class T, bool Sqrt>
void var_kernel(OpContext& c) {
  using Acc = red::sum_acc_t<T>;
  const Tensor& x = *c.in[0];
  const uint32_t mask = red::axes_mask(c.attrs, 0, x.rank());
  red::Plan first = red::make_flat_plan(x, mask);
  std::vector<Acc> mean(size_t(first.M));
  red::reduce_exec<T, MeanAccOp<T>>(first, x.data<T>(), mean.data());
  const double denom = double(first.N) - double(c.attrs.get_int(2));
  red::reduce_into_output<T, SqDevOp<T, Sqrt>>(c, mask, c.attrs.get_bool(1), [&](int64_t m) {
    return VarParam<Acc>{mean[size_t(m)], denom};
  });
}

// Pass 1 of logsumexp: the maximum (NaN sticks), in the compute type.
template <class T>
struct MaxCOp {
  using C = compute_t<T>;
  using Acc = C;
  using Out = C;
  static Acc init() { return -std::numeric_limits<C>::infinity(); }
  template <class P>
  static Acc step(Acc a, C x, int64_t, P) {
    return (x > a || x != x) ? x : a;
  }
  static Acc combine(Acc a, Acc b) { return (b > a || b != b) ? b : a; }
  template <class P>
  static Acc fold_contig(const T* x, int64_t n, int64_t i0, P p, Acc acc) {
    (void)i0, (void)p;
    if constexpr (std::is_same_v<T, C>) {
      return combine(acc, red::run_max(x, n));
    } else {
      red::for_float_blocks(x, n, [&](const float* b, int64_t k, int64_t) { acc = combine(acc, red::run_max(b, k)); });
      return acc;
    }
  }
  template <class P>
  static Out finish(Acc a, int64_t, P) {
    return a;
  }
};

// Pass 2: sum of exp(x - max), accumulated in f64.
template <class T>
struct SumExpOp {
  using C = compute_t<T>;
  using Acc = double;
  using Out = T;
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
    if (!std::isfinite(m)) return convert<T>(m);  // empty or all -inf: -inf; +inf; NaN
    return convert<T>(double(m) + std::log(a));
  }
};

template <class T>
void logsumexp_kernel(OpContext& c) {
  using C = compute_t<T>;
  const Tensor& x = *c.in[0];
  const uint32_t mask = red::axes_mask(c.attrs, 0, x.rank());
  red::Plan first = red::make_flat_plan(x, mask);
  std::vector<C> mx(size_t(first.M));
  red::reduce_exec<T, MaxCOp<T>>(first, x.data<T>(), mx.data());
  red::reduce_into_output<T, SumExpOp<T>>(c, mask, c.attrs.get_bool(1), [&](int64_t m) { return mx[size_t(m)]; });
}

template <class T, class R>
void norm_kernel(OpContext& c) {
  red::reduce_into_output<T, R>(c, red::axes_mask(c.attrs, 0, c.in[0]->rank()), c.attrs.get_bool(1));
}

}  // namespace

void register_cpu_reduce_stats(Registry& r) {
  for_types<float, double, Half, BFloat16>([&](auto t) {
    using T = decltype(t);
    const ndrt_dtype d = dtype_of<T>();
    r.kernel("norm1", kCpu, {d}, norm_kernel<T, NormOp<T, false>>, "ndrt:cpu");
    r.kernel("norm2", kCpu, {d}, norm_kernel<T, NormOp<T, true>>, "ndrt:cpu");
    r.kernel("var", kCpu, {d}, var_kernel<T, false>, "ndrt:cpu");
    r.kernel("std", kCpu, {d}, var_kernel<T, true>, "ndrt:cpu");
    r.kernel("logsumexp", kCpu, {d}, logsumexp_kernel<T>, "ndrt:cpu");
  });
}

}  // namespace ndrt
