// Shared pieces of the cpu conv family: dense staging of strided operands and outputs, f16/bf16
// <-> f32 conversion, ndrt's own im2col + BLAS convolution (conv_gemm.cpp), the im2col/col2im
// loops (conv_im2col.cpp) and the oneDNN convolution front end (conv_dnnl.cpp).
#pragma once
#include <memory>
#include <mutex>

#include "loops.hpp"
#include "ops/conv_geom.hpp"

namespace ndrt {

// ---- staging (conv_util.cpp) ----

// t's values as a contiguous row-major tensor of the same dtype (t itself when it already is).
Tensor conv_dense(const Tensor& t);
// t's values (f16, bf16 or f32; any strides) as a contiguous f32 tensor.
Tensor conv_to_f32(const Tensor& t);
// Writes src (contiguous; same dtype as dst, or f32 for an f16/bf16 dst) into dst (any strides).
void conv_store(const Tensor& dst, const Tensor& src);

// Where a kernel writes its output: the caller's tensor when it is contiguous and of the compute
// dtype, else a contiguous buffer that finish() stores into the caller's view.
struct ConvOut {
  const Tensor* dst;
  Tensor buf;
  bool direct;
  ConvOut(const Tensor& d, ndrt_dtype compute)
      : dst(&d), direct(d.is_contiguous() && d.dtype == compute) {
    buf = direct ? d : alloc_tensor(compute, d.shape, d.device());
  }
  template <class T> T* data() const { return buf.data<T>(); }
  void finish() const {
    if (!direct) conv_store(*dst, buf);
  }
};

// A work buffer of n elements of T (at least 1) from ndrt's pool on g's device.
template <class T>
Tensor scratch(const Conv2dGeom& g, int64_t n) {
  Dims d{};
  d.rank = 1;
  d.d[0] = n > 1 ? n : 1;
  return alloc_tensor(dtype_of<T>(), d, g.device);
}

// Keeps a string for the life of the process (implementation names reported to the profiler).
const char* conv_intern(const char* s);

// ---- im2col / col2im (conv_im2col.cpp), T in float, double, Half, BFloat16 ----
//
// NCHW col element (r, b, p) sits at col[r*rs + b*bs + p] with r = (ci*kh + i)*kw + j over the
// channels [c0, c0 + cg) of the image and p = oh*OW + ow. NHWC col row (b*P + p) holds
// r = (i*kw + j)*cg + ci contiguously (row length kh*kw*cg). x/dx are dense in g's layout; col2im
// overwrites (never accumulates into) the channels it covers.
template <class T>
void im2col_nchw(const Conv2dGeom& g, const T* x, int64_t n0, int64_t nb, int64_t c0, int64_t cg, T* col,
                 int64_t rs, int64_t bs);
template <class T>
void col2im_nchw(const Conv2dGeom& g, const T* col, int64_t n0, int64_t nb, int64_t c0, int64_t cg, T* x,
                 int64_t rs, int64_t bs);
template <class T>
void im2col_nhwc(const Conv2dGeom& g, const T* x, int64_t n0, int64_t nb, int64_t c0, int64_t cg, T* col);
template <class T>
void col2im_nhwc(const Conv2dGeom& g, const T* col, int64_t n0, int64_t nb, int64_t c0, int64_t cg, T* x);

// ---- ndrt's own convolution: im2col + sgemm/dgemm over batch chunks (conv_gemm.cpp) ----
// All operands dense in g's layout (weights OIHW / OHWI); T in float, double.
template <class T> void own_conv_fwd(const Conv2dGeom& g, const T* x, const T* w, const T* bias, T* y);
template <class T> void own_conv_bp_data(const Conv2dGeom& g, const T* w, const T* dy, T* dx);
template <class T> void own_conv_bp_weights(const Conv2dGeom& g, const T* x, const T* dy, T* dw);

// ---- ndrt's direct convolution, forward, data and weight gradients (conv_direct.cpp): f32 NCHW,
// stride 1, no padding or dilation, one group, output width a multiple of 8, AVX-512 CPUs.
// own_conv_fwd / _bp_data / _bp_weights<float> take it where it applies. ----
bool direct_conv_applies(const Conv2dGeom& g);
void direct_conv_fwd(const Conv2dGeom& g, const float* x, const float* w, const float* bias, float* y);
void direct_conv_bp_weights(const Conv2dGeom& g, const float* x, const float* dy, float* dw);
void direct_conv_bp_data(const Conv2dGeom& g, const float* w, const float* dy, float* dx);
// The forward fused with 2x2 max pooling at stride 2 (conv2d_bias_max_pool2x2): where the direct
// kernel applies and the output height is even; y and win are [n, k, oh / 2, ow / 2].
bool direct_conv_pool_applies(const Conv2dGeom& g);
void direct_conv_pool_fwd(const Conv2dGeom& g, const float* x, const float* w, const float* bias, float* y,
                          uint8_t* win);

// ---- oneDNN (conv_dnnl.cpp) ----
enum class ConvPass { Fwd, BwdData, BwdWeights };

// ndrt's own kernel for one pass, operands in DnnlConv::run's order (a, b, bias, out).
template <class T>
void own_conv_pass(ConvPass p, const Conv2dGeom& g, const T* a, const T* b, const T* bias, T* out) {
  switch (p) {
    case ConvPass::Fwd: return own_conv_fwd<T>(g, a, b, bias, out);
    case ConvPass::BwdData: return own_conv_bp_data<T>(g, b, a, out);
    default: return own_conv_bp_weights<T>(g, a, b, out);
  }
}
struct DnnlConvPlan;
bool dnnl_built_in();

// One oneDNN convolution call. The constructor claims the cores (cpu.threads OpenMP threads, or 1
// while another host thread's oneDNN call holds them) and finds the plan for this pass, geometry
// and dtype (f32, bf16, f16) in a bounded, thread-safe cache; ok() is false when oneDNN is not
// built in or cannot run it (or, unless allow_ref, would only run its slow reference code), and
// also, for f32 without allow_ref, when ndrt's own kernel is faster. The first request of a
// configuration checks the candidate memory formats against ndrt's own kernel on test values,
// times those that agree (and the own kernel) and keeps the fastest.
class DnnlConv {
 public:
  DnnlConv(ConvPass pass, const Conv2dGeom& g, ndrt_dtype dt, bool bias, bool allow_ref);
  ~DnnlConv();
  DnnlConv(const DnnlConv&) = delete;
  DnnlConv& operator=(const DnnlConv&) = delete;
  bool ok() const { return plan_ != nullptr; }
  // Dense operands in g's layout. Fwd: a = x, b = w, out = y (bias [k] or null). BwdData: a = dy,
  // b = w, out = dx. BwdWeights: a = x, b = dy, out = dw. Returns the implementation name (static;
  // `converted` names an f32 run on data the caller converted from f16/bf16).
  const char* run(const void* a, const void* b, const void* bias, void* out, bool converted = false);

 private:
  std::unique_lock<std::mutex> lease_;
  ndrt_device device_ = NDRT_CPU;
  std::shared_ptr<const DnnlConvPlan> plan_;
};

// Max pooling's step: the max that lets a NaN through and keeps it (nothing compares greater than
// NaN). conv_pool.cpp and conv_pool_2x2.cpp must agree on it bit for bit.
template <class A>
inline A pool_pick(A acc, A v) {
  return (v > acc || v != v) ? v : acc;
}

}  // namespace ndrt
