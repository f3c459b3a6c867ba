// Reductions over any set of axes (empty list = all axes), with keepdims.
#include "../error.hpp"
#include "ops.hpp"

namespace ndrt {

namespace {

enum { kAxes = 0, kKeepdims = 1 };

// `needs_elements`: the reduction has no identity element (max), so empty axes are an error.
void infer_reduce_impl(OpContext& c, bool needs_elements) {
  const Tensor& x = *c.in[0];
  uint32_t mask = reduce_mask(c.op->name, c.attrs.list_data(kAxes), c.attrs.list_size(kAxes), x.rank());
  bool keep = c.attrs.get_bool(kKeepdims);
  Dims s;
  s.rank = 0;
  for (int i = 0; i < x.rank(); ++i) {
    bool reduced = mask & (1u << i);
    if (reduced && needs_elements && x.shape.d[i] == 0)
      fail(NDRT_ERR_INVALID_ARGUMENT, "%s: cannot reduce over axis %d of size 0", c.op->name, i);
    if (!reduced)
      s.d[s.rank++] = x.shape.d[i];
    else if (keep)
      s.d[s.rank++] = 1;
  }
  c.spec[0] = {x.dtype, s};
}

void infer_reduce(OpContext& c) { infer_reduce_impl(c, false); }
void infer_max(OpContext& c) { infer_reduce_impl(c, true); }
void infer_mean(OpContext& c) {
  require_float(c, c.in[0]->dtype);
  infer_reduce_impl(c, false);
}

}  // namespace

void define_reduce_ops(Registry& r) {
  std::vector<AttrDef> attrs = {attr_ints("axes", {}), attr_bool("keepdims", false)};
  r.define({"sum", "y = sum of x over `axes` (all when empty); keepdims keeps reduced axes as size 1. "
                   "Sums accumulate in f64 for floats and i64 for integers.",
            {"x"}, {"y"}, attrs, infer_reduce});
  r.define({"mean", "y = mean of x over `axes` (all when empty); NaN over zero elements.", {"x"}, {"y"}, attrs,
            infer_mean});
  r.define({"max", "y = maximum of x over `axes` (all when empty); NaN propagates. Size-0 axes are an error.",
            {"x"}, {"y"}, attrs, infer_max});
}

}  // namespace ndrt
