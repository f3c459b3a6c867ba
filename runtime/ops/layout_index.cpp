// Op definitions of the indexed layout ops: gather, gather_bp, scatter, scatter_add, one_hot.
// gather is numpy.take along one axis; scatter and scatter_add write into the same positions, so
// scatter_add(zeros, indices, dy) is gather's adjoint (its gradient).
#include "../error.hpp"
#include "ops.hpp"

namespace ndrt {

namespace {

void require_index_dtype(const OpContext& c, int i) {
  ndrt_dtype d = c.in[i]->dtype;
  if (d != NDRT_I32 && d != NDRT_I64)
    fail(NDRT_ERR_DTYPE_MISMATCH, "%s: indices have dtype %s, must be i32 or i64", c.op->name, dtype_name(d));
}

// gather's output shape: x.shape[:axis] + indices.shape + x.shape[axis+1:].
Dims gathered_shape(const OpContext& c) {
  const Tensor& x = *c.in[0];
  const Tensor& idx = *c.in[1];
  require_index_dtype(c, 1);
  if (x.rank() == 0) fail(NDRT_ERR_SHAPE_MISMATCH, "%s: x is rank 0; it needs an axis to index", c.op->name);
  const int axis = normalize_axis(c.op->name, c.attrs.get_int(0), x.rank());
  const int rank = x.rank() - 1 + idx.rank();
  if (rank > NDRT_MAX_RANK)
    fail(NDRT_ERR_SHAPE_MISMATCH, "%s: x of rank %d indexed by indices of rank %d gives rank %d, above the maximum %d",
         c.op->name, x.rank(), idx.rank(), rank, NDRT_MAX_RANK);
  Dims s;
  s.rank = rank;
  int j = 0;
  for (int d = 0; d < axis; ++d) s.d[j++] = x.shape.d[d];
  for (int d = 0; d < idx.rank(); ++d) s.d[j++] = idx.shape.d[d];
  for (int d = axis + 1; d < x.rank(); ++d) s.d[j++] = x.shape.d[d];
  return make_dims(c.op->name, s.rank, s.d);
}

void infer_gather(OpContext& c) { c.spec[0] = {c.in[0]->dtype, gathered_shape(c)}; }

// (x, indices, updates-or-dy): the third input has gather's output shape and x's dtype.
void check_third(const OpContext& c, const char* name) {
  const Dims want = gathered_shape(c);
  const Tensor& x = *c.in[0];
  const Tensor& u = *c.in[2];
  if (u.dtype != x.dtype)
    fail(NDRT_ERR_DTYPE_MISMATCH, "%s: %s is %s but x is %s", c.op->name, name, dtype_name(u.dtype), dtype_name(x.dtype));
  if (u.shape != want)
    fail(NDRT_ERR_SHAPE_MISMATCH, "%s: %s has shape %s, must be x.shape[:axis] + indices.shape + x.shape[axis+1:] = %s",
         c.op->name, name, u.shape.str().c_str(), want.str().c_str());
}

void infer_gather_bp(OpContext& c) {
  check_third(c, "dy");
  require_float(c, c.in[0]->dtype);
  c.spec[0] = {c.in[0]->dtype, c.in[0]->shape};
}

void infer_scatter(OpContext& c) {
  check_third(c, "updates");
  // In place means y is x; y over indices or updates would be overwritten before they are read.
  for (int i = 1; i < 3 && c.out[0]; ++i)
    if (c.out[0]->overlaps(*c.in[i]))
      fail(NDRT_ERR_INVALID_ARGUMENT, "%s: y shares memory with input %d (%s); only x may be y", c.op->name, i,
           i == 1 ? "indices" : "updates");
  c.spec[0] = {c.in[0]->dtype, c.in[0]->shape};
}

enum { kDepth = 0, kOneHotDtype = 1, kOneHotAxis = 2, kOn = 3, kOff = 4 };

void infer_one_hot(OpContext& c) {
  const Tensor& idx = *c.in[0];
  require_index_dtype(c, 0);
  const int64_t depth = c.attrs.get_int(kDepth);
  if (depth < 0) fail(NDRT_ERR_INVALID_ARGUMENT, "one_hot: depth is %lld, must be >= 0", (long long)depth);
  if (idx.rank() >= NDRT_MAX_RANK)
    fail(NDRT_ERR_SHAPE_MISMATCH, "one_hot: indices of rank %d cannot gain an axis (the maximum rank is %d)", idx.rank(),
         NDRT_MAX_RANK);
  const int axis = normalize_axis("one_hot", c.attrs.get_int(kOneHotAxis), idx.rank() + 1);
  Dims s;
  s.rank = idx.rank() + 1;
  for (int d = 0, j = 0; d < s.rank; ++d) s.d[d] = d == axis ? depth : idx.shape.d[j++];
  c.spec[0] = {c.out[0] ? c.out[0]->dtype : c.attrs.get_dtype(kOneHotDtype), make_dims("one_hot", s.rank, s.d)};
  c.key_dtype = c.spec[0].dtype;
}

AttrDef required(AttrDef d) {
  d.required = true;
  return d;
}

}  // namespace

void define_layout_index_ops(Registry& r) {
  r.define({"gather",
            "y = x indexed along `axis` by `indices` (numpy.take): y.shape = x.shape[:axis] + indices.shape + "
            "x.shape[axis+1:] and y[a.., j.., b..] = x[a.., indices[j..], b..]. Indices are i32 or i64 in "
            "[-n, n) for an axis of size n (negative counts from the end); any other is "
            "NDRT_ERR_INVALID_ARGUMENT naming it. Any dtype of x. Gradient: gather_bp (scatter_add into zeros).",
            {"x", "indices"},
            {"y"},
            {attr_int("axis", 0)},
            infer_gather});
  r.define({"gather_bp",
            "Gradient of gather from its inputs and dy (gather's output shape): dx = zeros of x's shape with "
            "dx[a.., indices[j..], b..] += dy[a.., j.., b..], repeated indices accumulating in row-major order of "
            "indices (deterministic; f16/bf16 accumulate in f32). Float dtypes.",
            {"x", "indices", "dy"},
            {"dx"},
            {attr_int("axis", 0)},
            infer_gather_bp});
  r.define({"scatter",
            "Out-of-place scatter, gather's inverse: y = x, then y[a.., indices[j..], b..] = updates[a.., j.., "
            "b..] with updates.shape = x.shape[:axis] + indices.shape + x.shape[axis+1:]. Where indices repeat, "
            "the last in row-major order of indices wins. Indices as for gather. y may be x itself (in place). "
            "Any dtype.",
            {"x", "indices", "updates"},
            {"y"},
            {attr_int("axis", 0)},
            infer_scatter})
      .inplace = true;
  r.define({"scatter_add",
            "y = x, then y[a.., indices[j..], b..] += updates[a.., j.., b..] (shapes and indices as for scatter); "
            "repeated indices accumulate, in row-major order of indices (deterministic; f16/bf16 accumulate in "
            "f32, integers wrap). scatter_add(zeros, indices, dy) is the gradient of gather. y may be x itself "
            "(in place). Dtypes f32, f64, f16, bf16, i32, i64.",
            {"x", "indices", "updates"},
            {"y"},
            {attr_int("axis", 0)},
            infer_scatter})
      .inplace = true;
  r.define({"one_hot",
            "y = one-hot encoding of integer class ids: y has indices' shape with a new axis of size `depth` "
            "inserted at `axis` (in [-(rank+1), rank], default -1: last), y = `on` where the position on that "
            "axis equals the index and `off` elsewhere, converted to `dtype` (any dtype; with y given, its dtype "
            "is used). Indices are i32 or i64 in [0, depth); any other is NDRT_ERR_INVALID_ARGUMENT naming it.",
            {"indices"},
            {"y"},
            {required(attr_int("depth", 0)), attr_dtype("dtype", NDRT_F32), attr_int("axis", -1), attr_float("on", 1.0),
             attr_float("off", 0.0)},
            infer_one_hot});
}

}  // namespace ndrt
