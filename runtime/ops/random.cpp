// Op definitions: uniform, normal, truncated_normal, bernoulli, dropout, dropout_bp. Every random op
// draws from the counter-based Philox4x32-10 stream of kernels/philox.hpp: element i of the output
// (row-major) is a pure function of (seed, offset + i), so results do not depend on thread count,
// chunking or device, and successive batches drawn at offsets 0, n, 2n, ... never overlap.
#include <cmath>

#include "../error.hpp"
#include "ops.hpp"

namespace ndrt {

namespace {

void check_offset(const OpContext& c, int k) {
  if (c.attrs.get_int(k) < 0)
    fail(NDRT_ERR_INVALID_ARGUMENT, "%s: offset is %lld, must be >= 0", c.op->name, (long long)c.attrs.get_int(k));
}

void check_finite(const OpContext& c, int k, const char* name) {
  double v = c.attrs.get_float(k);
  if (!std::isfinite(v)) fail(NDRT_ERR_INVALID_ARGUMENT, "%s: %s must be finite, got %g", c.op->name, name, v);
}

void check_probability(const OpContext& c, int k) {
  double p = c.attrs.get_float(k);
  if (!(p >= 0 && p <= 1)) fail(NDRT_ERR_INVALID_ARGUMENT, "%s: p is %g, must be in [0, 1]", c.op->name, p);
}

// Shape and dtype from the attributes, or from a given output (as fill); keyed by that dtype. The
// generating ops list the distribution's floats first, then seed, offset, dtype, shape.
void infer_generated(OpContext& c, int n_floats) {
  const int seed = n_floats;
  check_offset(c, seed + 1);
  if (c.out[0]) {
    c.spec[0] = {c.out[0]->dtype, c.out[0]->shape};
  } else {
    const Attrs& a = c.attrs;
    c.spec[0].dtype = a.get_dtype(seed + 2);
    c.spec[0].shape = make_dims(c.op->name, a.list_size(seed + 3), a.list_data(seed + 3));
  }
  c.key_dtype = c.spec[0].dtype;
}

void require_float_out(const OpContext& c) {
  if (!dtype_is_float(c.spec[0].dtype))
    fail(NDRT_ERR_DTYPE_MISMATCH, "%s: output dtype %s is not a floating-point dtype", c.op->name,
         dtype_name(c.spec[0].dtype));
}

void infer_uniform(OpContext& c) {
  check_finite(c, 0, "low");
  check_finite(c, 1, "high");
  if (!(c.attrs.get_float(0) < c.attrs.get_float(1)))
    fail(NDRT_ERR_INVALID_ARGUMENT, "uniform: low (%g) must be below high (%g)", c.attrs.get_float(0),
         c.attrs.get_float(1));
  if (!std::isfinite(c.attrs.get_float(1) - c.attrs.get_float(0)))
    fail(NDRT_ERR_INVALID_ARGUMENT, "uniform: high - low overflows (%g - %g)", c.attrs.get_float(1),
         c.attrs.get_float(0));
  infer_generated(c, 2);
  require_float_out(c);
}

void infer_normal(OpContext& c) {
  check_finite(c, 0, "mean");
  check_finite(c, 1, "std");
  if (c.attrs.get_float(1) < 0) fail(NDRT_ERR_INVALID_ARGUMENT, "normal: std is %g, must be >= 0", c.attrs.get_float(1));
  infer_generated(c, 2);
  require_float_out(c);
}

void infer_truncated_normal(OpContext& c) {
  check_finite(c, 0, "mean");
  check_finite(c, 1, "std");
  check_finite(c, 2, "a");
  check_finite(c, 3, "b");
  if (c.attrs.get_float(1) < 0)
    fail(NDRT_ERR_INVALID_ARGUMENT, "truncated_normal: std is %g, must be >= 0", c.attrs.get_float(1));
  if (!(c.attrs.get_float(2) < c.attrs.get_float(3)))
    fail(NDRT_ERR_INVALID_ARGUMENT, "truncated_normal: a (%g) must be below b (%g)", c.attrs.get_float(2),
         c.attrs.get_float(3));
  infer_generated(c, 4);
  require_float_out(c);
}

void infer_bernoulli(OpContext& c) {
  check_probability(c, 0);
  infer_generated(c, 1);
}

void check_mask_dtype(const OpContext& c, ndrt_dtype d, const char* what) {
  if (d != NDRT_BOOL && d != NDRT_U8)
    fail(NDRT_ERR_DTYPE_MISMATCH, "%s: %s has dtype %s, must be bool or u8", c.op->name, what, dtype_name(d));
}

void infer_dropout(OpContext& c) {
  check_probability(c, 0);
  check_offset(c, 2);
  const Tensor& x = *c.in[0];
  require_float(c, x.dtype);
  ndrt_dtype mask = NDRT_BOOL;
  if (c.out[1]) {
    check_mask_dtype(c, c.out[1]->dtype, "the given mask");
    mask = c.out[1]->dtype;
  }
  c.spec[0] = {x.dtype, x.shape};
  c.spec[1] = {mask, x.shape};
}

void infer_dropout_bp(OpContext& c) {
  check_probability(c, 0);
  const Tensor& dy = *c.in[0];
  const Tensor& mask = *c.in[1];
  require_float(c, dy.dtype);
  check_mask_dtype(c, mask.dtype, "mask");
  if (mask.shape != dy.shape)
    fail(NDRT_ERR_SHAPE_MISMATCH, "dropout_bp: mask has shape %s but dy has %s", mask.shape.str().c_str(),
         dy.shape.str().c_str());
  c.spec[0] = {dy.dtype, dy.shape};
}

std::vector<AttrDef> generated_attrs(std::vector<AttrDef> floats, ndrt_dtype dtype) {
  floats.push_back(attr_int("seed", 0));
  floats.push_back(attr_int("offset", 0));
  floats.push_back(attr_dtype("dtype", dtype));
  floats.push_back(attr_ints("shape", {}));
  return floats;
}

#define NDRT_RANDOM_STREAM                                                                                     \
  " Stream: Philox4x32-10 with key = seed (64 bits) and counter = block index; element i of the output "       \
  "(row-major) is stream element g = offset + i, so the same seed and offset give the same numbers on any "  \
  "thread count or device, and n values at offset o followed by m values at offset o + n equal n + m values " \
  "at offset o. 32-bit draws (f32, f16, bf16) take word g % 4 of block g / 4; f64 draws take two words, "    \
  "block g / 2. With y given, its shape and dtype are used and the dtype/shape attributes are ignored."

}  // namespace

void define_random_ops(Registry& r) {
  r.define({"uniform",
            "y ~ Uniform[low, high): u = k * 2^-24 from the top 24 bits of one 32-bit word (f32, f16, bf16) or "
            "k * 2^-53 from 53 bits of two words (f64), y = low + (high - low) * u computed in f64 and rounded to "
            "the dtype; a value that rounds up to high is replaced by the largest value of the dtype below high. "
            "Requires low < high, both finite." NDRT_RANDOM_STREAM,
            {},
            {"y"},
            generated_attrs({attr_float("low", 0.0), attr_float("high", 1.0)}, NDRT_F32),
            infer_uniform});
  r.define({"normal",
            "y ~ Normal(mean, std^2) by Box-Muller on pairs of stream elements: elements 2j and 2j+1 share "
            "u1 in (0, 1] and u2 in [0, 1); y[2j] = mean + std * r cos(t), y[2j+1] = mean + std * r sin(t), "
            "r = sqrt(-2 ln u1), t = 2 pi u2. For f32, f16 and bf16, r and t come from 24-bit uniforms in f32 "
            "arithmetic; for f64 from 53-bit uniforms in f64; mean + std * z is computed in f64 and rounded to the "
            "dtype. Requires std >= 0." NDRT_RANDOM_STREAM,
            {},
            {"y"},
            generated_attrs({attr_float("mean", 0.0), attr_float("std", 1.0)}, NDRT_F32),
            infer_normal});
  r.define({"truncated_normal",
            "y ~ Normal(mean, std^2) conditioned on mean + a*std <= y <= mean + b*std (a and b in units of "
            "std; default +-2, as the usual weight initialisation). Deterministic inverse CDF, one stream "
            "element per value, no rejection loop: x = Phi^-1(Phi(a) + u (Phi(b) - Phi(a))) in f64 (Wichura's "
            "AS241, about 1e-16 relative; intervals mostly above 0 are mirrored to keep precision in the tail), "
            "y = mean + std * x rounded to the dtype (f32, f64). u is 24-bit for f32, 53-bit for f64. Requires "
            "a < b, finite, and std >= 0." NDRT_RANDOM_STREAM,
            {},
            {"y"},
            generated_attrs({attr_float("mean", 0.0), attr_float("std", 1.0), attr_float("a", -2.0),
                             attr_float("b", 2.0)},
                            NDRT_F32),
            infer_truncated_normal});
  r.define({"bernoulli",
            "y ~ Bernoulli(p): y = 1 (true) with probability p, else 0, in any dtype. Element g is 1 when its "
            "32-bit word w satisfies w < ceil(p * 2^32) (p = 0: never, p = 1: always), whatever the dtype; "
            "dropout uses the same test, so dropout's mask is !bernoulli(p) for the same seed and offset. "
            "Requires 0 <= p <= 1." NDRT_RANDOM_STREAM,
            {},
            {"y"},
            generated_attrs({attr_float("p", 0.5)}, NDRT_F32),
            infer_bernoulli});
  r.define({"dropout",
            "Inverted dropout: mask = element kept (probability 1 - p), y = x * mask / (1 - p) (y = 0 when "
            "p = 1), computed in f32 for f16/bf16. Element i (row-major over x) is dropped when its stream "
            "word w_g, g = offset + i, satisfies w_g < ceil(p * 2^32) - the bernoulli(p) test, identical for "
            "every dtype of x. Outputs y (x's dtype) and mask (bool, or u8 when a u8 mask is given) for "
            "dropout_bp; y may be x itself (in place). Draw the next batch at offset + numel(x). Stream: "
            "Philox4x32-10, key = seed, word g % 4 of block g / 4.",
            {"x"},
            {"y", "mask"},
            {attr_float("p", 0.5), attr_int("seed", 0), attr_int("offset", 0)},
            infer_dropout})
      .inplace = true;
  r.define({"dropout_bp",
            "Gradient of dropout: dx = dy * mask / (1 - p) (0 when p = 1), from dropout's mask output (bool or "
            "u8, dy's shape) and the same p. dx may be dy itself (in place).",
            {"dy", "mask"},
            {"dx"},
            {attr_float("p", 0.5)},
            infer_dropout_bp})
      .inplace = true;
}

}  // namespace ndrt
