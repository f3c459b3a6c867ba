// Gradient kernels of the elementwise activations and unary maps: dx = f'(.) * dy, two same-shape
// inputs. The broadcasting binary ops' gradients are in elementwise_grad_binary.cpp.
#include <cmath>
#include <limits>

#include "elementwise_map.hpp"
#include "elementwise_math.hpp"

namespace ndrt {

namespace {

using namespace elt;

template <class C> constexpr bool kF32 = std::is_same_v<C, float>;
template <class C> C exp_(C x) { if constexpr (kF32<C>) return vmath::exp(x); else return std::exp(x); }
template <class C> C tanh_(C x) { if constexpr (kF32<C>) return vmath::tanh(x); else return std::tanh(x); }

struct ReluBp : NoAttrs {
  template <class C> static C f(C x, C dy, const Params<C>&) { return vmath::pick(x > C(0), dy, C(0)); }
};
struct LeakyReluBp : OneFloatAttr {
  template <class C> static C f(C x, C dy, const Params<C>& p) { return vmath::pick(x > C(0), dy, p.a * dy); }
};
struct EluBp : OneFloatAttr {
  template <class C> static C f(C x, C dy, const Params<C>& p) { return vmath::pick(x > C(0), dy, dy * p.a * exp_(x)); }
};
struct SigmoidBp : NoAttrs {  // from y
  template <class C> static C f(C y, C dy, const Params<C>&) { return dy * y * (C(1) - y); }
};
struct TanhBp : NoAttrs {  // from y
  template <class C> static C f(C y, C dy, const Params<C>&) { return dy * (C(1) - y * y); }
};
struct ExpBp : NoAttrs {  // from y
  template <class C> static C f(C y, C dy, const Params<C>&) { return dy * y; }
};
struct LogBp : NoAttrs {
  template <class C> static C f(C x, C dy, const Params<C>&) { return dy / x; }
};
struct SqrtBp : NoAttrs {  // from y
  template <class C> static C f(C y, C dy, const Params<C>&) { return dy / (C(2) * y); }
};
struct AbsBp : NoAttrs {
  template <class C> static C f(C x, C dy, const Params<C>&) { return vmath::pick(x > C(0), dy, vmath::pick(x < C(0), -dy, C(0))); }
};
struct SquareBp : NoAttrs {
  template <class C> static C f(C x, C dy, const Params<C>&) { return C(2) * x * dy; }
};
struct SinBp : NoAttrs {
  template <class C> static C f(C x, C dy, const Params<C>&) { return dy * std::cos(x); }
};
struct CosBp : NoAttrs {
  template <class C> static C f(C x, C dy, const Params<C>&) { return -dy * std::sin(x); }
};
struct Expm1Bp : NoAttrs {  // from y
  template <class C> static C f(C y, C dy, const Params<C>&) { return dy * (y + C(1)); }
};
struct Log1pBp : NoAttrs {
  template <class C> static C f(C x, C dy, const Params<C>&) { return dy / (C(1) + x); }
};
struct RsqrtBp : NoAttrs {  // from y: d/dx x^(-1/2) = -y^3 / 2
  template <class C> static C f(C y, C dy, const Params<C>&) { return dy * (C(-0.5) * y * y * y); }
};
struct ReciprocalBp : NoAttrs {  // from y: d/dx 1/x = -y^2
  template <class C> static C f(C y, C dy, const Params<C>&) { return -dy * (y * y); }
};
struct SoftplusBp : OneFloatAttr {  // dy * sigmoid(beta x)
  template <class C>
  static C f(C x, C dy, const Params<C>& p) {
    C bx = p.a * x;
    C e = exp_(-std::fabs(bx));
    C s = C(1) / (C(1) + e);
    return dy * vmath::pick(bx >= C(0), s, e * s);
  }
};
struct ClipBp : NoAttrs {
  template <class C>
  static Params<C> params(const OpContext& c) {
    return {float_param<C>(c.attrs.get_float(0)), float_param<C>(c.attrs.get_float(1))};
  }
  template <class C> static C f(C x, C dy, const Params<C>& p) { return vmath::pick(x >= p.a && x <= p.b, dy, C(0)); }
};
struct GeluErfBp : NoAttrs {  // Phi(x) + x phi(x)
  template <class C>
  static C f(C x, C dy, const Params<C>&) {
    C e;
    if constexpr (kF32<C>) e = vmath::erfc_gauss(x);
    else e = std::erfc(x * C(-0.70710678118654752440));
    C cdf = C(0.5) * e;
    C pdf = C(0.39894228040143267794) * exp_(C(-0.5) * x * x);
    return dy * (cdf + x * pdf);
  }
};
struct GeluTanhBp : NoAttrs {
  template <class C>
  static C f(C x, C dy, const Params<C>&) {
    const C k0 = C(0.79788456080286535588), k1 = C(0.044715);
    C x2 = x * x;
    C t = tanh_(k0 * x * (C(1) + k1 * x2));
    return dy * (C(0.5) * (C(1) + t) + C(0.5) * x * (C(1) - t * t) * k0 * (C(1) + C(3) * k1 * x2));
  }
};

template <class T>
void gelu_bp_kernel(OpContext& c) {
  if (c.attrs.get_bool(0))
    binary_kernel<T, T, GeluTanhBp>(c);
  else
    binary_kernel<T, T, GeluErfBp>(c);
}

}  // namespace

void register_cpu_elementwise_grad_binary(Registry& r);  // elementwise_grad_binary.cpp

void register_cpu_elementwise_grad(Registry& r) {
  for_types<float, double, Half, BFloat16>([&](auto t) {
    using T = decltype(t);
    const ndrt_dtype d = dtype_of<T>();
    r.kernel("relu_bp", kCpu, {d}, binary_kernel<T, T, ReluBp>, "ndrt:cpu");
    r.kernel("leaky_relu_bp", kCpu, {d}, binary_kernel<T, T, LeakyReluBp>, "ndrt:cpu");
    r.kernel("elu_bp", kCpu, {d}, binary_kernel<T, T, EluBp>, "ndrt:cpu");
    r.kernel("gelu_bp", kCpu, {d}, gelu_bp_kernel<T>, "ndrt:cpu");
    r.kernel("sigmoid_bp", kCpu, {d}, binary_kernel<T, T, SigmoidBp>, "ndrt:cpu");
    r.kernel("tanh_bp", kCpu, {d}, binary_kernel<T, T, TanhBp>, "ndrt:cpu");
    r.kernel("softplus_bp", kCpu, {d}, binary_kernel<T, T, SoftplusBp>, "ndrt:cpu");
    r.kernel("exp_bp", kCpu, {d}, binary_kernel<T, T, ExpBp>, "ndrt:cpu");
    r.kernel("log_bp", kCpu, {d}, binary_kernel<T, T, LogBp>, "ndrt:cpu");
    r.kernel("sqrt_bp", kCpu, {d}, binary_kernel<T, T, SqrtBp>, "ndrt:cpu");
    r.kernel("abs_bp", kCpu, {d}, binary_kernel<T, T, AbsBp>, "ndrt:cpu");
    r.kernel("square_bp", kCpu, {d}, binary_kernel<T, T, SquareBp>, "ndrt:cpu");
    r.kernel("clip_bp", kCpu, {d}, binary_kernel<T, T, ClipBp>, "ndrt:cpu");
    r.kernel("sin_bp", kCpu, {d}, binary_kernel<T, T, SinBp>, "ndrt:cpu");
    r.kernel("cos_bp", kCpu, {d}, binary_kernel<T, T, CosBp>, "ndrt:cpu");
    r.kernel("expm1_bp", kCpu, {d}, binary_kernel<T, T, Expm1Bp>, "ndrt:cpu");
    r.kernel("log1p_bp", kCpu, {d}, binary_kernel<T, T, Log1pBp>, "ndrt:cpu");
    r.kernel("rsqrt_bp", kCpu, {d}, binary_kernel<T, T, RsqrtBp>, "ndrt:cpu");
    r.kernel("reciprocal_bp", kCpu, {d}, binary_kernel<T, T, ReciprocalBp>, "ndrt:cpu");
  });
  register_cpu_elementwise_grad_binary(r);
}

}  // namespace ndrt
