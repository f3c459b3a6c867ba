// Elementwise cpu kernels, binary arithmetic with numpy broadcasting (add, sub, mul, div, pow,
// maximum, minimum); the map machinery is elementwise_map.hpp. Unary maps, gradients and the
// bool-valued ops register from elementwise_unary.cpp, elementwise_grad.cpp, elementwise_logic.cpp.
#include <cmath>

#include "elementwise_map.hpp"

namespace ndrt {

void register_cpu_elementwise_unary(Registry& r);
void register_cpu_elementwise_grad(Registry& r);
void register_cpu_elementwise_logic(Registry& r);

namespace {

using namespace elt;

struct Add : NoAttrs {
  static constexpr bool kStream = true;  // light: outputs beyond the cache are streamed
  template <class C> static C f(C a, C b, const Params<C>&) { return C(Wrap<C>(a) + Wrap<C>(b)); }
};
struct Sub : NoAttrs {
  static constexpr bool kStream = true;
  template <class C> static C f(C a, C b, const Params<C>&) { return C(Wrap<C>(a) - Wrap<C>(b)); }
};
struct Mul : NoAttrs {
  static constexpr bool kStream = true;
  template <class C> static C f(C a, C b, const Params<C>&) { return C(Wrap<C>(a) * Wrap<C>(b)); }
};
struct Div : NoAttrs {
  // Integer division truncates; x / 0 gives 0 here and is reported after the loop (kIntDivCheck);
  // INT_MIN / -1 wraps (it would trap on x86).
  static constexpr bool kIntDivCheck = true;
  template <class C>
  static C f(C a, C b, const Params<C>&) {
    if constexpr (std::is_integral_v<C>) {
      if (b == 0) return 0;
      if constexpr (std::is_signed_v<C>)
        if (b == -1) return C(-Wrap<C>(a));
    }
    return C(a / b);
  }
};
// NaN propagates from either side (torch.maximum / minimum); the selects vectorise as blends.
struct Maximum : NoAttrs {
  static constexpr bool kStream = true;
  template <class C> static C f(C a, C b, const Params<C>&) { return (a > b || a != a) ? a : b; }
};
struct Minimum : NoAttrs {
  static constexpr bool kStream = true;
  template <class C> static C f(C a, C b, const Params<C>&) { return (a < b || a != a) ? a : b; }
};
struct Pow : NoAttrs {
  template <class C> static C f(C a, C b, const Params<C>&) { return std::pow(a, b); }
};

}  // namespace

void register_cpu_elementwise(Registry& r) {
  for_types<float, double, Half, BFloat16, int8_t, uint8_t, int32_t, int64_t>([&](auto t) {
    using T = decltype(t);
    const ndrt_dtype d = dtype_of<T>();
    r.kernel("add", kCpu, {d}, binary_kernel<T, T, Add>, "ndrt:cpu");
    r.kernel("sub", kCpu, {d}, binary_kernel<T, T, Sub>, "ndrt:cpu");
    r.kernel("mul", kCpu, {d}, binary_kernel<T, T, Mul>, "ndrt:cpu");
    r.kernel("div", kCpu, {d}, binary_kernel<T, T, Div>, "ndrt:cpu");
    r.kernel("maximum", kCpu, {d}, binary_kernel<T, T, Maximum>, "ndrt:cpu");
    r.kernel("minimum", kCpu, {d}, binary_kernel<T, T, Minimum>, "ndrt:cpu");
  });
  for_types<float, double, Half, BFloat16>([&](auto t) {
    using T = decltype(t);
    r.kernel("pow", kCpu, {dtype_of<T>()}, binary_kernel<T, T, Pow>, "ndrt:cpu");
  });
  register_cpu_elementwise_unary(r);
  register_cpu_elementwise_grad(r);
  register_cpu_elementwise_logic(r);
}

}  // namespace ndrt
