// cpu kernels of the pointwise losses (mse, l1, binary cross-entropy on probabilities and on
// logits) and their gradients. Reduced losses sum fixed chunks in f64 and add the chunk sums in
// order, so the result does not depend on the thread count.
#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels.hpp"
#include "loops.hpp"
#include "reduce_math.hpp"
#include "softmax_loss_rows.hpp"

namespace ndrt {

namespace {

enum { kNone = 0, kMean = 1, kSum = 2 };

struct Mse {
  template <class C>
  static C f(C p, C t) {
    C d = p - t;
    return d * d;
  }
  template <class C>
  static C df(C p, C t) {
    return C(2) * (p - t);
  }
};
struct L1 {
  template <class C>
  static C f(C p, C t) {
    return std::fabs(p - t);
  }
  template <class C>
  static C df(C p, C t) {
    return p > t ? C(1) : p < t ? C(-1) : C(0);
  }
};
// On probabilities; each log clamped at -100 as PyTorch, so p = 0 or 1 stays finite.
struct Bce {
  template <class C>
  static C f(C p, C t) {
    C lp = std::max(std::log(p), C(-100)), lq = std::max(std::log1p(-p), C(-100));
    return -(t * lp + (C(1) - t) * lq);
  }
  template <class C>
  static C df(C p, C t) {
    return (p - t) / std::max(p * (C(1) - p), C(1e-12));
  }
};
// On logits: max(x, 0) - x t + log(1 + e^-|x|), stable for any x.
struct BceLogits {
  template <class C>
  static C f(C x, C t) {
    return std::max(x, C(0)) - x * t + std::log1p(std::exp(-std::fabs(x)));
  }
  template <class C>
  static C df(C x, C t) {
    C e = std::exp(-std::fabs(x));  // sigmoid without overflow for either sign
    C s = x >= 0 ? C(1) / (C(1) + e) : e / (C(1) + e);
    return s - t;
  }
};

// 8-wide float forms of the losses with transcendentals (the scalar libm calls dominate otherwise).
template <class F>
struct Vec8 {
  static constexpr bool kLoss = false, kGrad = false;
};
#if defined(__AVX2__) && defined(__FMA__)
inline __m256 abs8(__m256 x) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x); }
template <>
struct Vec8<BceLogits> {
  static constexpr bool kLoss = true, kGrad = true;
  static __m256 f(__m256 x, __m256 t) {
    __m256 e = red::exp8(_mm256_sub_ps(_mm256_setzero_ps(), abs8(x)));
    return _mm256_add_ps(_mm256_fnmadd_ps(x, t, _mm256_max_ps(x, _mm256_setzero_ps())), red::log1p8(e));
  }
  static __m256 df(__m256 x, __m256 t) {
    const __m256 one = _mm256_set1_ps(1.0f);
    __m256 e = red::exp8(_mm256_sub_ps(_mm256_setzero_ps(), abs8(x)));
    __m256 num = _mm256_blendv_ps(one, e, _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_LT_OQ));
    return _mm256_sub_ps(_mm256_div_ps(num, _mm256_add_ps(one, e)), t);
  }
};
template <>
struct Vec8<Bce> {
  static constexpr bool kLoss = true, kGrad = false;
  static __m256 f(__m256 p, __m256 t) {
    const __m256 lo = _mm256_set1_ps(-100.0f), one = _mm256_set1_ps(1.0f);
    __m256 lp = _mm256_max_ps(red::log8(p), lo);
    __m256 lq = _mm256_max_ps(red::log1p8(_mm256_sub_ps(_mm256_setzero_ps(), p)), lo);
    return _mm256_sub_ps(_mm256_setzero_ps(), _mm256_fmadd_ps(t, lp, _mm256_mul_ps(_mm256_sub_ps(one, t), lq)));
  }
};
#endif

// Sum of F over contiguous float runs with the 8-wide form: float lanes per block, f64 across.
template <class F>
double run_loss_sum8(const float* a, const float* b, int64_t n) {
  double total = 0;
#if defined(__AVX2__) && defined(__FMA__)
  for (int64_t s = 0; s < n; s += 256) {
    const int64_t e = std::min<int64_t>(n, s + 256);
    __m256 acc = _mm256_setzero_ps();
    int64_t i = s;
    for (; i + 8 <= e; i += 8) acc = _mm256_add_ps(acc, Vec8<F>::f(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i)));
    for (; i < e; ++i) total += double(F::f(a[i], b[i]));
    total += red::hsum(acc);
  }
#else
  for (int64_t i = 0; i < n; ++i) total += double(F::f(a[i], b[i]));
#endif
  return total;
}

template <class T, class F>
void loss_kernel(OpContext& c) {
  const Tensor &p = *c.in[0], &t = *c.in[1];
  Tensor& out = *c.out[0];
  const int64_t red = c.attrs.get_int(0);
  if (red == kNone) {
    Loop<3> L = make_loop<3>(out, {&p, &t});
    run_loop(L, [&](char** q, int64_t n, const int64_t* s) {
      T* o = reinterpret_cast<T*>(q[0]);
      const T *a = reinterpret_cast<const T*>(q[1]), *b = reinterpret_cast<const T*>(q[2]);
      int64_t i = 0;
#if defined(__AVX2__) && defined(__FMA__)
      if constexpr (std::is_same_v<T, float> && Vec8<F>::kLoss)
        if (s[0] == 1 && s[1] == 1 && s[2] == 1)
          for (; i + 8 <= n; i += 8)
            _mm256_storeu_ps(o + i, Vec8<F>::f(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i)));
#endif
      for (; i < n; ++i) o[i * s[0]] = F::f(a[i * s[1]], b[i * s[2]]);
    });
    return;
  }
  const int64_t total = p.numel();
  double sum = 0;
  if (total > 0) {
    Loop<2> L = make_loop<2>(p, {&t});  // p as operand 0 only fixes the iteration order; not written
    const int64_t chunks = std::min<int64_t>(256, std::max<int64_t>(1, total / kElementwiseGrain));
    std::vector<double> part(size_t(chunks), 0.0);
    parallel_for(chunks, 1, [&](int64_t b, int64_t e) {
      for (int64_t k = b; k < e; ++k) {
        double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        for_rows(L, total * k / chunks, total * (k + 1) / chunks, [&](char** q, int64_t n, const int64_t* s) {
          const T *a = reinterpret_cast<const T*>(q[0]), *b2 = reinterpret_cast<const T*>(q[1]);
          int64_t i = 0;
          if constexpr (std::is_same_v<T, float> && Vec8<F>::kLoss) {
            if (s[0] == 1 && s[1] == 1) {
              acc[0] += run_loss_sum8<F>(a, b2, n);
              return;
            }
          }
          if (s[0] == 1 && s[1] == 1)
            for (; i + 8 <= n; i += 8)
              for (int l = 0; l < 8; ++l) acc[l] += double(F::f(a[i + l], b2[i + l]));
          for (; i < n; ++i) acc[0] += double(F::f(a[i * s[0]], b2[i * s[1]]));
        });
        part[size_t(k)] = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
      }
    });
    for (double v : part) sum += v;
  }
  *out.data<T>() = T(red == kMean ? sum / double(total) : sum);  // mean over nothing is NaN
}

template <class T, class F>
void loss_bp_kernel(OpContext& c) {
  const Tensor &p = *c.in[0], &t = *c.in[1], &dy = *c.in[2];
  Tensor& dx = *c.out[0];
  const int64_t red = c.attrs.get_int(0);
  if (red == kNone) {
    Loop<4> L = make_loop<4>(dx, {&p, &t, &dy});
    run_loop(L, [&](char** q, int64_t n, const int64_t* s) {
      T* o = reinterpret_cast<T*>(q[0]);
      const T *a = reinterpret_cast<const T*>(q[1]), *b = reinterpret_cast<const T*>(q[2]),
              *g = reinterpret_cast<const T*>(q[3]);
      int64_t i = 0;
#if defined(__AVX2__) && defined(__FMA__)
      if constexpr (std::is_same_v<T, float> && Vec8<F>::kGrad)
        if (s[0] == 1 && s[1] == 1 && s[2] == 1 && s[3] == 1)
          for (; i + 8 <= n; i += 8)
            _mm256_storeu_ps(o + i, _mm256_mul_ps(Vec8<F>::df(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i)),
                                                  _mm256_loadu_ps(g + i)));
#endif
      for (; i < n; ++i) o[i * s[0]] = F::df(a[i * s[1]], b[i * s[2]]) * g[i * s[3]];
    });
    return;
  }
  const T g = T(double(*dy.data<T>()) / (red == kMean ? double(p.numel()) : 1.0));
  Loop<3> L = make_loop<3>(dx, {&p, &t});
  run_loop(L, [&](char** q, int64_t n, const int64_t* s) {
    T* o = reinterpret_cast<T*>(q[0]);
    const T *a = reinterpret_cast<const T*>(q[1]), *b = reinterpret_cast<const T*>(q[2]);
    if (s[0] == 1 && s[1] == 1 && s[2] == 1) {
      int64_t i = 0;
#if defined(__AVX2__) && defined(__FMA__)
      if constexpr (std::is_same_v<T, float> && Vec8<F>::kGrad) {
        const __m256 gv = _mm256_set1_ps(g);
        for (; i + 8 <= n; i += 8)
          _mm256_storeu_ps(o + i, _mm256_mul_ps(Vec8<F>::df(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i)), gv));
      }
#endif
      for (; i < n; ++i) o[i] = F::df(a[i], b[i]) * g;
    } else {
      for (int64_t i = 0; i < n; ++i) o[i * s[0]] = F::df(a[i * s[1]], b[i * s[2]]) * g;
    }
  });
}

}  // namespace

void register_cpu_softmax_loss_pointwise(Registry& r) {
  for_types<float, double>([&](auto t) {
    using T = decltype(t);
    const ndrt_dtype d = dtype_of<T>();
    r.kernel("mse_loss", kCpu, {d}, loss_kernel<T, Mse>, "ndrt:cpu");
    r.kernel("mse_loss_bp", kCpu, {d}, loss_bp_kernel<T, Mse>, "ndrt:cpu");
    r.kernel("l1_loss", kCpu, {d}, loss_kernel<T, L1>, "ndrt:cpu");
    r.kernel("l1_loss_bp", kCpu, {d}, loss_bp_kernel<T, L1>, "ndrt:cpu");
    r.kernel("binary_cross_entropy", kCpu, {d}, loss_kernel<T, Bce>, "ndrt:cpu");
    r.kernel("binary_cross_entropy_bp", kCpu, {d}, loss_bp_kernel<T, Bce>, "ndrt:cpu");
    r.kernel("bce_with_logits", kCpu, {d}, loss_kernel<T, BceLogits>, "ndrt:cpu");
    r.kernel("bce_with_logits_bp", kCpu, {d}, loss_bp_kernel<T, BceLogits>, "ndrt:cpu");
  });
}

}  // namespace ndrt
