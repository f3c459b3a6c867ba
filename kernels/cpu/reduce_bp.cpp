// sum_bp / mean_bp on cpu: dx = dy (scaled by 1/n for mean) broadcast back over the reduced axes.
// dy is seen with the keepdims shape (reduced axes as size 1), which the loop broadcasts (stride 0).
#include "kernels.hpp"
#include "reduce_engine.hpp"

namespace ndrt {

namespace {

template <class T, bool Mean>
void reduce_bp_kernel(OpContext& c) {
  using C = compute_t<T>;
  const Tensor& x = *c.in[0];
  const Tensor& dy = *c.in[1];
  Tensor& dx = *c.out[0];
  const uint32_t mask = red::axes_mask(c.attrs, 0, x.rank());
  const bool keep = c.attrs.get_bool(1);
  Tensor v = dy;  // metadata copy: a view of dy with the keepdims shape
  int64_t n = 1;
  v.shape.rank = v.strides.rank = x.rank();
  for (int i = 0, j = 0; i < x.rank(); ++i) {
    if (mask & (1u << i)) {
      n *= x.shape.d[i];
      v.shape.d[i] = 1;
      v.strides.d[i] = 0;
      if (keep) ++j;
    } else {
      v.shape.d[i] = dy.shape.d[j];
      v.strides.d[i] = dy.strides.d[j];
      ++j;
    }
  }
  const C scale = Mean ? C(1.0 / double(n)) : C(1);
  Loop<2> L = make_loop<2>(dx, {&v});
  run_loop(L, [&](char** p, int64_t k, const int64_t* s) {
    T* o = reinterpret_cast<T*>(p[0]);
    const T* g = reinterpret_cast<const T*>(p[1]);
    if (s[0] == 1 && s[1] == 0) {
      const T val = convert<T>(red::load(*g) * scale);
      for (int64_t i = 0; i < k; ++i) o[i] = val;
    } else {
      for (int64_t i = 0; i < k; ++i) o[i * s[0]] = convert<T>(red::load(g[i * s[1]]) * scale);
    }
  });
}

}  // namespace

void register_cpu_reduce_bp(Registry& r) {
  for_types<float, double, Half, BFloat16>([&](auto t) {
    using T = decltype(t);
    r.kernel("sum_bp", kCpu, {dtype_of<T>()}, reduce_bp_kernel<T, false>, "ndrt:cpu");
    r.kernel("mean_bp", kCpu, {dtype_of<T>()}, reduce_bp_kernel<T, true>, "ndrt:cpu");
  });
}

}  // namespace ndrt
