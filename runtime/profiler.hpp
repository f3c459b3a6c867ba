// Profiler: while enabled, ndrt_exec records one event per op. Disabled, the hot path pays one
// relaxed load and a predictable branch (profiler_enabled()).
#pragma once
#include <atomic>
#include <cstdint>
#include <string>

namespace ndrt {

extern std::atomic<bool> g_profiler_on;
inline bool profiler_enabled() { return g_profiler_on.load(std::memory_order_relaxed); }
void profiler_set_enabled(bool on);

struct ProfileEvent {
  const char* op;
  const char* backend;
  const char* impl;   // which kernel or library ran (static string)
  const char* dtype;
  std::string shapes; // "[2,3],[3] -> [2,3]"
  int64_t start_ns;   // steady clock
  int64_t dur_ns;
  uint64_t thread;
};

int64_t profiler_now_ns();
// A small number per host thread (1, 2, ... in order of first use), for the trace's tid.
uint64_t profiler_thread_id();
void profiler_record(ProfileEvent&& e);
void profiler_clear();
int64_t profiler_count();
void profiler_write_trace(const char* path);
std::string profiler_summary();

}  // namespace ndrt
