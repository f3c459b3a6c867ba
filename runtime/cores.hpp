// The cores other processes leave free, and the intra-op thread count that follows them.
//
// Intra-op work (ndrt's pool, oneDNN's OpenMP team) splits an op over cpu.threads threads and
// waits for all of them. When another process keeps one of those cores busy, the thread that shares
// its core runs at half speed or waits a whole time slice to be scheduled, and every op waits for it:
// 2 threads on 2 cores with one core taken ran LeNet at half the speed of 1 thread on the free core.
// So with cpu.adapt_threads on (the default), ops run on cpu.threads lowered by the cores that other
// processes kept busy in the last sample window, never below 1. The count is measured, not guessed:
// about every kWindowMs one caller reads /proc/stat (the busy time of the cpus this process may run
// on) and its own process CPU time; the difference is what the others used. Between samples a
// caller pays one coarse clock read and two atomic loads.
#pragma once
#include <sched.h>

#include <cstdint>

namespace ndrt {

// Threads to run a parallel op with now (see above); cpu_threads() when adapting is off.
int32_t active_threads();

bool adapt_threads();
void set_adapt_threads(bool on);

// Whether these cores run AVX-512 (F, VL) with FMA: 32 vector registers, what ndrt's direct
// convolution kernel needs (kernels/cpu/conv_direct.cpp; config key cpu.direct_conv).
bool cpu_has_avx512();

// Caps active_threads() on the calling thread while it lives: code that times work on the calling
// thread's CPU clock (the convolution's candidates) runs everything on that thread, whatever the
// load does to the count meanwhile.
class ThreadCap {
 public:
  explicit ThreadCap(int32_t n);
  ~ThreadCap();
  ThreadCap(const ThreadCap&) = delete;
  ThreadCap& operator=(const ThreadCap&) = delete;

 private:
  int32_t previous_;
};

namespace cores {

constexpr int64_t kWindowMs = 200;

// Busy (user, nice, system, irq, softirq, steal) and all (busy + idle + iowait) ticks, summed over
// the per-cpu lines of /proc/stat whose cpu is in `allowed`. False when no such line parses.
struct Ticks {
  uint64_t busy = 0, all = 0;
};
bool parse_proc_stat(const char* text, const cpu_set_t& allowed, Ticks& out);

// Cores the other processes use, from two samples: the ticks of the allowed cpus and this
// process's CPU time (ns) over the same wall-clock interval (ns). Never negative.
double others_cores(const Ticks& t0, const Ticks& t1, int ncpus, int64_t self_ns, int64_t wall_ns);

// Whole cores taken to be busy with others, from the measured `others` (cores) and the previous
// estimate: one more from half a core on, one fewer below a quarter, so a load near a threshold
// does not flip the thread count at every sample.
int32_t busy_estimate(double others, int32_t previous);

}  // namespace cores
}  // namespace ndrt
