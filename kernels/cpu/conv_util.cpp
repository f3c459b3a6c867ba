// Staging for the conv family: strided operands become dense copies, f16/bf16 become f32, and
// results computed in a dense buffer are stored into the caller's (possibly strided) view.
#include <cstring>
#include <mutex>
#include <set>
#include <string>

#include "conv_util.hpp"
#include "convert.hpp"

namespace ndrt {

namespace {

template <class To, class From>
void copy_convert(const Tensor& dst, const Tensor& src) {
  Loop<2> L = make_loop<2>(dst, {&src});
  run_loop(L, [&](char** p, int64_t n, const int64_t* s) {
    To* o = reinterpret_cast<To*>(p[0]);
    const From* x = reinterpret_cast<const From*>(p[1]);
    if constexpr (std::is_same_v<To, From>) {
      if (s[0] == 1 && s[1] == 1) {
        std::memcpy(o, x, size_t(n) * sizeof(To));
        return;
      }
    }
    for (int64_t i = 0; i < n; ++i) o[i * s[0]] = convert<To>(x[i * s[1]]);
  });
}

// Same-dtype copies move words: one instantiation per element size (1: the pooling's u8 index).
void copy_same(const Tensor& dst, const Tensor& src) {
  switch (src.itemsize()) {
    case 1: return copy_convert<uint8_t, uint8_t>(dst, src);
    case 2: return copy_convert<uint16_t, uint16_t>(dst, src);
    case 4: return copy_convert<uint32_t, uint32_t>(dst, src);
    case 8: return copy_convert<uint64_t, uint64_t>(dst, src);
    default: fail(NDRT_ERR_INTERNAL, "conv copy: unexpected element size %d", int(src.itemsize()));
  }
}

}  // namespace

Tensor conv_dense(const Tensor& t) {
  if (t.is_contiguous()) return t;
  Tensor d = alloc_tensor(t.dtype, t.shape, t.device());
  copy_same(d, t);
  return d;
}

Tensor conv_to_f32(const Tensor& t) {
  if (t.dtype == NDRT_F32) return conv_dense(t);
  Tensor d = alloc_tensor(NDRT_F32, t.shape, t.device());
  if (t.dtype == NDRT_F16)
    copy_convert<float, Half>(d, t);
  else if (t.dtype == NDRT_BF16)
    copy_convert<float, BFloat16>(d, t);
  else
    fail(NDRT_ERR_INTERNAL, "conv_to_f32: unexpected dtype %s", dtype_name(t.dtype));
  return d;
}

void conv_store(const Tensor& dst, const Tensor& src) {
  if (dst.numel() == 0) return;
  if (dst.dtype == src.dtype) return copy_same(dst, src);
  if (src.dtype == NDRT_F32 && dst.dtype == NDRT_F16) return copy_convert<Half, float>(dst, src);
  if (src.dtype == NDRT_F32 && dst.dtype == NDRT_BF16) return copy_convert<BFloat16, float>(dst, src);
  fail(NDRT_ERR_INTERNAL, "conv_store: %s -> %s", dtype_name(src.dtype), dtype_name(dst.dtype));
}

const char* conv_intern(const char* s) {
  static std::mutex mu;
  static std::set<std::string>* names = new std::set<std::string>;  // never freed: names outlive every caller
  std::lock_guard<std::mutex> lock(mu);
  return names->insert(s).first->c_str();
}

}  // namespace ndrt
