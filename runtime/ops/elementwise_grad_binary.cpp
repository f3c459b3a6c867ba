// Gradients of the broadcasting binary ops: <op>_bp takes the forward inputs a, b and dy (shaped
// like the forward output, the broadcast of a and b) and produces da and db shaped like a and b:
// the elementwise partial derivative times dy, summed over the axes that a (or b) was broadcast
// along (numpy's "unbroadcast").
#include "../error.hpp"
#include "ops.hpp"

namespace ndrt {

namespace {

void infer_binary_bp(OpContext& c) {
  require_same_dtype(c);
  require_float(c, c.in[0]->dtype);
  const Tensor &a = *c.in[0], &b = *c.in[1], &dy = *c.in[2];
  const Dims s = broadcast_shapes(c.op->name, a.shape, b.shape);
  if (dy.shape != s)
    fail(NDRT_ERR_SHAPE_MISMATCH, "%s: dy has shape %s but a %s and b %s broadcast to %s", c.op->name,
         dy.shape.str().c_str(), a.shape.str().c_str(), b.shape.str().c_str(), s.str().c_str());
  // Named here in the op's terms (dispatch checks it too): disjoint views of one buffer are fine.
  if (c.out[0] && c.out[1] && c.out[0]->overlaps(*c.out[1]))
    fail(NDRT_ERR_INVALID_ARGUMENT, "%s: outputs da and db share memory", c.op->name);
  c.spec[0] = {a.dtype, a.shape};
  c.spec[1] = {a.dtype, b.shape};
}

struct Def {
  const char* name;
  const char* doc;
};

}  // namespace

#define NDRT_BINARY_BP_COMMON                                                                                 \
  " Inputs: the forward inputs a, b and dy, the gradient of the forward output (exactly the broadcast shape " \
  "of a and b). Outputs: da (a's shape) and db (b's shape); each is summed over the axes its input was "      \
  "broadcast along (the sum accumulates in f64). dtypes f32, f64, f16, bf16 (f16/bf16 compute in f32 and "    \
  "round once). da and db may not overlap each other or an input (disjoint views of one buffer are fine)."

void define_elementwise_grad_binary_ops(Registry& r) {
  const Def defs[] = {
      {"add_bp", "Gradient of add: da = dy, db = dy (then summed back to a's and b's shapes)." NDRT_BINARY_BP_COMMON},
      {"sub_bp", "Gradient of sub: da = dy, db = -dy (then summed back)." NDRT_BINARY_BP_COMMON},
      {"mul_bp", "Gradient of mul: da = dy * b, db = dy * a (then summed back)." NDRT_BINARY_BP_COMMON},
      {"div_bp", "Gradient of div: da = dy / b, db = -(dy / b) * (a / b) (then summed back)." NDRT_BINARY_BP_COMMON},
      {"maximum_bp",
       "Gradient of maximum: dy goes to the input maximum picked, da = dy where a > b or a is NaN, db = dy where "
       "b > a or b is NaN (and a is not); ties (a == b) split it evenly, dy / 2 each (as torch.maximum). Where one "
       "side gets nothing its gradient is exactly 0, even for an infinite or NaN dy." NDRT_BINARY_BP_COMMON},
      {"minimum_bp",
       "Gradient of minimum: as maximum_bp with the smaller input (ties split evenly, a NaN input takes "
       "dy)." NDRT_BINARY_BP_COMMON},
      {"pow_bp",
       "Gradient of pow (y = a^b): da = dy * b * a^(b - 1), 0 where b = 0; db = dy * a^b * ln(a), 0 where a = 0 and "
       "b >= 0 (the limits torch uses). A negative a gives NaN in db (ln a), as in torch." NDRT_BINARY_BP_COMMON},
  };
  for (const Def& d : defs) r.define({d.name, d.doc, {"a", "b", "dy"}, {"da", "db"}, {}, infer_binary_bp});
}

#undef NDRT_BINARY_BP_COMMON

}  // namespace ndrt
