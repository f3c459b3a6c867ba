// Primitive descriptors for the oneDNN primitives ndrt uses, on oneDNN 2.x (Debian 12: 2.6) and
// 3.x (Debian 13: 3.7). oneDNN 3 removed the operation descriptors (convolution_forward::desc, ...):
// its primitive descriptors are built from the engine and the memory descriptors directly. This is
// the only place that knows; the kernels call these and behave the same on both.
#pragma once

#include <dnnl.hpp>

namespace ndrt::dnnl_compat {

using dnnl::memory;

// Geometry of a 2-D convolution, in oneDNN's terms (dilations 0-based).
struct ConvShape {
  memory::dims strides, dilates, pad_l, pad_r;
};

// Forward (training, so backward passes may use it as their hint); bias may be an empty desc.
inline dnnl::convolution_forward::primitive_desc conv_fwd_pd(const dnnl::engine& eng, const memory::desc& src,
                                                             const memory::desc& weights, const memory::desc& bias,
                                                             const memory::desc& dst, const ConvShape& s,
                                                             const dnnl::primitive_attr& attr) {
  using Op = dnnl::convolution_forward;
  using PD = Op::primitive_desc;
  const auto prop = dnnl::prop_kind::forward_training;
  const auto alg = dnnl::algorithm::convolution_direct;
#if DNNL_VERSION_MAJOR >= 3
  return PD(eng, prop, alg, src, weights, bias, dst, s.strides, s.dilates, s.pad_l, s.pad_r, attr);
#else
  return PD(Op::desc(prop, alg, src, weights, bias, dst, s.strides, s.dilates, s.pad_l, s.pad_r), attr, eng);
#endif
}

inline dnnl::convolution_backward_data::primitive_desc conv_bwd_data_pd(
    const dnnl::engine& eng, const memory::desc& diff_src, const memory::desc& weights, const memory::desc& diff_dst,
    const ConvShape& s, const dnnl::primitive_attr& attr, const dnnl::convolution_forward::primitive_desc& hint) {
  using Op = dnnl::convolution_backward_data;
  using PD = Op::primitive_desc;
  const auto alg = dnnl::algorithm::convolution_direct;
#if DNNL_VERSION_MAJOR >= 3
  return PD(eng, alg, diff_src, weights, diff_dst, s.strides, s.dilates, s.pad_l, s.pad_r, hint, attr);
#else
  return PD(Op::desc(alg, diff_src, weights, diff_dst, s.strides, s.dilates, s.pad_l, s.pad_r), attr, eng, hint);
#endif
}

inline dnnl::convolution_backward_weights::primitive_desc conv_bwd_weights_pd(
    const dnnl::engine& eng, const memory::desc& src, const memory::desc& diff_weights, const memory::desc& diff_dst,
    const ConvShape& s, const dnnl::primitive_attr& attr, const dnnl::convolution_forward::primitive_desc& hint) {
  using Op = dnnl::convolution_backward_weights;
  using PD = Op::primitive_desc;
  const auto alg = dnnl::algorithm::convolution_direct;
#if DNNL_VERSION_MAJOR >= 3
  return PD(eng, alg, src, diff_weights, diff_dst, s.strides, s.dilates, s.pad_l, s.pad_r, hint, attr);
#else
  return PD(Op::desc(alg, src, diff_weights, diff_dst, s.strides, s.dilates, s.pad_l, s.pad_r), attr, eng, hint);
#endif
}

inline dnnl::matmul::primitive_desc matmul_pd(const dnnl::engine& eng, const memory::desc& a, const memory::desc& b,
                                              const memory::desc& c, const dnnl::primitive_attr& attr) {
  using Op = dnnl::matmul;
  using PD = Op::primitive_desc;
#if DNNL_VERSION_MAJOR >= 3
  return PD(eng, a, b, c, attr);
#else
  return PD(Op::desc(a, b, c), attr, eng);
#endif
}

}  // namespace ndrt::dnnl_compat
