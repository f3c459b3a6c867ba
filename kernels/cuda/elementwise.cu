// Elementwise CUDA kernels: binary arithmetic with numpy broadcasting and the unary maps, as functors
// over the map kernel of elementwise_map.cuh. Semantics follow kernels/cpu/elementwise*.cpp:
// integers wrap, f16/bf16 compute in float and round once, NaN propagates as documented per op.
// Gradients are in elementwise_grad.cu, comparisons / logical ops / where in elementwise_logic.cu.
#include "elementwise_map.cuh"

namespace ndrt::cuda {

namespace {

using namespace elt;

// ---- binary arithmetic ---------------------------------------------------------------------------
struct Add : NoAttrs {
  template <class C> __device__ static C f(C a, C b, const Params<C>&) { return C(Wrap<C>(a) + Wrap<C>(b)); }
};
struct Sub : NoAttrs {
  template <class C> __device__ static C f(C a, C b, const Params<C>&) { return C(Wrap<C>(a) - Wrap<C>(b)); }
};
struct Mul : NoAttrs {
  template <class C> __device__ static C f(C a, C b, const Params<C>&) { return C(Wrap<C>(a) * Wrap<C>(b)); }
};
// Integer division truncates; INT_MIN / -1 wraps. x / 0 gives 0: the CPU fails with
// NDRT_ERR_INVALID_ARGUMENT after its loop, which an asynchronous kernel cannot report.
struct Div : NoAttrs {
  template <class C>
  __device__ static C f(C a, C b, const Params<C>&) {
    if constexpr (std::is_integral_v<C>) {
      if (b == 0) return C(0);
      if constexpr (std::is_signed_v<C>)
        if (b == C(-1)) return C(-Wrap<C>(a));
    }
    return C(a / b);
  }
};
// NaN propagates from either side (torch.maximum / minimum).
struct Maximum : NoAttrs {
  template <class C> __device__ static C f(C a, C b, const Params<C>&) { return (a > b || a != a) ? a : b; }
};
struct Minimum : NoAttrs {
  template <class C> __device__ static C f(C a, C b, const Params<C>&) { return (a < b || a != a) ? a : b; }
};
struct Pow : NoAttrs {
  template <class C> __device__ static C f(C a, C b, const Params<C>&) { return m_pow(a, b); }
};

// ---- unary ops that also take integers -----------------------------------------------------------
struct Neg : NoAttrs {
  template <class C> __device__ static C f(C x, const Params<C>&) { return C(-Wrap<C>(x)); }
};
struct Relu : NoAttrs {
  template <class C>
  __device__ static C f(C x, const Params<C>&) {
    if constexpr (std::is_unsigned_v<C>)
      return x;
    else
      return x < C(0) ? C(0) : x;  // NaN stays
  }
};
struct Abs : NoAttrs {
  template <class C>
  __device__ static C f(C x, const Params<C>&) {
    if constexpr (std::is_floating_point_v<C>)
      return m_fabs(x);
    else if constexpr (std::is_unsigned_v<C>)
      return x;
    else
      return x < C(0) ? C(-Wrap<C>(x)) : x;  // |INT_MIN| wraps to INT_MIN
  }
};
struct Sign : NoAttrs {
  template <class C>
  __device__ static C f(C x, const Params<C>&) {
    if constexpr (std::is_unsigned_v<C>)
      return x > C(0) ? C(1) : C(0);
    else
      return x > C(0) ? C(1) : (x < C(0) ? C(-1) : x);  // 0, -0 and NaN come back as they are
  }
};
struct Square : NoAttrs {
  template <class C> __device__ static C f(C x, const Params<C>&) { return C(Wrap<C>(x) * Wrap<C>(x)); }
};

// A double bound in type C: floats saturate to +-inf, integers round inward (ceil for min, floor
// for max) and saturate to the type's range.
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
struct Clip {
  template <class C>
  static Params<C> params(const OpContext& c) {
    return {bound<C>(c.attrs.get_float(0), true), bound<C>(c.attrs.get_float(1), false)};
  }
  template <class C> __device__ static C f(C x, const Params<C>& p) { return x < p.a ? p.a : (x > p.b ? p.b : x); }
};

// ---- float-only unary ops ------------------------------------------------------------------------
struct Exp : NoAttrs {
  template <class C> __device__ static C f(C x, const Params<C>&) { return m_exp(x); }
};
struct Log : NoAttrs {
  template <class C> __device__ static C f(C x, const Params<C>&) { return m_log(x); }
};
struct Expm1 : NoAttrs {
  template <class C> __device__ static C f(C x, const Params<C>&) { return m_expm1(x); }
};
struct Log1p : NoAttrs {
  template <class C> __device__ static C f(C x, const Params<C>&) { return m_log1p(x); }
};
struct Sqrt : NoAttrs {
  template <class C> __device__ static C f(C x, const Params<C>&) { return m_sqrt(x); }
};
// 1 / sqrt(x) with both steps correctly rounded, as on the CPU (rsqrtf is an approximation).
struct Rsqrt : NoAttrs {
  template <class C> __device__ static C f(C x, const Params<C>&) { return C(1) / m_sqrt(x); }
};
struct Reciprocal : NoAttrs {
  template <class C> __device__ static C f(C x, const Params<C>&) { return C(1) / x; }
};
struct Sin : NoAttrs {
  template <class C> __device__ static C f(C x, const Params<C>&) { return m_sin(x); }
};
struct Cos : NoAttrs {
  template <class C> __device__ static C f(C x, const Params<C>&) { return m_cos(x); }
};
struct Tanh : NoAttrs {
  template <class C> __device__ static C f(C x, const Params<C>&) { return m_tanh(x); }
};
// Both tails accurate: e = e^-|x|, then 1 / (1 + e) or e / (1 + e). NaN gives NaN.
struct Sigmoid : NoAttrs {
  template <class C>
  __device__ static C f(C x, const Params<C>&) {
    const C e = m_exp(-m_fabs(x));
    return (x >= C(0) ? C(1) : e) / (C(1) + e);
  }
};
struct Floor : NoAttrs {
  template <class C> __device__ static C f(C x, const Params<C>&) { return m_floor(x); }
};
struct Ceil : NoAttrs {
  template <class C> __device__ static C f(C x, const Params<C>&) { return m_ceil(x); }
};
struct Round : NoAttrs {
  template <class C> __device__ static C f(C x, const Params<C>&) { return m_rint(x); }
};
struct LeakyRelu : OneFloatAttr {
  template <class C> __device__ static C f(C x, const Params<C>& p) { return x < C(0) ? p.a * x : x; }
};
struct Elu : OneFloatAttr {
  template <class C> __device__ static C f(C x, const Params<C>& p) { return x > C(0) ? x : p.a * m_expm1(x); }
};
struct GeluErf : NoAttrs {  // x * Phi(x)
  template <class C> __device__ static C f(C x, const Params<C>&) { return x * m_normcdf(x); }
};
struct GeluTanh : NoAttrs {
  template <class C>
  __device__ static C f(C x, const Params<C>&) {
    const C u = C(0.79788456080286535588) * (x + C(0.044715) * x * x * x);
    return C(0.5) * x * (C(1) + m_tanh(u));
  }
};
// (max(bx, 0) + log1p(e^-|bx|)) / b; p.b = 1 / b saves a division (as the CPU).
struct Softplus {
  template <class C>
  static Params<C> params(const OpContext& c) {
    const double beta = c.attrs.get_float(0);
    return {float_param<C>(beta), float_param<C>(1.0 / beta)};
  }
  template <class C>
  __device__ static C f(C x, const Params<C>& p) {
    const C bx = p.a * x;
    const C l = m_log1p(m_exp(-m_fabs(bx)));
    return ((bx > C(0) ? bx : C(0)) + l) * p.b;  // a NaN bx gives a NaN l
  }
};

template <class T>
void gelu(OpContext& c) {
  if (c.attrs.get_bool(0))
    map_op<T, GeluTanh, 1>(c);
  else
    map_op<T, GeluErf, 1>(c);
}

constexpr const char* kImpl = "cuda";

// Every numeric dtype: arithmetic, and the unary ops that take integers.
template <ndrt_dtype D>
void register_numeric() {
  using T = typename DType<D>::type;
  reg("add", {D}, map_op<T, Add, 2>, kImpl);
  reg("sub", {D}, map_op<T, Sub, 2>, kImpl);
  reg("mul", {D}, map_op<T, Mul, 2>, kImpl);
  reg("div", {D}, map_op<T, Div, 2>, kImpl);
  reg("maximum", {D}, map_op<T, Maximum, 2>, kImpl);
  reg("minimum", {D}, map_op<T, Minimum, 2>, kImpl);
  if constexpr (D != NDRT_U8) reg("neg", {D}, map_op<T, Neg, 1>, kImpl);
  reg("relu", {D}, map_op<T, Relu, 1>, kImpl);
  reg("abs", {D}, map_op<T, Abs, 1>, kImpl);
  reg("sign", {D}, map_op<T, Sign, 1>, kImpl);
  reg("square", {D}, map_op<T, Square, 1>, kImpl);
  reg("clip", {D}, map_op<T, Clip, 1>, kImpl);
}

template <ndrt_dtype D>
void register_float() {
  using T = typename DType<D>::type;
  reg("pow", {D}, map_op<T, Pow, 2>, kImpl);
  reg("exp", {D}, map_op<T, Exp, 1>, kImpl);
  reg("log", {D}, map_op<T, Log, 1>, kImpl);
  reg("expm1", {D}, map_op<T, Expm1, 1>, kImpl);
  reg("log1p", {D}, map_op<T, Log1p, 1>, kImpl);
  reg("sqrt", {D}, map_op<T, Sqrt, 1>, kImpl);
  reg("rsqrt", {D}, map_op<T, Rsqrt, 1>, kImpl);
  reg("reciprocal", {D}, map_op<T, Reciprocal, 1>, kImpl);
  reg("sin", {D}, map_op<T, Sin, 1>, kImpl);
  reg("cos", {D}, map_op<T, Cos, 1>, kImpl);
  reg("tanh", {D}, map_op<T, Tanh, 1>, kImpl);
  reg("sigmoid", {D}, map_op<T, Sigmoid, 1>, kImpl);
  reg("floor", {D}, map_op<T, Floor, 1>, kImpl);
  reg("ceil", {D}, map_op<T, Ceil, 1>, kImpl);
  reg("round", {D}, map_op<T, Round, 1>, kImpl);
  reg("leaky_relu", {D}, map_op<T, LeakyRelu, 1>, kImpl);
  reg("elu", {D}, map_op<T, Elu, 1>, kImpl);
  reg("gelu", {D}, gelu<T>, kImpl);
  reg("softplus", {D}, map_op<T, Softplus, 1>, kImpl);
}

}  // namespace

void register_cuda_elementwise() {
  register_numeric<NDRT_F32>();
  register_numeric<NDRT_F64>();
  register_numeric<NDRT_F16>();
  register_numeric<NDRT_BF16>();
  register_numeric<NDRT_I8>();
  register_numeric<NDRT_U8>();
  register_numeric<NDRT_I32>();
  register_numeric<NDRT_I64>();
  register_float<NDRT_F32>();
  register_float<NDRT_F64>();
  register_float<NDRT_F16>();
  register_float<NDRT_BF16>();
  register_cuda_elementwise_grad();
  register_cuda_elementwise_logic();
}

}  // namespace ndrt::cuda
