// The adaptive intra-op thread count (runtime/cores.hpp): /proc/stat parsing, the others' cores
// from two samples, the hysteresis of the estimate, and the count itself with another process
// keeping a core busy. Part of ndrt_cpp_internal_tests (compiled from the runtime sources).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "config.hpp"
#include "cores.hpp"
#include "error.hpp"
#include "parallel.hpp"

namespace {

using ndrt::cores::Ticks;

cpu_set_t cpus(std::initializer_list<int> ids) {
  cpu_set_t s;
  CPU_ZERO(&s);
  for (int i : ids) CPU_SET(i, &s);
  return s;
}

const char* const kStat =
    "cpu  999 999 999 999 999 999 999 999 0 0\n"
    "cpu0 10 1 5 100 2 3 4 6 7 0\n"
    "cpu1 1000 0 0 0 0 0 0 0 0 0\n"
    "cpu2 20 2 10 200 4 6 8 12 0 0\n"
    "intr 12345 1 2 3\n"
    "ctxt 42\n";

TEST(CoresInternal, ParseSumsThePerCpuLinesOfTheAllowedCpusOnly) {
  Ticks t;
  ASSERT_TRUE(ndrt::cores::parse_proc_stat(kStat, cpus({0, 2}), t));
  // busy = user + nice + system + irq + softirq + steal; all = busy + idle + iowait (guest is in user).
  EXPECT_EQ(t.busy, uint64_t((10 + 1 + 5 + 3 + 4 + 6) + (20 + 2 + 10 + 6 + 8 + 12)));
  EXPECT_EQ(t.all, t.busy + 100 + 2 + 200 + 4);
  ASSERT_TRUE(ndrt::cores::parse_proc_stat(kStat, cpus({1}), t));
  EXPECT_EQ(t.busy, 1000u);
  EXPECT_EQ(t.all, 1000u);
}

TEST(CoresInternal, ParseTakesOldKernelsFourFieldsAndRefusesWhatHasNoAllowedCpu) {
  Ticks t;
  ASSERT_TRUE(ndrt::cores::parse_proc_stat("cpu0 5 6 7 80\n", cpus({0}), t));
  EXPECT_EQ(t.busy, 18u);
  EXPECT_EQ(t.all, 98u);
  Ticks untouched{1, 2};
  EXPECT_FALSE(ndrt::cores::parse_proc_stat(kStat, cpus({5}), untouched));
  EXPECT_FALSE(ndrt::cores::parse_proc_stat("cpu0 5 6\n", cpus({0}), untouched));  // too few fields
  EXPECT_FALSE(ndrt::cores::parse_proc_stat("", cpus({0}), untouched));
  EXPECT_EQ(untouched.busy, 1u);
  EXPECT_EQ(untouched.all, 2u);
}

TEST(CoresInternal, OthersAreTheBusyCoresLessThisProcess) {
  const Ticks t0{100, 1000}, t1{130, 1040};  // 2 cpus: 30 of 40 ticks busy = 1.5 cores
  EXPECT_DOUBLE_EQ(ndrt::cores::others_cores(t0, t1, 2, 500000000, 1000000000), 1.0);  // we used 0.5
  EXPECT_DOUBLE_EQ(ndrt::cores::others_cores(t0, t1, 2, 0, 1000000000), 1.5);
  // More than the ticks say (tick sampling vs exact CPU time): never negative.
  EXPECT_DOUBLE_EQ(ndrt::cores::others_cores(t0, t1, 2, 2000000000, 1000000000), 0.0);
  // No time passed, or counters that went backwards: nothing measured.
  EXPECT_DOUBLE_EQ(ndrt::cores::others_cores(t0, t0, 2, 0, 1000000000), 0.0);
  EXPECT_DOUBLE_EQ(ndrt::cores::others_cores(t1, t0, 2, 0, 1000000000), 0.0);
  EXPECT_DOUBLE_EQ(ndrt::cores::others_cores(t0, t1, 2, 0, 0), 0.0);
}

TEST(CoresInternal, EstimateRisesFromHalfACoreAndFallsBelowAQuarter) {
  using ndrt::cores::busy_estimate;
  EXPECT_EQ(busy_estimate(0.0, 0), 0);
  EXPECT_EQ(busy_estimate(0.45, 0), 0);
  EXPECT_EQ(busy_estimate(0.5, 0), 1);
  EXPECT_EQ(busy_estimate(0.3, 1), 1);   // between the thresholds: kept
  EXPECT_EQ(busy_estimate(0.26, 1), 1);
  EXPECT_EQ(busy_estimate(0.24, 1), 0);
  EXPECT_EQ(busy_estimate(1.6, 1), 2);
  EXPECT_EQ(busy_estimate(1.3, 2), 2);
  EXPECT_EQ(busy_estimate(0.1, 2), 0);   // a whole process gone: straight down
  EXPECT_EQ(busy_estimate(3.0, 0), 3);
}

// A child that spins for at most `seconds` (bounded even if the parent dies), killed by the test.
pid_t start_spinner(double seconds) {
  const pid_t pid = fork();
  if (pid == 0) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    volatile uint64_t x = 0;
    while (std::chrono::steady_clock::now() < until)
      for (int i = 0; i < 1000000; ++i) x = x + 1;
    _exit(0);
  }
  return pid;
}

void stop(pid_t pid) {
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
}

int allowed_cpus() {
  cpu_set_t s;
  CPU_ZERO(&s);
  return sched_getaffinity(0, sizeof s, &s) == 0 ? CPU_COUNT(&s) : 1;
}

// The smallest active count seen while polling for `seconds`, one call every 20 ms.
int32_t min_active_over(double seconds) {
  int32_t least = ndrt::active_threads();
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    least = std::min(least, ndrt::active_threads());
  }
  return least;
}

TEST(CoresInternal, AnotherProcessSpinningTakesAThreadAwayUnlessAdaptingIsOff) {
  const int n = allowed_cpus();
  if (n < 2) GTEST_SKIP() << "one cpu: nothing to adapt";
  ndrt::config();  // the environment (NDRT_CPU_ADAPT_THREADS among it) is applied before the test's settings
  const std::string threads = ndrt::config_get("cpu.threads"), adapt = ndrt::config_get("cpu.adapt_threads");
  ndrt::set_cpu_threads(n);
  const pid_t spinner = start_spinner(20);
  ASSERT_GT(spinner, 0);

  ndrt::set_adapt_threads(false);
  EXPECT_EQ(ndrt::active_threads(), n) << "adapting off: cpu.threads whatever the load";
  ndrt::set_adapt_threads(true);
  // Two samples (200 ms apart) measure the spinner; a few more windows for a loaded machine.
  const int32_t least = min_active_over(2.0);
  stop(spinner);
  EXPECT_LE(least, n - 1) << "a core kept busy by another process must take a thread away";
  EXPECT_EQ(ndrt::config_get("cpu.active_threads"), std::to_string(ndrt::active_threads()));
  EXPECT_THROW(ndrt::config_set("cpu.active_threads", "2"), ndrt::Error);
  ndrt::config_set("cpu.threads", threads.c_str());
  ndrt::config_set("cpu.adapt_threads", adapt.c_str());
}

}  // namespace
