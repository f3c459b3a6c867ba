// Subnormal floats and cpu.flush_denormals. An x86 core takes a microcode assist, about a hundred
// times the normal cost, on each operation that reads or produces a subnormal; training whose
// values drift there slows down several times (the seed's AdaGrad LeNet: epochs of 19 s became 55 s;
// flushed, 13 and 11 s).
// With cpu.flush_denormals = 1, CPU kernels run with FTZ (subnormal results become zero) and DAZ
// (subnormal inputs read as zero) set: on the calling thread for the kernel's duration, and on
// ndrt's pool threads for the parts they run, each restoring the thread's own mode afterwards (a
// JVM's thread must keep IEEE arithmetic for its own code). oneDNN's extra OpenMP threads keep the
// mode they were created with: with cpu.threads > 1 its kernels may still see subnormals. Off by
// default: values then follow IEEE 754, as the header's value rules say. A no-op off x86.
#pragma once
#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#define NDRT_HAVE_MXCSR 1
#else
#define NDRT_HAVE_MXCSR 0
#endif

namespace ndrt {

constexpr uint32_t kFlushDenormalBits = 0x8040;  // MXCSR FTZ (bit 15) | DAZ (bit 6)

// This thread's floating-point mode (MXCSR; 0 off x86).
inline uint32_t fp_mode() {
#if NDRT_HAVE_MXCSR
  return _mm_getcsr();
#else
  return 0;
#endif
}

// Sets this thread's mode to `mode` while it lives (when it differs), then restores the old one.
class FpModeScope {
 public:
  explicit FpModeScope(uint32_t mode) : old_(fp_mode()), active_(true) {
#if NDRT_HAVE_MXCSR
    if (mode != old_) _mm_setcsr(mode);
#endif
  }
  ~FpModeScope() {
#if NDRT_HAVE_MXCSR
    if (active_ && fp_mode() != old_) _mm_setcsr(old_);
#endif
  }
  // With `active`, ORs `bits` into this thread's mode while it lives; without, does nothing.
  FpModeScope(bool active, uint32_t bits) : old_(active ? fp_mode() : 0), active_(active) {
#if NDRT_HAVE_MXCSR
    if (active && (old_ | bits) != old_) _mm_setcsr(old_ | bits);
#endif
  }
  FpModeScope(const FpModeScope&) = delete;
  FpModeScope& operator=(const FpModeScope&) = delete;

 private:
  uint32_t old_;
  bool active_;
};

}  // namespace ndrt
