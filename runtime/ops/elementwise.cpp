// Elementwise ops: unary maps (same shape) and binary ops with numpy broadcasting. Both inputs of a
// binary op share one dtype: there is no implicit promotion (cast explicitly). Gradients, comparisons,
// logical ops and where are defined in elementwise_grad.cpp and elementwise_logic.cpp.
#include <cmath>

#include "../error.hpp"
#include "ops.hpp"

namespace ndrt {

void define_elementwise_logic_ops(Registry& r);  // elementwise_logic.cpp
void define_elementwise_grad_ops(Registry& r);   // elementwise_grad.cpp

namespace {

void infer_unary(OpContext& c) { c.spec[0] = {c.in[0]->dtype, c.in[0]->shape}; }

void infer_unary_float(OpContext& c) {
  require_float(c, c.in[0]->dtype);
  infer_unary(c);
}

void infer_binary(OpContext& c) {
  require_same_dtype(c);
  c.spec[0] = {c.in[0]->dtype, broadcast_shapes(c.op->name, c.in[0]->shape, c.in[1]->shape)};
}

void infer_binary_float(OpContext& c) {
  infer_binary(c);
  require_float(c, c.in[0]->dtype);
}

// Float attribute k must be finite (and > 0 when `positive`).
void require_finite_attr(const OpContext& c, int k, const char* name, bool positive) {
  double v = c.attrs.get_float(k);
  if (!std::isfinite(v) || (positive && !(v > 0)))
    fail(NDRT_ERR_INVALID_ARGUMENT, "%s: attribute '%s' must be a finite%s number, got %g", c.op->name, name,
         positive ? " positive" : "", v);
}

void infer_alpha(OpContext& c) {
  require_finite_attr(c, 0, "alpha", false);
  infer_unary_float(c);
}

void infer_softplus(OpContext& c) {
  require_finite_attr(c, 0, "beta", true);
  infer_unary_float(c);
}

void infer_clip(OpContext& c) {
  double lo = c.attrs.get_float(0), hi = c.attrs.get_float(1);
  if (std::isnan(lo) || std::isnan(hi))
    fail(NDRT_ERR_INVALID_ARGUMENT, "%s: the bounds min and max must not be NaN", c.op->name);
  if (lo > hi) fail(NDRT_ERR_INVALID_ARGUMENT, "%s: min (%g) is greater than max (%g)", c.op->name, lo, hi);
  infer_unary(c);
}

struct Def {
  const char* name;
  const char* doc;
};

}  // namespace

void define_elementwise_ops(Registry& r) {
  const Def binary[] = {
      {"add", "y = a + b, numpy broadcasting. dtypes f32, f64, f16, bf16, i8, u8, i32, i64; integers wrap. "
              "Gradient: add_bp."},
      {"sub", "y = a - b, numpy broadcasting. dtypes f32, f64, f16, bf16, i8, u8, i32, i64; integers wrap. "
              "Gradient: sub_bp."},
      {"mul", "y = a * b, numpy broadcasting. dtypes f32, f64, f16, bf16, i8, u8, i32, i64; integers wrap. "
              "Gradient: mul_bp."},
      {"div", "y = a / b, numpy broadcasting. dtypes f32, f64, f16, bf16, i8, u8, i32, i64. Integer division "
              "truncates toward zero (INT_MIN / -1 wraps to INT_MIN); an integer division by zero fails with "
              "NDRT_ERR_INVALID_ARGUMENT. Gradient: div_bp."},
      {"maximum", "y = max(a, b), numpy broadcasting; a NaN in either input gives NaN (as torch.maximum). "
                  "dtypes f32, f64, f16, bf16, i8, u8, i32, i64. Gradient: maximum_bp."},
      {"minimum", "y = min(a, b), numpy broadcasting; a NaN in either input gives NaN (as torch.minimum). "
                  "dtypes f32, f64, f16, bf16, i8, u8, i32, i64. Gradient: minimum_bp."},
  };
  for (const Def& d : binary) r.define({d.name, d.doc, {"a", "b"}, {"y"}, {}, infer_binary}).inplace = true;
  r.define({"pow", "y = a^b (C pow: pow(x, 0) = 1, a negative base with a non-integer exponent gives NaN), numpy "
                   "broadcasting. dtypes f32, f64, f16, bf16. Gradient: pow_bp.",
            {"a", "b"}, {"y"}, {}, infer_binary_float})
      .inplace = true;

  // Unary ops that also take integers (which dtypes is said in each doc; the rest are NOT_SUPPORTED).
  const Def unary[] = {
      {"neg", "y = -x. dtypes f32, f64, f16, bf16, i8, i32, i64 (integers wrap: -INT_MIN = INT_MIN); not u8. "
              "Gradient: dx = -dy (neg of dy; there is no neg_bp op)."},
      {"relu", "y = max(x, 0); NaN stays NaN. dtypes f32, f64, f16, bf16, i8, u8, i32, i64."},
      {"abs", "y = |x|. dtypes f32, f64, f16, bf16, i8, u8, i32, i64 (|INT_MIN| wraps to INT_MIN)."},
      {"sign", "y = -1, 0 or 1 by the sign of x (0 keeps its sign bit, NaN stays NaN). dtypes f32, f64, f16, "
               "bf16, i8, u8, i32, i64. Gradient: 0 almost everywhere (no sign_bp op)."},
      {"square", "y = x * x. dtypes f32, f64, f16, bf16, i8, u8, i32, i64 (integers wrap)."},
  };
  for (const Def& d : unary) r.define({d.name, d.doc, {"x"}, {"y"}, {}, infer_unary}).inplace = true;

  const Def unary_float[] = {
      {"exp", "y = e^x. dtypes f32, f64, f16, bf16 (f16/bf16 compute in f32)."},
      {"log", "y = ln x (NaN below 0, -inf at 0). dtypes f32, f64, f16, bf16."},
      {"expm1", "y = e^x - 1, accurate for small x. dtypes f32, f64, f16, bf16. Gradient: expm1_bp."},
      {"log1p", "y = ln(1 + x), accurate for small x (NaN below -1, -inf at -1). dtypes f32, f64, f16, bf16. "
                "Gradient: log1p_bp."},
      {"sqrt", "y = sqrt(x) (NaN below 0). dtypes f32, f64, f16, bf16."},
      {"rsqrt", "y = 1 / sqrt(x) (inf at 0, NaN below 0). dtypes f32, f64, f16, bf16. Gradient: rsqrt_bp."},
      {"reciprocal", "y = 1 / x. dtypes f32, f64, f16, bf16. Gradient: reciprocal_bp."},
      {"sin", "y = sin x (radians). dtypes f32, f64, f16, bf16. Gradient: sin_bp."},
      {"cos", "y = cos x (radians). dtypes f32, f64, f16, bf16. Gradient: cos_bp."},
      {"tanh", "y = tanh x. dtypes f32, f64, f16, bf16. Gradient: tanh_bp."},
      {"sigmoid", "y = 1 / (1 + e^-x), accurate in both tails. dtypes f32, f64, f16, bf16. Gradient: sigmoid_bp."},
      {"floor", "y = largest integer <= x. dtypes f32, f64, f16, bf16. Gradient: 0 almost everywhere (no floor_bp "
                "op)."},
      {"ceil", "y = smallest integer >= x. dtypes f32, f64, f16, bf16. Gradient: 0 almost everywhere (no ceil_bp "
               "op)."},
      {"round", "y = x rounded to the nearest integer, halves to even (as numpy.round and torch.round: "
                "round(2.5) = 2, round(-0.5) = -0). dtypes f32, f64, f16, bf16. Gradient: 0 almost everywhere "
                "(no round_bp op)."},
  };
  for (const Def& d : unary_float) r.define({d.name, d.doc, {"x"}, {"y"}, {}, infer_unary_float}).inplace = true;

  r.define({"leaky_relu", "y = x for x >= 0, alpha * x below. Attribute alpha (float, default 0.01, finite). dtypes "
                          "f32, f64, f16, bf16. Gradient: leaky_relu_bp.",
            {"x"}, {"y"}, {attr_float("alpha", 0.01)}, infer_alpha})
      .inplace = true;
  r.define({"elu", "y = x for x > 0, alpha * (e^x - 1) otherwise. Attribute alpha (float, default 1.0, finite). "
                   "dtypes f32, f64, f16, bf16. Gradient: elu_bp.",
            {"x"}, {"y"}, {attr_float("alpha", 1.0)}, infer_alpha})
      .inplace = true;
  r.define({"gelu", "Gaussian error linear unit. approximate = false (default): y = x * Phi(x) = x/2 * erfc(-x/sqrt(2)) "
                    "(the exact erf form, as torch's gelu). approximate = true: the tanh form y = x/2 * (1 + "
                    "tanh(sqrt(2/pi) * (x + 0.044715 x^3))) (torch's approximate='tanh'). dtypes f32, f64, f16, bf16. "
                    "Gradient: gelu_bp.",
            {"x"}, {"y"}, {attr_bool("approximate", false)}, infer_unary_float})
      .inplace = true;
  r.define({"softplus", "y = ln(1 + e^(beta x)) / beta, computed stably as max(x, 0) + ln(1 + e^-|beta x|) / beta for "
                        "every x (no linear cut-off: torch's threshold = 20 differs by < 3e-9 relative). Attribute beta "
                        "(float, default 1.0, finite and > 0). dtypes f32, f64, f16, bf16. Gradient: softplus_bp.",
            {"x"}, {"y"}, {attr_float("beta", 1.0)}, infer_softplus})
      .inplace = true;
  r.define({"clip", "y = min(max(x, min), max); NaN stays NaN. Attributes min, max (floats; defaults -DBL_MAX and "
                    "DBL_MAX: no bound; min <= max, neither NaN). For integer dtypes the bounds are rounded inward "
                    "(ceil(min), floor(max)) and saturated to the dtype's range. dtypes f32, f64, f16, bf16, i8, u8, "
                    "i32, i64. Gradient: clip_bp.",
            {"x"}, {"y"}, {attr_float("min", -1.7976931348623157e308), attr_float("max", 1.7976931348623157e308)},
            infer_clip})
      .inplace = true;

  define_elementwise_logic_ops(r);
  define_elementwise_grad_ops(r);
}

}  // namespace ndrt
