// Op definitions: pooling over the time axis of a masked sequence batch (DL4J's GlobalPoolingLayer
// on recurrent input, Keras' GlobalMaxPooling1D / GlobalAveragePooling1D with a mask).
#include "../error.hpp"
#include "ops.hpp"

namespace ndrt {

namespace {

enum { kMode = 0, kLayout = 1 };  // attribute order

// x [N, C, T] (layout 0) or [N, T, C] (layout 1); mask [N, T] of x's dtype. Returns the output [N, C].
Dims check_sequence_pool(const OpContext& c) {
  require_float(c, c.in[0]->dtype);
  require_same_dtype(c);
  const int64_t mode = c.attrs.get_int(kMode), layout = c.attrs.get_int(kLayout);
  if (mode < 0 || mode > 2)
    fail(NDRT_ERR_INVALID_ARGUMENT, "%s: attribute 'mode' must be 0 (max), 1 (avg) or 2 (sum), got %lld", c.op->name,
         (long long)mode);
  if (layout != 0 && layout != 1)
    fail(NDRT_ERR_INVALID_ARGUMENT, "%s: attribute 'layout' must be 0 (NCW) or 1 (NWC), got %lld", c.op->name,
         (long long)layout);
  const Tensor &x = *c.in[0], &mask = *c.in[1];
  if (x.rank() != 3)
    fail(NDRT_ERR_SHAPE_MISMATCH, "%s: x must be rank 3 (%s), got %s", c.op->name,
         layout ? "[batch, time, channels]" : "[batch, channels, time]", x.shape.str().c_str());
  const int64_t N = x.shape.d[0], C = x.shape.d[layout ? 2 : 1], T = x.shape.d[layout ? 1 : 2];
  if (mask.rank() != 2 || mask.shape.d[0] != N || mask.shape.d[1] != T)
    fail(NDRT_ERR_SHAPE_MISMATCH, "%s: mask must be [batch, time] = [%lld, %lld] for x %s, got %s", c.op->name,
         (long long)N, (long long)T, x.shape.str().c_str(), mask.shape.str().c_str());
  Dims y{};
  y.rank = 2;
  y.d[0] = N;
  y.d[1] = C;
  return y;
}

void infer_sequence_pool(OpContext& c) { c.spec[0] = {c.in[0]->dtype, check_sequence_pool(c)}; }

void infer_sequence_pool_bp(OpContext& c) {
  const Dims y = check_sequence_pool(c);
  if (c.in[2]->shape != y)
    fail(NDRT_ERR_SHAPE_MISMATCH, "%s: dy has shape %s but the forward output is %s", c.op->name,
         c.in[2]->shape.str().c_str(), y.str().c_str());
  c.spec[0] = {c.in[0]->dtype, c.in[0]->shape};
}

}  // namespace

void define_sequence_pool_ops(Registry& r) {
  const std::vector<AttrDef> attrs = {attr_int("mode", 0), attr_int("layout", 0)};
  r.define({"sequence_pool",
            "Pooling over time under a mask: y[n, c] = max / mean / sum of x[n, c, t] over the steps t with "
            "mask[n, t] != 0. x is [N, C, T] (layout 0, DL4J's recurrent activations) or [N, T, C] (layout 1); "
            "mask [N, T] of x's dtype (pass ones for none); y [N, C]. mode 0 = max, 1 = avg (divides by the "
            "row's count of valid steps), 2 = sum. A row without valid steps gives 0 in every mode. Max "
            "propagates NaN. f16/bf16 compute in f32.",
            {"x", "mask"},
            {"y"},
            attrs,
            infer_sequence_pool});
  r.define({"sequence_pool_bp",
            "Gradient of sequence_pool with respect to x: max gives dy[n, c] to the first valid step holding the "
            "maximum, avg dy / count and sum dy to every valid step; masked steps and rows without valid steps "
            "get 0. Inputs: the forward's x and mask, and dy [N, C]; same attributes.",
            {"x", "mask", "dy"},
            {"dx"},
            attrs,
            infer_sequence_pool_bp});
}

}  // namespace ndrt
