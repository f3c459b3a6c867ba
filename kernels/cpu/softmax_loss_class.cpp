// cpu kernels of the class losses on [N, C] rows: softmax_cross_entropy (class indices and soft
// targets, fused: the softmax is never written) and nll_loss, forward and backward. Labels are
// checked before any work so an out-of-range one fails cleanly, naming its row. The class-index
// losses take optional class weights and ignore_index (ClassRows) and run on f32, f64 and, through
// f32 rows (compute_t), on f16 and bf16; the soft-target ones on f32 and f64.
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "error.hpp"
#include "kernels.hpp"
#include "reduce_engine.hpp"
#include "reduce_math.hpp"
#include "softmax_loss_rows.hpp"

namespace ndrt {

namespace {

enum { kNone = 0, kMean = 1, kSum = 2 };
enum { kReduction = 0, kIgnoreIndex = 1 };  // attributes (the soft-target losses have reduction only)

// Class indices of an [N] i32 or i64 tensor, any stride.
struct Labels {
  const char* base;
  int64_t stride;
  bool wide;
  explicit Labels(const Tensor& t) : base(t.base()), stride(t.strides.d[0] * t.itemsize()), wide(t.dtype == NDRT_I64) {}
  int64_t operator()(int64_t n) const {
    const char* p = base + n * stride;
    return wide ? *reinterpret_cast<const int64_t*>(p) : *reinterpret_cast<const int32_t*>(p);
  }
};

// The class-index rows of one call: labels (each in [0, C) or equal to ignore_index, checked before
// any work), the optional class weights (input `wi` when given) and ignore_index.
template <class T>
struct ClassRows {
  Labels lab;
  const T* w = nullptr;  // weights [C], or null (every weight 1)
  int64_t ws = 0;        // their stride
  int64_t ignore = 0;
  bool ignored(int64_t n) const { return lab(n) == ignore; }
  // The weight of row n: 0 when ignored, else w[labels[n]] (1 without weights).
  double weight(int64_t n) const {
    const int64_t y = lab(n);
    if (y == ignore) return 0;
    return w ? double(red::load(w[y * ws])) : 1.0;
  }
  // The mean's denominator: the summed weights of the rows not ignored (their count without weights).
  double denominator(int64_t N) const {
    double d = 0;
    for (int64_t n = 0; n < N; ++n) d += weight(n);
    return d;
  }
};

template <class T>
ClassRows<T> class_rows(const OpContext& c, int wi) {
  ClassRows<T> r{Labels(*c.in[1])};
  r.ignore = c.attrs.get_int(kIgnoreIndex);
  if (c.n_in > wi) {
    r.w = c.in[wi]->data<T>();
    r.ws = c.in[wi]->strides.d[0];
  }
  const int64_t N = c.in[0]->shape.d[0], C = c.in[0]->shape.d[1];
  for (int64_t n = 0; n < N; ++n) {
    const int64_t v = r.lab(n);
    if ((v < 0 || v >= C) && v != r.ignore)
      fail(NDRT_ERR_INVALID_ARGUMENT, "%s: label %lld at row %lld is out of range [0, %lld)", c.op->name, (long long)v,
           (long long)n, (long long)C);
  }
  return r;
}

// sum / D for the class-index losses' mean: 0 when nothing is counted (D = 0), where PyTorch gives NaN.
inline double mean_or_zero(double sum, double d) { return d == 0 ? 0.0 : sum / d; }

// Writes the N per-row losses loss(n) to output 0 as the reduction attribute says; the mean is
// mean(sum, N).
template <class T, class F, class M>
void write_loss_of(OpContext& c, int64_t N, F&& loss, M&& mean) {
  Tensor& out = *c.out[0];
  const int64_t red = c.attrs.get_int(kReduction);
  if (red == kNone) {
    T* o = out.data<T>();
    for (int64_t n = 0; n < N; ++n) o[n * out.strides.d[0]] = convert<T>(loss(n));
    return;
  }
  double s = 0;
  for (int64_t n = 0; n < N; ++n) s += loss(n);
  *out.data<T>() = convert<T>(red == kMean ? mean(s, N) : s);
}

// The soft-target losses: the mean divides by N (over N = 0 it is NaN, as PyTorch).
template <class T, class F>
void write_loss_of(OpContext& c, int64_t N, F&& loss) {
  write_loss_of<T>(c, N, loss, [](double s, int64_t n) { return s / double(n); });
}

template <class T>
void write_loss(OpContext& c, const std::vector<double>& loss) {
  write_loss_of<T>(c, int64_t(loss.size()), [&](int64_t n) { return loss[size_t(n)]; });
}

// The class-index losses: the mean divides by the rows' summed weights (0 when that is 0).
template <class T>
void write_class_loss(OpContext& c, const std::vector<double>& loss, const ClassRows<T>& cr) {
  write_loss_of<T>(c, int64_t(loss.size()), [&](int64_t n) { return loss[size_t(n)]; },
                   [&](double s, int64_t N) { return mean_or_zero(s, cr.denominator(N)); });
}

// The gradient scale of row n: dy scaled for the reduction (mean: 1 / D, D = N for the soft-target
// losses, the summed weights for the class-index ones; 0 when D is 0 there).
template <class T>
struct RowGrad {
  const T* dy;
  int64_t stride;
  double scale;
  RowGrad(const OpContext& c, const Tensor& dyt, double d) : dy(dyt.data<T>()) {
    const int64_t red = c.attrs.get_int(kReduction);
    stride = red == kNone ? dyt.strides.d[0] : 0;
    scale = red == kMean ? mean_or_zero(1.0, d) : 1.0;
  }
  double operator()(int64_t n) const { return double(red::load(dy[n * stride])) * scale; }
};

// The soft-target losses' mean divides by N (1.0 / N, as before: no rows when N = 0).
template <class T>
RowGrad<T> soft_row_grad(const OpContext& c, const Tensor& dyt, int64_t N) {
  return RowGrad<T>(c, dyt, double(N));
}
template <class T>
RowGrad<T> class_row_grad(const OpContext& c, const Tensor& dyt, const ClassRows<T>& cr) {
  const bool mean = c.attrs.get_int(kReduction) == kMean;
  return RowGrad<T>(c, dyt, mean ? cr.denominator(c.in[0]->shape.d[0]) : 1.0);
}

// Runs row(m, x, aux...) with each row of logits (input 0) in the compute type: in place when
// contiguous, else gathered. K: tensors of the row space (input 0 first), rows along axis 1.
template <class T, int K, class F>
void for_class_rows(const std::array<const Tensor*, K>& t, F&& row) {
  const red::Rows<K> R = red::make_rows<K>(t, 1);
  const int64_t n = R.n;
  // No rows, or rows of no classes: nothing to read (soft_ce_kernel writes their losses itself;
  // class indices cannot be in range there and were refused before).
  if (R.count == 0 || n == 0) return;
  parallel_for(R.count, std::max<int64_t>(1, red::kRowGrain / std::max<int64_t>(n, 1)), [&](int64_t b, int64_t e) {
    for (int64_t m = b; m < e; ++m) {
      int64_t off[K];
      R.offsets(m, off);
      row(m, off, R.along);
    }
  });
}

// Row `p` (n elements at `stride`) in the compute type C: in place when it is contiguous and T is
// C, else gathered into buf.
template <class T, class C = compute_t<T>>
const C* row_in(const T* p, int64_t n, int64_t stride, std::vector<C>& buf) {
  if constexpr (std::is_same_v<T, C>)
    if (stride == 1) return p;
  buf.resize(size_t(n));
  for (int64_t i = 0; i < n; ++i) buf[size_t(i)] = red::load(p[i * stride]);
  return buf.data();
}

template <class T>
void sce_kernel(OpContext& c) {
  using C = compute_t<T>;
  const Tensor& x = *c.in[0];
  const ClassRows<T> cr = class_rows<T>(c, 2);
  std::vector<double> loss(size_t(x.shape.d[0]));  // ignored rows keep 0
  const int64_t n = x.shape.d[1];
  for_class_rows<T, 1>({&x}, [&](int64_t m, const int64_t* off, const int64_t* along) {
    if (cr.ignored(m)) return;
    thread_local std::vector<C> buf;
    const C* xr = row_in(x.data<T>() + off[0], n, along[0], buf);
    const C mx = red::run_max(xr, n);
    const double s = red::run_exp_sum(xr, n, mx, static_cast<C*>(nullptr));
    loss[size_t(m)] = cr.weight(m) * ((double(mx) - double(xr[cr.lab(m)])) + std::log(s));
  });
  write_class_loss<T>(c, loss, cr);
}

template <class T>
void sce_bp_kernel(OpContext& c) {
  using C = compute_t<T>;
  const Tensor& x = *c.in[0];
  Tensor& dx = *c.out[0];
  const ClassRows<T> cr = class_rows<T>(c, 3);
  const RowGrad<T> g = class_row_grad<T>(c, *c.in[2], cr);
  const int64_t n = x.shape.d[1];
  for_class_rows<T, 2>({&x, &dx}, [&](int64_t m, const int64_t* off, const int64_t* along) {
    T* dr = dx.data<T>() + off[1];
    if (cr.ignored(m)) {
      for (int64_t i = 0; i < n; ++i) dr[i * along[1]] = T(0);
      return;
    }
    thread_local std::vector<C> buf, obuf;
    const C* xr = row_in(x.data<T>() + off[0], n, along[0], buf);
    C* o = nullptr;
    if constexpr (std::is_same_v<T, C>)
      if (along[1] == 1) o = dr;
    if (!o) o = (obuf.resize(size_t(n)), obuf.data());
    const C mx = red::run_max(xr, n);
    const double s = red::run_exp_sum(xr, n, mx, o);
    const double gm = g(m) * cr.weight(m);
    const C k = C(gm / s);
    for (int64_t i = 0; i < n; ++i) o[i] *= k;
    o[cr.lab(m)] -= C(gm);
    if (static_cast<void*>(o) != static_cast<void*>(dr))
      for (int64_t i = 0; i < n; ++i) dr[i * along[1]] = convert<T>(o[i]);
  });
}

template <class T>
void soft_ce_kernel(OpContext& c) {
  const Tensor &x = *c.in[0], &t = *c.in[1];
  const int64_t N = x.shape.d[0], n = x.shape.d[1];
  if (n == 0) {
    // Rows of no classes: each loss is the empty sum, 0. Such rows hold no elements, so N is not
    // bounded by memory: no per-row buffer, and a mean or sum of N zeros is that of min(N, 1) zeros
    // (0; the mean over N = 0 stays NaN).
    const int64_t red = c.attrs.get_int(0);
    write_loss_of<T>(c, red == kNone ? N : std::min<int64_t>(N, 1), [](int64_t) { return 0.0; });
    return;
  }
  std::vector<double> loss(static_cast<size_t>(N));
  for_class_rows<T, 2>({&x, &t}, [&](int64_t m, const int64_t* off, const int64_t* along) {
    thread_local std::vector<T> buf;
    const T* xr = row_in(x.data<T>() + off[0], n, along[0], buf);
    const T* tr = t.data<T>() + off[1];
    const T mx = red::run_max(xr, n);
    const double ls = std::log(red::run_exp_sum(xr, n, mx, static_cast<T*>(nullptr)));
    double acc = 0;
    for (int64_t i = 0; i < n; ++i) acc += double(tr[i * along[1]]) * (double(xr[i] - mx) - ls);
    loss[size_t(m)] = -acc;
  });
  write_loss<T>(c, loss);
}

template <class T>
void soft_ce_bp_kernel(OpContext& c) {
  const Tensor &x = *c.in[0], &t = *c.in[1];
  Tensor& dx = *c.out[0];
  const RowGrad<T> g = soft_row_grad<T>(c, *c.in[2], x.shape.d[0]);
  const int64_t n = x.shape.d[1];
  for_class_rows<T, 3>({&x, &t, &dx}, [&](int64_t m, const int64_t* off, const int64_t* along) {
    thread_local std::vector<T> buf, obuf;
    const T* xr = row_in(x.data<T>() + off[0], n, along[0], buf);
    const T* tr = t.data<T>() + off[1];
    T* dr = dx.data<T>() + off[2];
    obuf.resize(size_t(n));
    const T mx = red::run_max(xr, n);
    const double s = red::run_exp_sum(xr, n, mx, obuf.data());
    double tsum = 0;
    for (int64_t i = 0; i < n; ++i) tsum += double(tr[i * along[1]]);
    const double gm = g(m);
    const T k = T(gm * tsum / s), gt = T(gm);
    for (int64_t i = 0; i < n; ++i) dr[i * along[2]] = obuf[size_t(i)] * k - tr[i * along[1]] * gt;
  });
}

template <class T>
void nll_kernel(OpContext& c) {
  const Tensor& x = *c.in[0];
  const ClassRows<T> cr = class_rows<T>(c, 2);
  const int64_t N = x.shape.d[0], s0 = x.strides.d[0], s1 = x.strides.d[1];
  std::vector<double> loss(static_cast<size_t>(N));
  const T* xb = x.data<T>();
  for (int64_t m = 0; m < N; ++m)
    loss[size_t(m)] = cr.ignored(m) ? 0.0 : -(cr.weight(m) * double(red::load(xb[m * s0 + cr.lab(m) * s1])));
  write_class_loss<T>(c, loss, cr);
}

template <class T>
void nll_bp_kernel(OpContext& c) {
  const Tensor& x = *c.in[0];
  Tensor& dx = *c.out[0];
  const ClassRows<T> cr = class_rows<T>(c, 3);
  const RowGrad<T> g = class_row_grad<T>(c, *c.in[2], cr);
  const int64_t n = x.shape.d[1];
  for_class_rows<T, 1>({&dx}, [&](int64_t m, const int64_t* off, const int64_t* along) {
    T* dr = dx.data<T>() + off[0];
    for (int64_t i = 0; i < n; ++i) dr[i * along[0]] = T(0);
    if (!cr.ignored(m)) dr[cr.lab(m) * along[0]] = convert<T>(-(g(m) * cr.weight(m)));
  });
}

}  // namespace

void register_cpu_softmax_loss_class(Registry& r) {
  for_types<float, double, Half, BFloat16>([&](auto t) {
    using T = decltype(t);
    const ndrt_dtype d = dtype_of<T>();
    r.kernel("softmax_cross_entropy", kCpu, {d}, sce_kernel<T>, "ndrt:cpu");
    r.kernel("softmax_cross_entropy_bp", kCpu, {d}, sce_bp_kernel<T>, "ndrt:cpu");
    r.kernel("nll_loss", kCpu, {d}, nll_kernel<T>, "ndrt:cpu");
    r.kernel("nll_loss_bp", kCpu, {d}, nll_bp_kernel<T>, "ndrt:cpu");
  });
  for_types<float, double>([&](auto t) {
    using T = decltype(t);
    const ndrt_dtype d = dtype_of<T>();
    r.kernel("softmax_cross_entropy_soft", kCpu, {d}, soft_ce_kernel<T>, "ndrt:cpu");
    r.kernel("softmax_cross_entropy_soft_bp", kCpu, {d}, soft_ce_bp_kernel<T>, "ndrt:cpu");
  });
}

}  // namespace ndrt
