// Op definitions: batch norm and layer norm forward/backward.
//
// Running statistics: batch_norm returns the updated running mean and variance as outputs 3 and 4.
// The op is marked in place, so passing the running_mean / running_var input handles as those
// outputs updates them in place (the usual training loop); passing 0 gets fresh tensors and leaves
// the inputs untouched (functional style). No op ever writes an input it does not also return.
#include <cmath>

#include "../error.hpp"
#include "ops.hpp"

namespace ndrt {

namespace {

// batch_norm*: ints {axis}, floats {momentum, eps} (batch_norm) or {eps} (inference).
enum { kAxis = 0 };

int32_t channel_axis(const OpContext& c, const Tensor& x) {
  if (x.rank() == 0) fail(NDRT_ERR_SHAPE_MISMATCH, "%s: x needs a channel axis (rank >= 1), got a scalar", c.op->name);
  return normalize_axis(c.op->name, c.attrs.get_int(kAxis), x.rank());
}

void check_eps(const OpContext& c, double eps) {
  if (!(eps >= 0) || !std::isfinite(eps))
    fail(NDRT_ERR_INVALID_ARGUMENT, "%s: eps must be finite and >= 0, got %g", c.op->name, eps);
}

// Inputs `first`.. are per-channel [C] vectors of x's dtype.
void check_channel_vectors(const OpContext& c, int first, int last, const char* const* names, int32_t axis) {
  const int64_t C = c.in[0]->shape.d[axis];
  for (int k = first; k <= last; ++k) {
    const Tensor& v = *c.in[k];
    if (v.dtype != c.in[0]->dtype)
      fail(NDRT_ERR_DTYPE_MISMATCH, "%s: %s is %s but x is %s (cast explicitly)", c.op->name, names[k],
           dtype_name(v.dtype), dtype_name(c.in[0]->dtype));
    if (v.rank() != 1 || v.shape.d[0] != C)
      fail(NDRT_ERR_SHAPE_MISMATCH, "%s: %s must be [C] = [%lld] (x %s, channel axis %d), got %s", c.op->name, names[k],
           (long long)C, c.in[0]->shape.str().c_str(), int(axis), v.shape.str().c_str());
  }
}

Dims vec_dims(int64_t n) {
  Dims s{};
  s.rank = 1;
  s.d[0] = n;
  return s;
}

const char* const kBnNames[] = {"x", "gamma", "beta", "running_mean", "running_var"};
const char* const kBnBpNames[] = {"x", "gamma", "mean", "invstd", "dy"};

void infer_batch_norm(OpContext& c) {
  const Tensor& x = *c.in[0];
  require_float(c, x.dtype);
  const int32_t axis = channel_axis(c, x);
  const int64_t C = x.shape.d[axis];
  check_channel_vectors(c, 1, 4, kBnNames, axis);
  const double momentum = c.attrs.get_float(1), eps = c.attrs.get_float(2);
  if (!(momentum >= 0 && momentum <= 1))
    fail(NDRT_ERR_INVALID_ARGUMENT, "batch_norm: momentum must be in [0, 1], got %g", momentum);
  check_eps(c, eps);
  const int64_t per_channel = C ? x.numel() / C : 0;
  if (C > 0 && per_channel < 2)
    fail(NDRT_ERR_INVALID_ARGUMENT,
         "batch_norm: training needs more than 1 value per channel, got %lld (x %s, channel axis %d)",
         (long long)per_channel, x.shape.str().c_str(), int(axis));
  c.spec[0] = {x.dtype, x.shape};
  for (int k = 1; k < 5; ++k) c.spec[k] = {x.dtype, vec_dims(C)};
}

void infer_batch_norm_inference(OpContext& c) {
  const Tensor& x = *c.in[0];
  require_float(c, x.dtype);
  const int32_t axis = channel_axis(c, x);
  check_channel_vectors(c, 1, 4, kBnNames, axis);
  check_eps(c, c.attrs.get_float(1));
  c.spec[0] = {x.dtype, x.shape};
}

void infer_batch_norm_bp(OpContext& c) {
  const Tensor& x = *c.in[0];
  require_float(c, x.dtype);
  const int32_t axis = channel_axis(c, x);
  const int64_t C = x.shape.d[axis];
  check_channel_vectors(c, 1, 3, kBnBpNames, axis);
  const Tensor& dy = *c.in[4];
  if (dy.dtype != x.dtype)
    fail(NDRT_ERR_DTYPE_MISMATCH, "batch_norm_bp: dy is %s but x is %s", dtype_name(dy.dtype), dtype_name(x.dtype));
  if (dy.shape != x.shape)
    fail(NDRT_ERR_SHAPE_MISMATCH, "batch_norm_bp: dy has shape %s but x has shape %s", dy.shape.str().c_str(),
         x.shape.str().c_str());
  c.spec[0] = {x.dtype, x.shape};
  c.spec[1] = c.spec[2] = {x.dtype, vec_dims(C)};
}

// layer_norm*: ints {axis}, floats {eps}. Normalised axes: [axis, rank).
int32_t first_normalized_axis(const OpContext& c, const Tensor& x) {
  if (x.rank() == 0) fail(NDRT_ERR_SHAPE_MISMATCH, "%s: x needs rank >= 1, got a scalar", c.op->name);
  return normalize_axis(c.op->name, c.attrs.get_int(kAxis), x.rank());
}

Dims tail_dims(const Tensor& x, int32_t axis) {
  Dims s{};
  s.rank = x.rank() - axis;
  for (int i = axis; i < x.rank(); ++i) s.d[i - axis] = x.shape.d[i];
  return s;
}
Dims head_dims(const Tensor& x, int32_t axis) {
  Dims s{};
  s.rank = axis;
  for (int i = 0; i < axis; ++i) s.d[i] = x.shape.d[i];
  return s;
}

void check_same(const OpContext& c, int k, const char* name, const Dims& want, const char* what) {
  const Tensor& v = *c.in[k];
  if (v.dtype != c.in[0]->dtype)
    fail(NDRT_ERR_DTYPE_MISMATCH, "%s: %s is %s but x is %s (cast explicitly)", c.op->name, name, dtype_name(v.dtype),
         dtype_name(c.in[0]->dtype));
  if (v.shape != want)
    fail(NDRT_ERR_SHAPE_MISMATCH, "%s: %s must have shape %s (%s), got %s", c.op->name, name, want.str().c_str(), what,
         v.shape.str().c_str());
}

void infer_layer_norm(OpContext& c) {
  const Tensor& x = *c.in[0];
  require_float(c, x.dtype);
  const int32_t axis = first_normalized_axis(c, x);
  const Dims tail = tail_dims(x, axis), head = head_dims(x, axis);
  check_same(c, 1, "gamma", tail, "the normalized axes of x");
  check_same(c, 2, "beta", tail, "the normalized axes of x");
  check_eps(c, c.attrs.get_float(1));
  c.spec[0] = {x.dtype, x.shape};
  c.spec[1] = c.spec[2] = {x.dtype, head};
}

void infer_layer_norm_bp(OpContext& c) {
  const Tensor& x = *c.in[0];
  require_float(c, x.dtype);
  const int32_t axis = first_normalized_axis(c, x);
  const Dims tail = tail_dims(x, axis), head = head_dims(x, axis);
  check_same(c, 1, "gamma", tail, "the normalized axes of x");
  check_same(c, 2, "mean", head, "the leading axes of x");
  check_same(c, 3, "invstd", head, "the leading axes of x");
  check_same(c, 4, "dy", x.shape, "the shape of x");
  c.spec[0] = {x.dtype, x.shape};
  c.spec[1] = c.spec[2] = {x.dtype, tail};
}

}  // namespace

void define_norm_ops(Registry& r) {
  r.define({"batch_norm",
            "Batch normalisation, training mode. Per channel c (the `axis` of x: 1 for NC and NCHW, the default; "
            "-1 for NHWC), over every other axis: mean_c, var_c (biased, divided by the count n); "
            "y = (x - mean_c) * invstd_c * gamma_c + beta_c with invstd_c = 1 / sqrt(var_c + eps). Outputs: y, "
            "mean [C], invstd [C] (saved for batch_norm_bp), and the updated running statistics "
            "running_mean' = (1 - momentum) running_mean + momentum mean, running_var' = (1 - momentum) "
            "running_var + momentum var * n / (n - 1) (unbiased, as PyTorch). Pass the running_mean / "
            "running_var handles as outputs 3 / 4 to update them in place, or 0 for new tensors. Needs n >= 2. "
            "Attributes: ints {axis}, floats {momentum, eps}.",
            {"x", "gamma", "beta", "running_mean", "running_var"},
            {"y", "mean", "invstd", "running_mean_out", "running_var_out"},
            {attr_int("axis", 1), attr_float("momentum", 0.1), attr_float("eps", 1e-5)},
            infer_batch_norm})
      .inplace = true;
  r.define({"batch_norm_inference",
            "Batch normalisation with the running statistics: y = (x - running_mean_c) / sqrt(running_var_c + eps) "
            "* gamma_c + beta_c, channel axis `axis` (default 1). May run in place (y the same view as x).",
            {"x", "gamma", "beta", "running_mean", "running_var"},
            {"y"},
            {attr_int("axis", 1), attr_float("eps", 1e-5)},
            infer_batch_norm_inference})
      .inplace = true;
  r.define({"batch_norm_bp",
            "Gradient of batch_norm (training mode, batch statistics). Inputs: x, gamma, and mean, invstd as "
            "batch_norm returned them, and dy. Outputs: dx, dgamma = sum(dy * xhat), dbeta = sum(dy) per channel, "
            "xhat = (x - mean) * invstd. dx may be the same view as dy or x.",
            {"x", "gamma", "mean", "invstd", "dy"},
            {"dx", "dgamma", "dbeta"},
            {attr_int("axis", 1)},
            infer_batch_norm_bp})
      .inplace = true;
  r.define({"layer_norm",
            "Layer normalisation over the trailing axes [axis, rank) (axis default -1: the last axis only): per "
            "leading index, mean and biased variance over the normalised elements, y = (x - mean) * invstd * gamma "
            "+ beta, invstd = 1 / sqrt(var + eps). gamma and beta have the shape of the normalised axes. Outputs: "
            "y, mean and invstd (shape of the leading axes, saved for layer_norm_bp). May run in place.",
            {"x", "gamma", "beta"},
            {"y", "mean", "invstd"},
            {attr_int("axis", -1), attr_float("eps", 1e-5)},
            infer_layer_norm})
      .inplace = true;
  r.define({"layer_norm_bp",
            "Gradient of layer_norm. Inputs: x, gamma, mean and invstd as layer_norm returned them, and dy. "
            "Outputs: dx, dgamma = sum over leading indices of dy * xhat, dbeta = sum of dy. dx may be the same "
            "view as dy or x.",
            {"x", "gamma", "mean", "invstd", "dy"},
            {"dx", "dgamma", "dbeta"},
            {attr_int("axis", -1)},
            infer_layer_norm_bp})
      .inplace = true;
}

}  // namespace ndrt
