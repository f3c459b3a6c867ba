// Reductions over any set of axes (empty list = all axes), with keepdims; argmax/argmin along one
// axis; the gradients sum_bp, mean_bp, max_bp, min_bp, prod_bp, norm1_bp, norm2_bp, var_bp, std_bp,
// logsumexp_bp.
#include "../error.hpp"
#include "ops.hpp"

namespace ndrt {

namespace {

enum { kAxes = 0, kKeepdims = 1, kCorrection = 2 };
enum { kArgAxis = 0, kArgKeepdims = 1 };

// Output shape of x reduced over `mask`. `needs_elements`: the reduction has no identity element
// (max, min), so reducing a size-0 axis is an error.
Dims reduced_shape(const OpContext& c, const Tensor& x, uint32_t mask, bool keep, bool needs_elements) {
  Dims s{};
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
  return s;
}

uint32_t mask_of(const OpContext& c) {
  return reduce_mask(c.op->name, c.attrs.list_data(kAxes), c.attrs.list_size(kAxes), c.in[0]->rank());
}

void infer_reduce_impl(OpContext& c, bool needs_elements) {
  const Tensor& x = *c.in[0];
  c.spec[0] = {x.dtype, reduced_shape(c, x, mask_of(c), c.attrs.get_bool(kKeepdims), needs_elements)};
}

void infer_reduce(OpContext& c) { infer_reduce_impl(c, false); }
void infer_minmax(OpContext& c) { infer_reduce_impl(c, true); }
void infer_reduce_float(OpContext& c) {
  require_float(c, c.in[0]->dtype);
  infer_reduce_impl(c, false);
}
void infer_var(OpContext& c) {
  require_float(c, c.in[0]->dtype);
  int64_t corr = c.attrs.get_int(kCorrection);
  if (corr < 0) fail(NDRT_ERR_INVALID_ARGUMENT, "%s: correction must be >= 0, got %lld", c.op->name, (long long)corr);
  infer_reduce_impl(c, false);
}

void infer_arg(OpContext& c) {
  const Tensor& x = *c.in[0];
  int64_t axis = c.attrs.get_int(kArgAxis);
  bool keep = c.attrs.get_bool(kArgKeepdims);
  uint32_t mask = 0;
  if (x.rank() == 0) {  // a scalar is its own argmax along axis 0 / -1
    if (axis != 0 && axis != -1)
      fail(NDRT_ERR_INVALID_ARGUMENT, "%s: axis %lld is out of range for rank 0 (use 0 or -1)", c.op->name,
           (long long)axis);
  } else {
    mask = 1u << normalize_axis(c.op->name, axis, x.rank());
  }
  c.spec[0] = {NDRT_I64, reduced_shape(c, x, mask, keep, true)};
}

void infer_reduce_bp_impl(OpContext& c, bool needs_elements) {
  require_same_dtype(c);
  const Tensor &x = *c.in[0], &dy = *c.in[1];
  uint32_t mask = mask_of(c);
  bool keep = c.attrs.get_bool(kKeepdims);
  Dims want = reduced_shape(c, x, mask, keep, needs_elements);
  if (dy.shape != want)
    fail(NDRT_ERR_SHAPE_MISMATCH, "%s: dy has shape %s but x %s reduced over the axes (keepdims %d) has shape %s",
         c.op->name, dy.shape.str().c_str(), x.shape.str().c_str(), int(keep), want.str().c_str());
  c.spec[0] = {x.dtype, x.shape};
}

void infer_reduce_bp(OpContext& c) { infer_reduce_bp_impl(c, false); }

// Gradients of the float reductions (reduce_bp.cpp): float dtypes only.
void infer_grad_float(OpContext& c) {
  require_same_dtype(c);
  require_float(c, c.in[0]->dtype);
  infer_reduce_bp_impl(c, false);
}
void infer_grad_minmax(OpContext& c) {
  require_same_dtype(c);
  require_float(c, c.in[0]->dtype);
  infer_reduce_bp_impl(c, true);
}
void infer_grad_var(OpContext& c) {
  require_same_dtype(c);
  require_float(c, c.in[0]->dtype);
  int64_t corr = c.attrs.get_int(kCorrection);
  if (corr < 0) fail(NDRT_ERR_INVALID_ARGUMENT, "%s: correction must be >= 0, got %lld", c.op->name, (long long)corr);
  infer_reduce_bp_impl(c, false);
}

}  // namespace

void define_reduce_grad_ops(Registry& r, const std::vector<AttrDef>& attrs, const std::vector<AttrDef>& var_attrs);

void define_reduce_ops(Registry& r) {
  std::vector<AttrDef> attrs = {attr_ints("axes", {}), attr_bool("keepdims", false)};
  r.define({"sum",
            "y = sum of x over `axes` (all when empty); keepdims keeps reduced axes as size 1. "
            "Accumulates in f64 for f32/f64 (f32 inputs are first added in groups of 4 in f32: the "
            "error stays below 2^-22 sum|x| for any length), in f32 for f16/bf16, in i64 for integers "
            "(the result wraps to the dtype). Zero elements sum to 0.",
            {"x"},
            {"y"},
            attrs,
            infer_reduce});
  r.define({"mean",
            "y = mean of x over `axes` (all when empty); NaN over zero elements. Accumulates as sum.",
            {"x"},
            {"y"},
            attrs,
            infer_reduce_float});
  r.define({"max",
            "y = maximum of x over `axes` (all when empty); NaN propagates. Size-0 axes are an error.",
            {"x"},
            {"y"},
            attrs,
            infer_minmax});
  r.define({"min",
            "y = minimum of x over `axes` (all when empty); NaN propagates. Size-0 axes are an error.",
            {"x"},
            {"y"},
            attrs,
            infer_minmax});
  r.define({"prod",
            "y = product of x over `axes` (all when empty); 1 over zero elements. Accumulates in f64 "
            "for f32/f64, f32 for f16/bf16; integers wrap (two's complement).",
            {"x"},
            {"y"},
            attrs,
            infer_reduce});
  r.define({"norm1",
            "y = sum of |x| over `axes` (all when empty), accumulated as sum.",
            {"x"},
            {"y"},
            attrs,
            infer_reduce_float});
  r.define({"norm2",
            "y = sqrt(sum of x^2) over `axes` (all when empty), accumulated as sum (no rescaling: "
            "f64 inputs above ~1e154 overflow).",
            {"x"},
            {"y"},
            attrs,
            infer_reduce_float});
  std::vector<AttrDef> var_attrs = {attr_ints("axes", {}), attr_bool("keepdims", false), attr_int("correction", 1)};
  r.define({"var",
            "y = sum((x - mean)^2) / (n - correction) over `axes` (all when empty), n the number of "
            "reduced elements. correction defaults to 1 (Bessel's bias correction, as DL4J and PyTorch; "
            "0 gives the population variance, numpy's default). NaN when n - correction <= 0. "
            "Two passes (mean, then squared deviations), accumulated as sum.",
            {"x"},
            {"y"},
            var_attrs,
            infer_var});
  r.define({"std",
            "y = sqrt(var(x)) with the same attributes as var (correction defaults to 1).",
            {"x"},
            {"y"},
            var_attrs,
            infer_var});
  r.define({"logsumexp",
            "y = log(sum(exp(x))) over `axes` (all when empty), computed stably as "
            "m + log(sum(exp(x - m))) with m the maximum; -inf over zero elements, +inf when an "
            "element is +inf, NaN when one is NaN.",
            {"x"},
            {"y"},
            attrs,
            infer_reduce_float});
  std::vector<AttrDef> arg_attrs = {attr_int("axis", -1), attr_bool("keepdims", false)};
  r.define({"argmax",
            "y (i64) = index along `axis` (one axis, default -1; a rank-0 x gives 0) of the largest "
            "element; the first one on ties; a NaN counts as the largest (the first NaN wins). "
            "For the flat index over all elements, reshape x to 1-D first. Size-0 axis is an error.",
            {"x"},
            {"y"},
            arg_attrs,
            infer_arg});
  r.define({"argmin",
            "y (i64) = index along `axis` of the smallest element; the same rules as argmax (ties: "
            "first; NaN counts as the smallest).",
            {"x"},
            {"y"},
            arg_attrs,
            infer_arg});
  r.define({"sum_bp",
            "Gradient of sum: dx = dy broadcast back over the reduced axes. Inputs: the forward input "
            "x (for its shape) and dy, the gradient of sum's output (shape as sum produced it, with "
            "the same axes/keepdims attributes).",
            {"x", "dy"},
            {"dx"},
            attrs,
            infer_reduce_bp});
  r.define({"mean_bp",
            "Gradient of mean: dx = dy / n broadcast back over the reduced axes (n the number of "
            "reduced elements). Inputs as sum_bp.",
            {"x", "dy"},
            {"dx"},
            attrs,
            infer_reduce_bp});
  define_reduce_grad_ops(r, attrs, var_attrs);
}

// Gradients of max, min, prod, norm1, norm2, var, std and logsumexp. Each takes the forward input x
// and dy (shaped as the forward output for the same attributes) and recomputes what it needs of
// the forward (the maximum, the product, the mean, ...) per output element.
#define NDRT_REDUCE_BP_COMMON                                                                                  \
  " Inputs: the forward input x and dy, the gradient of the forward output (its shape for the same axes / "  \
  "keepdims attributes). dx has x's shape. dtypes f32, f64, f16, bf16 (f16/bf16 compute in f32 and round once)."
void define_reduce_grad_ops(Registry& r, const std::vector<AttrDef>& attrs, const std::vector<AttrDef>& var_attrs) {
  struct Def {
    const char* name;
    const char* doc;
    InferFn infer;
  };
  const Def defs[] = {
      {"max_bp",
       "Gradient of max: dx = dy / k at the elements equal to the maximum of their group, 0 elsewhere, where k "
       "counts those elements: ties share the gradient evenly (as torch.amax; torch.max(dim) instead sends it all "
       "to the index it returns). A NaN maximum sends the gradient to the group's NaN elements. Size-0 reduced "
       "axes are an error, as in max." NDRT_REDUCE_BP_COMMON,
       infer_grad_minmax},
      {"min_bp",
       "Gradient of min: as max_bp with the minimum (ties share evenly; a NaN minimum: the NaNs)."
       NDRT_REDUCE_BP_COMMON,
       infer_grad_minmax},
      {"prod_bp",
       "Gradient of prod: dx_i = dy * (product of the group's other elements). Computed from the product P of the "
       "group's nonzero elements and its count z of zeros: z = 0 gives dy * P / x_i; z = 1 gives dy * P at the zero "
       "and 0 elsewhere; z >= 2 gives 0. P accumulates like prod (f64 for f32/f64, f32 for f16/bf16)."
       NDRT_REDUCE_BP_COMMON,
       infer_grad_float},
      {"norm1_bp", "Gradient of norm1: dx = dy * sign(x), 0 where x = 0 (as abs_bp)." NDRT_REDUCE_BP_COMMON,
       infer_grad_float},
      {"norm2_bp",
       "Gradient of norm2: dx = dy * x / y with y = norm2 of x's group; 0 where y = 0 (the subgradient torch uses)."
       NDRT_REDUCE_BP_COMMON,
       infer_grad_float},
      {"logsumexp_bp",
       "Gradient of logsumexp: dx = dy * exp(x - y) with y = logsumexp of x's group (the group's softmax). NaN "
       "where x - y is undefined (a group of all -inf, or one holding +inf), as torch." NDRT_REDUCE_BP_COMMON,
       infer_grad_float},
  };
  for (const Def& d : defs) r.define({d.name, d.doc, {"x", "dy"}, {"dx"}, attrs, d.infer});
  r.define({"var_bp",
            "Gradient of var: dx = dy * 2 (x - mean) / (n - correction), mean and n (the element count) of x's "
            "group; NaN when n - correction <= 0 (where var is NaN). Attributes as var: axes, keepdims, correction "
            "(default 1)." NDRT_REDUCE_BP_COMMON,
            {"x", "dy"},
            {"dx"},
            var_attrs,
            infer_grad_var});
  r.define({"std_bp",
            "Gradient of std: dx = dy * (x - mean) / ((n - correction) * std) with std = std of x's group; 0 where "
            "std = 0 (the subgradient torch uses), NaN when n - correction <= 0. Attributes as std: axes, keepdims, "
            "correction (default 1)." NDRT_REDUCE_BP_COMMON,
            {"x", "dy"},
            {"dx"},
            var_attrs,
            infer_grad_var});
}
#undef NDRT_REDUCE_BP_COMMON

}  // namespace ndrt
