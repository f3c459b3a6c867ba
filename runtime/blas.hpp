// OpenBLAS, loaded with dlopen at the first matrix product instead of linked, so that ndrt can pick
// its kernel set first. OpenBLAS reads OPENBLAS_CORETYPE once, when it loads; Debian 12's 0.3.21
// does not know AMD Zen 4/5 and runs its AVX2 "Haswell" kernels there, at about half the speed of
// its AVX-512 "SkylakeX" ones on the same CPU (sgemm 64x800x500: ~105 vs ~190 GFLOP/s, Zen 5).
//
// Config cpu.blas_core (NDRT_CPU_BLAS_CORE), read when OpenBLAS loads:
//   auto    (default) the user's OPENBLAS_CORETYPE when set; else from the CPU's features, any
//           vendor: SkylakeX with AVX-512 (F, CD, DQ, BW, VL), Haswell with AVX2 + FMA, else
//           OpenBLAS's own detection (which goes by model and picks old kernels on CPUs it does not
//           know: a generic-named Xeon with AVX-512 ran sgemm at 21-30 GFLOP/s, 152 with SkylakeX);
//   native  OpenBLAS's own detection, whatever OPENBLAS_CORETYPE says;
//   a name  used as OPENBLAS_CORETYPE (OpenBLAS falls back to its own detection for a name it does
//           not know or a kernel set this CPU cannot run).
// Reading the key gives the requested value until OpenBLAS loads, then the kernel set it runs
// (also logged at info level). The environment is put back as it was once OpenBLAS has loaded.
// A process that already has OpenBLAS loaded (e.g. numpy imported first) shares that instance and
// its kernel set.
#pragma once
#include <cblas.h>

#include <string>

namespace ndrt::blas {

struct Api {
  void (*sgemm)(CBLAS_ORDER, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, int, int, int, float, const float*, int, const float*,
                int, float, float*, int);
  void (*dgemm)(CBLAS_ORDER, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, int, int, int, double, const double*, int,
                const double*, int, double, double*, int);
  void (*set_num_threads)(int);
  int (*get_num_threads)();
  const char* core;  // OpenBLAS's name of its kernel set ("SkylakeX", "Haswell", ...)
};

// Loads OpenBLAS on first use (thread-safe); fails with NDRT_ERR_BACKEND when it cannot.
const Api& api();

// cpu.blas_core: the requested value, or once OpenBLAS is loaded the kernel set it runs; setting it
// fails once OpenBLAS is loaded, unless the value is unchanged or names the kernel set in use.
std::string core_setting();
void set_requested_core(const char* value);

// cpu.blas_library (NDRT_CPU_BLAS_LIBRARY): the library dlopen loads (default libopenblas.so.0,
// Debian's alternatives link; a path picks another build, e.g. the openmp variant). Same rule.
std::string library();
void set_library(const char* value);

}  // namespace ndrt::blas
