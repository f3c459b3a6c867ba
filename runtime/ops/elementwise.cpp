// Elementwise ops: unary (same shape) and binary with numpy broadcasting. Both inputs of a binary
// op share one dtype: there is no implicit promotion (cast explicitly).
#include "../error.hpp"
#include "ops.hpp"

namespace ndrt {

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

}  // namespace

void define_elementwise_ops(Registry& r) {
  struct Def {
    const char* name;
    const char* doc;
  };
  const Def binary[] = {
      {"add", "y = a + b, numpy broadcasting."},
      {"sub", "y = a - b, numpy broadcasting."},
      {"mul", "y = a * b, numpy broadcasting."},
      {"div", "y = a / b, numpy broadcasting. Integer division truncates toward zero; an integer "
              "division by zero fails with NDRT_ERR_INVALID_ARGUMENT."},
  };
  for (const Def& d : binary) {
    OpDef& op = r.define({d.name, d.doc, {"a", "b"}, {"y"}, {}, infer_binary});
    op.inplace = true;
  }
  const Def unary[] = {{"neg", "y = -x."}, {"relu", "y = max(x, 0)."}};
  for (const Def& d : unary) r.define({d.name, d.doc, {"x"}, {"y"}, {}, infer_unary}).inplace = true;
  const Def unary_float[] = {{"exp", "y = e^x."}, {"log", "y = ln x (NaN below 0, -inf at 0)."}};
  for (const Def& d : unary_float) r.define({d.name, d.doc, {"x"}, {"y"}, {}, infer_unary_float}).inplace = true;
}

}  // namespace ndrt
