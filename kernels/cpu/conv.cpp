// cpu kernels: conv2d forward/backward (choice of implementation here), conv2d_bp_bias,
// im2col/col2im; pooling registers from conv_pool.cpp.
//
// Which implementation runs a conv2d pass (attribute `engine`, the profiler names the choice):
//   f32:      the fastest of oneDNN's format candidates and ndrt's own kernel (im2col + sgemm,
//             conv_gemm.cpp; on NCHW images the direct kernels where they apply,
//             conv_direct.cpp),
//             timed on the first call of a configuration (conv_dnnl.cpp); oneDNN's reference
//             kernels never compete.
//   bf16/f16: oneDNN in the dtype itself where this CPU supports it, else converted to f32 and run
//             as f32 (the impl name says "via f32"); results round once to the dtype.
//   f64:      ndrt's im2col + dgemm (oneDNN has no f64).
// Operands that are not dense in the layout are copied first; strided outputs are staged.
#include <cstring>
#include <type_traits>
#include <vector>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "conv_util.hpp"
#include "convert.hpp"
#include "kernels.hpp"

namespace ndrt {

void register_cpu_conv_pool(Registry& r);        // conv_pool.cpp
void register_cpu_conv_pool_fused(Registry& r);  // conv_pool_fused.cpp
void register_cpu_conv_pool_bp(Registry& r);     // conv_pool_bp.cpp

namespace {

// The operands of one pass: a, b (and bias) in DnnlConv::run's order, out the op's output.
struct PassArgs {
  const Tensor *a, *b, *bias;
  const Tensor* out;
};

PassArgs pass_args(const OpContext& c, ConvPass p) {
  switch (p) {
    case ConvPass::Fwd: return {c.in[0], c.in[1], c.n_in == 3 ? c.in[2] : nullptr, c.out[0]};
    case ConvPass::BwdData: return {c.in[2], c.in[1], nullptr, c.out[0]};
    default: return {c.in[0], c.in[2], nullptr, c.out[0]};
  }
}

template <class T>
const T* ptr(const Tensor& t) {
  return t.data<T>();
}

// ndrt's own kernels in compute type T (float or double) on dense operands.
template <class T>
void own_pass(ConvPass p, const Conv2dGeom& g, const Tensor& a, const Tensor& b, const Tensor* bias, T* out) {
  own_conv_pass<T>(p, g, ptr<T>(a), ptr<T>(b), bias ? ptr<T>(*bias) : nullptr, out);
}

// The pass has nothing to sum over (no input channels, no output channels, or an empty batch):
// the output is the bias or zeros.
bool empty_reduction(ConvPass p, const Conv2dGeom& g) {
  switch (p) {
    case ConvPass::Fwd: return g.c == 0;
    case ConvPass::BwdData: return g.k == 0 || g.oh * g.ow == 0;
    default: return g.n == 0 || g.oh * g.ow == 0;
  }
}

template <class T>
void fill_bias_or_zero(const Conv2dGeom& g, const Tensor* bias, const Tensor& out) {
  ConvOut o(out, dtype_of<T>());
  T* y = o.data<T>();
  const int64_t total = out.numel();
  std::memset(static_cast<void*>(y), 0, size_t(total) * sizeof(T));
  if (bias) {
    Tensor b = conv_dense(*bias);
    const T* bp = b.data<T>();
    const int64_t P = g.oh * g.ow;
    for (int64_t i = 0; i < total; ++i) y[i] = bp[g.nhwc ? i % g.k : (i / P) % g.k];
  }
  o.finish();
}

// oneDNN in `dt` (T's dtype, or f32 on converted data). Returns false when it cannot run.
template <class T>
bool try_dnnl(OpContext& c, ConvPass p, const Conv2dGeom& g, const PassArgs& io, bool allow_ref) {
  const ndrt_dtype native = dtype_of<T>();
  {
    DnnlConv d(p, g, native, io.bias != nullptr, allow_ref);
    if (d.ok()) {
      Tensor a = conv_dense(*io.a), b = conv_dense(*io.b), bias = io.bias ? conv_dense(*io.bias) : Tensor();
      ConvOut o(*io.out, native);
      c.impl = d.run(a.base(), b.base(), io.bias ? bias.base() : nullptr, o.buf.base());
      o.finish();
      return true;
    }
  }
  if (native == NDRT_F32) return false;
  DnnlConv d(p, g, NDRT_F32, io.bias != nullptr, allow_ref);
  if (!d.ok()) return false;
  Tensor a = conv_to_f32(*io.a), b = conv_to_f32(*io.b), bias = io.bias ? conv_to_f32(*io.bias) : Tensor();
  ConvOut o(*io.out, NDRT_F32);
  c.impl = d.run(a.base(), b.base(), io.bias ? bias.base() : nullptr, o.buf.base(), true);
  o.finish();
  return true;
}

template <class T>
void run_own(OpContext& c, ConvPass p, const Conv2dGeom& g, const PassArgs& io) {
  // own_conv_*<float> take the direct kernel where it applies
  const bool direct = direct_conv_applies(g);
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    Tensor a = conv_dense(*io.a), b = conv_dense(*io.b), bias = io.bias ? conv_dense(*io.bias) : Tensor();
    ConvOut o(*io.out, dtype_of<T>());
    own_pass<T>(p, g, a, b, io.bias ? &bias : nullptr, o.data<T>());
    o.finish();
    c.impl = std::is_same_v<T, double> ? "ndrt:im2col+dgemm" : direct ? "ndrt:direct" : "ndrt:im2col+sgemm";
  } else {
    Tensor a = conv_to_f32(*io.a), b = conv_to_f32(*io.b), bias = io.bias ? conv_to_f32(*io.bias) : Tensor();
    ConvOut o(*io.out, NDRT_F32);
    own_pass<float>(p, g, a, b, io.bias ? &bias : nullptr, o.data<float>());
    o.finish();
    c.impl = direct ? "ndrt:direct[f16/bf16 via f32]" : "ndrt:im2col+sgemm[f16/bf16 via f32]";
  }
}

template <class T>
void conv_pass(OpContext& c, ConvPass p) {
  Conv2dGeom g = conv2d_geom(c);
  g.device = c.device;
  const PassArgs io = pass_args(c, p);
  if (io.out->numel() == 0) return;
  if (empty_reduction(p, g)) return fill_bias_or_zero<T>(g, io.bias, *io.out);
  if (g.engine != kEngineNdrt) {
    const bool forced = g.engine == kEngineOnednn;
    if constexpr (std::is_same_v<T, double>) {
      if (forced)
        fail(NDRT_ERR_NOT_SUPPORTED, "%s: oneDNN has no f64 convolution (engine=2); use engine 0 (auto) or 1 (ndrt)",
             c.op->name);
    } else {
      if (try_dnnl<T>(c, p, g, io, forced)) return;
      if (forced)
        fail(NDRT_ERR_NOT_SUPPORTED, "%s: engine=2 asks for oneDNN, but %s", c.op->name,
             dnnl_built_in() ? "oneDNN has no implementation for this configuration on this CPU"
                             : "this build of ndrt has no oneDNN");
    }
  }
  run_own<T>(c, p, g, io);
}

template <class T> void conv2d_kernel(OpContext& c) { conv_pass<T>(c, ConvPass::Fwd); }
template <class T> void conv2d_bp_data_kernel(OpContext& c) { conv_pass<T>(c, ConvPass::BwdData); }
template <class T> void conv2d_bp_weights_kernel(OpContext& c) { conv_pass<T>(c, ConvPass::BwdWeights); }

#if defined(__AVX2__)
// Sum over n and p of dy[n][k][p] (NCHW f32, P = plane) in f64: 32 floats per step into 8 vectors
// of 4 doubles, so the adds' latency does not set the pace (with 2 vectors the bias gradient read
// dy at a third of the cache's rate).
inline double sum_channel_f32(const float* dy, int64_t N, int64_t K, int64_t P, int64_t k) {
  __m256d acc[8];
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) acc[i] = _mm256_setzero_pd();
  double rest = 0;
  for (int64_t n = 0; n < N; ++n) {
    const float* row = dy + (n * K + k) * P;
    int64_t q = 0;
    for (; q + 32 <= P; q += 32)
#pragma GCC unroll 8
      for (int i = 0; i < 8; ++i) acc[i] = _mm256_add_pd(acc[i], _mm256_cvtps_pd(_mm_loadu_ps(row + q + 4 * i)));
    for (; q + 4 <= P; q += 4) acc[0] = _mm256_add_pd(acc[0], _mm256_cvtps_pd(_mm_loadu_ps(row + q)));
    for (; q < P; ++q) rest += double(row[q]);
  }
#pragma GCC unroll 4
  for (int i = 1; i < 8; i *= 2)
#pragma GCC unroll 4
    for (int j = 0; j < 8; j += 2 * i) acc[j] = _mm256_add_pd(acc[j], acc[j + i]);
  double lane[4];
  _mm256_storeu_pd(lane, acc[0]);
  return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + rest;
}
#endif

// db[k] = sum of dy over n, h, w; accumulates in f64 (f32 for f16/bf16 would do, f64 costs nothing here).
template <class T>
void conv2d_bp_bias_kernel(OpContext& c) {
  const bool nhwc = c.attrs.get_int(0) == kNHWC;
  const Tensor& db = *c.out[0];
  const int64_t K = db.numel();
  if (K == 0) return;
  Tensor dy = conv_dense(*c.in[0]);
  const int64_t N = dy.shape.d[0], P = nhwc ? dy.shape.d[1] * dy.shape.d[2] : dy.shape.d[2] * dy.shape.d[3];
  const T* src = dy.data<T>();
  ConvOut o(db, dtype_of<T>());
  T* out = o.data<T>();
  if (nhwc) {
    // Rows of K channels, read once: each block of kBlockRows rows sums into its own f64 vector
    // (vectorised over the channels), and the blocks are added in order, so the result does not
    // depend on the thread count. (Per channel, a strided pass over dy would read every cache line
    // K times.)
    constexpr int64_t kBlockRows = 512;
    const int64_t rows = N * P, blocks = (rows + kBlockRows - 1) / kBlockRows;
    std::vector<double> part(size_t(std::max<int64_t>(blocks, 1) * K), 0.0);
    parallel_for(blocks, 1, [&](int64_t b, int64_t e) {
      for (int64_t blk = b; blk < e; ++blk) {
        double* acc = part.data() + blk * K;
        for (int64_t r = blk * kBlockRows, r1 = std::min(rows, r + kBlockRows); r < r1; ++r) {
          const T* row = src + r * K;
          for (int64_t k = 0; k < K; ++k) acc[k] += double(compute_t<T>(row[k]));
        }
      }
    });
    for (int64_t k = 0; k < K; ++k) {
      double s = 0;
      for (int64_t blk = 0; blk < blocks; ++blk) s += part[size_t(blk * K + k)];
      out[k] = convert<T>(s);
    }
    o.finish();
    return;
  }
  parallel_for(K, std::max<int64_t>(1, 32768 / std::max<int64_t>(N * P, 1)), [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) {
#if defined(__AVX2__)
      if constexpr (std::is_same_v<T, float>) {
        out[k] = float(sum_channel_f32(src, N, K, P, k));
        continue;
      }
#endif
      double lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};  // independent sums: the adds pipeline
      // P == 0: dy holds no element and may have no data to offset (db is then zeros).
      for (int64_t n = 0; n < N && P > 0; ++n) {
        const T* row = src + (n * K + k) * P;
        int64_t q = 0;
        for (; q + 8 <= P; q += 8)
          for (int l = 0; l < 8; ++l) lane[l] += double(compute_t<T>(row[q + l]));
        for (; q < P; ++q) lane[0] += double(compute_t<T>(row[q]));
      }
      double s = 0;
      for (double v : lane) s += v;
      out[k] = convert<T>(s);
    }
  });
  o.finish();
}

// im2col: NCHW col [N, C, kh, kw, OH, OW]; NHWC col [N, OH, OW, kh, kw, C] (conv_geom.hpp).
template <class T>
void im2col_kernel(OpContext& c) {
  Conv2dGeom g = im2col_geom(c);
  const Tensor& col = *c.out[0];
  if (col.numel() == 0) return;
  Tensor x = conv_dense(*c.in[0]);
  ConvOut o(col, dtype_of<T>());
  const int64_t P = g.oh * g.ow, R = g.c * g.kh * g.kw;
  if (g.nhwc)
    im2col_nhwc<T>(g, x.data<T>(), 0, g.n, 0, g.c, o.data<T>());
  else
    im2col_nchw<T>(g, x.data<T>(), 0, g.n, 0, g.c, o.data<T>(), P, R * P);
  o.finish();
}

template <class T>
void col2im_kernel(OpContext& c) {
  Conv2dGeom g = col2im_geom(c);
  const Tensor& x = *c.out[0];
  if (x.numel() == 0) return;
  Tensor col = conv_dense(*c.in[0]);
  ConvOut o(x, dtype_of<T>());
  const int64_t P = g.oh * g.ow, R = g.c * g.kh * g.kw;
  if (P == 0) {
    std::memset(o.buf.base(), 0, size_t(x.numel()) * sizeof(T));
  } else if (g.nhwc) {
    col2im_nhwc<T>(g, col.data<T>(), 0, g.n, 0, g.c, o.data<T>());
  } else {
    col2im_nchw<T>(g, col.data<T>(), 0, g.n, 0, g.c, o.data<T>(), P, R * P);
  }
  o.finish();
}

}  // namespace

void register_cpu_conv(Registry& r) {
  for_types<float, double, Half, BFloat16>([&](auto t) {
    using T = decltype(t);
    const ndrt_dtype d = dtype_of<T>();
    const char* impl = std::is_same_v<T, double> ? "ndrt:im2col+dgemm" : "onednn:conv";  // kernels refine it
    r.kernel("conv2d", kCpu, {d}, conv2d_kernel<T>, impl);
    r.kernel("conv2d_bias", kCpu, {d}, conv2d_kernel<T>, impl);
    r.kernel("conv2d_bp_data", kCpu, {d}, conv2d_bp_data_kernel<T>, impl);
    r.kernel("conv2d_bp_weights", kCpu, {d}, conv2d_bp_weights_kernel<T>, impl);
    r.kernel("conv2d_bp_bias", kCpu, {d}, conv2d_bp_bias_kernel<T>, "ndrt:cpu");
    r.kernel("im2col", kCpu, {d}, im2col_kernel<T>, "ndrt:cpu");
    r.kernel("col2im", kCpu, {d}, col2im_kernel<T>, "ndrt:cpu");
  });
  register_cpu_conv_pool(r);
  register_cpu_conv_pool_fused(r);
  register_cpu_conv_pool_bp(r);
}

}  // namespace ndrt
