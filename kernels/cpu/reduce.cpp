// Reductions on cpu: sum, mean, max, min, prod. The loop engine lives in reduce_engine.hpp; the
// statistics (norms, var, std, logsumexp) in reduce_stats.cpp, argmax/argmin in reduce_arg.cpp.
#include <cmath>
#include <limits>

#include "kernels.hpp"
#include "reduce_engine.hpp"
#include "reduce_math.hpp"

namespace ndrt {

namespace {

// Integers wrap (two's complement) instead of overflowing into undefined behaviour.
template <class A, class B>
inline A add_wrap(A a, B b) {
  if constexpr (std::is_integral_v<A>)
    return A(uint64_t(a) + uint64_t(int64_t(b)));
  else
    return a + A(b);
}

template <class T>
struct SumOp {
  using C = compute_t<T>;
  using Acc = red::sum_acc_t<T>;
  using Out = T;
  static constexpr bool kGroup4 = std::is_same_v<T, float>;  // see run_sum
  static Acc init() { return 0; }
  template <class P>
  static Acc step(Acc a, C x, int64_t, P) {
    return add_wrap(a, x);
  }
  static Acc combine(Acc a, Acc b) { return add_wrap(a, b); }
  template <class P>
  static Acc fold_contig(const T* x, int64_t n, int64_t i0, P p, Acc acc) {
    if constexpr (red::kPlainFloat<T>)
      return acc + red::run_sum<Acc>(x, n);
    else if constexpr (std::is_integral_v<T>)
      return add_wrap(acc, red::run_sum<uint64_t>(x, n));  // unsigned lanes: wraps, no overflow
    else
      red::for_float_blocks(x, n, [&](const float* b, int64_t k, int64_t) { acc += red::run_sum<Acc>(b, k); });
    (void)i0, (void)p;
    return acc;
  }
  template <class P>
  static Out finish(Acc a, int64_t, P) {
    return convert<T>(a);
  }
};

template <class T>
struct MeanOp : SumOp<T> {
  using Acc = typename SumOp<T>::Acc;
  template <class P>
  static T finish(Acc a, int64_t n, P) {
    return convert<T>(a / Acc(n));
  }  // n = 0 gives NaN
};

// Max (Less = false) or min (Less = true); NaN sticks.
template <class T, bool Less>
struct ExtremeOp {
  using C = compute_t<T>;
  using Acc = C;
  using Out = T;
  static Acc init() {
    if constexpr (std::numeric_limits<C>::has_infinity)
      return Less ? std::numeric_limits<C>::infinity() : -std::numeric_limits<C>::infinity();
    else
      return Less ? std::numeric_limits<C>::max() : std::numeric_limits<C>::lowest();
  }
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
  static Acc fold_contig(const T* x, int64_t n, int64_t i0, P p, Acc acc) {
    (void)i0, (void)p;
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
    return convert<T>(a);
  }
};

template <class T>
struct ProdOp {
  using C = compute_t<T>;
  // Integers multiply in uint64 (wraps, no undefined overflow); floats as sum.
  using Acc = std::conditional_t<std::is_integral_v<T>, uint64_t, red::sum_acc_t<T>>;
  using Out = T;
  static Acc init() { return 1; }
  template <class P>
  static Acc step(Acc a, C x, int64_t, P) {
    if constexpr (std::is_integral_v<T>)
      return a * uint64_t(int64_t(x));
    else
      return a * Acc(x);
  }
  static Acc combine(Acc a, Acc b) { return a * b; }
  template <class P>
  static Acc fold_contig(const T* x, int64_t n, int64_t i0, P p, Acc acc) {
    if constexpr (red::kPlainFloat<T> || std::is_integral_v<T>) {
      (void)i0, (void)p;
      return acc * red::run_prod<Acc>(x, n);  // integers: uint64 lanes wrap like the scalar product
    } else {
      return red::fold_lanes<T, ProdOp>(x, n, i0, p, acc);
    }
  }
  template <class P>
  static Out finish(Acc a, int64_t, P) {
    if constexpr (std::is_integral_v<T>)
      return T(int64_t(a));
    else
      return convert<T>(a);
  }
};

template <class T, class R>
void reduce_kernel(OpContext& c) {
  red::reduce_into_output<T, R>(c, red::axes_mask(c.attrs, 0, c.in[0]->rank()), c.attrs.get_bool(1));
}

}  // namespace

void register_cpu_reduce(Registry& r) {
  for_types<float, double, Half, BFloat16, int32_t, int64_t>([&](auto t) {
    using T = decltype(t);
    r.kernel("sum", kCpu, {dtype_of<T>()}, reduce_kernel<T, SumOp<T>>, "ndrt:cpu");
    r.kernel("prod", kCpu, {dtype_of<T>()}, reduce_kernel<T, ProdOp<T>>, "ndrt:cpu");
  });
  for_types<float, double, Half, BFloat16, int8_t, uint8_t, int32_t, int64_t>([&](auto t) {
    using T = decltype(t);
    r.kernel("max", kCpu, {dtype_of<T>()}, reduce_kernel<T, ExtremeOp<T, false>>, "ndrt:cpu");
    r.kernel("min", kCpu, {dtype_of<T>()}, reduce_kernel<T, ExtremeOp<T, true>>, "ndrt:cpu");
  });
  for_types<float, double, Half, BFloat16>([&](auto t) {
    using T = decltype(t);
    r.kernel("mean", kCpu, {dtype_of<T>()}, reduce_kernel<T, MeanOp<T>>, "ndrt:cpu");
  });
  register_cpu_reduce_stats(r);
  register_cpu_reduce_arg(r);
  register_cpu_reduce_bp(r);
}

}  // namespace ndrt
