// cpu kernels: uniform, normal, truncated_normal, bernoulli, dropout, dropout_bp on the Philox
// stream of kernels/philox.hpp. Each output element is a pure function of (seed, offset + its
// row-major index), so the parallel split below cannot change a single bit.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "../philox.hpp"
#include "convert.hpp"
#include "kernels.hpp"
#include "loops.hpp"

namespace ndrt {

namespace {

// Generating is heavier than a copy (10 Philox rounds per 4 words, logs and sines): smaller chunks.
constexpr int64_t kRandomGrain = 8192;

struct Stream {
  philox::Key key;
  uint64_t offset;
};

Stream stream_of(const OpContext& c, int seed_attr) {
  return {philox::key_of(uint64_t(c.attrs.get_int(seed_attr))), uint64_t(c.attrs.get_int(seed_attr + 1))};
}

// Eight consecutive blocks at once, words as w[word][lane]: the same arithmetic as
// philox::philox4x32_10 (the tests compare the two), laid out for SIMD: with AVX2, eight lanes per
// instruction (vpmuludq gives the 32x32->64 products of four lanes, so two per multiplier).
constexpr int kLanes = 8;
struct Words {
  uint32_t w[4][kLanes];
};

#if defined(__AVX2__)
inline void mulhilo8(__m256i a, __m256i m, __m256i& hi, __m256i& lo) {
  const __m256i even = _mm256_mul_epu32(a, m);                       // lanes 0, 2, 4, 6 as 64-bit products
  const __m256i odd = _mm256_mul_epu32(_mm256_srli_epi64(a, 32), m);  // lanes 1, 3, 5, 7
  lo = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
  hi = _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xAA);
}

inline Words blocks8(philox::Key key, uint64_t first) {
  alignas(32) uint32_t lo[kLanes], hi[kLanes];
  for (int l = 0; l < kLanes; ++l) {
    lo[l] = uint32_t(first + uint64_t(l));
    hi[l] = uint32_t((first + uint64_t(l)) >> 32);
  }
  __m256i c0 = _mm256_load_si256(reinterpret_cast<const __m256i*>(lo));
  __m256i c1 = _mm256_load_si256(reinterpret_cast<const __m256i*>(hi));
  __m256i c2 = _mm256_setzero_si256(), c3 = _mm256_setzero_si256();
  const __m256i m0 = _mm256_set1_epi32(int32_t(philox::kM0)), m1 = _mm256_set1_epi32(int32_t(philox::kM1));
  uint32_t k0 = key.k[0], k1 = key.k[1];
  for (int r = 0; r < 10; ++r) {
    if (r) {
      k0 += philox::kW0;
      k1 += philox::kW1;
    }
    __m256i hi0, lo0, hi1, lo1;
    mulhilo8(c0, m0, hi0, lo0);
    mulhilo8(c2, m1, hi1, lo1);
    c0 = _mm256_xor_si256(_mm256_xor_si256(hi1, c1), _mm256_set1_epi32(int32_t(k0)));
    c1 = lo1;
    c2 = _mm256_xor_si256(_mm256_xor_si256(hi0, c3), _mm256_set1_epi32(int32_t(k1)));
    c3 = lo0;
  }
  Words out;
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out.w[0]), c0);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out.w[1]), c1);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out.w[2]), c2);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out.w[3]), c3);
  return out;
}
#else
inline Words blocks8(philox::Key key, uint64_t first) {
  Words out;
  for (int l = 0; l < kLanes; ++l) {
    const philox::Block b = philox::block(key, first + uint64_t(l));
    for (int j = 0; j < 4; ++j) out.w[j][l] = b.v[j];
  }
  return out;
}
#endif

// Writes stream elements offset .. offset + numel - 1 into y in row-major order. Each chunk of up to
// kSub elements is generated into a buffer first (gen8 computes the 8*K values of eight blocks, K
// values per block), then stored through the strided rows of y: the layout of y never changes which
// values are drawn, and tiny rows do not each pay for a whole group of blocks.
constexpr int64_t kSub = 1024;

template <int K, class V, class Gen8, class Consume>
void for_stream_chunks(int64_t numel, uint64_t offset, const Gen8& gen8, const Consume& consume) {
  parallel_for(numel, kRandomGrain, [&](int64_t b, int64_t e) {
    V buf[kSub + kLanes * K];
    for (int64_t sb = b; sb < e; sb += kSub) {
      const int64_t se = std::min(e, sb + kSub);
      const uint64_t g0 = offset + uint64_t(sb);
      const int64_t skip = int64_t(g0 % K), need = skip + (se - sb);
      for (int64_t v = 0; v < need; v += kLanes * K) gen8(g0 / K + uint64_t(v / K), buf + v);
      consume(sb, se, static_cast<const V*>(buf + skip));  // buf + skip holds element sb
    }
  });
}

template <class T, int K, class V, class Gen8, class Store>
void generate(const Tensor& y, uint64_t offset, const Gen8& gen8, const Store& store) {
  Loop<1> L = make_loop<1>(y, {});
  for_stream_chunks<K, V>(L.numel(), offset, gen8, [&](int64_t sb, int64_t se, const V* vals) {
    for_rows(L, sb, se, [&](char** p, int64_t n, const int64_t* s) {
      T* o = reinterpret_cast<T*>(p[0]);
      if (s[0] == 1)
        for (int64_t i = 0; i < n; ++i) o[i] = store(vals[i]);
      else
        for (int64_t i = 0; i < n; ++i) o[i * s[0]] = store(vals[i]);
      vals += n;
    });
  });
}

// The largest T strictly below `high` (uniform's half-open upper end after rounding).
template <class T>
T largest_below(double high) {
  T t = convert<T>(high);
  for (int guard = 0; guard < 4 && double(compute_t<T>(t)) >= high; ++guard) {
    if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
      // Step one ulp toward -inf on the sign-magnitude bits.
      if (t.bits == 0x0000u) t.bits = 0x8001u;
      else if (t.bits & 0x8000u) t.bits = uint16_t(t.bits + 1);
      else t.bits = uint16_t(t.bits - 1);
    } else {
      t = std::nextafter(t, -std::numeric_limits<T>::infinity());
    }
  }
  return t;
}

template <class T>
void uniform_kernel(OpContext& c) {
  const double low = c.attrs.get_float(0), span = c.attrs.get_float(1) - low, high = c.attrs.get_float(1);
  const Stream st = stream_of(c, 2);
  const T below = largest_below<T>(high);
  auto store = [high, below](double v) {  // by value: the store loop then vectorises
    T t = convert<T>(v);
    return double(compute_t<T>(t)) >= high ? below : t;
  };
  if constexpr (std::is_same_v<T, double>) {
    auto gen8 = [&](uint64_t b, double* v) {
      const Words w = blocks8(st.key, b);
      for (int l = 0; l < kLanes; ++l) {
        v[2 * l] = low + span * philox::u01_f64(w.w[0][l], w.w[1][l]);
        v[2 * l + 1] = low + span * philox::u01_f64(w.w[2][l], w.w[3][l]);
      }
    };
    generate<T, 2, double>(*c.out[0], st.offset, gen8, store);
  } else {
    auto gen8 = [&](uint64_t b, double* v) {
      const Words w = blocks8(st.key, b);
      for (int l = 0; l < kLanes; ++l)
        for (int j = 0; j < 4; ++j) v[4 * l + j] = low + span * double(philox::u01_f32(w.w[j][l]));
    };
    generate<T, 4, double>(*c.out[0], st.offset, gen8, store);
  }
}

template <class T>
void normal_kernel(OpContext& c) {
  const double mean = c.attrs.get_float(0), sd = c.attrs.get_float(1);
  const Stream st = stream_of(c, 2);
  auto store = [mean, sd](double z) { return convert<T>(mean + sd * z); };
  if constexpr (std::is_same_v<T, double>) {
    auto gen8 = [&](uint64_t b, double* v) {
      const Words w = blocks8(st.key, b);
      for (int l = 0; l < kLanes; ++l)
        philox::normal_pair_f64(w.w[0][l], w.w[1][l], w.w[2][l], w.w[3][l], v[2 * l], v[2 * l + 1]);
    };
    generate<T, 2, double>(*c.out[0], st.offset, gen8, store);
  } else {
    auto gen8 = [&](uint64_t b, float* v) {
      const Words w = blocks8(st.key, b);
      for (int l = 0; l < kLanes; ++l) {
        philox::normal_pair_f32(w.w[0][l], w.w[1][l], v[4 * l], v[4 * l + 1]);
        philox::normal_pair_f32(w.w[2][l], w.w[3][l], v[4 * l + 2], v[4 * l + 3]);
      }
    };
    generate<T, 4, float>(*c.out[0], st.offset, gen8, [store](float z) { return store(double(z)); });
  }
}

template <class T>
void truncated_normal_kernel(OpContext& c) {
  const double mean = c.attrs.get_float(0), sd = c.attrs.get_float(1);
  const philox::Truncation tr = philox::truncation(c.attrs.get_float(2), c.attrs.get_float(3));
  const Stream st = stream_of(c, 4);
  auto store = [mean, sd](double x) { return convert<T>(mean + sd * x); };
  if constexpr (std::is_same_v<T, double>) {
    auto gen8 = [&](uint64_t b, double* v) {
      const Words w = blocks8(st.key, b);
      for (int l = 0; l < kLanes; ++l) {
        v[2 * l] = philox::truncated_normal(tr, philox::u01_f64(w.w[0][l], w.w[1][l]));
        v[2 * l + 1] = philox::truncated_normal(tr, philox::u01_f64(w.w[2][l], w.w[3][l]));
      }
    };
    generate<T, 2, double>(*c.out[0], st.offset, gen8, store);
  } else {
    auto gen8 = [&](uint64_t b, double* v) {
      const Words w = blocks8(st.key, b);
      for (int l = 0; l < kLanes; ++l)
        for (int j = 0; j < 4; ++j) v[4 * l + j] = philox::truncated_normal(tr, double(philox::u01_f32(w.w[j][l])));
    };
    generate<T, 4, double>(*c.out[0], st.offset, gen8, store);
  }
}

// Bernoulli words: 1 when the word is below ceil(p * 2^32). Shared with dropout (1 = dropped).
struct BernoulliGen8 {
  philox::Key key;
  uint64_t thresh;
  void operator()(uint64_t b, uint8_t* v) const {
    const Words w = blocks8(key, b);
    for (int l = 0; l < kLanes; ++l)
      for (int j = 0; j < 4; ++j) v[4 * l + j] = philox::bernoulli(w.w[j][l], thresh) ? 1 : 0;
  }
};

template <class T>
void bernoulli_kernel(OpContext& c) {
  const Stream st = stream_of(c, 1);
  const BernoulliGen8 gen8{st.key, philox::threshold(c.attrs.get_float(0))};
  const T one = convert<T>(1.0), zero = convert<T>(0.0);
  generate<T, 4, uint8_t>(*c.out[0], st.offset, gen8, [one, zero](uint8_t v) { return v ? one : zero; });
}

template <class T>
void dropout_kernel(OpContext& c) {
  using C = compute_t<T>;
  const double p = c.attrs.get_float(0);
  const Stream st = stream_of(c, 1);
  const BernoulliGen8 gen8{st.key, philox::threshold(p)};
  const C scale = p < 1 ? C(1.0 / (1.0 - p)) : C(0);
  const T zero = convert<T>(0.0);
  Loop<3> L = make_loop<3>(*c.out[0], {c.out[1], c.in[0]});
  for_stream_chunks<4, uint8_t>(L.numel(), st.offset, gen8, [&](int64_t sb, int64_t se, const uint8_t* drop) {
    for_rows(L, sb, se, [&](char** ptr, int64_t n, const int64_t* s) {
      T* y = reinterpret_cast<T*>(ptr[0]);
      uint8_t* m = reinterpret_cast<uint8_t*>(ptr[1]);
      const T* x = reinterpret_cast<const T*>(ptr[2]);
      for (int64_t i = 0; i < n; ++i) {
        m[i * s[1]] = uint8_t(1 - drop[i]);
        y[i * s[0]] = drop[i] ? zero : T(C(x[i * s[2]]) * scale);
      }
      drop += n;
    });
  });
}

template <class T>
void dropout_bp_kernel(OpContext& c) {
  using C = compute_t<T>;
  const double p = c.attrs.get_float(0);
  const C scale = p < 1 ? C(1.0 / (1.0 - p)) : C(0);
  const T zero = convert<T>(0.0);
  Loop<3> L = make_loop<3>(*c.out[0], {c.in[0], c.in[1]});
  run_loop(L, [&](char** ptr, int64_t n, const int64_t* s) {
    T* dx = reinterpret_cast<T*>(ptr[0]);
    const T* dy = reinterpret_cast<const T*>(ptr[1]);
    const uint8_t* m = reinterpret_cast<const uint8_t*>(ptr[2]);
    if (s[0] == 1 && s[1] == 1 && s[2] == 1)
      for (int64_t i = 0; i < n; ++i) dx[i] = m[i] ? T(C(dy[i]) * scale) : zero;
    else
      for (int64_t i = 0; i < n; ++i) dx[i * s[0]] = m[i * s[2]] ? T(C(dy[i * s[1]]) * scale) : zero;
  });
}

}  // namespace

void register_cpu_random(Registry& r) {
  for_types<float, double, Half, BFloat16>([&](auto t) {
    using T = decltype(t);
    r.kernel("uniform", kCpu, {dtype_of<T>()}, uniform_kernel<T>, "ndrt:cpu:philox");
    r.kernel("normal", kCpu, {dtype_of<T>()}, normal_kernel<T>, "ndrt:cpu:philox");
    r.kernel("dropout", kCpu, {dtype_of<T>()}, dropout_kernel<T>, "ndrt:cpu:philox");
    r.kernel("dropout_bp", kCpu, {dtype_of<T>()}, dropout_bp_kernel<T>, "ndrt:cpu");
  });
  for_types<float, double>([&](auto t) {
    using T = decltype(t);
    r.kernel("truncated_normal", kCpu, {dtype_of<T>()}, truncated_normal_kernel<T>, "ndrt:cpu:philox");
  });
  for_types<float, double, Half, BFloat16, int8_t, uint8_t, int32_t, int64_t, bool>([&](auto t) {
    using T = decltype(t);
    r.kernel("bernoulli", kCpu, {dtype_of<T>()}, bernoulli_kernel<T>, "ndrt:cpu:philox");
  });
}

}  // namespace ndrt
