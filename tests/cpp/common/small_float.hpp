// The test suite's own reference for binary16 (f16) and bfloat16: exact round-to-nearest-even
// from a double, and exact decoding. Independent of the runtime's Half/BFloat16 so it can judge
// them; header-only so the internal tests (not linked to libndrt) use it too.
#pragma once

#include <cmath>
#include <cstdint>

namespace nt {

// Exact round-to-nearest-even of a double to a binary format with `ebits` exponent bits and
// `mbits` stored mantissa bits (IEEE layout: sign, exponent, mantissa).
inline uint16_t round_small(double x, int ebits, int mbits) {
  const int bias = (1 << (ebits - 1)) - 1;
  const uint32_t expmask = ((1u << ebits) - 1) << mbits;
  const uint32_t sign = std::signbit(x) ? (1u << (ebits + mbits)) : 0u;
  if (std::isnan(x)) return uint16_t(sign | expmask | (1u << (mbits - 1)));
  double a = std::fabs(x);
  if (std::isinf(a)) return uint16_t(sign | expmask);
  if (a == 0) return uint16_t(sign);
  const int emin = 1 - bias;
  int e = std::ilogb(a);
  if (e < emin) e = emin;
  const double q = std::ldexp(1.0, e - mbits);  // spacing of representable values near a
  const double r = a / q;                       // exact: power-of-two scaling
  double m = r;
  {
    // Ties to even, independent of the current rounding mode.
    double fl = std::floor(r), diff = r - fl;
    if (diff > 0.5)
      m = fl + 1;
    else if (diff < 0.5)
      m = fl;
    else
      m = std::fmod(fl, 2.0) == 0 ? fl : fl + 1;
  }
  const double one = std::ldexp(1.0, mbits);
  if (m >= 2 * one) {  // carried into the next binade
    m /= 2;
    e += 1;
  }
  if (e > bias) return uint16_t(sign | expmask);  // overflow to infinity
  if (m < one) return uint16_t(sign | uint32_t(m));  // subnormal (e == emin)
  return uint16_t(sign | (uint32_t(e + bias) << mbits) | uint32_t(m - one));
}

inline double decode_small(uint16_t bits, int ebits, int mbits) {
  const int bias = (1 << (ebits - 1)) - 1;
  const uint32_t emax = (1u << ebits) - 1;
  const uint32_t ex = (bits >> mbits) & emax;
  const uint32_t mant = bits & ((1u << mbits) - 1);
  const bool neg = (bits >> (ebits + mbits)) & 1u;
  double v;
  if (ex == emax)
    v = mant ? std::nan("") : HUGE_VAL;
  else if (ex == 0)
    v = std::ldexp(double(mant), 1 - bias - mbits);
  else
    v = std::ldexp(double(mant + (1u << mbits)), int(ex) - bias - mbits);
  return neg ? -v : v;
}

inline uint16_t f16_from_double(double x) { return round_small(x, 5, 10); }
inline double f16_to_double(uint16_t h) { return decode_small(h, 5, 10); }
inline uint16_t bf16_from_double(double x) { return round_small(x, 8, 7); }
inline double bf16_to_double(uint16_t h) { return decode_small(h, 8, 7); }

inline bool f16_is_nan(uint16_t h) { return (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu); }
inline bool bf16_is_nan(uint16_t h) { return (h & 0x7f80u) == 0x7f80u && (h & 0x7fu); }

}  // namespace nt
