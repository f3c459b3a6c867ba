// How a value becomes a value of another dtype, the same on every backend: the one place the CPU
// kernels (kernels/cpu/convert.hpp) and the CUDA module (kernels/cuda/*.cuh) take these rules from.
// Compiles as host C++ and as CUDA (host and device).
//
//  - float -> integer: NaN is 0; values beyond the type's range saturate to its min or max;
//    everything else truncates toward zero. (C++ leaves out-of-range conversions undefined.)
//  - integer -> narrower integer: modulo 2^bits (two's complement), as C++20 defines it.
//  - bool storage is one byte read as a byte: any non-zero byte is true. Kernels never load it as
//    a C++ bool (a byte other than 0 or 1 read as bool is undefined); they write 0 or 1.
//  - double -> f16/bf16: one rounding to nearest even, through a round-to-odd float.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#if defined(__CUDACC__)
#define NDRT_HOST_DEVICE __host__ __device__
#else
#define NDRT_HOST_DEVICE
#endif

namespace ndrt::rules {

template <class I, class F>
NDRT_HOST_DEVICE inline I float_to_int(F v) {
  static_assert(std::is_integral_v<I> && std::is_floating_point_v<F> && sizeof(I) <= 8);
  constexpr int digits = int(sizeof(I) * 8) - (std::is_signed_v<I> ? 1 : 0);  // value bits
  constexpr uint64_t half = uint64_t(1) << (digits - 1);
  const F limit = F(half) * F(2);  // 2^digits, exact in F: the first value past the maximum
  if (v != v) return I(0);
  if (v >= limit) return I(half - 1 + half);
  if constexpr (std::is_signed_v<I>) {
    if (v <= -limit) return I(-int64_t(half - 1 + half) - 1);
  } else {
    if (v <= F(-1)) return I(0);
  }
  return static_cast<I>(v);
}

// double -> float toward zero with a sticky low bit (round to odd): a following rounding to
// f16/bf16 is then correct to nearest even (no double rounding).
NDRT_HOST_DEVICE inline float float_round_odd(double d) {
#if defined(__CUDA_ARCH__)
  float f = __double2float_rz(d);
  if (d != d || double(f) == d) return f;
  return __uint_as_float(__float_as_uint(f) | 1u);
#else
  float f = static_cast<float>(d);
  if (d != d || double(f) == d) return f;
  if (std::isinf(f) || std::fabs(double(f)) > std::fabs(d)) f = std::nextafter(f, 0.0f);  // truncate
  uint32_t u;
  std::memcpy(&u, &f, 4);
  u |= 1u;
  std::memcpy(&f, &u, 4);
  return f;
#endif
}

// The truth of a bool element, given its byte.
NDRT_HOST_DEVICE inline bool bool_byte(uint8_t b) { return b != 0; }

}  // namespace ndrt::rules
