// Philox4x32-10, the counter-based generator of Salmon, Moraes, Dror and Shaw, "Parallel random
// numbers: as easy as 1, 2, 3" (SC 2011), and the mapping of ndrt's random ops onto it. Shared by the
// cpu kernels and (later) the CUDA ones: plain C++ with only <math.h> and <stdint.h>, every function
// marked NDRT_HD so nvcc compiles it for host and device. Identical words on every device are the
// point: a random op's output depends only on (seed, offset, element index), never on threads,
// chunking or backend.
//
// Stream layout (the contract every backend implements):
//   key     = (seed & 0xffffffff, seed >> 32)
//   counter = (block & 0xffffffff, block >> 32, 0, 0)  (words 2 and 3 are reserved, 0)
//   Element g = offset + i (i: row-major position in the output) takes its bits from
//     - 32-bit draws (f32/f16/bf16 values, bernoulli, dropout masks): block g / 4, word g % 4;
//     - 64-bit draws (f64 values): block g / 2, words 2*(g % 2) and 2*(g % 2) + 1 (high, low);
//   so drawing n values at offset o and then m values at offset o + n gives the same numbers as
//   drawing n + m values at offset o.
//   Box-Muller normals use the pair of slots (g & ~1, g | 1): even g gets r*cos, odd g gets r*sin.
#pragma once
#include <math.h>
#include <stdint.h>

#if defined(__CUDACC__)
#define NDRT_HD __host__ __device__ __forceinline__
#else
#define NDRT_HD inline
#endif

namespace ndrt {
namespace philox {

struct Key {
  uint32_t k[2];
};
struct Block {
  uint32_t v[4];
};

constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;  // round multipliers
constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;  // Weyl key increments (golden ratio, sqrt 3)

NDRT_HD void mulhilo(uint32_t a, uint32_t b, uint32_t& hi, uint32_t& lo) {
  uint64_t p = uint64_t(a) * uint64_t(b);
  hi = uint32_t(p >> 32);
  lo = uint32_t(p);
}

NDRT_HD Block mix_round(Block c, Key k) {
  uint32_t hi0, lo0, hi1, lo1;
  mulhilo(kM0, c.v[0], hi0, lo0);
  mulhilo(kM1, c.v[2], hi1, lo1);
  Block r;
  r.v[0] = hi1 ^ c.v[1] ^ k.k[0];
  r.v[1] = lo1;
  r.v[2] = hi0 ^ c.v[3] ^ k.k[1];
  r.v[3] = lo0;
  return r;
}

// The raw generator: ten rounds, the key bumped between rounds (Random123's philox4x32_R(10, ...)).
NDRT_HD Block philox4x32_10(Block c, Key k) {
  c = mix_round(c, k);
  for (int i = 1; i < 10; ++i) {
    k.k[0] += kW0;
    k.k[1] += kW1;
    c = mix_round(c, k);
  }
  return c;
}

NDRT_HD Key key_of(uint64_t seed) {
  Key k;
  k.k[0] = uint32_t(seed);
  k.k[1] = uint32_t(seed >> 32);
  return k;
}

// The four words of stream block `block` (see the layout above).
NDRT_HD Block block(Key key, uint64_t block) {
  Block c;
  c.v[0] = uint32_t(block);
  c.v[1] = uint32_t(block >> 32);
  c.v[2] = 0;
  c.v[3] = 0;
  return philox4x32_10(c, key);
}

// Words to uniform floats. Half-open [0, 1) for values; (0, 1] where a logarithm follows.
NDRT_HD float u01_f32(uint32_t w) { return float(w >> 8) * 5.9604644775390625e-8f; }          // k * 2^-24
NDRT_HD float u01_open0_f32(uint32_t w) { return float((w >> 8) + 1) * 5.9604644775390625e-8f; }
NDRT_HD uint64_t bits53(uint32_t hi, uint32_t lo) { return ((uint64_t(hi) << 32) | lo) >> 11; }
NDRT_HD double u01_f64(uint32_t hi, uint32_t lo) { return double(bits53(hi, lo)) * 1.1102230246251565404e-16; }
NDRT_HD double u01_open0_f64(uint32_t hi, uint32_t lo) {
  return double(bits53(hi, lo) + 1) * 1.1102230246251565404e-16;  // (k + 1) * 2^-53
}

// Bernoulli(p) on a 32-bit word: true when w < threshold, threshold = ceil(p * 2^32) (so p = 0 is
// never and p = 1 always). Dropout keeps an element when this is false for its drop probability.
NDRT_HD uint64_t threshold(double p) {
  double t = p * 4294967296.0;
  uint64_t k = uint64_t(t);
  return double(k) < t ? k + 1 : k;
}
NDRT_HD bool bernoulli(uint32_t w, uint64_t thresh) { return uint64_t(w) < thresh; }

// Box-Muller on one pair of slots: r = sqrt(-2 ln u1), theta = 2 pi u2, (r cos theta, r sin theta).
NDRT_HD void normal_pair_f32(uint32_t w1, uint32_t w2, float& z0, float& z1) {
  float r = sqrtf(-2.0f * logf(u01_open0_f32(w1)));
  float t = 6.2831853071795864769f * u01_f32(w2);
  z0 = r * cosf(t);
  z1 = r * sinf(t);
}
NDRT_HD void normal_pair_f64(uint32_t hi1, uint32_t lo1, uint32_t hi2, uint32_t lo2, double& z0, double& z1) {
  double r = sqrt(-2.0 * log(u01_open0_f64(hi1, lo1)));
  double t = 6.2831853071795864769 * u01_f64(hi2, lo2);
  z0 = r * cos(t);
  z1 = r * sin(t);
}

// Standard normal CDF, accurate in relative terms in the lower tail.
NDRT_HD double normal_cdf(double x) { return 0.5 * erfc(-x * 0.70710678118654752440); }

// Standard normal quantile for p in (0, 1): Wichura's AS241 (PPND16), about 1e-16 relative.
NDRT_HD double normal_quantile(double p) {
  double q = p - 0.5, x;
  if (fabs(q) <= 0.425) {
    double r = 0.180625 - q * q;
    x = q * (((((((2.5090809287301226727e+3 * r + 3.3430575583588128105e+4) * r + 6.7265770927008700853e+4) * r +
                 4.5921953931549871457e+4) * r + 1.3731693765509461125e+4) * r + 1.9715909503065514427e+3) * r +
              1.3314166789178437745e+2) * r + 3.3871328727963666080e+0) /
        (((((((5.2264952788528545610e+3 * r + 2.8729085735721942674e+4) * r + 3.9307895800092710610e+4) * r +
             2.1213794301586595867e+4) * r + 5.3941960214247511077e+3) * r + 6.8718700749205790830e+2) * r +
          4.2313330701600911252e+1) * r + 1.0);
  } else {
    double r = sqrt(-log(q < 0 ? p : 1.0 - p));
    if (r <= 5.0) {
      r -= 1.6;
      x = (((((((7.74545014278341407640e-4 * r + 2.27238449892691845833e-2) * r + 2.41780725177450611770e-1) * r +
               1.27045825245236838258e+0) * r + 3.64784832476320460504e+0) * r + 5.76949722146069140550e+0) * r +
            4.63033784615654529590e+0) * r + 1.42343711074968357734e+0) /
          (((((((1.05075007164441684324e-9 * r + 5.47593808499534494600e-4) * r + 1.51986665636164571966e-2) * r +
               1.48103976427480074590e-1) * r + 6.89767334985100004550e-1) * r + 1.67638483018380384940e+0) * r +
            2.05319162663775882187e+0) * r + 1.0);
    } else {
      r -= 5.0;
      x = (((((((2.01033439929228813265e-7 * r + 2.71155556874348757815e-5) * r + 1.24266094738807843860e-3) * r +
               2.65321895265761230930e-2) * r + 2.96560571828504891230e-1) * r + 1.78482653991729133580e+0) * r +
            5.46378491116411436990e+0) * r + 6.65790464350110377720e+0) /
          (((((((2.04426310338993978564e-15 * r + 1.42151175831644588870e-7) * r + 1.84631831751005468180e-5) * r +
               7.86869131145613259100e-4) * r + 1.48753612908506148525e-2) * r + 1.36929880922735805310e-1) * r +
            5.99832206555887937690e-1) * r + 1.0);
    }
    if (q < 0) x = -x;
  }
  return x;
}

// Normal(0, 1) truncated to [a, b] by inverse CDF: x = Phi^-1(Phi(a) + u (Phi(b) - Phi(a))), with an
// interval in the upper half mirrored to the lower half first, where Phi keeps its relative precision.
struct Truncation {
  double pa, pb;  // Phi of the (mirrored) bounds
  double lo, hi;  // the (mirrored) bounds
  bool mirrored;
};
NDRT_HD Truncation truncation(double a, double b) {
  Truncation t;
  t.mirrored = a > -b;  // more of the interval above 0 than below
  t.lo = t.mirrored ? -b : a;
  t.hi = t.mirrored ? -a : b;
  t.pa = normal_cdf(t.lo);
  t.pb = normal_cdf(t.hi);
  return t;
}
// u in [0, 1).
NDRT_HD double truncated_normal(const Truncation& t, double u) {
  double p = t.pa + u * (t.pb - t.pa);
  double x = p <= 0.0 ? t.lo : (p >= 1.0 ? t.hi : normal_quantile(p));
  x = x < t.lo ? t.lo : (x > t.hi ? t.hi : x);
  return t.mirrored ? -x : x;
}

}  // namespace philox
}  // namespace ndrt
