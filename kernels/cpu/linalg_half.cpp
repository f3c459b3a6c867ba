// f16 / bf16 linalg through f32 (see linalg_half.hpp). Contiguous runs convert 8 values at a time
// with F16C where the CPU has it (the library is not built for F16C in every configuration, so
// the choice is made at run time); everything else goes through Half / BFloat16.
#include "linalg_half.hpp"

#include <cpuid.h>
#include <immintrin.h>

#include "error.hpp"
#include "loops.hpp"

namespace ndrt::linalg {

namespace {

__attribute__((target("avx,f16c"))) void f16_to_f32_f16c(float* dst, const uint16_t* src, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i))));
  for (; i < n; ++i) dst[i] = _cvtsh_ss(src[i]);
}

__attribute__((target("avx,f16c"))) void f32_to_f16_f16c(uint16_t* dst, const float* src, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i),
                     _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  for (; i < n; ++i) dst[i] = Half(src[i]).bits;
}

// CPUID leaf 1 (F16C, AVX, OSXSAVE) and XCR0 (the OS saves the YMM state). Read directly because
// Clang's __builtin_cpu_supports does not know "f16c".
bool cpu_has_f16c() {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return false;
  const bool f16c = c & bit_F16C, avx = c & bit_AVX, osxsave = c & bit_OSXSAVE;
  if (!(f16c && avx && osxsave)) return false;
  unsigned lo, hi;
  __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (lo & 0x6) == 0x6;  // SSE and AVX state enabled
}

bool have_f16c() {
  static const bool yes = cpu_has_f16c();
  return yes;
}

// One strided run of n values, dst <- src with the conversion of the pair of types.
template <class D, class S>
void convert_run(char* dp, int64_t ds, const char* sp, int64_t ss, int64_t n) {
  D* d = reinterpret_cast<D*>(dp);
  const S* s = reinterpret_cast<const S*>(sp);
  if constexpr (std::is_same_v<S, Half> && std::is_same_v<D, float>) {
    if (ds == 1 && ss == 1 && have_f16c()) return f16_to_f32_f16c(d, reinterpret_cast<const uint16_t*>(s), n);
  }
  if constexpr (std::is_same_v<S, float> && std::is_same_v<D, Half>) {
    if (ds == 1 && ss == 1 && have_f16c()) return f32_to_f16_f16c(reinterpret_cast<uint16_t*>(d), s, n);
  }
  if (ds == 1 && ss == 1) {
    for (int64_t i = 0; i < n; ++i) d[i] = D(static_cast<float>(s[i]));
  } else {
    for (int64_t i = 0; i < n; ++i) d[i * ds] = D(static_cast<float>(s[i * ss]));
  }
}

template <class D, class S>
void convert_loop(const Tensor& dst, const Tensor& src) {
  Loop<2> L = make_loop<2>(dst, {&src});
  run_loop(L, [&](char** p, int64_t n, const int64_t* s) { convert_run<D, S>(p[0], s[0], p[1], s[1], n); });
}

}  // namespace

void convert_tensor(const Tensor& dst, const Tensor& src) {
  if (dst.numel() == 0) return;
  if (dst.dtype == NDRT_F32 && src.dtype == NDRT_F16) return convert_loop<float, Half>(dst, src);
  if (dst.dtype == NDRT_F32 && src.dtype == NDRT_BF16) return convert_loop<float, BFloat16>(dst, src);
  if (dst.dtype == NDRT_F16 && src.dtype == NDRT_F32) return convert_loop<Half, float>(dst, src);
  if (dst.dtype == NDRT_BF16 && src.dtype == NDRT_F32) return convert_loop<BFloat16, float>(dst, src);
  fail(NDRT_ERR_INTERNAL, "linalg: no conversion from %s to %s", dtype_name(src.dtype), dtype_name(dst.dtype));
}

void run_via_f32(OpContext& c, KernelFn f32_kernel, const char* impl) {
  Tensor ins[kMaxInputs], outs[kMaxOutputs];
  OpContext c32 = c;
  for (int i = 0; i < c.n_in; ++i) {
    ins[i] = alloc_tensor(NDRT_F32, c.in[i]->shape, c.device);
    convert_tensor(ins[i], *c.in[i]);
    c32.in[i] = &ins[i];
  }
  for (int i = 0; i < c.n_out; ++i) {
    outs[i] = alloc_tensor(NDRT_F32, c.out[i]->shape, c.device);
    c32.out[i] = &outs[i];
  }
  c32.key_dtype = NDRT_F32;
  f32_kernel(c32);
  for (int i = 0; i < c.n_out; ++i) convert_tensor(*c.out[i], outs[i]);
  c.impl = impl;
}

}  // namespace ndrt::linalg
