// Gradients of the elementwise activations and unary maps: <op>_bp takes the forward input x (or the
// forward output y where the derivative is cheapest from it, as for sigmoid, tanh, exp, expm1,
// sqrt, rsqrt, reciprocal) plus the incoming gradient dy, and produces dx. No broadcasting: the two
// inputs have one shape, which dx takes. neg_bp is -dy (use neg); sign, floor, ceil and round have
// zero gradient almost everywhere, so they have no _bp op (a zero-filled dx is what they would give).
// The broadcasting binary ops' gradients (add_bp ... pow_bp) are in elementwise_grad_binary.cpp.
#include <cmath>

#include "../error.hpp"
#include "ops.hpp"

namespace ndrt {

namespace {

void infer_bp(OpContext& c) {
  require_same_dtype(c);
  require_float(c, c.in[0]->dtype);
  if (c.in[0]->shape != c.in[1]->shape)
    fail(NDRT_ERR_SHAPE_MISMATCH, "%s: %s has shape %s but dy has shape %s (they must match)", c.op->name,
         c.op->inputs[0], c.in[0]->shape.str().c_str(), c.in[1]->shape.str().c_str());
  c.spec[0] = {c.in[0]->dtype, c.in[0]->shape};
}

void infer_bp_alpha(OpContext& c) {
  double v = c.attrs.get_float(0);
  if (!std::isfinite(v))
    fail(NDRT_ERR_INVALID_ARGUMENT, "%s: attribute 'alpha' must be a finite number, got %g", c.op->name, v);
  infer_bp(c);
}

void infer_bp_beta(OpContext& c) {
  double v = c.attrs.get_float(0);
  if (!std::isfinite(v) || !(v > 0))
    fail(NDRT_ERR_INVALID_ARGUMENT, "%s: attribute 'beta' must be a finite positive number, got %g", c.op->name, v);
  infer_bp(c);
}

void infer_bp_clip(OpContext& c) {
  double lo = c.attrs.get_float(0), hi = c.attrs.get_float(1);
  if (std::isnan(lo) || std::isnan(hi))
    fail(NDRT_ERR_INVALID_ARGUMENT, "%s: the bounds min and max must not be NaN", c.op->name);
  if (lo > hi) fail(NDRT_ERR_INVALID_ARGUMENT, "%s: min (%g) is greater than max (%g)", c.op->name, lo, hi);
  infer_bp(c);
}

struct Def {
  const char* name;
  const char* first;  // "x" or "y"
  const char* doc;
};

}  // namespace

void define_elementwise_grad_binary_ops(Registry& r);  // elementwise_grad_binary.cpp

void define_elementwise_grad_ops(Registry& r) {
  const Def plain[] = {
      {"relu_bp", "x", "Gradient of relu from its input: dx = dy where x > 0, else 0. dtypes f32, f64, f16, bf16."},
      {"sigmoid_bp", "y", "Gradient of sigmoid from its OUTPUT y = sigmoid(x): dx = dy * y * (1 - y). dtypes f32, f64, "
                          "f16, bf16."},
      {"tanh_bp", "y", "Gradient of tanh from its OUTPUT y = tanh(x): dx = dy * (1 - y^2). dtypes f32, f64, f16, bf16."},
      {"exp_bp", "y", "Gradient of exp from its OUTPUT y = e^x: dx = dy * y. dtypes f32, f64, f16, bf16."},
      {"log_bp", "x", "Gradient of log from its input: dx = dy / x. dtypes f32, f64, f16, bf16."},
      {"sqrt_bp", "y", "Gradient of sqrt from its OUTPUT y = sqrt(x): dx = dy / (2 y). dtypes f32, f64, f16, bf16."},
      {"abs_bp", "x", "Gradient of abs from its input: dx = dy * sign(x) (0 at x = 0). dtypes f32, f64, f16, bf16."},
      {"square_bp", "x", "Gradient of square from its input: dx = 2 x dy. dtypes f32, f64, f16, bf16."},
      {"sin_bp", "x", "Gradient of sin from its input: dx = dy * cos(x). dtypes f32, f64, f16, bf16."},
      {"cos_bp", "x", "Gradient of cos from its input: dx = -dy * sin(x). dtypes f32, f64, f16, bf16."},
      {"expm1_bp", "y", "Gradient of expm1 from its OUTPUT y = e^x - 1: dx = dy * (y + 1) (as torch; where e^x is "
                        "below y's resolution next to -1, y + 1 is 0: x below about -17 for f32, -37 for f64, -7.6 "
                        "for f16, -5.5 for bf16). dtypes f32, f64, f16, bf16."},
      {"log1p_bp", "x", "Gradient of log1p from its input: dx = dy / (1 + x). dtypes f32, f64, f16, bf16."},
      {"rsqrt_bp", "y", "Gradient of rsqrt from its OUTPUT y = 1 / sqrt(x): dx = -dy * y^3 / 2. dtypes f32, f64, "
                        "f16, bf16."},
      {"reciprocal_bp", "y", "Gradient of reciprocal from its OUTPUT y = 1 / x: dx = -dy * y^2. dtypes f32, f64, f16, "
                             "bf16."},
  };
  for (const Def& d : plain) r.define({d.name, d.doc, {d.first, "dy"}, {"dx"}, {}, infer_bp}).inplace = true;

  r.define({"leaky_relu_bp", "Gradient of leaky_relu from its input: dx = dy where x > 0, alpha * dy elsewhere. "
                             "Attribute alpha (float, default 0.01, finite). dtypes f32, f64, f16, bf16.",
            {"x", "dy"}, {"dx"}, {attr_float("alpha", 0.01)}, infer_bp_alpha})
      .inplace = true;
  r.define({"elu_bp", "Gradient of elu from its input: dx = dy where x > 0, dy * alpha * e^x elsewhere. Attribute alpha "
                      "(float, default 1.0, finite). dtypes f32, f64, f16, bf16.",
            {"x", "dy"}, {"dx"}, {attr_float("alpha", 1.0)}, infer_bp_alpha})
      .inplace = true;
  r.define({"gelu_bp", "Gradient of gelu from its input. approximate = false (default): dx = dy * (Phi(x) + x * phi(x)) "
                       "with the normal cdf Phi and density phi. approximate = true: the derivative of the tanh form, "
                       "dx = dy * (0.5 (1 + t) + 0.5 x (1 - t^2) sqrt(2/pi) (1 + 3 * 0.044715 x^2)), t = tanh(sqrt(2/pi) "
                       "(x + 0.044715 x^3)). dtypes f32, f64, f16, bf16.",
            {"x", "dy"}, {"dx"}, {attr_bool("approximate", false)}, infer_bp})
      .inplace = true;
  r.define({"softplus_bp", "Gradient of softplus from its input: dx = dy * sigmoid(beta x). Attribute beta (float, "
                           "default 1.0, finite and > 0). dtypes f32, f64, f16, bf16.",
            {"x", "dy"}, {"dx"}, {attr_float("beta", 1.0)}, infer_bp_beta})
      .inplace = true;
  r.define({"clip_bp", "Gradient of clip from its input: dx = dy where min <= x <= max, else 0 (as torch.clamp). "
                       "Attributes min, max as for clip. dtypes f32, f64, f16, bf16.",
            {"x", "dy"}, {"dx"}, {attr_float("min", -1.7976931348623157e308), attr_float("max", 1.7976931348623157e308)},
            infer_bp_clip})
      .inplace = true;
  define_elementwise_grad_binary_ops(r);
}

}  // namespace ndrt
