// fill, copy, cast.
#include "../error.hpp"
#include "ops.hpp"

namespace ndrt {

namespace {

enum { kFillValue = 0, kFillDtype = 1, kFillShape = 2 };

void infer_fill(OpContext& c) {
  if (c.out[0]) {  // a given output decides shape and dtype
    c.spec[0] = {c.out[0]->dtype, c.out[0]->shape};
  } else {
    const Attrs& a = c.attrs;
    c.spec[0].dtype = a.get_dtype(kFillDtype);
    c.spec[0].shape = make_dims("fill", a.list_size(kFillShape), a.list_data(kFillShape));
  }
  c.key_dtype = c.spec[0].dtype;
}

void infer_same(OpContext& c) { c.spec[0] = {c.in[0]->dtype, c.in[0]->shape}; }

void infer_cast(OpContext& c) { c.spec[0] = {c.attrs.get_dtype(0), c.in[0]->shape}; }

}  // namespace

void define_creation_ops(Registry& r) {
  r.define({"fill",
            "Every element of y set to `value` (converted to y's dtype; for bool, nonzero is true). "
            "With y given, its shape and dtype are used and the dtype/shape attributes are ignored.",
            {},
            {"y"},
            {attr_float("value", 0.0), attr_dtype("dtype", NDRT_F32), attr_ints("shape", {})},
            infer_fill});
  r.define({"copy", "y = x elementwise; x and y may have any strides (y a view of other storage).", {"x"}, {"y"}, {},
            infer_same});
  r.define({"cast",
            "y = x converted to `dtype`. Floats to integers truncate toward zero (out-of-range values are "
            "undefined as in C); to f16/bf16 rounds to nearest even; to bool is x != 0.",
            {"x"},
            {"y"},
            {attr_dtype("dtype", 0)},
            infer_cast});
}

}  // namespace ndrt
