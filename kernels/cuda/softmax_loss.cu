// CUDA kernels: softmax and log_softmax forward/backward along an axis, and the class losses on
// [N, C] rows (softmax_cross_entropy with class indices or soft targets, fused: the softmax is never
// written; nll_loss), forward and backward. One group of threads per row; the pointwise losses are
// in softmax_loss_pointwise.cu.
//
// Labels: the CPU checks them before any work and fails naming the row. A kernel cannot fail and
// must not read device memory back to the host, so here an out-of-range label (other than
// ignore_index) makes that row's loss NaN (and its gradient row NaN) instead of an error.
//
// The class-index losses (softmax_cross_entropy, nll_loss, their _bp) take optional class weights and
// ignore_index; their mean divides by the summed weights of the rows not ignored (0 when that is 0),
// a denominator summed on the device (deterministic, as the losses) and read there. They run on
// f32, f64, f16 and bf16 (halves compute in f32); the soft-target ones on f32 and f64.
#include "softmax_loss_common.cuh"

namespace ndrt::cuda {

void register_cuda_softmax_loss_pointwise();  // softmax_loss_pointwise.cu

namespace {

using sl::Rows;

// ---- softmax / log_softmax -------------------------------------------------------------------------
// Rows: tensor 0 is written, the others read. y may be the same view as x (in place): each thread
// writes only the elements it reads last, after the row statistics are complete.
template <class T, bool Log>
__global__ void __launch_bounds__(sl::kMaxRowBlock) softmax_rows(T* y, const T* x, Rows<2> rows, int G) {
  using C = compute_t<T>;
  __shared__ red::GroupSmem<C> smc;
  __shared__ red::GroupSmem<double> smd;
  const int per_block = int(blockDim.x) / G, lane = int(threadIdx.x) % G;
  const int64_t n = rows.n, ay = rows.along[0], ax = rows.along[1];
  for (int64_t r0 = int64_t(blockIdx.x) * per_block; r0 < rows.count; r0 += int64_t(gridDim.x) * per_block) {
    const int64_t row = r0 + int(threadIdx.x) / G;
    const bool active = row < rows.count;
    int64_t off[2] = {0, 0};
    if (active) rows.other.offsets(row, off);
    const T* xr = x + off[1];
    T* yr = y + off[0];
    auto load = [&](int64_t j) { return convert<C>(xr[j * ax]); };
    C m;
    double s;
    sl::row_stats(active, n, lane, G, load, m, s, smc, smd);
    if (!active) continue;
    if constexpr (!Log) {
      const C inv = C(1.0 / s);
      for (int64_t j = lane; j < n; j += G) yr[j * ay] = convert<T>(C(red::dexp(C(load(j) - m))) * inv);
    } else {
      const C ls = C(log(s));
      for (int64_t j = lane; j < n; j += G) yr[j * ay] = convert<T>((load(j) - m) - ls);
    }
  }
}

// softmax_bp: dx = y (dy - sum(dy y)); log_softmax_bp: dx = dy - exp(y) sum(dy). dx may be the
// same view as y or dy.
template <class T, bool Log>
__global__ void __launch_bounds__(sl::kMaxRowBlock) softmax_bp_rows(T* dx, const T* y, const T* dy, Rows<3> rows, int G) {
  using C = compute_t<T>;
  __shared__ red::GroupSmem<double> smd;
  const int per_block = int(blockDim.x) / G, lane = int(threadIdx.x) % G;
  const int64_t n = rows.n, ad = rows.along[0], ay = rows.along[1], ag = rows.along[2];
  for (int64_t r0 = int64_t(blockIdx.x) * per_block; r0 < rows.count; r0 += int64_t(gridDim.x) * per_block) {
    const int64_t row = r0 + int(threadIdx.x) / G;
    const bool active = row < rows.count;
    int64_t off[3] = {0, 0, 0};
    if (active) rows.other.offsets(row, off);
    T* dxr = dx + off[0];
    const T* yr = y + off[1];
    const T* gr = dy + off[2];
    double acc = 0;
    if (active)
      for (int64_t j = lane; j < n; j += G) {
        const double g = double(convert<C>(gr[j * ag]));
        acc += Log ? g : double(convert<C>(yr[j * ay])) * g;
      }
    const C s = C(sl::group_sum(acc, G, smd));
    if (!active) continue;
    for (int64_t j = lane; j < n; j += G) {
      const C yv = convert<C>(yr[j * ay]), gv = convert<C>(gr[j * ag]);
      dxr[j * ad] = convert<T>(Log ? gv - red::dexp(yv) * s : yv * (gv - s));
    }
  }
}

template <class T, bool Log>
void softmax_kernel(OpContext& c) {
  const Tensor& x = *c.in[0];
  Tensor& y = *c.out[0];
  const Rows<2> R = sl::make_rows<2>({&y, &x}, sl::row_axis(c.attrs.get_int(0), x.rank()));
  if (R.count == 0 || R.n == 0) return;
  const red::GroupLaunch gl = sl::row_launch(R.count, R.n);
  softmax_rows<T, Log><<<gl.L.grid, gl.L.block, 0, stream(c)>>>(red::data<T>(y), red::data<T>(x), R, gl.G);
  check_launch(c.op->name);
}

template <class T, bool Log>
void softmax_bp_kernel(OpContext& c) {
  const Tensor &y = *c.in[0], &dy = *c.in[1];
  Tensor& dx = *c.out[0];
  const Rows<3> R = sl::make_rows<3>({&dx, &y, &dy}, sl::row_axis(c.attrs.get_int(0), y.rank()));
  if (R.count == 0 || R.n == 0) return;
  const red::GroupLaunch gl = sl::row_launch(R.count, R.n);
  softmax_bp_rows<T, Log><<<gl.L.grid, gl.L.block, 0, stream(c)>>>(red::data<T>(dx), red::data<T>(y),
                                                                    red::data<T>(dy), R, gl.G);
  check_launch(c.op->name);
}

// ---- class losses ------------------------------------------------------------------------------------
// An [N, C] matrix by row and column strides.
template <class T>
struct Mat {
  T* p;
  int64_t s0, s1;
  __device__ T& operator()(int64_t n, int64_t j) const { return p[n * s0 + j * s1]; }
};
template <class T>
Mat<T> mat_of(const Tensor& t) {
  return {red::data<T>(t), t.strides.d[0], t.strides.d[1]};
}

// Where per-row losses go: the [N] output (reduction none) or an f64 buffer summed afterwards.
template <class T>
struct LossSink {
  T* out;
  int64_t stride;
  double* buf;
  __device__ void put(int64_t n, double v) const {
    if (buf)
      buf[n] = v;
    else
      out[n * stride] = convert<T>(v);
  }
};

// The gradient scale of row n: dy scaled for the reduction. den (the class-index losses' mean): the
// denominator on the device, scale 1 / *den (0 when it is 0); else `scale`.
template <class T>
struct RowGrad {
  const T* dy;
  int64_t stride;
  double scale;
  const double* den;
  __device__ double operator()(int64_t n) const {
    double k = scale;
    if (den) {
      const double d = *den;
      k = d == 0 ? 0.0 : 1.0 / d;
    }
    return convert<double>(dy[n * stride]) * k;
  }
};
// The soft-target losses: the mean divides by N.
template <class T>
RowGrad<T> row_grad(const OpContext& c, const Tensor& dy, int64_t N) {
  const int64_t red = c.attrs.get_int(0);
  return {red::data<T>(dy), red == sl::kNone ? dy.strides.d[0] : 0, red == sl::kMean ? 1.0 / double(N) : 1.0, nullptr};
}

// Class weights and ignore_index of the class-index losses (attribute 1; weights: input wi if given).
template <class T>
struct ClassW {
  const T* w;  // [C], or null: every weight 1
  int64_t stride;
  int64_t ignore;
  __device__ double operator()(int64_t lb) const { return w ? convert<double>(w[lb * stride]) : 1.0; }
};
template <class T>
ClassW<T> class_w(const OpContext& c, int wi) {
  ClassW<T> w{nullptr, 0, c.attrs.get_int(1)};
  if (c.n_in > wi) {
    w.w = red::data<const T>(*c.in[wi]);
    w.stride = c.in[wi]->strides.d[0];
  }
  return w;
}

// A row's share of the mean's denominator: w[label], 0 when ignored; 0 also for an out-of-range
// label (its NaN loss makes the mean NaN already; its NaN gradient row stays its own).
template <class T>
struct RowWeightAt {
  sl::Labels lab;
  ClassW<T> cw;
  int64_t ncls;
  __device__ double operator()(int64_t n) const {
    const int64_t lb = lab(n);
    return lb == cw.ignore || lb < 0 || lb >= ncls ? 0.0 : cw(lb);
  }
};

// *den = the class-index mean's denominator (device memory), summed deterministically.
template <class T>
void denominator(const OpContext& c, int64_t N, const RowWeightAt<T>& wt, double* den) {
  sl::reduce_loss<double>(c, N, 1.0, false, wt, den);
}

// The class-index losses' reduced output: *sum, or *sum / *den for the mean (0 when *den is 0).
template <class T>
__global__ void finish_class_loss(const double* sum, const double* den, T* out) {
  double v = *sum;
  if (den) {
    const double d = *den;
    v = d == 0 ? 0.0 : v / d;
  }
  *out = convert<T>(v);
}

enum class Kind { Index, IndexBp, Soft, SoftBp };

// One kernel for the four fused softmax cross-entropy variants: they share the row statistics.
// t: targets (soft kinds, f32/f64 only); dx: the gradient (Bp kinds); cw: the index kinds' weights.
template <class T, Kind K>
__global__ void __launch_bounds__(sl::kMaxRowBlock) cross_entropy_rows(Mat<const T> x, Mat<const T> t, Mat<T> dx, int64_t N, int64_t ncls, sl::Labels lab,
                                   ClassW<T> cw, LossSink<T> sink, RowGrad<T> grad, int G) {
  using C = compute_t<T>;
  __shared__ red::GroupSmem<C> smc;
  __shared__ red::GroupSmem<double> smd;
  const int per_block = int(blockDim.x) / G, lane = int(threadIdx.x) % G;
  for (int64_t r0 = int64_t(blockIdx.x) * per_block; r0 < N; r0 += int64_t(gridDim.x) * per_block) {
    const int64_t row = r0 + int(threadIdx.x) / G;
    const bool active = row < N;
    auto load = [&](int64_t j) { return convert<C>(x(row, j)); };
    C m;
    double s;
    sl::row_stats(active, ncls, lane, G, load, m, s, smc, smd);
    if constexpr (K == Kind::Soft || K == Kind::SoftBp) {
      // Soft: sum t (x - m - log s); SoftBp: sum t. (T is C here.)
      const double ls = log(s);
      double acc = 0;
      if (active)
        for (int64_t j = lane; j < ncls; j += G) {
          const double tv = double(t(row, j));
          acc += K == Kind::Soft ? tv * (double(T(x(row, j) - m)) - ls) : tv;
        }
      acc = sl::group_sum(acc, G, smd);
      if (!active) continue;
      if constexpr (K == Kind::Soft) {
        if (lane == 0) sink.put(row, -acc);
      } else {
        const double gm = grad(row);
        const T k = T(gm * acc / s), gt = T(gm);
        for (int64_t j = lane; j < ncls; j += G) dx(row, j) = T(red::dexp(T(x(row, j) - m))) * k - t(row, j) * gt;
      }
    } else {
      if (!active) continue;
      const int64_t lb = lab(row);
      if (lb == cw.ignore) {  // loss 0, gradient 0
        if constexpr (K == Kind::Index) {
          if (lane == 0) sink.put(row, 0.0);
        } else {
          for (int64_t j = lane; j < ncls; j += G) dx(row, j) = convert<T>(C(0));
        }
        continue;
      }
      const bool valid = lb >= 0 && lb < ncls;
      if constexpr (K == Kind::Index) {
        if (lane == 0)
          sink.put(row, valid ? cw(lb) * ((double(m) - double(load(lb))) + log(s)) : red::nan_of<double>());
      } else {
        const double gm = valid ? grad(row) * cw(lb) : 0.0;
        const C k = C(gm / s), gt = C(gm);
        for (int64_t j = lane; j < ncls; j += G) {
          C o = C(red::dexp(C(load(j) - m))) * k;
          if (j == lb) o -= gt;
          dx(row, j) = convert<T>(valid ? o : red::nan_of<C>());
        }
      }
    }
  }
}

template <class T>
__global__ void nll_rows(Mat<const T> x, int64_t N, int64_t ncls, sl::Labels lab, ClassW<T> cw, LossSink<T> sink) {
  for (int64_t n = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; n < N; n += int64_t(gridDim.x) * blockDim.x) {
    const int64_t lb = lab(n);
    sink.put(n, lb == cw.ignore                ? 0.0
                : lb >= 0 && lb < ncls          ? -(cw(lb) * convert<double>(x(n, lb)))
                                                : red::nan_of<double>());
  }
}

template <class T>
__global__ void nll_bp_elements(Mat<T> dx, int64_t N, int64_t ncls, sl::Labels lab, ClassW<T> cw, RowGrad<T> grad) {
  const int64_t total = N * ncls;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t n, j;
    red::divmod(i, ncls, n, j);
    const int64_t lb = lab(n);
    double v = 0;  // ignored rows: 0
    if (lb != cw.ignore) {
      if (lb < 0 || lb >= ncls)
        v = red::nan_of<double>();
      else if (j == lb)
        v = -(grad(n) * cw(lb));
    }
    dx(n, j) = convert<T>(v);
  }
}

struct BufferAt {
  const double* p;
  __device__ double operator()(int64_t i) const { return p[i]; }
};

// Soft targets: runs the per-row loss kernel `launch(sink)` and writes output 0 as the reduction
// says (the mean divides by N: NaN for N = 0).
template <class T, class Run>
void soft_loss(OpContext& c, int64_t N, Run launch) {
  Tensor& out = *c.out[0];
  const int64_t red = c.attrs.get_int(0);
  if (red == sl::kNone) {
    if (N > 0) launch(LossSink<T>{red::data<T>(out), out.strides.d[0], nullptr});
    return;
  }
  Scratch buf(c.device, size_t(std::max<int64_t>(N, 1)) * sizeof(double));
  if (N > 0) launch(LossSink<T>{nullptr, 0, buf.as<double>()});
  sl::reduce_loss<T>(c, N, double(N), red == sl::kMean, BufferAt{buf.as<double>()}, red::data<T>(out));
}

// Class indices: the same, the mean dividing by the summed weights of the rows not ignored.
template <class T, class Run>
void index_loss(OpContext& c, int64_t N, const RowWeightAt<T>& wt, Run launch) {
  Tensor& out = *c.out[0];
  const int64_t red = c.attrs.get_int(0);
  if (red == sl::kNone) {
    if (N > 0) launch(LossSink<T>{red::data<T>(out), out.strides.d[0], nullptr});
    return;
  }
  Scratch buf(c.device, size_t(std::max<int64_t>(N, 1)) * sizeof(double));
  Scratch sums(c.device, 2 * sizeof(double));  // the losses' sum, the mean's denominator
  double* sum = sums.as<double>();
  double* den = sum + 1;
  if (N > 0) launch(LossSink<T>{nullptr, 0, buf.as<double>()});
  sl::reduce_loss<double>(c, N, 1.0, false, BufferAt{buf.as<double>()}, sum);
  if (red == sl::kMean) denominator<T>(c, N, wt, den);
  finish_class_loss<T><<<1, 1, 0, stream(c)>>>(sum, red == sl::kMean ? den : nullptr, red::data<T>(out));
  check_launch(c.op->name);
}

template <class T, Kind K>
void cross_entropy_kernel(OpContext& c) {
  const Tensor& x = *c.in[0];
  const int64_t N = x.shape.d[0], ncls = x.shape.d[1];
  constexpr bool soft = K == Kind::Soft || K == Kind::SoftBp, bp = K == Kind::IndexBp || K == Kind::SoftBp;
  const Mat<const T> xm{red::data<const T>(x), x.strides.d[0], x.strides.d[1]};
  const Mat<const T> tm = soft ? Mat<const T>{red::data<const T>(*c.in[1]), c.in[1]->strides.d[0], c.in[1]->strides.d[1]}
                               : Mat<const T>{nullptr, 0, 0};
  const sl::Labels lab = soft ? sl::Labels{nullptr, 0, false} : sl::labels_of(*c.in[1]);
  const ClassW<T> cw = soft ? ClassW<T>{nullptr, 0, 0} : class_w<T>(c, bp ? 3 : 2);
  const red::GroupLaunch gl = sl::row_launch(N, ncls);
  auto launch = [&](LossSink<T> sink, Mat<T> dx, RowGrad<T> g) {
    cross_entropy_rows<T, K><<<gl.L.grid, gl.L.block, 0, stream(c)>>>(xm, tm, dx, N, ncls, lab, cw, sink, g, gl.G);
    check_launch(c.op->name);
  };
  const LossSink<T> no_sink{nullptr, 0, nullptr};
  if constexpr (bp) {
    if (N == 0) return;
    if constexpr (soft) {
      launch(no_sink, mat_of<T>(*c.out[0]), row_grad<T>(c, *c.in[2], N));
    } else {
      const bool mean = c.attrs.get_int(0) == sl::kMean;
      Scratch den(c.device, sizeof(double));
      if (mean) denominator<T>(c, N, RowWeightAt<T>{lab, cw, ncls}, den.as<double>());
      const Tensor& dy = *c.in[2];
      launch(no_sink, mat_of<T>(*c.out[0]),
             RowGrad<T>{red::data<T>(dy), mean ? 0 : (c.attrs.get_int(0) == sl::kNone ? dy.strides.d[0] : 0), 1.0,
                        mean ? den.as<double>() : nullptr});
    }
  } else {
    const RowGrad<T> no_grad{nullptr, 0, 0, nullptr};
    if constexpr (soft)
      soft_loss<T>(c, N, [&](LossSink<T> sink) { launch(sink, Mat<T>{nullptr, 0, 0}, no_grad); });
    else
      index_loss<T>(c, N, RowWeightAt<T>{lab, cw, ncls},
                    [&](LossSink<T> sink) { launch(sink, Mat<T>{nullptr, 0, 0}, no_grad); });
  }
}

template <class T>
void nll_kernel(OpContext& c) {
  const Tensor& x = *c.in[0];
  const int64_t N = x.shape.d[0], ncls = x.shape.d[1];
  const Mat<const T> xm{red::data<const T>(x), x.strides.d[0], x.strides.d[1]};
  const sl::Labels lab = sl::labels_of(*c.in[1]);
  const ClassW<T> cw = class_w<T>(c, 2);
  index_loss<T>(c, N, RowWeightAt<T>{lab, cw, ncls}, [&](LossSink<T> sink) {
    const Launch L = launch_for(N);
    nll_rows<T><<<L.grid, L.block, 0, stream(c)>>>(xm, N, ncls, lab, cw, sink);
    check_launch(c.op->name);
  });
}

template <class T>
void nll_bp_kernel(OpContext& c) {
  const Tensor& x = *c.in[0];
  const int64_t N = x.shape.d[0], ncls = x.shape.d[1];
  if (N * ncls == 0) return;
  const sl::Labels lab = sl::labels_of(*c.in[1]);
  const ClassW<T> cw = class_w<T>(c, 3);
  const bool mean = c.attrs.get_int(0) == sl::kMean;
  Scratch den(c.device, sizeof(double));
  if (mean) denominator<T>(c, N, RowWeightAt<T>{lab, cw, ncls}, den.as<double>());
  const Tensor& dy = *c.in[2];
  const RowGrad<T> g{red::data<T>(dy), c.attrs.get_int(0) == sl::kNone ? dy.strides.d[0] : 0, 1.0,
                     mean ? den.as<double>() : nullptr};
  const Launch L = launch_for(N * ncls);
  nll_bp_elements<T><<<L.grid, L.block, 0, stream(c)>>>(mat_of<T>(*c.out[0]), N, ncls, lab, cw, g);
  check_launch(c.op->name);
}

constexpr const char* kImpl = "cuda";

}  // namespace

void register_cuda_softmax_loss() {
  red::for_types<float, double, __half, __nv_bfloat16>([](auto tag) {
    using T = typename decltype(tag)::type;
    const ndrt_dtype d = red::dtype_of<T>();
    reg("softmax", {d}, softmax_kernel<T, false>, kImpl);
    reg("log_softmax", {d}, softmax_kernel<T, true>, kImpl);
    reg("softmax_bp", {d}, softmax_bp_kernel<T, false>, kImpl);
    reg("log_softmax_bp", {d}, softmax_bp_kernel<T, true>, kImpl);
  });
  red::for_types<float, double, __half, __nv_bfloat16>([](auto tag) {
    using T = typename decltype(tag)::type;
    const ndrt_dtype d = red::dtype_of<T>();
    reg("softmax_cross_entropy", {d}, cross_entropy_kernel<T, Kind::Index>, kImpl);
    reg("softmax_cross_entropy_bp", {d}, cross_entropy_kernel<T, Kind::IndexBp>, kImpl);
    reg("nll_loss", {d}, nll_kernel<T>, kImpl);
    reg("nll_loss_bp", {d}, nll_bp_kernel<T>, kImpl);
  });
  red::for_types<float, double>([](auto tag) {
    using T = typename decltype(tag)::type;
    const ndrt_dtype d = red::dtype_of<T>();
    reg("softmax_cross_entropy_soft", {d}, cross_entropy_kernel<T, Kind::Soft>, kImpl);
    reg("softmax_cross_entropy_soft_bp", {d}, cross_entropy_kernel<T, Kind::SoftBp>, kImpl);
  });
  register_cuda_softmax_loss_pointwise();
}

}  // namespace ndrt::cuda
