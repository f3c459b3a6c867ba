#include "tensor.hpp"

#include "device.hpp"
#include "memory.hpp"

namespace ndrt {

void check_extents(const char* what, const Dims& s) {
  int64_t n = 1;  // product of the non-zero extents
  for (int i = 0; i < s.rank; ++i) {
    if (s.d[i] < 0) fail(NDRT_ERR_INVALID_ARGUMENT, "%s: shape %s has a negative extent", what, s.str().c_str());
    if (s.d[i] != 0 && n > kMaxElements / s.d[i])  // n * d > kMaxElements, asked without overflowing
      fail(NDRT_ERR_INVALID_ARGUMENT, "%s: shape %s has too many elements (its non-zero extents multiply past 2^59)", what,
           s.str().c_str());
    if (s.d[i] != 0) n *= s.d[i];
  }
}

Dims make_dims(const char* what, int32_t rank, const int64_t* shape) {
  if (rank < 0 || rank > NDRT_MAX_RANK)
    fail(NDRT_ERR_INVALID_ARGUMENT, "%s: rank %d is outside 0..%d", what, int(rank), NDRT_MAX_RANK);
  if (rank > 0 && !shape) fail(NDRT_ERR_INVALID_ARGUMENT, "%s: shape is NULL for rank %d", what, int(rank));
  Dims s;
  s.rank = rank;
  for (int i = 0; i < rank; ++i) s.d[i] = shape[i];
  check_extents(what, s);
  return s;
}

Dims contiguous_strides(const Dims& shape) {
  Dims st;
  st.rank = shape.rank;
  int64_t s = 1;
  for (int i = shape.rank - 1; i >= 0; --i) {
    st.d[i] = s;
    s *= shape.d[i] > 0 ? shape.d[i] : 1;
  }
  return st;
}

bool Tensor::is_contiguous() const {
  int64_t expect = 1;
  for (int i = shape.rank - 1; i >= 0; --i) {
    if (shape.d[i] == 1) continue;  // any stride is fine on a size-1 axis
    if (shape.d[i] == 0) return true;
    if (strides.d[i] != expect) return false;
    expect *= shape.d[i];
  }
  return true;
}

namespace {
// [lo, hi) in bytes from the storage's start.
void byte_extent(const Tensor& t, int64_t& lo, int64_t& hi) {
  int64_t a = t.offset, b = t.offset;
  for (int i = 0; i < t.shape.rank; ++i) {
    const int64_t span = t.strides.d[i] * (t.shape.d[i] - 1);
    (span < 0 ? a : b) += span;
  }
  lo = a * int64_t(t.itemsize());
  hi = (b + 1) * int64_t(t.itemsize());
}
}  // namespace

bool Tensor::overlaps(const Tensor& o) const {
  if (storage != o.storage || numel() == 0 || o.numel() == 0) return false;
  int64_t a0, a1, b0, b1;
  byte_extent(*this, a0, a1);
  byte_extent(o, b0, b1);
  return a0 < b1 && b0 < a1;
}

Storage::~Storage() {
  if (pool) {
    pool->free(data, nbytes);
  } else if (wrapped) {
    note_wrapped_released(device, nbytes);
    if (release) release(data, release_user);
  }
}

Tensor alloc_tensor(ndrt_dtype dtype, const Dims& shape, ndrt_device device) {
  check_extents("alloc", shape);  // op outputs: shapes inferred from attributes reach here unchecked
  Tensor t;
  t.dtype = dtype;
  t.shape = shape;
  t.strides = contiguous_strides(shape);
  auto st = std::make_shared<Storage>();
  st->device = device;
  size_t bytes = size_t(shape.numel() * dtype_size(dtype));
  Allocator& a = allocator_for(device);
  st->data = a.allocate(bytes);
  st->nbytes = bytes;
  st->pool = &a;
  t.storage = std::move(st);
  return t;
}

}  // namespace ndrt
