// Op definitions: concat, stack, pad, pad_bp, tile, tile_bp, flip, transpose_copy (and, in
// layout_index.cpp, gather, gather_bp, scatter, scatter_add, one_hot).
//
// Why there is no split op: an op has a fixed number of outputs, and a split needs no copy at all.
// Split (and unstack, and the gradients of concat and stack) are ndrt_tensor_slice views of the
// input along the axis, zero-copy; ndrt_tensor_contiguous or the copy op make dense copies when
// wanted. The docs of concat and stack say so.
#include "../error.hpp"
#include "ops.hpp"

namespace ndrt {

void define_layout_index_ops(Registry& r);  // layout_index.cpp

namespace {

void infer_concat(OpContext& c) {
  require_same_dtype(c);
  const Tensor& x0 = *c.in[0];
  if (x0.rank() == 0) fail(NDRT_ERR_SHAPE_MISMATCH, "concat: input 0 is rank 0 (a scalar); stack scalars instead");
  const int axis = normalize_axis("concat", c.attrs.get_int(0), x0.rank());
  Dims s = x0.shape;
  int64_t total = 0;
  for (int i = 0; i < c.n_in; ++i) {
    const Tensor& x = *c.in[i];
    bool ok = x.rank() == x0.rank();
    for (int d = 0; ok && d < x.rank(); ++d) ok = d == axis || x.shape.d[d] == x0.shape.d[d];
    if (!ok)
      fail(NDRT_ERR_SHAPE_MISMATCH, "concat: input %d has shape %s but input 0 has %s (only axis %d may differ)", i,
           x.shape.str().c_str(), x0.shape.str().c_str(), axis);
    total += x.shape.d[axis];  // each below 2^59, at most 64 of them: no overflow
  }
  s.d[axis] = total;
  c.spec[0] = {x0.dtype, make_dims("concat", s.rank, s.d)};
}

void infer_stack(OpContext& c) {
  require_same_dtype(c);
  const Tensor& x0 = *c.in[0];
  if (x0.rank() >= NDRT_MAX_RANK)
    fail(NDRT_ERR_SHAPE_MISMATCH, "stack: inputs of rank %d cannot gain an axis (the maximum rank is %d)", x0.rank(),
         NDRT_MAX_RANK);
  const int axis = normalize_axis("stack", c.attrs.get_int(0), x0.rank() + 1);
  for (int i = 1; i < c.n_in; ++i)
    if (c.in[i]->shape != x0.shape)
      fail(NDRT_ERR_SHAPE_MISMATCH, "stack: input %d has shape %s but input 0 has %s (all must be equal)", i,
           c.in[i]->shape.str().c_str(), x0.shape.str().c_str());
  Dims s;
  s.rank = x0.rank() + 1;
  for (int d = 0, j = 0; d < s.rank; ++d) s.d[d] = d == axis ? c.n_in : x0.shape.d[j++];
  c.spec[0] = {x0.dtype, make_dims("stack", s.rank, s.d)};
}

enum { kPads = 0, kPadMode = 1, kPadValue = 2 };
enum { kPadConstant = 0, kPadReflect = 1, kPadEdge = 2 };

// Output shape of pad for input shape x; validates pads and mode against x.
Dims pad_shape(const OpContext& c, const Dims& x) {
  const Attrs& a = c.attrs;
  const int n = a.list_size(kPads);
  const int64_t* p = a.list_data(kPads);
  const int64_t mode = a.get_int(kPadMode);
  if (mode < kPadConstant || mode > kPadEdge)
    fail(NDRT_ERR_INVALID_ARGUMENT, "%s: mode is %lld, must be 0 (constant), 1 (reflect) or 2 (edge)", c.op->name,
         (long long)mode);
  if (n != 0 && n != 2 * x.rank)
    fail(NDRT_ERR_INVALID_ARGUMENT, "%s: pads has %d values, needs 2 per axis (%d) for rank %d", c.op->name, n,
         2 * x.rank, x.rank);
  Dims s = x;
  for (int d = 0; d < n / 2; ++d) {
    const int64_t before = p[2 * d], after = p[2 * d + 1], len = x.d[d];
    if (before < 0 || after < 0)
      fail(NDRT_ERR_INVALID_ARGUMENT, "%s: pads of axis %d are %lld, %lld; they must be >= 0 (crop with a slice view)",
           c.op->name, d, (long long)before, (long long)after);
    if (mode == kPadReflect && (before > len - 1 || after > len - 1) && (before | after))
      fail(NDRT_ERR_INVALID_ARGUMENT, "%s: reflect pads of axis %d (%lld, %lld) must be below its size %lld", c.op->name,
           d, (long long)before, (long long)after, (long long)len);
    if (mode == kPadEdge && len == 0 && (before | after))
      fail(NDRT_ERR_INVALID_ARGUMENT, "%s: edge padding of axis %d, which has size 0", c.op->name, d);
    if (before > (int64_t(1) << 59) || after > (int64_t(1) << 59))
      fail(NDRT_ERR_INVALID_ARGUMENT, "%s: pads of axis %d are too large", c.op->name, d);
    s.d[d] = len + before + after;
  }
  return make_dims(c.op->name, s.rank, s.d);
}

void infer_pad(OpContext& c) { c.spec[0] = {c.in[0]->dtype, pad_shape(c, c.in[0]->shape)}; }

// Gradient ops (x, dy) -> dx: dy must be what the forward op makes of x.
void check_dy(const OpContext& c, const Dims& want) {
  const Tensor& x = *c.in[0];
  const Tensor& dy = *c.in[c.n_in - 1];
  require_float(c, x.dtype);
  if (dy.dtype != x.dtype)
    fail(NDRT_ERR_DTYPE_MISMATCH, "%s: dy is %s but x is %s", c.op->name, dtype_name(dy.dtype), dtype_name(x.dtype));
  if (dy.shape != want)
    fail(NDRT_ERR_SHAPE_MISMATCH, "%s: dy has shape %s, the forward output has %s", c.op->name, dy.shape.str().c_str(),
         want.str().c_str());
}

void infer_pad_bp(OpContext& c) {
  check_dy(c, pad_shape(c, c.in[0]->shape));
  c.spec[0] = {c.in[0]->dtype, c.in[0]->shape};
}

Dims tile_shape(const OpContext& c, const Dims& x) {
  const int n = c.attrs.list_size(0);
  const int64_t* reps = c.attrs.list_data(0);
  if (n > NDRT_MAX_RANK)
    fail(NDRT_ERR_INVALID_ARGUMENT, "%s: reps has %d values, more than the maximum rank %d", c.op->name, n, NDRT_MAX_RANK);
  Dims s;
  s.rank = n > x.rank ? n : x.rank;
  for (int d = 0; d < s.rank; ++d) {
    const int xi = d - (s.rank - x.rank), ri = d - (s.rank - n);
    const int64_t len = xi >= 0 ? x.d[xi] : 1, r = ri >= 0 ? reps[ri] : 1;
    if (r < 0) fail(NDRT_ERR_INVALID_ARGUMENT, "%s: reps[%d] is %lld, must be >= 0", c.op->name, ri, (long long)r);
    if (__builtin_mul_overflow(len, r, &s.d[d]))
      fail(NDRT_ERR_INVALID_ARGUMENT, "%s: tiling %s by reps makes too many elements", c.op->name, x.str().c_str());
  }
  return make_dims(c.op->name, s.rank, s.d);
}

void infer_tile(OpContext& c) { c.spec[0] = {c.in[0]->dtype, tile_shape(c, c.in[0]->shape)}; }

void infer_tile_bp(OpContext& c) {
  check_dy(c, tile_shape(c, c.in[0]->shape));
  c.spec[0] = {c.in[0]->dtype, c.in[0]->shape};
}

void infer_flip(OpContext& c) {
  const Tensor& x = *c.in[0];
  reduce_mask("flip", c.attrs.list_data(0), c.attrs.list_size(0), x.rank());  // validates the axes
  c.spec[0] = {x.dtype, x.shape};
}

void infer_transpose_copy(OpContext& c) {
  const Tensor& x = *c.in[0];
  const int n = c.attrs.list_size(0);
  const int64_t* perm = c.attrs.list_data(0);
  Dims s;
  s.rank = x.rank();
  if (n == 0) {
    for (int d = 0; d < s.rank; ++d) s.d[d] = x.shape.d[s.rank - 1 - d];
  } else {
    if (n != x.rank())
      fail(NDRT_ERR_INVALID_ARGUMENT, "transpose_copy: perm has %d values for rank %d", n, x.rank());
    uint32_t seen = 0;
    for (int d = 0; d < n; ++d) {
      const int p = normalize_axis("transpose_copy", perm[d], x.rank());
      if (seen & (1u << p))
        fail(NDRT_ERR_INVALID_ARGUMENT, "transpose_copy: perm lists axis %d twice (not a permutation)", p);
      seen |= 1u << p;
      s.d[d] = x.shape.d[p];
    }
  }
  c.spec[0] = {x.dtype, s};
}

}  // namespace

void define_layout_ops(Registry& r) {
  r.define({"concat",
            "y = the inputs joined along `axis` (in [-rank, rank); negative counts from the end). All inputs "
            "share dtype and rank and agree on every other axis; size-0 inputs are allowed; rank 0 is refused "
            "(use stack). Any dtype. There is no split op: split, and concat's gradient, are "
            "ndrt_tensor_slice views of y (or dy) along `axis` (zero-copy).",
            {"xs"},
            {"y"},
            {attr_int("axis", 0)},
            infer_concat})
      .variadic = true;
  r.define({"stack",
            "y = the inputs (all of one shape and dtype) stacked along a new axis at position `axis` (in "
            "[-(rank+1), rank]): y has rank + 1 axes and y[.., i, ..] = xs[i]. Any dtype. Unstacking, and "
            "stack's gradient, are ndrt_tensor_slice views of y (or dy) along `axis`.",
            {"xs"},
            {"y"},
            {attr_int("axis", 0)},
            infer_stack})
      .variadic = true;
  r.define({"pad",
            "y = x padded: pads = [before_0, after_0, before_1, after_1, ...] (>= 0, two per axis; empty = no "
            "padding) adds before_d elements in front of axis d and after_d behind it. mode 0 (constant): new "
            "elements are `value` converted to x's dtype (cast rules); 1 (reflect): mirrored without repeating "
            "the edge (numpy 'reflect': pads must be below the axis size); 2 (edge): the edge element repeated. "
            "Any dtype.",
            {"x"},
            {"y"},
            {attr_ints("pads", {}), attr_int("mode", 0), attr_float("value", 0.0)},
            infer_pad});
  r.define({"pad_bp",
            "Gradient of pad from its input x and dy (pad's output shape): dx[i] = sum of dy over every "
            "output position pad copies x[i] to (the interior one, plus reflections or edge repeats); "
            "constant padding contributes nothing. Same attributes as pad. Float dtypes; sums in f64.",
            {"x", "dy"},
            {"dx"},
            {attr_ints("pads", {}), attr_int("mode", 0), attr_float("value", 0.0)},
            infer_pad_bp});
  r.define({"tile",
            "y = x repeated reps[d] times along axis d (numpy.tile): when reps is shorter than x's rank it is "
            "padded with leading 1s; when longer, x gains leading axes of size 1. reps >= 0 (0 gives an empty "
            "axis). Any dtype.",
            {"x"},
            {"y"},
            {attr_ints("reps", {})},
            infer_tile});
  r.define({"tile_bp",
            "Gradient of tile from its input x and dy (tile's output shape): dx[i] = sum of dy over the "
            "prod(reps) copies of x[i], summed in f64 in a fixed order. Same attribute as tile. Float dtypes.",
            {"x", "dy"},
            {"dx"},
            {attr_ints("reps", {})},
            infer_tile_bp});
  r.define({"flip",
            "y = x with the order of elements reversed along each axis in `axes` (empty: every axis; negative "
            "axes count from the end; no axis twice). Any dtype. flip is its own gradient: dx = flip(dy).",
            {"x"},
            {"y"},
            {attr_ints("axes", {})},
            infer_flip});
  r.define({"transpose_copy",
            "y = a dense copy of x with its axes permuted: y.shape[d] = x.shape[perm[d]] and "
            "y[i_0, .., i_{r-1}] = x at index i_d on axis perm[d] (empty perm: axes reversed). Same values as "
            "ndrt_tensor_permute followed by a copy; a blocked copy keeps reads and writes cache-friendly. Any "
            "dtype. Gradient: transpose_copy(dy) with the inverse permutation.",
            {"x"},
            {"y"},
            {attr_ints("perm", {})},
            infer_transpose_copy});
  define_layout_index_ops(r);
}

}  // namespace ndrt
