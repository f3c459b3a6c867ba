// matmul: a [..., M, K] x b [..., K, N] -> [..., M, N]; batch axes broadcast (numpy matmul).
#include "../error.hpp"
#include "ops.hpp"

namespace ndrt {

namespace {

enum { kTransA = 0, kTransB = 1 };

void infer_matmul(OpContext& c) {
  require_same_dtype(c);
  const Tensor &a = *c.in[0], &b = *c.in[1];
  if (a.rank() < 2 || b.rank() < 2)
    fail(NDRT_ERR_SHAPE_MISMATCH, "matmul: inputs need rank >= 2, got %s and %s", a.shape.str().c_str(),
         b.shape.str().c_str());
  bool ta = c.attrs.get_bool(kTransA), tb = c.attrs.get_bool(kTransB);
  int64_t m = a.shape.d[a.rank() - (ta ? 1 : 2)], ka = a.shape.d[a.rank() - (ta ? 2 : 1)];
  int64_t kb = b.shape.d[b.rank() - (tb ? 1 : 2)], n = b.shape.d[b.rank() - (tb ? 2 : 1)];
  if (ka != kb)
    fail(NDRT_ERR_SHAPE_MISMATCH, "matmul: inner sizes differ: %s%s x %s%s", a.shape.str().c_str(), ta ? "^T" : "",
         b.shape.str().c_str(), tb ? "^T" : "");
  Dims ba = a.shape, bb = b.shape;
  ba.rank -= 2;
  bb.rank -= 2;
  Dims s = broadcast_shapes("matmul (batch axes)", ba, bb);
  s.d[s.rank++] = m;
  s.d[s.rank++] = n;
  c.spec[0] = {a.dtype, s};
}

}  // namespace

void define_linalg_ops(Registry& r) {
  r.define({"matmul",
            "y = op(a) @ op(b) where op transposes the last two axes when transpose_a/transpose_b is set; "
            "rank >= 2, batch axes broadcast.",
            {"a", "b"},
            {"y"},
            {attr_bool("transpose_a", false), attr_bool("transpose_b", false)},
            infer_matmul});
}

}  // namespace ndrt
