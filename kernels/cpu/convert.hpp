// Value conversion between dtypes, as the cast op defines it. f64 -> f16/bf16 goes through a
// round-to-odd float so the final rounding is still correct to nearest-even (no double rounding).
#pragma once
#include <cmath>
#include <cstring>
#include <type_traits>

#include "dtype.hpp"

namespace ndrt {

// double -> float rounding toward zero with a sticky low bit (round to odd).
inline float float_round_odd(double d) {
  float f = static_cast<float>(d);
  if (std::isnan(d) || double(f) == d) return f;
  if (std::isinf(f) || std::fabs(double(f)) > std::fabs(d)) f = std::nextafter(f, 0.0f);  // truncate
  uint32_t u;
  std::memcpy(&u, &f, 4);
  u |= 1u;
  std::memcpy(&f, &u, 4);
  return f;
}

template <class To, class From>
inline To convert(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (std::is_same_v<To, bool>) {
    if constexpr (std::is_same_v<From, Half> || std::is_same_v<From, BFloat16>)
      return static_cast<float>(v) != 0.0f;
    else
      return v != From(0);
  } else if constexpr (std::is_same_v<To, Half> || std::is_same_v<To, BFloat16>) {
    if constexpr (std::is_same_v<From, double>)
      return To(float_round_odd(v));
    else if constexpr (std::is_same_v<From, int64_t> || std::is_same_v<From, int32_t>)
      return To(float_round_odd(double(v)));  // ints past 2^24 are not exact in float
    else
      return To(static_cast<float>(v));
  } else if constexpr (std::is_same_v<From, Half> || std::is_same_v<From, BFloat16>) {
    return static_cast<To>(static_cast<float>(v));
  } else {
    return static_cast<To>(v);
  }
}

}  // namespace ndrt
