// A tensor is a view: refcounted storage on one device + dtype + shape + strides (in elements) +
// offset. Tensors are small values; each handle owns one, views copy the metadata and share storage.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>

#include "dtype.hpp"

namespace ndrt {

class Allocator;

// Every shape a tensor gets has no negative extent and its non-zero extents multiply to at most
// kMaxElements (make_dims and alloc_tensor refuse others), so element counts, contiguous strides
// and byte counts (at most 8 bytes an element, with size-class rounding) never overflow int64,
// even next to a zero extent. Strides of caller-made views (wrap, stepped slices) are checked where
// they are formed; code that multiplies such a stride by an extent uses checked_mul.
constexpr int64_t kMaxElements = int64_t(1) << 59;

// out = a * b; false (out unspecified) when the product does not fit int64.
inline bool checked_mul(int64_t a, int64_t b, int64_t& out) { return !__builtin_mul_overflow(a, b, &out); }

struct Dims {
  int32_t rank = 0;
  int64_t d[NDRT_MAX_RANK];  // only the first `rank` entries mean anything
  int64_t numel() const {  // cannot overflow for the shapes above

    int64_t n = 1;
    for (int i = 0; i < rank; ++i) n *= d[i];
    return n;
  }
  bool operator==(const Dims& o) const {
    if (rank != o.rank) return false;
    for (int i = 0; i < rank; ++i)
      if (d[i] != o.d[i]) return false;
    return true;
  }
  bool operator!=(const Dims& o) const { return !(*this == o); }
  std::string str() const { return dims_str(d, rank); }
};

// Checked construction from caller input: rank in range, and the extents as kMaxElements says.
Dims make_dims(const char* what, int32_t rank, const int64_t* shape);
// Fails with NDRT_ERR_INVALID_ARGUMENT unless s has the extents kMaxElements says.
void check_extents(const char* what, const Dims& s);
// Row-major strides for `shape`.
Dims contiguous_strides(const Dims& shape);

// Memory block shared by all views. Either from a pool (returned to it on destruction) or wrapped
// caller memory (the caller's release callback runs on destruction).
struct Storage {
  void* data = nullptr;
  size_t nbytes = 0;
  ndrt_device device = NDRT_CPU;
  Allocator* pool = nullptr;  // set for pool memory
  bool wrapped = false;       // set for caller memory
  ndrt_release_fn release = nullptr;
  void* release_user = nullptr;
  ~Storage();
};

struct Tensor {
  std::shared_ptr<Storage> storage;
  ndrt_dtype dtype = NDRT_F32;
  Dims shape;
  Dims strides;
  int64_t offset = 0;

  int32_t rank() const { return shape.rank; }
  int64_t numel() const { return shape.numel(); }
  int64_t itemsize() const { return valid_dtype_size(dtype); }
  ndrt_device device() const { return storage->device; }
  bool is_contiguous() const;
  // True when the two views may touch the same bytes: same storage and intersecting byte extents.
  // Conservative (interleaved views count as overlapping); size-0 views overlap nothing.
  bool overlaps(const Tensor& o) const;
  // The very same view: same storage, offset, shape and strides.
  bool same_view(const Tensor& o) const {
    return storage == o.storage && offset == o.offset && shape == o.shape && strides == o.strides;
  }
  // Address of element [0,..,0]. Null storage (a size-0 allocation) stays null whatever the offset:
  // arithmetic on a null pointer is undefined, and no element of such a view is ever addressed.
  char* base() const {
    char* p = static_cast<char*>(storage->data);
    return p ? p + offset * itemsize() : p;
  }
  template <class T> T* data() const { return reinterpret_cast<T*>(base()); }
};

// A new contiguous tensor on `device`, memory from that device's pool (contents unspecified).
Tensor alloc_tensor(ndrt_dtype dtype, const Dims& shape, ndrt_device device);

}  // namespace ndrt
