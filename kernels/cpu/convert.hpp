// Value conversion between dtypes, as the cast op defines it, on the rules of runtime/value_rules.hpp
// (float -> integer saturates, NaN -> 0; f64 -> f16/bf16 rounds once). A bool here is a value:
// kernels load bool storage as bytes (rules::bool_byte) and convert the truth value.
#pragma once
#include <cmath>
#include <cstring>
#include <type_traits>

#include "dtype.hpp"
#include "value_rules.hpp"

namespace ndrt {

using rules::float_round_odd;

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
    return convert<To>(static_cast<float>(v));
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    return rules::float_to_int<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

}  // namespace ndrt
