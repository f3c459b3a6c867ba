/* The native floor for java/bench.sh: ndrt_exec("add") on 1-element f32 tensors with a given output,
 * and ndrt_tensor_create + ndrt_tensor_release, called from C (ns per call, median of rounds).
 *   cc -O2 -std=c11 exec_add1.c -I<repo>/include -L<build> -lndrt -o exec_add1 */
#define _POSIX_C_SOURCE 200809L
#include <ndrt/ndrt.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double clock_ns(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}
static double now_ns(void) { return clock_ns(CLOCK_MONOTONIC); }
static double cpu_ns(void) { return clock_ns(CLOCK_THREAD_CPUTIME_ID); }

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

static void check(ndrt_status s, const char* what) {
  if (s != NDRT_OK) {
    fprintf(stderr, "%s: %s\n", what, ndrt_last_error());
    exit(1);
  }
}

static double median(double* v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Same format as org.ndrt.bench.Bench: wall-clock median/min/max, thread-cpu median. */
static void report(const char* name, double* ns, double* cpu, int rounds) {
  double m = median(ns, rounds), c = median(cpu, rounds);
  printf("%-24s median %8.1f ns/op   min %8.1f   max %8.1f   cpu %8.1f   (%d rounds)\n", name, m, ns[0],
         ns[rounds - 1], c, rounds);
}

int main(int argc, char** argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 9;
  long iters = argc > 2 ? atol(argv[2]) : 1000000;
  if (rounds < 1 || rounds > 1000) rounds = 9;
  double* ns = malloc(sizeof(double) * (size_t)rounds);
  double* cpu = malloc(sizeof(double) * (size_t)rounds);
  const int64_t shape[1] = {1};
  const float one = 1, two = 2;
  ndrt_handle a, b, y;
  int32_t add;
  check(ndrt_thread_attach(NDRT_CPU), "attach");
  check(ndrt_tensor_from_host(NDRT_F32, 1, shape, &one, 4, NDRT_CPU, &a), "a");
  check(ndrt_tensor_from_host(NDRT_F32, 1, shape, &two, 4, NDRT_CPU, &b), "b");
  check(ndrt_tensor_create(NDRT_F32, 1, shape, NDRT_CPU, &y), "y");
  check(ndrt_op_find("add", &add), "find");
  ndrt_handle in[2] = {a, b};
  for (int r = -3; r < rounds; ++r) {
    double c0 = cpu_ns(), t0 = now_ns();
    for (long i = 0; i < iters; ++i) check(ndrt_exec(add, in, 2, &y, 1, NULL, 0, NULL, 0), "exec");
    if (r >= 0) {
      ns[r] = (now_ns() - t0) / (double)iters;
      cpu[r] = (cpu_ns() - c0) / (double)iters;
    }
  }
  report("c_exec_add1_given", ns, cpu, rounds);
  const int64_t small[1] = {4};
  for (int r = -3; r < rounds; ++r) {
    double c0 = cpu_ns(), t0 = now_ns();
    for (long i = 0; i < iters; ++i) {
      ndrt_handle t;
      check(ndrt_tensor_create(NDRT_F32, 1, small, NDRT_CPU, &t), "create");
      check(ndrt_tensor_release(t), "release");
    }
    if (r >= 0) {
      ns[r] = (now_ns() - t0) / (double)iters;
      cpu[r] = (cpu_ns() - c0) / (double)iters;
    }
  }
  report("c_tensor_create_release", ns, cpu, rounds);
  free(cpu);
  free(ns);
  return 0;
}
