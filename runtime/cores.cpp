#include "cores.hpp"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "parallel.hpp"

namespace ndrt {

namespace cores {

bool parse_proc_stat(const char* text, const cpu_set_t& allowed, Ticks& out) {
  Ticks sum;
  bool any = false;
  for (const char* line = text; line && *line;) {
    const char* eol = std::strchr(line, '\n');
    if (!eol) eol = line + std::strlen(line);
    // Per-cpu lines only ("cpu0 ..."); the first line ("cpu  ...") sums every cpu of the machine.
    if (std::strncmp(line, "cpu", 3) == 0 && line[3] >= '0' && line[3] <= '9') {
      char* p = nullptr;
      const long cpu = std::strtol(line + 3, &p, 10);
      // user nice system idle iowait irq softirq steal (older kernels stop after idle).
      uint64_t f[8] = {};
      int nf = 0;
      while (nf < 8) {
        char* e = nullptr;
        const unsigned long long v = std::strtoull(p, &e, 10);
        if (e == p || e > eol) break;
        f[nf++] = v;
        p = e;
      }
      if (nf >= 4 && cpu >= 0 && cpu < CPU_SETSIZE && CPU_ISSET(int(cpu), &allowed)) {
        const uint64_t busy = f[0] + f[1] + f[2] + f[5] + f[6] + f[7];
        sum.busy += busy;
        sum.all += busy + f[3] + f[4];
        any = true;
      }
    }
    line = *eol ? eol + 1 : nullptr;
  }
  if (any) out = sum;
  return any;
}

double others_cores(const Ticks& t0, const Ticks& t1, int ncpus, int64_t self_ns, int64_t wall_ns) {
  if (t1.all <= t0.all || t1.busy < t0.busy || wall_ns <= 0) return 0;
  const double busy = double(ncpus) * double(t1.busy - t0.busy) / double(t1.all - t0.all);
  const double self = double(std::max<int64_t>(self_ns, 0)) / double(wall_ns);
  return std::max(0.0, busy - self);
}

int32_t busy_estimate(double others, int32_t previous) {
  const int32_t up = int32_t(others + 0.5), down = int32_t(others + 0.75);
  if (up > previous) return up;
  if (down < previous) return down;
  return previous;
}

}  // namespace cores

namespace {

std::atomic<bool> g_adapt{true};
std::atomic<int32_t> g_free{INT32_MAX};  // cores left free by others: the thread cap (no cap yet)
std::atomic<int64_t> g_next_ns{0};       // coarse monotonic time the next sample is due

int64_t clock_ns(clockid_t id) {
  timespec ts;
  clock_gettime(id, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// The sampler's state; one caller at a time samples, the others go on with the last estimate.
struct Sampler {
  std::mutex mu;
  bool started = false, have_prev = false;
  cpu_set_t allowed;
  int ncpus = 0;
  int32_t busy = 0;  // the estimate behind g_free
  cores::Ticks ticks;
  int64_t wall_ns = 0, self_ns = 0;
  char buf[1 << 16];  // /proc/stat's per-cpu lines come first; the rest may be cut off

  bool read_ticks(cores::Ticks& out) {
    const int fd = ::open("/proc/stat", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    size_t n = 0;
    for (ssize_t r; n < sizeof buf - 1 && (r = ::read(fd, buf + n, sizeof buf - 1 - n)) != 0;) {
      if (r < 0) {
        if (errno == EINTR) continue;
        break;
      }
      n += size_t(r);
    }
    ::close(fd);
    buf[n] = '\0';
    return cores::parse_proc_stat(buf, allowed, out);
  }

  void sample(int64_t now) {
    std::unique_lock<std::mutex> lock(mu, std::try_to_lock);
    if (!lock.owns_lock() || now < g_next_ns.load(std::memory_order_relaxed)) return;
    g_next_ns.store(now + cores::kWindowMs * 1000000, std::memory_order_relaxed);
    if (!started) {
      started = true;
      CPU_ZERO(&allowed);
      ncpus = sched_getaffinity(0, sizeof allowed, &allowed) == 0 ? CPU_COUNT(&allowed) : 0;
    }
    cores::Ticks t;
    if (ncpus < 2 || !read_ticks(t)) {  // nothing to measure: no cap
      have_prev = false;
      g_free.store(INT32_MAX, std::memory_order_relaxed);
      return;
    }
    const int64_t wall = clock_ns(CLOCK_MONOTONIC), self = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
    if (have_prev) {
      busy = cores::busy_estimate(cores::others_cores(ticks, t, ncpus, self - self_ns, wall - wall_ns), busy);
      g_free.store(std::max(1, ncpus - busy), std::memory_order_relaxed);
    }
    have_prev = true;
    ticks = t;
    wall_ns = wall;
    self_ns = self;
  }
};

Sampler& sampler() {
  static Sampler* s = new Sampler;  // used from any thread until exit; never destroyed
  return *s;
}

}  // namespace

static thread_local int32_t t_cap = INT32_MAX;  // lowered by ThreadCap

int32_t active_threads() {
  const int32_t n = std::min(cpu_threads(), t_cap);
  if (n <= 1 || !g_adapt.load(std::memory_order_relaxed)) return n;
  const int64_t now = clock_ns(CLOCK_MONOTONIC_COARSE);
  if (now >= g_next_ns.load(std::memory_order_relaxed)) sampler().sample(now);
  return std::min(n, g_free.load(std::memory_order_relaxed));
}

ThreadCap::ThreadCap(int32_t n) : previous_(t_cap) { t_cap = std::max(1, std::min(n, previous_)); }
ThreadCap::~ThreadCap() { t_cap = previous_; }

bool adapt_threads() { return g_adapt.load(); }
void set_adapt_threads(bool on) { g_adapt.store(on); }

bool cpu_has_avx512() {
#if defined(__x86_64__)
  static const bool has = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
                          __builtin_cpu_supports("fma");
  return has;
#else
  return false;
#endif
}

}  // namespace ndrt
