// argmax / argmin on cpu: the reduction engine with the element index carried in the accumulator.
// Lanes and thread partials see indices out of order, so combine breaks ties by the lower index.
#include <limits>

#include "kernels.hpp"
#include "reduce_engine.hpp"
#include "reduce_math.hpp"

namespace ndrt {

namespace {

template <class T, bool Less>
struct ArgOp {
  using C = compute_t<T>;
  struct Acc {
    C v;
    int64_t i;  // -1: nothing seen yet
  };
  using Out = int64_t;
  static Acc init() { return {C(0), -1}; }
  // True when (v, i) beats the accumulator: strictly better, or NaN (the first NaN wins).
  static bool better(const Acc& a, C v, int64_t i) {
    if (a.i < 0) return true;
    if (v != v) return a.v == a.v || i < a.i;
    if (a.v != a.v) return false;
    if (Less ? v < a.v : v > a.v) return true;
    return v == a.v && i < a.i;
  }
  template <class P>
  static Acc step(Acc a, C x, int64_t i, P) {
    return better(a, x, i) ? Acc{x, i} : a;
  }
  static Acc combine(Acc a, Acc b) { return b.i >= 0 && better(a, b.v, b.i) ? b : a; }
  // Contiguous runs: the vectorised extreme, then a scan for its first position (f16/bf16 in
  // float blocks).
  template <class P>
  static Acc fold_contig(const T* x, int64_t n, int64_t i0, P p, Acc acc) {
    if constexpr (std::is_same_v<T, C>) {
      if (n == 0) return acc;
      const C m = red::run_extreme<Less>(x, n);
      return combine(acc, Acc{m, i0 + red::run_find(x, n, m)});
    } else {
      red::for_float_blocks(x, n, [&](const float* b, int64_t k, int64_t off) {
        const float m = red::run_extreme<Less>(b, k);
        acc = combine(acc, Acc{m, i0 + off + red::run_find(b, k, m)});
      });
      (void)p;
      return acc;
    }
  }
  template <class P>
  static Out finish(Acc a, int64_t, P) {
    return a.i < 0 ? 0 : a.i;
  }
};

template <class T, bool Less>
void arg_kernel(OpContext& c) {
  const Tensor& x = *c.in[0];
  uint32_t mask = 0;
  if (x.rank() > 0) {
    int64_t axis = c.attrs.get_int(0);
    mask = 1u << (axis < 0 ? axis + x.rank() : axis);
  }
  red::reduce_into_output<T, ArgOp<T, Less>>(c, mask, c.attrs.get_bool(1));
}

}  // namespace

void register_cpu_reduce_arg(Registry& r) {
  for_types<float, double, Half, BFloat16, int8_t, uint8_t, int32_t, int64_t>([&](auto t) {
    using T = decltype(t);
    r.kernel("argmax", kCpu, {dtype_of<T>()}, arg_kernel<T, false>, "ndrt:cpu");
    r.kernel("argmin", kCpu, {dtype_of<T>()}, arg_kernel<T, true>, "ndrt:cpu");
  });
}

}  // namespace ndrt
