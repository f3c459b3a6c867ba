// The C boundary: every ndrt_* function is `return guard(name, [&] { ... });`. guard turns any C++
// exception into a status and the thread-local message; nothing else crosses the ABI.
#include <cstring>
#include <new>

#include "config.hpp"
#include "device.hpp"
#include "dist.hpp"
#include "error.hpp"
#include "event.hpp"
#include "handles.hpp"
#include "parallel.hpp"
#include "profiler.hpp"
#include "ops/ops.hpp"
#include "registry.hpp"

using namespace ndrt;

namespace {

thread_local std::string t_last_error;

template <class F>
ndrt_status guard(const char* fn, F&& body) noexcept {
  try {
    body();
    return NDRT_OK;
  } catch (const Error& e) {
    t_last_error = e.what();
    return e.status();
  } catch (const std::bad_alloc&) {
    t_last_error = std::string(fn) + ": out of host memory for runtime bookkeeping";
    return NDRT_ERR_OUT_OF_MEMORY;
  } catch (const std::exception& e) {
    t_last_error = std::string(fn) + ": internal error: " + e.what();
    return NDRT_ERR_INTERNAL;
  } catch (...) {
    t_last_error = std::string(fn) + ": internal error (unknown exception)";
    return NDRT_ERR_INTERNAL;
  }
}

template <class T>
T* need(T* p, const char* fn, const char* what) {
  if (!p) fail(NDRT_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn, what);
  return p;
}

// Copies text into a caller buffer (the describe/get/summary contract).
void write_text(const std::string& s, char* buf, size_t capacity, size_t* needed, const char* fn) {
  if (needed) *needed = s.size() + 1;
  if (!buf) {
    if (capacity) fail(NDRT_ERR_INVALID_ARGUMENT, "%s: buf is NULL with capacity %zu", fn, capacity);
    if (!needed) fail(NDRT_ERR_INVALID_ARGUMENT, "%s: both buf and needed are NULL", fn);
    return;
  }
  if (capacity < s.size() + 1)
    fail(NDRT_ERR_INVALID_ARGUMENT, "%s: buffer of %zu bytes is too small, %zu needed", fn, capacity, s.size() + 1);
  std::memcpy(buf, s.c_str(), s.size() + 1);
}

ndrt_handle add_handle(Tensor&& t) { return handles().insert(std::move(t)); }

int64_t host_nbytes(const Tensor& t) { return t.numel() * t.itemsize(); }

bool on_cuda(const Tensor& t) { return NDRT_DEVICE_TYPE_OF(t.device()) == NDRT_DEVICE_TYPE_CUDA; }

// Row-major element copy between a strided tensor and a dense host buffer, in either direction.
void copy_strided(const Tensor& t, char* host, bool to_host) {
  int64_t item = t.itemsize(), n = t.numel();
  if (n == 0) return;
  if (t.is_contiguous()) {
    if (to_host)
      std::memcpy(host, t.base(), size_t(n * item));
    else
      std::memcpy(t.base(), host, size_t(n * item));
    return;
  }
  int64_t idx[NDRT_MAX_RANK] = {};
  int r = t.rank();
  for (int64_t i = 0; i < n; ++i) {
    int64_t off = 0;
    for (int d = 0; d < r; ++d) off += idx[d] * t.strides.d[d];
    char* elem = t.base() + off * item;
    if (to_host)
      std::memcpy(host + i * item, elem, size_t(item));
    else
      std::memcpy(elem, host + i * item, size_t(item));
    for (int d = r - 1; d >= 0 && ++idx[d] == t.shape.d[d]; --d) idx[d] = 0;
  }
}

Tensor view_of(const Tensor& t) { return t; }  // metadata copy, storage shared

#define NDRT_STATUS_ENTRY(s) {s, #s}
const struct {
  ndrt_status status;
  const char* name;
} kStatusNames[] = {
    NDRT_STATUS_ENTRY(NDRT_OK),
    NDRT_STATUS_ENTRY(NDRT_ERR_OUT_OF_MEMORY),
    NDRT_STATUS_ENTRY(NDRT_ERR_BACKEND),
    NDRT_STATUS_ENTRY(NDRT_ERR_INVALID_HANDLE),
    NDRT_STATUS_ENTRY(NDRT_ERR_INVALID_ARGUMENT),
    NDRT_STATUS_ENTRY(NDRT_ERR_SHAPE_MISMATCH),
    NDRT_STATUS_ENTRY(NDRT_ERR_DTYPE_MISMATCH),
    NDRT_STATUS_ENTRY(NDRT_ERR_DEVICE_MISMATCH),
    NDRT_STATUS_ENTRY(NDRT_ERR_UNKNOWN_OP),
    NDRT_STATUS_ENTRY(NDRT_ERR_NOT_SUPPORTED),
    NDRT_STATUS_ENTRY(NDRT_ERR_NOT_CONFIGURED),
    NDRT_STATUS_ENTRY(NDRT_ERR_LOAD),
    NDRT_STATUS_ENTRY(NDRT_ERR_INTERNAL),
};
#undef NDRT_STATUS_ENTRY

void check_dtype(const char* fn, ndrt_dtype d) {
  if (!dtype_valid(d)) fail(NDRT_ERR_INVALID_ARGUMENT, "%s: %d is not a valid dtype", fn, int(d));
}

}  // namespace

extern "C" {

NDRT_API uint32_t ndrt_abi_version(void) { return NDRT_ABI_VERSION; }
NDRT_API const char* ndrt_version_string(void) { return "0.1.0"; }
NDRT_API const char* ndrt_last_error(void) { return t_last_error.c_str(); }

NDRT_API const char* ndrt_status_name(ndrt_status status) {
  for (const auto& s : kStatusNames)
    if (s.status == status) return s.name;
  return "NDRT_UNKNOWN_STATUS";
}

/* ---------------------------------------------------------------- tensors */

NDRT_API ndrt_status ndrt_tensor_create(ndrt_dtype dtype, int32_t rank, const int64_t* shape, ndrt_device device,
                                        ndrt_handle* out) {
  return guard("tensor_create", [&] {
    need(out, "tensor_create", "out");
    check_dtype("tensor_create", dtype);
    Dims s = make_dims("tensor_create", rank, shape);
    ndrt_device dev = resolve_device(device);
    check_device("tensor_create", dev);
    *out = add_handle(alloc_tensor(dtype, s, dev));
  });
}

NDRT_API ndrt_status ndrt_tensor_from_host(ndrt_dtype dtype, int32_t rank, const int64_t* shape, const void* data,
                                           size_t nbytes, ndrt_device device, ndrt_handle* out) {
  return guard("tensor_from_host", [&] {
    need(out, "tensor_from_host", "out");
    check_dtype("tensor_from_host", dtype);
    Dims s = make_dims("tensor_from_host", rank, shape);
    size_t want = size_t(s.numel() * dtype_size(dtype));
    if (nbytes != want)
      fail(NDRT_ERR_INVALID_ARGUMENT, "tensor_from_host: %zu bytes given, shape %s of %s needs %zu", nbytes,
           s.str().c_str(), dtype_name(dtype), want);
    if (want && !data) fail(NDRT_ERR_INVALID_ARGUMENT, "tensor_from_host: data is NULL");
    ndrt_device dev = resolve_device(device);
    check_device("tensor_from_host", dev);
    Tensor t = alloc_tensor(dtype, s, dev);
    copy_bytes(dev, t.base(), NDRT_CPU, data, want);
    *out = add_handle(std::move(t));
  });
}

NDRT_API ndrt_status ndrt_tensor_wrap(ndrt_dtype dtype, int32_t rank, const int64_t* shape, const int64_t* strides,
                                      void* data, size_t capacity, ndrt_release_fn release, void* user,
                                      ndrt_handle* out) {
  return guard("tensor_wrap", [&] {
    need(out, "tensor_wrap", "out");
    check_dtype("tensor_wrap", dtype);
    Dims s = make_dims("tensor_wrap", rank, shape);
    Dims st = contiguous_strides(s);
    // An empty tensor reaches no memory, so its strides are free; the caller's could be anything
    // (INT64_MAX), and kernels do arithmetic on strides even when no element is read: an empty
    // tensor keeps its row-major strides.
    if (strides && s.numel() > 0)
      for (int i = 0; i < rank; ++i) st.d[i] = strides[i];
    // Every reachable element must lie inside [data, data + capacity). Checked arithmetic: the
    // strides are the caller's and may be anything.
    int64_t item = dtype_size(dtype), lo = 0, hi = 0;
    if (s.numel() > 0) {
      bool overflow = false;
      for (int i = 0; i < rank; ++i) {
        int64_t span;
        overflow |= __builtin_mul_overflow(s.d[i] - 1, st.d[i], &span);
        int64_t& side = span < 0 ? lo : hi;
        overflow |= __builtin_add_overflow(side, span, &side);
      }
      int64_t end_bytes;
      overflow |= __builtin_add_overflow(hi, int64_t(1), &end_bytes) || __builtin_mul_overflow(end_bytes, item, &end_bytes);
      if (overflow || lo < 0 || end_bytes > int64_t(capacity))
        fail(NDRT_ERR_INVALID_ARGUMENT,
             "tensor_wrap: shape %s with strides %s reaches outside the %zu-byte buffer",
             s.str().c_str(), st.str().c_str(), capacity);
      if (!data) fail(NDRT_ERR_INVALID_ARGUMENT, "tensor_wrap: data is NULL");
    }
    // Kernels load elements as their C++ type: an address that is not a multiple of the element
    // size would be an unaligned (undefined) load.
    if (data && reinterpret_cast<uintptr_t>(data) % uintptr_t(item))
      fail(NDRT_ERR_INVALID_ARGUMENT, "tensor_wrap: data %p is not aligned to the %lld-byte elements of %s", data,
           (long long)item, dtype_name(dtype));
    Tensor t;
    t.dtype = dtype;
    t.shape = s;
    t.strides = st;
    auto storage = std::make_shared<Storage>();
    storage->data = data;
    storage->nbytes = capacity;
    storage->device = NDRT_CPU;
    // From here on the release hook belongs to the storage.
    storage->release = release;
    storage->release_user = user;
    storage->wrapped = true;
    note_wrapped_created(NDRT_CPU, capacity);
    t.storage = std::move(storage);
    *out = add_handle(std::move(t));
  });
}

NDRT_API ndrt_status ndrt_tensor_read(ndrt_handle h, void* dst, size_t nbytes) {
  return guard("tensor_read", [&] {
    Pinned t(h, "tensor_read");
    size_t want = size_t(host_nbytes(*t));
    if (nbytes != want)
      fail(NDRT_ERR_INVALID_ARGUMENT, "tensor_read: %zu bytes asked, tensor %s of %s holds %zu", nbytes,
           t->shape.str().c_str(), dtype_name(t->dtype), want);
    if (want && !dst) fail(NDRT_ERR_INVALID_ARGUMENT, "tensor_read: dst is NULL");
    if (on_cuda(*t)) {  // made dense on the device, then one copy (which waits for the device)
      Tensor dense = t->is_contiguous() ? *t : run_internal("copy", {t.get()}, nullptr, 0);
      copy_bytes(NDRT_CPU, dst, dense.device(), dense.base(), want);
      return;
    }
    copy_strided(*t, static_cast<char*>(dst), true);
  });
}

NDRT_API ndrt_status ndrt_tensor_write(ndrt_handle h, const void* src, size_t nbytes) {
  return guard("tensor_write", [&] {
    Pinned t(h, "tensor_write");
    size_t want = size_t(host_nbytes(*t));
    if (nbytes != want)
      fail(NDRT_ERR_INVALID_ARGUMENT, "tensor_write: %zu bytes given, tensor %s of %s holds %zu", nbytes,
           t->shape.str().c_str(), dtype_name(t->dtype), want);
    if (want && !src) fail(NDRT_ERR_INVALID_ARGUMENT, "tensor_write: src is NULL");
    for (int d = 0; d < t->rank(); ++d)
      if (t->strides.d[d] == 0 && t->shape.d[d] > 1)
        fail(NDRT_ERR_INVALID_ARGUMENT, "tensor_write: tensor is a broadcast view (stride 0 on axis %d)", d);
    if (on_cuda(*t)) {  // one copy into a dense buffer, then the device's copy op into the view
      if (t->is_contiguous()) return copy_bytes(t->device(), t->base(), NDRT_CPU, src, want);
      Tensor dense = alloc_tensor(t->dtype, t->shape, t->device());
      copy_bytes(dense.device(), dense.base(), NDRT_CPU, src, want);
      run_internal_into("copy", {&dense}, nullptr, 0, *t);
      return;
    }
    copy_strided(*t, const_cast<char*>(static_cast<const char*>(src)), false);
  });
}

NDRT_API ndrt_status ndrt_tensor_retain(ndrt_handle h, ndrt_handle* out) {
  return guard("tensor_retain", [&] {
    need(out, "tensor_retain", "out");
    Pinned t(h, "tensor_retain");
    *out = add_handle(view_of(*t));
  });
}

NDRT_API ndrt_status ndrt_tensor_release(ndrt_handle h) {
  return guard("tensor_release", [&] { handles().release(h); });
}

NDRT_API ndrt_status ndrt_tensor_dtype(ndrt_handle h, ndrt_dtype* out) {
  return guard("tensor_dtype", [&] {
    need(out, "tensor_dtype", "out");
    *out = Pinned(h, "tensor_dtype")->dtype;
  });
}

NDRT_API ndrt_status ndrt_tensor_rank(ndrt_handle h, int32_t* out) {
  return guard("tensor_rank", [&] {
    need(out, "tensor_rank", "out");
    *out = Pinned(h, "tensor_rank")->rank();
  });
}

static void copy_dims(const Dims& d, int64_t* out, int32_t capacity, const char* fn) {
  need(out, fn, "out");
  if (capacity < d.rank) fail(NDRT_ERR_INVALID_ARGUMENT, "%s: capacity %d is less than rank %d", fn, int(capacity), int(d.rank));
  for (int i = 0; i < d.rank; ++i) out[i] = d.d[i];
}

NDRT_API ndrt_status ndrt_tensor_shape(ndrt_handle h, int64_t* out, int32_t capacity) {
  return guard("tensor_shape", [&] { copy_dims(Pinned(h, "tensor_shape")->shape, out, capacity, "tensor_shape"); });
}

NDRT_API ndrt_status ndrt_tensor_strides(ndrt_handle h, int64_t* out, int32_t capacity) {
  return guard("tensor_strides",
               [&] { copy_dims(Pinned(h, "tensor_strides")->strides, out, capacity, "tensor_strides"); });
}

NDRT_API ndrt_status ndrt_tensor_offset(ndrt_handle h, int64_t* out) {
  return guard("tensor_offset", [&] {
    need(out, "tensor_offset", "out");
    *out = Pinned(h, "tensor_offset")->offset;
  });
}

NDRT_API ndrt_status ndrt_tensor_numel(ndrt_handle h, int64_t* out) {
  return guard("tensor_numel", [&] {
    need(out, "tensor_numel", "out");
    *out = Pinned(h, "tensor_numel")->numel();
  });
}

NDRT_API ndrt_status ndrt_tensor_device(ndrt_handle h, ndrt_device* out) {
  return guard("tensor_device", [&] {
    need(out, "tensor_device", "out");
    *out = Pinned(h, "tensor_device")->device();
  });
}

NDRT_API ndrt_status ndrt_tensor_is_contiguous(ndrt_handle h, int32_t* out) {
  return guard("tensor_is_contiguous", [&] {
    need(out, "tensor_is_contiguous", "out");
    *out = Pinned(h, "tensor_is_contiguous")->is_contiguous() ? 1 : 0;
  });
}

NDRT_API ndrt_status ndrt_tensor_data_ptr(ndrt_handle h, void** out) {
  return guard("tensor_data_ptr", [&] {
    need(out, "tensor_data_ptr", "out");
    Pinned t(h, "tensor_data_ptr");
    if (NDRT_DEVICE_TYPE_OF(t->device()) != NDRT_DEVICE_TYPE_CPU)
      fail(NDRT_ERR_NOT_SUPPORTED, "tensor_data_ptr: tensor lives on %s; only cpu memory is host-addressable",
           device_name(t->device()).c_str());
    *out = t->base();
  });
}

/* ---------------------------------------------------------------- views */

NDRT_API ndrt_status ndrt_tensor_reshape(ndrt_handle h, int32_t rank, const int64_t* shape, ndrt_handle* out) {
  return guard("tensor_reshape", [&] {
    need(out, "tensor_reshape", "out");
    Pinned t(h, "tensor_reshape");
    if (rank < 0 || rank > NDRT_MAX_RANK)
      fail(NDRT_ERR_INVALID_ARGUMENT, "tensor_reshape: rank %d is outside 0..%d", int(rank), NDRT_MAX_RANK);
    if (rank > 0 && !shape) fail(NDRT_ERR_INVALID_ARGUMENT, "tensor_reshape: shape is NULL");
    // Resolve a single -1.
    int64_t want[NDRT_MAX_RANK];
    int infer = -1;
    int64_t known = 1;
    for (int i = 0; i < rank; ++i) {
      want[i] = shape[i];
      if (shape[i] == -1) {
        if (infer >= 0) fail(NDRT_ERR_INVALID_ARGUMENT, "tensor_reshape: more than one -1 in %s", dims_str(shape, rank).c_str());
        infer = i;
      } else {
        if (shape[i] < 0) fail(NDRT_ERR_INVALID_ARGUMENT, "tensor_reshape: negative extent in %s", dims_str(shape, rank).c_str());
        if (!checked_mul(known, shape[i], known))  // too large for make_dims below anyway
          fail(NDRT_ERR_INVALID_ARGUMENT, "tensor_reshape: shape %s has too many elements", dims_str(shape, rank).c_str());
      }
    }
    int64_t n = t->numel();
    if (infer >= 0) {
      if (known == 0 || n % known)
        fail(NDRT_ERR_SHAPE_MISMATCH, "tensor_reshape: cannot infer -1 in %s for %lld elements",
             dims_str(shape, rank).c_str(), (long long)n);
      want[infer] = n / known;
    }
    Dims ns = make_dims("tensor_reshape", rank, want);
    if (ns.numel() != n)
      fail(NDRT_ERR_SHAPE_MISMATCH, "tensor_reshape: %s has %lld elements, shape %s has %lld", t->shape.str().c_str(),
           (long long)n, ns.str().c_str(), (long long)ns.numel());
    // Compute strides without copying: walk groups of old axes that map onto groups of new axes
    // (the same algorithm as numpy's attempt_nocopy_reshape). Size-1 axes are free.
    Tensor v = view_of(*t);
    v.shape = ns;
    v.strides = contiguous_strides(ns);
    if (!t->is_contiguous() && n > 0) {
      Dims os, ost;  // old axes without size-1 ones
      os.rank = 0;
      for (int i = 0; i < t->rank(); ++i)
        if (t->shape.d[i] != 1) {
          os.d[os.rank] = t->shape.d[i];
          ost.d[os.rank++] = t->strides.d[i];
        }
      int oi = 0, ni = 0;
      while (ni < ns.rank && oi < os.rank) {
        // skip size-1 new axes (any stride works)
        if (ns.d[ni] == 1) {
          v.strides.d[ni++] = 0;
          continue;
        }
        int oj = oi, nj = ni;
        int64_t op = os.d[oi], np = ns.d[ni];
        while (op != np) {
          if (np < op)
            np *= ns.d[++nj];
          else
            op *= os.d[++oj];
        }
        for (int k = oi; k < oj; ++k)
          if (ost.d[k] != os.d[k + 1] * ost.d[k + 1])
            fail(NDRT_ERR_INVALID_ARGUMENT,
                 "tensor_reshape: the view %s with strides %s cannot be reshaped to %s without a copy "
                 "(call ndrt_tensor_contiguous first)",
                 t->shape.str().c_str(), t->strides.str().c_str(), ns.str().c_str());
        v.strides.d[nj] = ost.d[oj];
        for (int k = nj - 1; k >= ni; --k) v.strides.d[k] = v.strides.d[k + 1] * ns.d[k + 1];
        ni = nj + 1;
        oi = oj + 1;
      }
      for (; ni < ns.rank; ++ni) v.strides.d[ni] = 0;  // trailing size-1 axes
    }
    *out = add_handle(std::move(v));
  });
}

NDRT_API ndrt_status ndrt_tensor_permute(ndrt_handle h, int32_t rank, const int32_t* perm, ndrt_handle* out) {
  return guard("tensor_permute", [&] {
    need(out, "tensor_permute", "out");
    Pinned t(h, "tensor_permute");
    if (rank != t->rank())
      fail(NDRT_ERR_INVALID_ARGUMENT, "tensor_permute: permutation of %d axes for a tensor of rank %d", int(rank),
           int(t->rank()));
    if (rank > 0) need(perm, "tensor_permute", "perm");
    Tensor v = view_of(*t);
    uint32_t seen = 0;
    for (int i = 0; i < rank; ++i) {
      int32_t a = perm[i];
      if (a < 0 || a >= rank || (seen & (1u << a)))
        fail(NDRT_ERR_INVALID_ARGUMENT, "tensor_permute: perm is not a permutation of 0..%d", int(rank - 1));
      seen |= 1u << a;
      v.shape.d[i] = t->shape.d[a];
      v.strides.d[i] = t->strides.d[a];
    }
    *out = add_handle(std::move(v));
  });
}

NDRT_API ndrt_status ndrt_tensor_transpose(ndrt_handle h, int32_t a, int32_t b, ndrt_handle* out) {
  return guard("tensor_transpose", [&] {
    need(out, "tensor_transpose", "out");
    Pinned t(h, "tensor_transpose");
    int32_t ia = normalize_axis("tensor_transpose", a, t->rank());
    int32_t ib = normalize_axis("tensor_transpose", b, t->rank());
    Tensor v = view_of(*t);
    std::swap(v.shape.d[ia], v.shape.d[ib]);
    std::swap(v.strides.d[ia], v.strides.d[ib]);
    *out = add_handle(std::move(v));
  });
}

NDRT_API ndrt_status ndrt_tensor_slice(ndrt_handle h, int32_t axis, int64_t start, int64_t stop, int64_t step,
                                       ndrt_handle* out) {
  return guard("tensor_slice", [&] {
    need(out, "tensor_slice", "out");
    Pinned t(h, "tensor_slice");
    int32_t ax = normalize_axis("tensor_slice", axis, t->rank());
    if (step == 0) fail(NDRT_ERR_INVALID_ARGUMENT, "tensor_slice: step is 0");
    int64_t n = t->shape.d[ax];
    // Python's slice.indices(): negative bounds count from the end, then clamp.
    auto clamp = [&](int64_t v, int64_t lo, int64_t hi) {
      if (v < 0) v += n;
      return v < lo ? lo : v > hi ? hi : v;
    };
    // Lengths as ceil((e - b) / step) written so no intermediate overflows, even for steps near
    // the int64 limits (|step| >= the distance gives one element).
    int64_t b, e, len;
    if (step > 0) {
      b = clamp(start, 0, n);
      e = clamp(stop, 0, n);
      len = e > b ? (e - b - 1) / step + 1 : 0;
    } else {
      b = clamp(start, -1, n - 1);
      e = clamp(stop, -1, n - 1);
      len = b > e ? (step == INT64_MIN ? 1 : (b - e - 1) / -step + 1) : 0;
    }
    int64_t new_stride = 0;
    if (len > 1 && __builtin_mul_overflow(t->strides.d[ax], step, &new_stride))
      fail(NDRT_ERR_INVALID_ARGUMENT, "tensor_slice: step %lld overflows the stride", (long long)step);
    Tensor v = view_of(*t);
    if (len > 0) v.offset += b * t->strides.d[ax];
    v.shape.d[ax] = len;
    v.strides.d[ax] = len > 1 ? new_stride : t->strides.d[ax];
    *out = add_handle(std::move(v));
  });
}

NDRT_API ndrt_status ndrt_tensor_expand(ndrt_handle h, int32_t rank, const int64_t* shape, ndrt_handle* out) {
  return guard("tensor_expand", [&] {
    need(out, "tensor_expand", "out");
    Pinned t(h, "tensor_expand");
    Dims ns = make_dims("tensor_expand", rank, shape);
    if (rank < t->rank())
      fail(NDRT_ERR_SHAPE_MISMATCH, "tensor_expand: cannot expand %s to fewer axes %s", t->shape.str().c_str(),
           ns.str().c_str());
    Tensor v = view_of(*t);
    v.shape = ns;
    v.strides.rank = rank;
    for (int i = 0; i < rank; ++i) {
      int j = i - (rank - t->rank());
      if (j < 0) {
        v.strides.d[i] = 0;
      } else if (t->shape.d[j] == ns.d[i]) {
        v.strides.d[i] = t->strides.d[j];
      } else if (t->shape.d[j] == 1) {
        v.strides.d[i] = 0;
      } else {
        fail(NDRT_ERR_SHAPE_MISMATCH, "tensor_expand: %s does not broadcast to %s", t->shape.str().c_str(),
             ns.str().c_str());
      }
    }
    *out = add_handle(std::move(v));
  });
}

/* ---------------------------------------------------------------- copies */

NDRT_API ndrt_status ndrt_tensor_contiguous(ndrt_handle h, ndrt_handle* out) {
  return guard("tensor_contiguous", [&] {
    need(out, "tensor_contiguous", "out");
    Pinned t(h, "tensor_contiguous");
    *out = add_handle(t->is_contiguous() ? view_of(*t) : run_internal("copy", {t.get()}, nullptr, 0));
  });
}

NDRT_API ndrt_status ndrt_tensor_cast(ndrt_handle h, ndrt_dtype dtype, ndrt_handle* out) {
  return guard("tensor_cast", [&] {
    need(out, "tensor_cast", "out");
    check_dtype("tensor_cast", dtype);
    Pinned t(h, "tensor_cast");
    int64_t attr = dtype;
    *out = add_handle(run_internal("cast", {t.get()}, &attr, 1));
  });
}

NDRT_API ndrt_status ndrt_tensor_to_device(ndrt_handle h, ndrt_device device, ndrt_handle* out) {
  return guard("tensor_to_device", [&] {
    need(out, "tensor_to_device", "out");
    Pinned t(h, "tensor_to_device");
    ndrt_device dev = resolve_device(device);
    check_device("tensor_to_device", dev);
    Tensor dst = alloc_tensor(t->dtype, t->shape, dev);
    if (!on_cuda(*t) && !on_cuda(dst)) {
      copy_strided(*t, dst.base(), true);  // dst is dense row-major host memory
    } else {
      // Strided sources are made dense on their own device first (cpu or cuda copy op).
      Tensor dense = t->is_contiguous() ? *t : run_internal("copy", {t.get()}, nullptr, 0);
      copy_bytes(dev, dst.base(), dense.device(), dense.base(), size_t(host_nbytes(dense)));
    }
    *out = add_handle(std::move(dst));
  });
}

NDRT_API ndrt_status ndrt_live_handles(int64_t* out) {
  return guard("live_handles", [&] { *need(out, "live_handles", "out") = handles().live(); });
}

/* ---------------------------------------------------------------- distributed */

NDRT_API ndrt_status ndrt_comm_world(ndrt_comm* out) {
  return guard("comm_world", [&] {
    need(out, "comm_world", "out");
    *out = comm_world();
  });
}

NDRT_API ndrt_status ndrt_comm_rank(ndrt_comm comm, int32_t* out) {
  return guard("comm_rank", [&] {
    need(out, "comm_rank", "out");
    *out = comm_rank(comm);
  });
}

NDRT_API ndrt_status ndrt_comm_size(ndrt_comm comm, int32_t* out) {
  return guard("comm_size", [&] {
    need(out, "comm_size", "out");
    *out = comm_size(comm);
  });
}

NDRT_API ndrt_status ndrt_comm_local_rank(ndrt_comm comm, int32_t* out) {
  return guard("comm_local_rank", [&] {
    need(out, "comm_local_rank", "out");
    *out = comm_local_rank(comm);
  });
}

NDRT_API ndrt_status ndrt_comm_split(ndrt_comm comm, int32_t color, int32_t key, ndrt_comm* out) {
  return guard("comm_split", [&] {
    need(out, "comm_split", "out");
    *out = comm_split(comm, color, key);
  });
}

NDRT_API ndrt_status ndrt_comm_release(ndrt_comm comm) {
  return guard("comm_release", [&] { comm_release(comm); });
}

NDRT_API ndrt_status ndrt_allreduce(ndrt_comm comm, ndrt_handle t, int32_t op) {
  return guard("allreduce", [&] { allreduce(comm, t, op); });
}

NDRT_API ndrt_status ndrt_broadcast(ndrt_comm comm, ndrt_handle t, int32_t root) {
  return guard("broadcast", [&] { broadcast(comm, t, root); });
}

NDRT_API ndrt_status ndrt_allgather(ndrt_comm comm, ndrt_handle in, ndrt_handle out) {
  return guard("allgather", [&] { allgather(comm, in, out); });
}

NDRT_API ndrt_status ndrt_reduce_scatter(ndrt_comm comm, ndrt_handle in, ndrt_handle out, int32_t op) {
  return guard("reduce_scatter", [&] { reduce_scatter(comm, in, out, op); });
}

NDRT_API ndrt_status ndrt_barrier(ndrt_comm comm) {
  return guard("barrier", [&] { barrier(comm); });
}

NDRT_API ndrt_status ndrt_allreduce_async(ndrt_comm comm, const ndrt_handle* tensors, int32_t n, int32_t op,
                                          ndrt_event* out) {
  return guard("allreduce_async", [&] {
    need(out, "allreduce_async", "out");
    *out = allreduce_async(comm, tensors, n, op);
  });
}

/* ---------------------------------------------------------------- memory */

NDRT_API ndrt_status ndrt_memory_stats_get(ndrt_device device, ndrt_memory_stats* out) {
  return guard("memory_stats_get", [&] {
    need(out, "memory_stats_get", "out");
    *out = allocator_for(resolve_device(device)).stats();
  });
}

NDRT_API ndrt_status ndrt_memory_trim(ndrt_device device) {
  return guard("memory_trim", [&] { allocator_for(resolve_device(device)).trim(); });
}

NDRT_API ndrt_status ndrt_memory_reset_peak(ndrt_device device) {
  return guard("memory_reset_peak", [&] { allocator_for(resolve_device(device)).reset_peak(); });
}

NDRT_API ndrt_status ndrt_memory_set_pressure_callback(int64_t threshold_bytes, ndrt_pressure_fn fn, void* user) {
  return guard("memory_set_pressure_callback", [&] { set_pressure_callback(threshold_bytes, fn, user); });
}

/* ---------------------------------------------------------------- devices */

NDRT_API ndrt_status ndrt_device_count(int32_t device_type, int32_t* out) {
  return guard("device_count", [&] { *need(out, "device_count", "out") = device_count(device_type); });
}

NDRT_API ndrt_status ndrt_device_name(ndrt_device device, char* buf, size_t capacity) {
  return guard("device_name", [&] {
    check_device("device_name", device);
    need(buf, "device_name", "buf");
    write_text(device_name(device), buf, capacity, nullptr, "device_name");
  });
}

NDRT_API ndrt_status ndrt_default_device_type(int32_t* out) {
  return guard("default_device_type", [&] { *need(out, "default_device_type", "out") = default_device_type(); });
}

NDRT_API ndrt_status ndrt_thread_device(ndrt_device* out) {
  return guard("thread_device", [&] { *need(out, "thread_device", "out") = thread_device(); });
}

NDRT_API ndrt_status ndrt_thread_attach(ndrt_device device) {
  return guard("thread_attach", [&] { thread_attach(device); });
}

NDRT_API ndrt_status ndrt_synchronize(ndrt_device device) {
  return guard("synchronize", [&] { synchronize(resolve_device(device)); });
}

NDRT_API ndrt_status ndrt_event_record(ndrt_device device, ndrt_event* out) {
  return guard("event_record", [&] {
    need(out, "event_record", "out");
    *out = event_record(resolve_device(device));
  });
}

NDRT_API ndrt_status ndrt_event_wait(ndrt_event event, ndrt_device device) {
  return guard("event_wait", [&] { event_wait(event, resolve_device(device)); });
}

NDRT_API ndrt_status ndrt_event_synchronize(ndrt_event event) {
  return guard("event_synchronize", [&] { event_synchronize(event); });
}

NDRT_API ndrt_status ndrt_event_query(ndrt_event event, int32_t* out) {
  return guard("event_query", [&] {
    need(out, "event_query", "out");
    *out = event_query(event) ? 1 : 0;
  });
}

NDRT_API ndrt_status ndrt_event_release(ndrt_event event) {
  return guard("event_release", [&] { event_release(event); });
}

/* ---------------------------------------------------------------- ops */

NDRT_API ndrt_status ndrt_op_count(int32_t* out) {
  return guard("op_count", [&] { *need(out, "op_count", "out") = registry().count(); });
}

NDRT_API ndrt_status ndrt_op_find(const char* name, int32_t* op_id) {
  return guard("op_find", [&] {
    need(name, "op_find", "name");
    need(op_id, "op_find", "op_id");
    int32_t id = registry().find(name);
    if (id < 0) fail(NDRT_ERR_UNKNOWN_OP, "op_find: no op named '%s'", name);
    *op_id = id;
  });
}

NDRT_API ndrt_status ndrt_op_describe(int32_t op_id, char* buf, size_t capacity, size_t* needed) {
  return guard("op_describe", [&] {
    const Registry& r = registry();
    if (op_id < 0 || op_id >= r.count())
      fail(NDRT_ERR_UNKNOWN_OP, "op_describe: op id %d is not registered (0..%d)", int(op_id), int(r.count() - 1));
    write_text(r.describe(op_id), buf, capacity, needed, "op_describe");
  });
}

NDRT_API ndrt_status ndrt_exec(int32_t op_id, const ndrt_handle* inputs, int32_t n_inputs, ndrt_handle* outputs,
                               int32_t n_outputs, const int64_t* ints, int32_t n_ints, const double* floats,
                               int32_t n_floats) {
  return guard("exec", [&] { exec(op_id, inputs, n_inputs, outputs, n_outputs, ints, n_ints, floats, n_floats); });
}

/* ---------------------------------------------------------------- config, logging, profiler */

NDRT_API ndrt_status ndrt_config_set(const char* key, const char* value) {
  return guard("config_set", [&] { config_set(key, value); });
}

NDRT_API ndrt_status ndrt_config_get(const char* key, char* buf, size_t capacity, size_t* needed) {
  return guard("config_get", [&] { write_text(config_get(key), buf, capacity, needed, "config_get"); });
}

NDRT_API ndrt_status ndrt_set_log_callback(ndrt_log_fn fn, void* user) {
  return guard("set_log_callback", [&] { set_log_callback(fn, user); });
}

NDRT_API ndrt_status ndrt_profiler_enable(int32_t on) {
  return guard("profiler_enable", [&] {
    if (on != 0 && on != 1) fail(NDRT_ERR_INVALID_ARGUMENT, "profiler_enable: expects 0 or 1, got %d", int(on));
    profiler_set_enabled(on == 1);
  });
}

NDRT_API ndrt_status ndrt_profiler_clear(void) {
  return guard("profiler_clear", [&] { profiler_clear(); });
}

NDRT_API ndrt_status ndrt_profiler_count(int64_t* out) {
  return guard("profiler_count", [&] { *need(out, "profiler_count", "out") = profiler_count(); });
}

NDRT_API ndrt_status ndrt_profiler_write_trace(const char* path) {
  return guard("profiler_write_trace", [&] { profiler_write_trace(path); });
}

NDRT_API ndrt_status ndrt_profiler_summary(char* buf, size_t capacity, size_t* needed) {
  return guard("profiler_summary", [&] { write_text(profiler_summary(), buf, capacity, needed, "profiler_summary"); });
}

/* ---------------------------------------------------------------- function table */

static const ndrt_api kApiV1 = {
    1,
    ndrt_abi_version, ndrt_version_string, ndrt_last_error, ndrt_status_name,
    ndrt_tensor_create, ndrt_tensor_from_host, ndrt_tensor_wrap, ndrt_tensor_read, ndrt_tensor_write,
    ndrt_tensor_retain, ndrt_tensor_release, ndrt_tensor_dtype, ndrt_tensor_rank, ndrt_tensor_shape,
    ndrt_tensor_strides, ndrt_tensor_offset, ndrt_tensor_numel, ndrt_tensor_device, ndrt_tensor_is_contiguous,
    ndrt_tensor_data_ptr, ndrt_tensor_reshape, ndrt_tensor_permute, ndrt_tensor_transpose, ndrt_tensor_slice,
    ndrt_tensor_expand, ndrt_tensor_contiguous, ndrt_tensor_cast, ndrt_tensor_to_device, ndrt_live_handles,
    ndrt_memory_stats_get, ndrt_memory_trim, ndrt_memory_reset_peak, ndrt_memory_set_pressure_callback,
    ndrt_device_count, ndrt_device_name, ndrt_default_device_type, ndrt_thread_device, ndrt_thread_attach,
    ndrt_synchronize, ndrt_op_count, ndrt_op_find, ndrt_op_describe, ndrt_exec, ndrt_config_set, ndrt_config_get,
    ndrt_set_log_callback, ndrt_profiler_enable, ndrt_profiler_clear, ndrt_profiler_count,
    ndrt_profiler_write_trace, ndrt_profiler_summary, ndrt_event_record, ndrt_event_wait, ndrt_event_synchronize,
    ndrt_event_query, ndrt_event_release, ndrt_comm_world, ndrt_comm_rank, ndrt_comm_size, ndrt_comm_local_rank,
    ndrt_comm_split, ndrt_comm_release, ndrt_allreduce, ndrt_broadcast, ndrt_allgather, ndrt_reduce_scatter,
    ndrt_barrier, ndrt_allreduce_async,
};

NDRT_API ndrt_status ndrt_get_api(uint32_t version, const ndrt_api** out) {
  return guard("get_api", [&] {
    need(out, "get_api", "out");
    *out = nullptr;
    if (version != 1)
      fail(NDRT_ERR_NOT_CONFIGURED, "get_api: this library (ABI %d) offers function table versions 1..%d, not %u",
           NDRT_ABI_VERSION, NDRT_API_VERSION, version);
    *out = &kApiV1;
  });
}

}  // extern "C"
