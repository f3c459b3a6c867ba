// Comparisons, logical ops and where: elementwise ops whose output is (or is selected by) a bool.
#include "../error.hpp"
#include "ops.hpp"

namespace ndrt {

namespace {

void infer_compare(OpContext& c) {
  require_same_dtype(c);
  c.spec[0] = {NDRT_BOOL, broadcast_shapes(c.op->name, c.in[0]->shape, c.in[1]->shape)};
}

void infer_not(OpContext& c) { c.spec[0] = {NDRT_BOOL, c.in[0]->shape}; }

void infer_where(OpContext& c) {
  if (c.in[0]->dtype != NDRT_BOOL)
    fail(NDRT_ERR_DTYPE_MISMATCH, "where: cond must be bool, got %s (compare or cast it first)",
         dtype_name(c.in[0]->dtype));
  if (c.in[1]->dtype != c.in[2]->dtype)
    fail(NDRT_ERR_DTYPE_MISMATCH, "where: a is %s but b is %s (cast explicitly)", dtype_name(c.in[1]->dtype),
         dtype_name(c.in[2]->dtype));
  Dims ab = broadcast_shapes("where", c.in[1]->shape, c.in[2]->shape);
  c.spec[0] = {c.in[1]->dtype, broadcast_shapes("where", c.in[0]->shape, ab)};
  c.key_dtype = c.in[1]->dtype;
}

struct Def {
  const char* name;
  const char* doc;
};

}  // namespace

void define_elementwise_logic_ops(Registry& r) {
  const Def compare[] = {
      {"eq", "y = (a == b) as bool, numpy broadcasting. Any dtype (a and b alike); NaN == NaN is false."},
      {"ne", "y = (a != b) as bool, numpy broadcasting. Any dtype (a and b alike); NaN != x is true."},
      {"lt", "y = (a < b) as bool, numpy broadcasting. Any dtype (a and b alike; false < true); NaN compares false."},
      {"le", "y = (a <= b) as bool, numpy broadcasting. Any dtype (a and b alike); NaN compares false."},
      {"gt", "y = (a > b) as bool, numpy broadcasting. Any dtype (a and b alike); NaN compares false."},
      {"ge", "y = (a >= b) as bool, numpy broadcasting. Any dtype (a and b alike); NaN compares false."},
      {"logical_and", "y = a && b as bool, numpy broadcasting. Any dtype (a and b alike): numbers are true when "
                      "nonzero (NaN is true), as numpy.logical_and."},
      {"logical_or", "y = a || b as bool, numpy broadcasting. Any dtype (a and b alike): numbers are true when "
                     "nonzero (NaN is true)."},
      {"logical_xor", "y = (a != 0) != (b != 0) as bool, numpy broadcasting. Any dtype (a and b alike): numbers are "
                      "true when nonzero (NaN is true)."},
  };
  // In place: only with bool inputs (the output is bool and must be the very same view).
  for (const Def& d : compare) r.define({d.name, d.doc, {"a", "b"}, {"y"}, {}, infer_compare}).inplace = true;
  r.define({"logical_not", "y = !x as bool. Any dtype: numbers are true when nonzero (NaN is true), so y = (x == 0).",
            {"x"}, {"y"}, {}, infer_not})
      .inplace = true;
  r.define({"where", "y = cond ? a : b elementwise, with numpy broadcasting of all three. cond is bool; a and b share "
                     "any one dtype, which y takes.",
            {"cond", "a", "b"}, {"y"}, {}, infer_where})
      .inplace = true;
}

}  // namespace ndrt
