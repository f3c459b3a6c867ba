// Elementwise cpu kernels: broadcasting binary arithmetic and unary maps.
#include <atomic>
#include <cmath>
#include <limits>
#include <type_traits>

#include "error.hpp"
#include "kernels.hpp"
#include "loops.hpp"

namespace ndrt {

namespace {

// Integer arithmetic wraps (two's complement) instead of overflowing into undefined behaviour.
template <class T, bool = std::is_integral_v<T>>
struct WrapType { using type = T; };
template <class T>
struct WrapType<T, true> { using type = std::make_unsigned_t<T>; };
template <class T>
using Wrap = typename WrapType<T>::type;

struct Add { template <class T> static T apply(T a, T b) { return T(Wrap<T>(a) + Wrap<T>(b)); } };
struct Sub { template <class T> static T apply(T a, T b) { return T(Wrap<T>(a) - Wrap<T>(b)); } };
struct Mul { template <class T> static T apply(T a, T b) { return T(Wrap<T>(a) * Wrap<T>(b)); } };
struct Div {
  // Integer division truncates; x / 0 is reported after the loop (the flag), INT_MIN / -1 wraps
  // (it would trap on x86).
  template <class T>
  static T apply(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
      if (b == 0) return 0;
      if (b == -1) return T(-Wrap<T>(a));
    }
    return a / b;
  }
};

template <class T, class Op>
void binary_kernel(OpContext& c) {
  Loop<3> L = make_loop<3>(*c.out[0], {c.in[0], c.in[1]});
  std::atomic<bool> div_by_zero{false};
  run_loop(L, [&](char** p, int64_t n, const int64_t* s) {
    T* o = reinterpret_cast<T*>(p[0]);
    const T* a = reinterpret_cast<const T*>(p[1]);
    const T* b = reinterpret_cast<const T*>(p[2]);
    if constexpr (std::is_integral_v<T> && std::is_same_v<Op, Div>) {
      for (int64_t i = 0; i < n; ++i)
        if (b[i * s[2]] == 0) div_by_zero.store(true, std::memory_order_relaxed);
    }
    // Dense and scalar-broadcast rows get loops the compiler vectorises.
    if (s[0] == 1 && s[1] == 1 && s[2] == 1) {
      for (int64_t i = 0; i < n; ++i) o[i] = Op::apply(a[i], b[i]);
    } else if (s[0] == 1 && s[1] == 1 && s[2] == 0) {
      const T bv = *b;
      for (int64_t i = 0; i < n; ++i) o[i] = Op::apply(a[i], bv);
    } else if (s[0] == 1 && s[1] == 0 && s[2] == 1) {
      const T av = *a;
      for (int64_t i = 0; i < n; ++i) o[i] = Op::apply(av, b[i]);
    } else {
      for (int64_t i = 0; i < n; ++i) o[i * s[0]] = Op::apply(a[i * s[1]], b[i * s[2]]);
    }
  });
  if (div_by_zero.load()) fail(NDRT_ERR_INVALID_ARGUMENT, "div: integer division by zero");
}

struct Neg { template <class T> static T apply(T x) { return T(-Wrap<T>(x)); } };
struct Relu { template <class T> static T apply(T x) { return x > T(0) ? x : T(0); } };
struct Exp { template <class T> static T apply(T x) { return std::exp(x); } };
struct Log { template <class T> static T apply(T x) { return std::log(x); } };

template <class T, class Op>
void unary_kernel(OpContext& c) {
  Loop<2> L = make_loop<2>(*c.out[0], {c.in[0]});
  run_loop(L, [&](char** p, int64_t n, const int64_t* s) {
    T* o = reinterpret_cast<T*>(p[0]);
    const T* x = reinterpret_cast<const T*>(p[1]);
    if (s[0] == 1 && s[1] == 1)
      for (int64_t i = 0; i < n; ++i) o[i] = Op::apply(x[i]);
    else
      for (int64_t i = 0; i < n; ++i) o[i * s[0]] = Op::apply(x[i * s[1]]);
  });
}

}  // namespace

void register_cpu_elementwise(Registry& r) {
  for_types<float, double, int32_t, int64_t>([&](auto t) {
    using T = decltype(t);
    const ndrt_dtype d = dtype_of<T>();
    r.kernel("add", kCpu, {d}, binary_kernel<T, Add>, "ndrt:cpu");
    r.kernel("sub", kCpu, {d}, binary_kernel<T, Sub>, "ndrt:cpu");
    r.kernel("mul", kCpu, {d}, binary_kernel<T, Mul>, "ndrt:cpu");
    r.kernel("div", kCpu, {d}, binary_kernel<T, Div>, "ndrt:cpu");
    r.kernel("neg", kCpu, {d}, unary_kernel<T, Neg>, "ndrt:cpu");
    r.kernel("relu", kCpu, {d}, unary_kernel<T, Relu>, "ndrt:cpu");
  });
  for_types<float, double>([&](auto t) {
    using T = decltype(t);
    r.kernel("exp", kCpu, {dtype_of<T>()}, unary_kernel<T, Exp>, "ndrt:cpu");
    r.kernel("log", kCpu, {dtype_of<T>()}, unary_kernel<T, Log>, "ndrt:cpu");
  });
}

}  // namespace ndrt
