// The single-thread f32 peak of this CPU's AVX-512 FMA units: 16 independent accumulators (enough
// to cover the FMA latency on two ports), best of 5 runs of 2e8 multiply-adds. It bounds what any
// convolution kernel can reach here (README, "Graph demos": the ResNet's convolutions against it).
//   gcc -O2 -mavx512f -mfma tests/bench/fma_peak.c -o /tmp/fma_peak && /tmp/fma_peak
#include <immintrin.h>
#include <stdio.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(void) {
  __m512 acc[16];
  const __m512 b = _mm512_set1_ps(1.0000001f), c = _mm512_set1_ps(1e-7f);
  for (int i = 0; i < 16; i++) acc[i] = _mm512_set1_ps((float)i);
  const long fmas = 200000000;  // per run, each on 16 lanes
  double best = 0;
  for (int rep = 0; rep < 5; rep++) {
    const double t0 = now();
    for (long k = 0; k < fmas / 16; k++) {
#pragma GCC unroll 16
      for (int i = 0; i < 16; i++) acc[i] = _mm512_fmadd_ps(acc[i], b, c);
    }
    const double gflops = (double)fmas * 16 * 2 / (now() - t0) / 1e9;
    if (gflops > best) best = gflops;
  }
  float sum = 0;  // uses the results, so the loop is not dropped
  for (int i = 0; i < 16; i++) {
    float o[16];
    _mm512_storeu_ps(o, acc[i]);
    sum += o[0];
  }
  printf("f32 AVX-512 FMA peak, 1 thread: %.1f GFLOP/s (checksum %g)\n", best, sum);
  return 0;
}
