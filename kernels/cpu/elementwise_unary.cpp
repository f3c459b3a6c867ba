// Unary elementwise cpu kernels. f32 transcendental functions use the vectorisable polynomials of
// elementwise_math.hpp; f64 uses libm (accuracy first; f64 is not the hot type).
#include <cmath>
#include <limits>

#include "elementwise_map.hpp"
#include "elementwise_math.hpp"

namespace ndrt {

namespace {

using namespace elt;

// ---- ops that also take integers -----------------------------------------------------------------
struct Neg : NoAttrs {
  static constexpr bool kStream = true;  // light: outputs beyond the cache are streamed (elementwise_map.hpp)
  template <class C> static C f(C x, const Params<C>&) { return C(-Wrap<C>(x)); }
};
struct Relu : NoAttrs {
  static constexpr bool kStream = true;
  template <class C> static C f(C x, const Params<C>&) { return x < C(0) ? C(0) : x; }  // NaN stays
};
struct Abs : NoAttrs {
  static constexpr bool kStream = true;
  template <class C>
  static C f(C x, const Params<C>&) {
    if constexpr (std::is_floating_point_v<C>)
      return std::fabs(x);
    else if constexpr (std::is_unsigned_v<C>)
      return x;
    else
      return x < 0 ? C(-Wrap<C>(x)) : x;
  }
};
struct Sign : NoAttrs {
  static constexpr bool kStream = true;
  template <class C>
  static C f(C x, const Params<C>&) {
    if constexpr (std::is_unsigned_v<C>)
      return x > 0 ? C(1) : C(0);
    else
      return x > C(0) ? C(1) : (x < C(0) ? C(-1) : x);  // 0, -0 and NaN come back as they are
  }
};
struct Square : NoAttrs {
  static constexpr bool kStream = true;
  template <class C> static C f(C x, const Params<C>&) { return C(Wrap<C>(x) * Wrap<C>(x)); }
};

// A double bound as compute type C: floats saturate to +-inf, integers round inward (ceil for
// min, floor for max) and saturate to the type's range.
template <class C>
C bound(double v, bool is_min) {
  using L = std::numeric_limits<C>;
  if constexpr (std::is_floating_point_v<C>) {
    return float_param<C>(v);
  } else {
    v = is_min ? std::ceil(v) : std::floor(v);
    if (v <= double(L::lowest())) return L::lowest();
    if (v >= double(L::max())) return L::max();
    return C(v);
  }
}
struct Clip : NoAttrs {
  static constexpr bool kStream = true;
  template <class C>
  static Params<C> params(const OpContext& c) {
    return {bound<C>(c.attrs.get_float(0), true), bound<C>(c.attrs.get_float(1), false)};
  }
  template <class C> static C f(C x, const Params<C>& p) { return x < p.a ? p.a : (x > p.b ? p.b : x); }
};

// ---- float-only ops ------------------------------------------------------------------------------
template <class C> constexpr bool kF32 = std::is_same_v<C, float>;

struct Exp : NoAttrs {
  template <class C> static C f(C x, const Params<C>&) {
    if constexpr (kF32<C>) return vmath::exp(x); else return std::exp(x);
  }
#if defined(__AVX2__) && defined(__FMA__)
  static void block(float* y, const float* x, int64_t n) { vmath::exp_block(y, x, n); }  // 8-wide fast path
#endif
};
struct Log : NoAttrs {
  template <class C> static C f(C x, const Params<C>&) {
    if constexpr (kF32<C>) return vmath::log(x); else return std::log(x);
  }
};
struct Expm1 : NoAttrs {
  template <class C> static C f(C x, const Params<C>&) {
    if constexpr (kF32<C>) return vmath::expm1(x); else return std::expm1(x);
  }
};
struct Log1p : NoAttrs {
  template <class C> static C f(C x, const Params<C>&) {
    if constexpr (kF32<C>) return vmath::log1p(x); else return std::log1p(x);
  }
};
// sqrt and rsqrt bring AVX dense loops: the per-element std::sqrt stays a scalar call under
// -fmath-errno. vsqrtps / vdivps are correctly rounded, so results equal the scalar ones.
template <bool kRecip>
struct SqrtOp : NoAttrs {
  template <class C>
  static C f(C x, const Params<C>&) {
    return kRecip ? C(1) / std::sqrt(x) : std::sqrt(x);
  }
#if defined(__AVX__)
  static void block(float* y, const float* x, int64_t n) {
    int64_t i = 0;
    const __m256 one = _mm256_set1_ps(1.0f);
    for (; i + 8 <= n; i += 8) {
      __m256 s = _mm256_sqrt_ps(_mm256_loadu_ps(x + i));
      _mm256_storeu_ps(y + i, kRecip ? _mm256_div_ps(one, s) : s);
    }
    for (; i < n; ++i) y[i] = f(x[i], Params<float>{});
  }
  static void block(double* y, const double* x, int64_t n) {
    int64_t i = 0;
    const __m256d one = _mm256_set1_pd(1.0);
    for (; i + 4 <= n; i += 4) {
      __m256d s = _mm256_sqrt_pd(_mm256_loadu_pd(x + i));
      _mm256_storeu_pd(y + i, kRecip ? _mm256_div_pd(one, s) : s);
    }
    for (; i < n; ++i) y[i] = f(x[i], Params<double>{});
  }
#endif
};
using Sqrt = SqrtOp<false>;
using Rsqrt = SqrtOp<true>;
struct Reciprocal : NoAttrs {
  template <class C> static C f(C x, const Params<C>&) { return C(1) / x; }
};
struct Sin : NoAttrs {
  template <class C> static C f(C x, const Params<C>&) { return std::sin(x); }
};
struct Cos : NoAttrs {
  template <class C> static C f(C x, const Params<C>&) { return std::cos(x); }
};
struct Tanh : NoAttrs {
  template <class C> static C f(C x, const Params<C>&) {
    if constexpr (kF32<C>) return vmath::tanh(x); else return std::tanh(x);
  }
};
struct Sigmoid : NoAttrs {
  template <class C>
  static C f(C x, const Params<C>&) {
    if constexpr (kF32<C>) {
      return vmath::sigmoid(x);
    } else {
      C e = std::exp(-std::fabs(x));
      C s = C(1) / (C(1) + e);
      return vmath::pick(x >= C(0), s, e * s);
    }
  }
#if defined(__AVX2__) && defined(__FMA__)
  static void block(float* y, const float* x, int64_t n) { vmath::sigmoid_block(y, x, n); }  // 8-wide fast path
#endif
};
// floor/ceil from nearbyint (which vectorises; std::floor does not under -ftrapping-math):
// exact for every float, and NaN, inf and -0 come back unchanged.
struct Floor : NoAttrs {
  static constexpr bool kStream = true;
  template <class C> static C f(C x, const Params<C>&) {
    C r = std::nearbyint(x);
    return vmath::pick(r > x, r - C(1), r);
  }
};
struct Ceil : NoAttrs {
  static constexpr bool kStream = true;
  template <class C> static C f(C x, const Params<C>&) {
    C r = std::nearbyint(x);
    return vmath::pick(r < x, r + C(1), r);
  }
};
struct Round : NoAttrs {  // the default rounding mode: nearest, halves to even
  static constexpr bool kStream = true;
  template <class C> static C f(C x, const Params<C>&) { return std::nearbyint(x); }
};
struct LeakyRelu : OneFloatAttr {
  static constexpr bool kStream = true;
  template <class C> static C f(C x, const Params<C>& p) { return vmath::pick(x < C(0), p.a * x, x); }
};
struct Elu : OneFloatAttr {
  template <class C>
  static C f(C x, const Params<C>& p) {
    C m;
    if constexpr (kF32<C>) m = vmath::expm1(x); else m = std::expm1(x);
    return vmath::pick(x > C(0), x, p.a * m);
  }
};
struct GeluErf : NoAttrs {  // x * Phi(x); erfc keeps the negative tail accurate
  template <class C> static C f(C x, const Params<C>&) {
    if constexpr (kF32<C>) return vmath::gelu_erf(x);
    else return C(0.5) * x * std::erfc(x * C(-0.70710678118654752440));
  }
};
struct GeluTanh : NoAttrs {
  template <class C>
  static C f(C x, const Params<C>&) {
    C u = C(0.79788456080286535588) * (x + C(0.044715) * x * x * x);
    C t;
    if constexpr (kF32<C>) t = vmath::tanh(u); else t = std::tanh(u);
    return C(0.5) * x * (C(1) + t);
  }
};
struct Softplus : NoAttrs {  // (max(bx, 0) + log1p(e^-|bx|)) / b; p.b = 1/b saves a division
  template <class C>
  static Params<C> params(const OpContext& c) {
    double beta = c.attrs.get_float(0);
    return {float_param<C>(beta), float_param<C>(1.0 / beta)};
  }
  template <class C>
  static C f(C x, const Params<C>& p) {
    C bx = p.a * x;
    C l;
    if constexpr (kF32<C>) l = vmath::log1p(vmath::exp(-std::fabs(bx)));
    else l = std::log1p(std::exp(-std::fabs(bx)));
    return (vmath::pick(bx > C(0), bx, C(0)) + l) * p.b;  // a NaN bx gives a NaN l
  }
};

template <class T>
void gelu_kernel(OpContext& c) {
  if (c.attrs.get_bool(0))
    unary_kernel<T, T, GeluTanh>(c);
  else
    unary_kernel<T, T, GeluErf>(c);
}

}  // namespace

void register_cpu_elementwise_unary(Registry& r) {
  for_types<float, double, Half, BFloat16, int8_t, uint8_t, int32_t, int64_t>([&](auto t) {
    using T = decltype(t);
    const ndrt_dtype d = dtype_of<T>();
    if constexpr (!std::is_same_v<T, uint8_t>) r.kernel("neg", kCpu, {d}, unary_kernel<T, T, Neg>, "ndrt:cpu");
    r.kernel("relu", kCpu, {d}, unary_kernel<T, T, Relu>, "ndrt:cpu");
    r.kernel("abs", kCpu, {d}, unary_kernel<T, T, Abs>, "ndrt:cpu");
    r.kernel("sign", kCpu, {d}, unary_kernel<T, T, Sign>, "ndrt:cpu");
    r.kernel("square", kCpu, {d}, unary_kernel<T, T, Square>, "ndrt:cpu");
    r.kernel("clip", kCpu, {d}, unary_kernel<T, T, Clip>, "ndrt:cpu");
  });
  for_types<float, double, Half, BFloat16>([&](auto t) {
    using T = decltype(t);
    const ndrt_dtype d = dtype_of<T>();
    r.kernel("exp", kCpu, {d}, unary_kernel<T, T, Exp>, "ndrt:cpu");
    r.kernel("log", kCpu, {d}, unary_kernel<T, T, Log>, "ndrt:cpu");
    r.kernel("expm1", kCpu, {d}, unary_kernel<T, T, Expm1>, "ndrt:cpu");
    r.kernel("log1p", kCpu, {d}, unary_kernel<T, T, Log1p>, "ndrt:cpu");
    r.kernel("sqrt", kCpu, {d}, unary_kernel<T, T, Sqrt>, "ndrt:cpu");
    r.kernel("rsqrt", kCpu, {d}, unary_kernel<T, T, Rsqrt>, "ndrt:cpu");
    r.kernel("reciprocal", kCpu, {d}, unary_kernel<T, T, Reciprocal>, "ndrt:cpu");
    r.kernel("sin", kCpu, {d}, unary_kernel<T, T, Sin>, "ndrt:cpu");
    r.kernel("cos", kCpu, {d}, unary_kernel<T, T, Cos>, "ndrt:cpu");
    r.kernel("tanh", kCpu, {d}, unary_kernel<T, T, Tanh>, "ndrt:cpu");
    r.kernel("sigmoid", kCpu, {d}, unary_kernel<T, T, Sigmoid>, "ndrt:cpu");
    r.kernel("floor", kCpu, {d}, unary_kernel<T, T, Floor>, "ndrt:cpu");
    r.kernel("ceil", kCpu, {d}, unary_kernel<T, T, Ceil>, "ndrt:cpu");
    r.kernel("round", kCpu, {d}, unary_kernel<T, T, Round>, "ndrt:cpu");
    r.kernel("leaky_relu", kCpu, {d}, unary_kernel<T, T, LeakyRelu>, "ndrt:cpu");
    r.kernel("elu", kCpu, {d}, unary_kernel<T, T, Elu>, "ndrt:cpu");
    r.kernel("gelu", kCpu, {d}, gelu_kernel<T>, "ndrt:cpu");
    r.kernel("softplus", kCpu, {d}, unary_kernel<T, T, Softplus>, "ndrt:cpu");
  });
}

}  // namespace ndrt
