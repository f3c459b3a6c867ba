// CUDA conv family, convolutions: conv2d, conv2d_bias, conv2d_bp_data, conv2d_bp_weights on cuDNN's
// legacy API (built only with cuDNN). conv2d_bp_bias, pooling, im2col and col2im: conv_pool.cu.
//
// - Layouts: NCHW tensors with OIHW weights, or NHWC with OHWI weights, go to cuDNN as they are
//   (CUDNN_TENSOR_NCHW / NHWC, the filter format follows); views that are not dense are packed.
// - Padding: cuDNN pads symmetrically. Asymmetric padding (TF "same" with an odd total, or an
//   explicit [top, bottom, left, right]) that symmetric padding cannot reproduce -- it can when the
//   window positions come out the same -- is materialized: x is copied into a zero-bordered
//   buffer and cuDNN pads nothing; the data gradient is computed on that buffer and cropped.
// - f64 in NHWC: cuDNN has no f64 channels-last algorithm for every pass (the data gradient fails),
//   so f64 NHWC tensors are copied into NCHW scratch (weights OHWI into OIHW), cuDNN runs NCHW and
//   the result is copied back into the NHWC output. f32/f16/bf16 NHWC go to cuDNN as they are.
// - Algorithms: cuDNN's heuristics (cudnnGet*Algorithm_v7), deterministic ones first, each tried
//   until one runs, and remembered per configuration (AlgoCache: a heuristics query costs more
//   than a small convolution, so only a configuration's first call asks); workspace from
//   stream-ordered scratch. f32 runs with CUDNN_FMA_MATH (TF32
//   tensor cores would round the operands to 10 bits, far from the cpu's f32), f16/bf16 on tensor
//   cores with f32 accumulation, f64 in f64.
// - conv2d_bias writes the bias into the output first and has cuDNN accumulate onto it (beta = 1).
//   Whether cuDNN blends before rounding f16/bf16 outputs is not documented; at worst the result
//   carries one more rounding than the cpu's fused f32 epilogue.
// - The `engine` attribute selects among cpu implementations; cuDNN serves every value here.
#include <algorithm>
#include <array>
#include <climits>
#include <map>
#include <mutex>

#include "conv_window.cuh"
#include "cuda_common.cuh"

namespace ndrt::cuda {

namespace {

using dense::base_of;
using dense::first_index;
using dense::grid_step;
using win::Image;

constexpr size_t kMaxWorkspace = size_t(1) << 31;  // algorithms wanting more are skipped

cudnnDataType_t dnn_type(ndrt_dtype d) {
  switch (d) {
    case NDRT_F64: return CUDNN_DATA_DOUBLE;
    case NDRT_F16: return CUDNN_DATA_HALF;
    case NDRT_BF16: return CUDNN_DATA_BFLOAT16;
    default: return CUDNN_DATA_FLOAT;
  }
}

// ---- own kernels --------------------------------------------------------------------------------

// dst(n, c, h, w) = src(n, c, h + dh, w + dw), 0 outside src; dst visited in its layout's order.
template <class B>
__global__ void shifted_copy(Image dst, Image src, int64_t dh, int64_t dw, bool nhwc, int64_t total) {
  for (int64_t i = first_index(); i < total; i += grid_step()) {
    int64_t n, c, h, w;
    dst.coords(i, nhwc, n, c, h, w);
    const int64_t sh = h + dh, sw = w + dw;
    const bool inside = sh >= 0 && sh < src.h && sw >= 0 && sw < src.w;
    dst.at<B>(n, c, h, w) = inside ? src.at<B>(n, c, sh, sw) : B(0);
  }
}

void launch_shifted_copy(const OpContext& c, const Image& dst, const Image& src, int64_t dh, int64_t dw, bool nhwc,
                         int64_t item) {
  const int64_t total = dst.n * dst.c * dst.h * dst.w;
  if (total == 0) return;
  const Launch l = launch_for(total);
  dense::by_size(item, [&](auto b) {
    shifted_copy<decltype(b)><<<l.grid, l.block, 0, stream(c)>>>(dst, src, dh, dw, nhwc, total);
  });
  check_launch(c.op->name);
}

// y = bias[channel] (0 without a bias) over y's n elements (row-major over its shape; the channel
// is the last axis in NHWC, axis 1 in NCHW with P positions per plane).
template <class T>
__global__ void fill_channels(View y, int64_t n, int64_t K, int64_t P, bool nhwc, const T* bias, int64_t bs) {
  for (int64_t i = first_index(); i < n; i += grid_step()) {
    const int64_t ch = nhwc ? i % K : (i / P) % K;
    y.at<T>(i) = bias ? bias[ch * bs] : convert<T>(0.0f);
  }
}

void launch_fill_channels(const OpContext& c, const View& y, const Conv2dGeom& g, const Tensor* bias) {
  const int64_t n = g.n * g.k * g.oh * g.ow;
  if (n == 0) return;
  const Launch l = launch_for(n);
  visit<NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16>(c.out[0]->dtype, c.op->name, [&](auto t) {
    using T = decltype(t);
    const T* b = bias ? reinterpret_cast<const T*>(base_of(*bias)) : nullptr;
    const int64_t bs = bias ? bias->strides.d[0] : 0;
    fill_channels<T><<<l.grid, l.block, 0, stream(c)>>>(y, n, g.k, g.oh * g.ow, g.nhwc, b, bs);
  });
  check_launch(c.op->name);
}

// ---- cuDNN plumbing -----------------------------------------------------------------------------

struct TensorDesc {
  cudnnTensorDescriptor_t d = nullptr;
  TensorDesc() { check(cudnnCreateTensorDescriptor(&d), "cudnnCreateTensorDescriptor"); }
  ~TensorDesc() { cudnnDestroyTensorDescriptor(d); }
  TensorDesc(const TensorDesc&) = delete;
  TensorDesc& operator=(const TensorDesc&) = delete;
};
struct FilterDesc {
  cudnnFilterDescriptor_t d = nullptr;
  FilterDesc() { check(cudnnCreateFilterDescriptor(&d), "cudnnCreateFilterDescriptor"); }
  ~FilterDesc() { cudnnDestroyFilterDescriptor(d); }
  FilterDesc(const FilterDesc&) = delete;
  FilterDesc& operator=(const FilterDesc&) = delete;
};
struct ConvDesc {
  cudnnConvolutionDescriptor_t d = nullptr;
  ConvDesc() { check(cudnnCreateConvolutionDescriptor(&d), "cudnnCreateConvolutionDescriptor"); }
  ~ConvDesc() { cudnnDestroyConvolutionDescriptor(d); }
  ConvDesc(const ConvDesc&) = delete;
  ConvDesc& operator=(const ConvDesc&) = delete;
};

// Window positions of one axis with symmetric padding `lo` equal those of (lo, hi)?
bool symmetric_ok(int64_t in, int64_t lo, int64_t k, int64_t s, int64_t d, int64_t out) {
  const int64_t ext = (k - 1) * d + 1;
  return in + 2 * lo >= ext && (in + 2 * lo - ext) / s + 1 == out;
}

// How cuDNN sees one call.
struct Plan {
  Conv2dGeom g;              // the call's geometry; g.nhwc is the layout of its tensors
  bool dnn_nhwc = false;     // the layout cuDNN sees
  bool padded_copy = false;  // x is materialized with its padding; cuDNN pads nothing
  int64_t hp = 0, wp = 0;    // image extents cuDNN sees
  int64_t pad_h = 0, pad_w = 0;
  bool transposed() const { return dnn_nhwc != g.nhwc; }  // NHWC tensors staged through NCHW scratch
};

Plan plan_of(const Conv2dGeom& g, ndrt_dtype dt) {
  Plan p;
  p.g = g;
  p.dnn_nhwc = g.nhwc && dt != NDRT_F64;
  if (symmetric_ok(g.h, g.pt, g.kh, g.sh, g.dh, g.oh) && symmetric_ok(g.w, g.pl, g.kw, g.sw, g.dw, g.ow)) {
    p.hp = g.h, p.wp = g.w, p.pad_h = g.pt, p.pad_w = g.pl;
  } else {
    p.padded_copy = true;
    p.hp = g.h + g.pt + g.pb, p.wp = g.w + g.pl + g.pr;
  }
  return p;
}

int as_int(const OpContext& c, int64_t v) {
  if (v > INT_MAX)
    fail(NDRT_ERR_NOT_SUPPORTED, "%s: extent %lld is beyond cuDNN's int range", c.op->name, (long long)v);
  return int(v);
}

// Descriptors of x (as cuDNN sees it), w, y and the convolution.
struct Descs {
  TensorDesc x, y;
  FilterDesc w;
  ConvDesc conv;
  Descs(const OpContext& c, const Plan& p, ndrt_dtype dt) {
    const Conv2dGeom& g = p.g;
    const cudnnTensorFormat_t fmt = p.dnn_nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
    const cudnnDataType_t t = dnn_type(dt);
    check(cudnnSetTensor4dDescriptor(x.d, fmt, t, as_int(c, g.n), as_int(c, g.c), as_int(c, p.hp), as_int(c, p.wp)),
          "cudnnSetTensor4dDescriptor(x)");
    check(cudnnSetTensor4dDescriptor(y.d, fmt, t, as_int(c, g.n), as_int(c, g.k), as_int(c, g.oh), as_int(c, g.ow)),
          "cudnnSetTensor4dDescriptor(y)");
    check(cudnnSetFilter4dDescriptor(w.d, t, fmt, as_int(c, g.k), as_int(c, g.c / g.groups), as_int(c, g.kh),
                                     as_int(c, g.kw)),
          "cudnnSetFilter4dDescriptor");
    check(cudnnSetConvolution2dDescriptor(conv.d, as_int(c, p.pad_h), as_int(c, p.pad_w), as_int(c, g.sh),
                                          as_int(c, g.sw), as_int(c, g.dh), as_int(c, g.dw), CUDNN_CROSS_CORRELATION,
                                          dt == NDRT_F64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT),
          "cudnnSetConvolution2dDescriptor");
    check(cudnnSetConvolutionGroupCount(conv.d, as_int(c, g.groups)), "cudnnSetConvolutionGroupCount");
  }
};

// The alpha = 1 / beta = 0 scaling parameters in the type cuDNN wants (double for f64).
struct Scalars {
  float f[2] = {1.f, 0.f};
  double d[2] = {1.0, 0.0};
  bool f64;
  explicit Scalars(ndrt_dtype dt) : f64(dt == NDRT_F64) {}
  const void* one() const { return f64 ? static_cast<const void*>(&d[0]) : &f[0]; }
  const void* zero() const { return f64 ? static_cast<const void*>(&d[1]) : &f[1]; }
};

bool retryable(cudnnStatus_t s) {
  const int cat = CUDNN_STATUS_CATEGORY(int(s));
  return cat == CUDNN_STATUS_NOT_SUPPORTED || cat == CUDNN_STATUS_BAD_PARAM;
}

// The algorithm (and math type) that ran for each configuration: pass, device, dtype and
// everything the descriptors hold.
enum class Pass { forward, data, filter };
struct AlgoKey {
  std::array<int64_t, 18> v;
  bool operator<(const AlgoKey& o) const { return v < o.v; }
};
struct AlgoChoice {
  int algo;
  cudnnMathType_t math;
};
std::mutex g_algo_mu;
std::map<AlgoKey, AlgoChoice> g_algos;

AlgoKey key_of(Pass pass, const OpContext& c, const Plan& p, ndrt_dtype dt) {
  const Conv2dGeom& g = p.g;
  return {{int64_t(pass), int64_t(c.device), int64_t(dt), g.n, g.c, p.hp, p.wp, g.k,
           g.kh, g.kw, p.pad_h, p.pad_w, g.sh, g.sw, g.dh, g.dw, g.groups, int64_t(p.dnn_nhwc)}};
}

// Runs the algorithm remembered for `key`, else the first of cuDNN's heuristic list that works --
// deterministic ones first, no TF32 for f32 -- and last `fallback` (an algorithm every
// configuration has), and remembers it. query(perf, n, &found), workspace(algo, &bytes),
// run(algo, ws, bytes) wrap the pass's cuDNN calls.
template <class Perf, class Query, class Workspace, class Run>
void run_algorithms(const OpContext& c, const AlgoKey& key, cudnnConvolutionDescriptor_t conv, ndrt_dtype dt,
                    decltype(Perf::algo) fallback, Query query, Workspace workspace, Run run) {
  using Algo = decltype(Perf::algo);
  const bool half = dt == NDRT_F16 || dt == NDRT_BF16;
  const cudnnMathType_t base = dt == NDRT_F32 ? CUDNN_FMA_MATH : half ? CUDNN_TENSOR_OP_MATH : CUDNN_DEFAULT_MATH;
  // One attempt: true when it ran; false when cuDNN cannot run this algorithm here.
  auto attempt = [&](decltype(Perf::algo) algo, cudnnMathType_t math) {
    if (cudnnSetConvolutionMathType(conv, math) != CUDNN_STATUS_SUCCESS) return false;
    size_t bytes = 0;
    if (workspace(algo, &bytes) != CUDNN_STATUS_SUCCESS || bytes > kMaxWorkspace) return false;
    std::optional<Scratch> ws;
    if (bytes > 0) ws.emplace(c.device, bytes);
    const cudnnStatus_t s = run(algo, ws ? ws->ptr : nullptr, bytes);
    if (s != CUDNN_STATUS_SUCCESS && !retryable(s)) check(s, c.op->name);
    if (s != CUDNN_STATUS_SUCCESS) return false;
    std::lock_guard<std::mutex> lock(g_algo_mu);
    g_algos[key] = {int(algo), math};
    return true;
  };
  {
    std::unique_lock<std::mutex> lock(g_algo_mu);
    const auto it = g_algos.find(key);
    if (it != g_algos.end()) {
      const AlgoChoice known = it->second;
      lock.unlock();
      if (attempt(Algo(known.algo), known.math)) return;
    }
  }
  check(cudnnSetConvolutionMathType(conv, base), "cudnnSetConvolutionMathType");
  Perf perf[16];  // room for every algorithm, some listed once per math type
  int found = 0;
  check(query(perf, 16, &found), c.op->name);
  for (int pass = 0; pass < 2; ++pass)
    for (int i = 0; i < found; ++i) {
      const Perf& q = perf[i];
      if (q.status != CUDNN_STATUS_SUCCESS || (q.determinism == CUDNN_DETERMINISTIC) != (pass == 0)) continue;
      const bool tensor_op = q.mathType == CUDNN_TENSOR_OP_MATH || q.mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
      if (dt == NDRT_F32 && tensor_op) continue;
      if (attempt(q.algo, half ? q.mathType : base)) return;
    }
  if (attempt(fallback, base)) return;
  fail(NDRT_ERR_NOT_SUPPORTED, "%s: cuDNN offers no algorithm for this %s convolution", c.op->name, type_name(dt));
}

// Scratch holding an image packed in a layout (weights: n = out channels, c = in channels / groups).
struct Packed {
  Scratch mem;
  Image img;
  Packed(const OpContext& c, bool nhwc, int64_t n, int64_t ch, int64_t h, int64_t w, ndrt_dtype dt)
      : mem(c.device, size_t(std::max<int64_t>(n * ch * h * w, 1) * item_size(dt))),
        img(win::packed_image(mem.ptr, nhwc, n, ch, h, w)) {}
};

// x as cuDNN reads it: packed in cuDNN's layout, with the padding materialized for a padded plan.
struct ImageIn {
  std::optional<Packed> own;
  const void* p = nullptr;
  ImageIn(const OpContext& c, const Tensor& x, const Plan& plan) {
    const Conv2dGeom& g = plan.g;
    if (!plan.padded_copy && !plan.transposed() && is_contiguous(x)) {
      p = base_of(x);
      return;
    }
    own.emplace(c, plan.dnn_nhwc, g.n, g.c, plan.hp, plan.wp, x.dtype);
    const int64_t dh = plan.padded_copy ? -g.pt : 0, dw = plan.padded_copy ? -g.pl : 0;
    launch_shifted_copy(c, own->img, win::image_of(x, g.nhwc), dh, dw, plan.dnn_nhwc, item_size(x.dtype));
    p = own->mem.ptr;
  }
};

// w (OIHW / OHWI) or dy ([n, k, oh, ow] in the call's layout) as cuDNN reads it: packed, and in
// NCHW / OIHW for a transposed plan.
struct OperandIn {
  std::optional<dense::In> direct;
  std::optional<Packed> own;
  const void* p = nullptr;
  OperandIn(const OpContext& c, const Tensor& t, const Plan& plan) {
    if (!plan.transposed()) {
      direct.emplace(c, t);
      p = direct->p;
      return;
    }
    const Image src = win::image_of(t, true);
    own.emplace(c, false, src.n, src.c, src.h, src.w, t.dtype);
    launch_shifted_copy(c, own->img, src, 0, 0, false, item_size(t.dtype));
    p = own->mem.ptr;
  }
};

// y or dw as cuDNN writes it: dense::Out, or for a transposed plan NCHW / OIHW scratch that
// finish() copies into the NHWC / OHWI tensor.
struct OperandOut {
  const OpContext& c;
  const Tensor& t;
  std::optional<dense::Out> direct;
  std::optional<Packed> own;
  void* p = nullptr;
  OperandOut(const OpContext& ctx, const Tensor& out, const Plan& plan) : c(ctx), t(out) {
    if (!plan.transposed()) {
      direct.emplace(c, t);
      p = direct->p;
      return;
    }
    const Image dst = win::image_of(t, true);
    own.emplace(c, false, dst.n, dst.c, dst.h, dst.w, t.dtype);
    p = own->mem.ptr;
  }
  void finish() {
    if (direct) return direct->finish();
    launch_shifted_copy(c, win::image_of(t, true), own->img, 0, 0, true, item_size(t.dtype));
  }
};

// ---- the passes ---------------------------------------------------------------------------------

void conv_forward(OpContext& c) {
  const Conv2dGeom g = win::conv(c);
  const Tensor &x = *c.in[0], &w = *c.in[1], &y = *c.out[0];
  const Tensor* bias = c.n_in == 3 ? c.in[2] : nullptr;
  c.impl = "cudnn";
  if (y.numel() == 0) return;
  if (g.c == 0) return launch_fill_channels(c, dense::strided_view(y), g, bias);  // nothing to sum
  const Plan plan = plan_of(g, y.dtype);
  Descs d(c, plan, y.dtype);
  const ImageIn X(c, x, plan);
  const OperandIn W(c, w, plan);
  OperandOut Y(c, y, plan);
  const Scalars s(y.dtype);
  // The bias goes in first and cuDNN blends the product onto it (beta = 1): one pass, and the sum
  // is formed in cuDNN's compute type before the output is rounded.
  Conv2dGeom dnn_g = g;
  dnn_g.nhwc = plan.dnn_nhwc;
  if (bias) launch_fill_channels(c, dense::packed_view(Y.p, y.shape), dnn_g, bias);
  const void* beta = bias ? s.one() : s.zero();
  cudnnHandle_t h = cudnn(c.device);
  run_algorithms<cudnnConvolutionFwdAlgoPerf_t>(
      c, key_of(Pass::forward, c, plan, y.dtype), d.conv.d, y.dtype, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM,
      [&](cudnnConvolutionFwdAlgoPerf_t* perf, int n, int* found) {
        return cudnnGetConvolutionForwardAlgorithm_v7(h, d.x.d, d.w.d, d.conv.d, d.y.d, n, found, perf);
      },
      [&](cudnnConvolutionFwdAlgo_t a, size_t* bytes) {
        return cudnnGetConvolutionForwardWorkspaceSize(h, d.x.d, d.w.d, d.conv.d, d.y.d, a, bytes);
      },
      [&](cudnnConvolutionFwdAlgo_t a, void* ws, size_t bytes) {
        return cudnnConvolutionForward(h, s.one(), d.x.d, X.p, d.w.d, W.p, d.conv.d, a, ws, bytes, beta, d.y.d, Y.p);
      });
  Y.finish();
}

void conv_bp_data(OpContext& c) {
  const Conv2dGeom g = win::conv(c);
  const Tensor &w = *c.in[1], &dy = *c.in[2], &dx = *c.out[0];
  c.impl = "cudnn";
  if (dx.numel() == 0) return;
  if (g.k == 0 || g.oh * g.ow == 0) return dense::zero(c, dx);  // nothing reaches dx
  const Plan plan = plan_of(g, dx.dtype);
  Descs d(c, plan, dx.dtype);
  const OperandIn W(c, w, plan), DY(c, dy, plan);
  // The gradient lands in dx directly, or in a buffer in cuDNN's layout (padded: dx is its interior).
  const bool staged = plan.padded_copy || plan.transposed();
  std::optional<dense::Out> DX;
  std::optional<Packed> padded;
  void* target;
  if (staged) {
    padded.emplace(c, plan.dnn_nhwc, g.n, g.c, plan.hp, plan.wp, dx.dtype);
    target = padded->mem.ptr;
  } else {
    DX.emplace(c, dx);
    target = DX->p;
  }
  const Scalars s(dx.dtype);
  cudnnHandle_t h = cudnn(c.device);
  run_algorithms<cudnnConvolutionBwdDataAlgoPerf_t>(
      c, key_of(Pass::data, c, plan, dx.dtype), d.conv.d, dx.dtype, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1,
      [&](cudnnConvolutionBwdDataAlgoPerf_t* perf, int n, int* found) {
        return cudnnGetConvolutionBackwardDataAlgorithm_v7(h, d.w.d, d.y.d, d.conv.d, d.x.d, n, found, perf);
      },
      [&](cudnnConvolutionBwdDataAlgo_t a, size_t* bytes) {
        return cudnnGetConvolutionBackwardDataWorkspaceSize(h, d.w.d, d.y.d, d.conv.d, d.x.d, a, bytes);
      },
      [&](cudnnConvolutionBwdDataAlgo_t a, void* ws, size_t bytes) {
        return cudnnConvolutionBackwardData(h, s.one(), d.w.d, W.p, d.y.d, DY.p, d.conv.d, a, ws, bytes, s.zero(),
                                            d.x.d, target);
      });
  if (staged) {
    const int64_t dh = plan.padded_copy ? g.pt : 0, dw = plan.padded_copy ? g.pl : 0;
    launch_shifted_copy(c, win::image_of(dx, g.nhwc), padded->img, dh, dw, g.nhwc, item_size(dx.dtype));
  } else {
    DX->finish();
  }
}

void conv_bp_weights(OpContext& c) {
  const Conv2dGeom g = win::conv(c);
  const Tensor &x = *c.in[0], &dy = *c.in[2], &dw = *c.out[0];
  c.impl = "cudnn";
  if (dw.numel() == 0) return;
  if (g.n == 0 || g.oh * g.ow == 0) return dense::zero(c, dw);  // no window position
  const Plan plan = plan_of(g, dw.dtype);
  Descs d(c, plan, dw.dtype);
  const ImageIn X(c, x, plan);
  const OperandIn DY(c, dy, plan);
  OperandOut DW(c, dw, plan);
  const Scalars s(dw.dtype);
  cudnnHandle_t h = cudnn(c.device);
  run_algorithms<cudnnConvolutionBwdFilterAlgoPerf_t>(
      c, key_of(Pass::filter, c, plan, dw.dtype), d.conv.d, dw.dtype, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1,
      [&](cudnnConvolutionBwdFilterAlgoPerf_t* perf, int n, int* found) {
        return cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, d.x.d, d.y.d, d.conv.d, d.w.d, n, found, perf);
      },
      [&](cudnnConvolutionBwdFilterAlgo_t a, size_t* bytes) {
        return cudnnGetConvolutionBackwardFilterWorkspaceSize(h, d.x.d, d.y.d, d.conv.d, d.w.d, a, bytes);
      },
      [&](cudnnConvolutionBwdFilterAlgo_t a, void* ws, size_t bytes) {
        return cudnnConvolutionBackwardFilter(h, s.one(), d.x.d, X.p, d.y.d, DY.p, d.conv.d, a, ws, bytes, s.zero(),
                                              d.w.d, DW.p);
      });
  DW.finish();
}

}  // namespace

void register_cuda_conv() {
  const std::initializer_list<ndrt_dtype> floats = {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16};
  reg("conv2d", floats, conv_forward, "cudnn");
  reg("conv2d_bias", floats, conv_forward, "cudnn");
  reg("conv2d_bp_data", floats, conv_bp_data, "cudnn");
  reg("conv2d_bp_weights", floats, conv_bp_weights, "cudnn");
}

}  // namespace ndrt::cuda
