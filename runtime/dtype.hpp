// dtypes: sizes, names, the 16-bit float types, and the one switch that maps a dtype to a C++ type.
#pragma once
#include <cstdint>
#include <cstring>

#include "error.hpp"
#include "ndrt/ndrt.h"

namespace ndrt {

// IEEE binary16 and bfloat16 stored as bits; arithmetic happens in float. float -> 16 bit rounds to
// nearest even; NaN stays NaN (quiet).
struct Half {
  uint16_t bits;
  Half() = default;
  explicit Half(float f) : bits(from_float(f)) {}
  operator float() const { return to_float(bits); }
  static uint16_t from_float(float f);
  static float to_float(uint16_t h);
};

struct BFloat16 {
  uint16_t bits;
  BFloat16() = default;
  explicit BFloat16(float f) : bits(from_float(f)) {}
  operator float() const {
    uint32_t u = uint32_t(bits) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
  static uint16_t from_float(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x40);  // quiet NaN
    u += 0x7fffu + ((u >> 16) & 1u);  // round to nearest even
    return uint16_t(u >> 16);
  }
};

inline bool dtype_valid(ndrt_dtype d) { return d >= NDRT_F32 && d <= NDRT_BOOL; }
// Bytes per element of a valid dtype (every tensor holds one); inline so the cuda module can use it.
inline int64_t valid_dtype_size(ndrt_dtype d) {
  return d == NDRT_F64 || d == NDRT_I64 ? 8 : d == NDRT_F32 || d == NDRT_I32 ? 4 : d == NDRT_F16 || d == NDRT_BF16 ? 2 : 1;
}
int64_t dtype_size(ndrt_dtype d);  // fails with NDRT_ERR_INVALID_ARGUMENT for an invalid dtype
const char* dtype_name(ndrt_dtype d);  // "f32", ..., "?" for invalid
inline bool dtype_is_float(ndrt_dtype d) { return d >= NDRT_F32 && d <= NDRT_BF16; }

// Calls f(T{}) with the C++ type of dtype d (bool for NDRT_BOOL). The single place that switches
// over every dtype; kernels instantiate only the types they list in their own dispatch.
template <class F>
decltype(auto) visit_dtype(ndrt_dtype d, F&& f) {
  switch (d) {
    case NDRT_F32: return f(float{});
    case NDRT_F64: return f(double{});
    case NDRT_F16: return f(Half{});
    case NDRT_BF16: return f(BFloat16{});
    case NDRT_I8: return f(int8_t{});
    case NDRT_U8: return f(uint8_t{});
    case NDRT_I32: return f(int32_t{});
    case NDRT_I64: return f(int64_t{});
    case NDRT_BOOL: return f(bool{});
  }
  fail(NDRT_ERR_INVALID_ARGUMENT, "invalid dtype %d", int(d));
}

template <class T> constexpr ndrt_dtype dtype_of();
template <> constexpr ndrt_dtype dtype_of<float>() { return NDRT_F32; }
template <> constexpr ndrt_dtype dtype_of<double>() { return NDRT_F64; }
template <> constexpr ndrt_dtype dtype_of<Half>() { return NDRT_F16; }
template <> constexpr ndrt_dtype dtype_of<BFloat16>() { return NDRT_BF16; }
template <> constexpr ndrt_dtype dtype_of<int8_t>() { return NDRT_I8; }
template <> constexpr ndrt_dtype dtype_of<uint8_t>() { return NDRT_U8; }
template <> constexpr ndrt_dtype dtype_of<int32_t>() { return NDRT_I32; }
template <> constexpr ndrt_dtype dtype_of<int64_t>() { return NDRT_I64; }
template <> constexpr ndrt_dtype dtype_of<bool>() { return NDRT_BOOL; }

}  // namespace ndrt
