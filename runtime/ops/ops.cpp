#include "ops.hpp"

#include "../error.hpp"

namespace ndrt {

void define_all_ops(Registry& r) {
  define_creation_ops(r);
  define_elementwise_ops(r);
  define_reduce_ops(r);
  define_linalg_ops(r);
  define_random_ops(r);
  define_layout_ops(r);
  define_softmax_loss_ops(r);
  define_conv_ops(r);
  define_conv1d_ops(r);
  define_norm_ops(r);
  define_updaters_ops(r);
  define_rnn_ops(r);
  define_sequence_pool_ops(r);
}

Dims broadcast_shapes(const char* op, const Dims& a, const Dims& b) {
  Dims o;
  o.rank = a.rank > b.rank ? a.rank : b.rank;
  for (int i = 0; i < o.rank; ++i) {
    int ia = a.rank - o.rank + i, ib = b.rank - o.rank + i;
    int64_t da = ia >= 0 ? a.d[ia] : 1, db = ib >= 0 ? b.d[ib] : 1;
    if (da != db && da != 1 && db != 1)
      fail(NDRT_ERR_SHAPE_MISMATCH, "%s: shapes %s and %s do not broadcast", op, a.str().c_str(), b.str().c_str());
    o.d[i] = da == 1 ? db : da;
  }
  return o;
}

int32_t normalize_axis(const char* op, int64_t axis, int32_t rank) {
  if (axis < -rank || axis >= rank)
    fail(NDRT_ERR_INVALID_ARGUMENT, "%s: axis %lld is out of range for rank %d", op, (long long)axis, int(rank));
  return int32_t(axis < 0 ? axis + rank : axis);
}

uint32_t reduce_mask(const char* op, const int64_t* axes, int32_t n, int32_t rank) {
  if (n == 0) return rank ? (1u << rank) - 1 : 0;
  uint32_t mask = 0;
  for (int i = 0; i < n; ++i) {
    uint32_t bit = 1u << normalize_axis(op, axes[i], rank);
    if (mask & bit) fail(NDRT_ERR_INVALID_ARGUMENT, "%s: axis %lld is listed twice", op, (long long)axes[i]);
    mask |= bit;
  }
  return mask;
}

void require_same_dtype(const OpContext& c) {
  for (int i = 1; i < c.n_in; ++i)
    if (c.in[i]->dtype != c.in[0]->dtype)
      fail(NDRT_ERR_DTYPE_MISMATCH, "%s: input %d is %s but input 0 is %s (cast explicitly)", c.op->name, i,
           dtype_name(c.in[i]->dtype), dtype_name(c.in[0]->dtype));
}

void require_float(const OpContext& c, ndrt_dtype d) {
  if (!dtype_is_float(d))
    fail(NDRT_ERR_DTYPE_MISMATCH, "%s: needs a floating-point dtype, got %s", c.op->name, dtype_name(d));
}

}  // namespace ndrt
