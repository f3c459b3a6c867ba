// cpu kernels: softmax and log_softmax forward/backward, one row (along the axis) per block of work.
// Contiguous f32/f64 rows are processed in place in the tensors; other layouts and f16/bf16 gather
// the row into a compute-type buffer first, so there is one row routine per op.
#include <cmath>
#include <vector>

#include "kernels.hpp"
#include "reduce_engine.hpp"
#include "reduce_math.hpp"
#include "softmax_loss_rows.hpp"

namespace ndrt {

namespace {

template <class C>
void softmax_row(const C* x, C* y, int64_t n, bool log) {
  const C m = red::run_max(x, n);
  if (!log) {
    const double s = red::run_exp_sum(x, n, m, y);
    const C inv = C(1.0 / s);
    for (int64_t i = 0; i < n; ++i) y[i] *= inv;
  } else {
    const C ls = C(std::log(red::run_exp_sum(x, n, m, static_cast<C*>(nullptr))));
    for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - m) - ls;
  }
}

// softmax_bp: dx = y (dy - sum(dy y)); log_softmax_bp: dx = dy - exp(y) sum(dy).
template <class C>
void softmax_bp_row(const C* y, const C* dy, C* dx, int64_t n, bool log) {
  if (!log) {
    const C s = C(red::run_dot2<double>(y, dy, n));
    for (int64_t i = 0; i < n; ++i) dx[i] = y[i] * (dy[i] - s);
  } else {
    red::run_dy_minus_exp(y, dy, dx, n, C(red::run_sum<double>(dy, n)));
  }
}

template <class T>
void gather(const T* p, int64_t n, int64_t stride, compute_t<T>* out) {
  for (int64_t i = 0; i < n; ++i) out[i] = red::load(p[i * stride]);
}
template <class T>
void scatter(const compute_t<T>* in, int64_t n, T* p, int64_t stride) {
  for (int64_t i = 0; i < n; ++i) p[i * stride] = convert<T>(in[i]);
}

template <class T, bool Log>
void softmax_kernel(OpContext& c) {
  using C = compute_t<T>;
  const Tensor& x = *c.in[0];
  Tensor& y = *c.out[0];
  const red::Rows<2> R = red::make_rows<2>({&y, &x}, red::row_axis(c.attrs.get_int(0), x.rank()));
  const int64_t n = R.n;
  if (R.count == 0 || n == 0) return;
  const bool direct = std::is_same_v<T, C> && R.contiguous();
  parallel_for(R.count, std::max<int64_t>(1, red::kRowGrain / n), [&](int64_t b, int64_t e) {
    std::vector<C> buf(direct ? 0 : size_t(n));
    for (int64_t m = b; m < e; ++m) {
      int64_t off[2];
      R.offsets(m, off);
      T* yp = y.data<T>() + off[0];
      const T* xp = x.data<T>() + off[1];
      if constexpr (std::is_same_v<T, C>) {
        if (direct) {
          softmax_row<C>(xp, yp, n, Log);
          continue;
        }
      }
      gather(xp, n, R.along[1], buf.data());
      softmax_row<C>(buf.data(), buf.data(), n, Log);
      scatter(buf.data(), n, yp, R.along[0]);
    }
  });
}

template <class T, bool Log>
void softmax_bp_kernel(OpContext& c) {
  using C = compute_t<T>;
  const Tensor &y = *c.in[0], &dy = *c.in[1];
  Tensor& dx = *c.out[0];
  const red::Rows<3> R = red::make_rows<3>({&dx, &y, &dy}, red::row_axis(c.attrs.get_int(0), y.rank()));
  const int64_t n = R.n;
  if (R.count == 0 || n == 0) return;
  const bool direct = std::is_same_v<T, C> && R.contiguous();
  parallel_for(R.count, std::max<int64_t>(1, red::kRowGrain / n), [&](int64_t b, int64_t e) {
    std::vector<C> buf(direct ? 0 : 2 * size_t(n));
    for (int64_t m = b; m < e; ++m) {
      int64_t off[3];
      R.offsets(m, off);
      T* dxp = dx.data<T>() + off[0];
      const T* yp = y.data<T>() + off[1];
      const T* dyp = dy.data<T>() + off[2];
      if constexpr (std::is_same_v<T, C>) {
        if (direct) {
          softmax_bp_row<C>(yp, dyp, dxp, n, Log);
          continue;
        }
      }
      C *yb = buf.data(), *gb = buf.data() + n;
      gather(yp, n, R.along[1], yb);
      gather(dyp, n, R.along[2], gb);
      softmax_bp_row<C>(yb, gb, gb, n, Log);
      scatter(gb, n, dxp, R.along[0]);
    }
  });
}

}  // namespace

void register_cpu_softmax_loss(Registry& r) {
  for_types<float, double, Half, BFloat16>([&](auto t) {
    using T = decltype(t);
    const ndrt_dtype d = dtype_of<T>();
    r.kernel("softmax", kCpu, {d}, softmax_kernel<T, false>, "ndrt:cpu");
    r.kernel("log_softmax", kCpu, {d}, softmax_kernel<T, true>, "ndrt:cpu");
    r.kernel("softmax_bp", kCpu, {d}, softmax_bp_kernel<T, false>, "ndrt:cpu");
    r.kernel("log_softmax_bp", kCpu, {d}, softmax_bp_kernel<T, true>, "ndrt:cpu");
  });
  register_cpu_softmax_loss_class(r);
  register_cpu_softmax_loss_pointwise(r);
}

}  // namespace ndrt
