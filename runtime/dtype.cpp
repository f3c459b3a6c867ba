#include "dtype.hpp"

namespace ndrt {

int64_t dtype_size(ndrt_dtype d) {
  if (!dtype_valid(d)) fail(NDRT_ERR_INVALID_ARGUMENT, "invalid dtype %d", int(d));
  return valid_dtype_size(d);
}

const char* dtype_name(ndrt_dtype d) {
  static const char* const names[] = {"?", "f32", "f64", "f16", "bf16", "i8", "u8", "i32", "i64", "bool"};
  return dtype_valid(d) ? names[d] : "?";
}

uint16_t Half::from_float(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t abs = x & 0x7fffffffu;
  if (abs > 0x7f800000u) return uint16_t(sign | 0x7e00u);  // NaN
  if (abs >= 0x477ff000u) {  // rounds to >= 65520: overflow to inf (inf stays inf)
    return uint16_t(sign | 0x7c00u);
  }
  if (abs < 0x38800000u) {  // below the smallest normal half (2^-14): subnormal or zero
    // Scale so the half subnormal unit (2^-24) becomes 1.0, then round to nearest even in float.
    float a;
    std::memcpy(&a, &abs, 4);
    float scaled = a * 16777216.0f;  // exact: power of two
    // nearbyint-style rounding to nearest even via the 2^23 trick (scaled < 1024 here)
    float r = (scaled + 8388608.0f) - 8388608.0f;
    return uint16_t(sign | uint32_t(r));
  }
  // normal: rebias exponent (127 -> 15), round mantissa 23 -> 10 bits to nearest even
  uint32_t mant_round = abs + 0xfffu + ((abs >> 13) & 1u);
  return uint16_t(sign | ((mant_round - 0x38000000u) >> 13));
}

float Half::to_float(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);  // inf / NaN
  } else if (exp == 0) {
    float f = float(mant) * 5.9604644775390625e-8f;  // mant * 2^-24, exact
    std::memcpy(&bits, &f, 4);
    bits |= sign;
  } else {
    bits = sign | ((exp + 112u) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

}  // namespace ndrt
