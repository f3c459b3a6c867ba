#include "profiler.hpp"

#include <algorithm>
#include <chrono>
#include <atomic>
#include <cstdio>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

#include <unistd.h>

#include "error.hpp"

namespace ndrt {

std::atomic<bool> g_profiler_on{false};

namespace {
std::mutex g_mu;
std::vector<ProfileEvent>& events() {
  static auto* v = new std::vector<ProfileEvent>;
  return *v;
}

// JSON string escaping for names and shapes (they hold no control characters, but be safe).
std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;
    o += c;
  }
  return o;
}
}  // namespace

void profiler_set_enabled(bool on) { g_profiler_on.store(on); }

uint64_t profiler_thread_id() {
  static std::atomic<uint64_t> next{1};
  thread_local uint64_t id = next.fetch_add(1);
  return id;
}

int64_t profiler_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void profiler_record(ProfileEvent&& e) {
  std::lock_guard<std::mutex> lock(g_mu);
  events().push_back(std::move(e));
}

void profiler_clear() {
  std::lock_guard<std::mutex> lock(g_mu);
  events().clear();
}

int64_t profiler_count() {
  std::lock_guard<std::mutex> lock(g_mu);
  return int64_t(events().size());
}

void profiler_write_trace(const char* path) {
  if (!path) fail(NDRT_ERR_INVALID_ARGUMENT, "profiler_write_trace: path is NULL");
  std::lock_guard<std::mutex> lock(g_mu);
  FILE* f = std::fopen(path, "w");
  if (!f) fail(NDRT_ERR_INVALID_ARGUMENT, "profiler_write_trace: cannot open '%s' for writing", path);
  std::fprintf(f, "{\"traceEvents\":[");
  bool first = true;
  for (const ProfileEvent& e : events()) {
    std::fprintf(f,
                 "%s\n{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":%d,\"tid\":%llu,"
                 "\"args\":{\"impl\":\"%s\",\"dtype\":\"%s\",\"shapes\":\"%s\"}}",
                 first ? "" : ",", e.op, e.backend, e.start_ns / 1000.0, e.dur_ns / 1000.0, int(getpid()),
                 (unsigned long long)e.thread, e.impl, e.dtype, json_escape(e.shapes).c_str());
    first = false;
  }
  std::fprintf(f, "\n],\"displayTimeUnit\":\"ms\"}\n");
  if (std::fclose(f) != 0) fail(NDRT_ERR_INVALID_ARGUMENT, "profiler_write_trace: writing '%s' failed", path);
}

std::string profiler_summary() {
  struct Agg {
    int64_t calls = 0, total = 0, min = INT64_MAX, max = 0;
  };
  std::map<std::tuple<std::string, std::string, std::string, std::string>, Agg> by;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    for (const ProfileEvent& e : events()) {
      Agg& a = by[{e.op, e.backend, e.impl, e.dtype}];
      ++a.calls;
      a.total += e.dur_ns;
      a.min = std::min(a.min, e.dur_ns);
      a.max = std::max(a.max, e.dur_ns);
    }
  }
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "%-20s %-6s %-28s %-5s %8s %12s %10s %10s %10s\n", "op", "backend",
                "implementation", "dtype", "calls", "total_us", "mean_us", "min_us", "max_us");
  out += line;
  for (const auto& [k, a] : by) {
    std::snprintf(line, sizeof line, "%-20s %-6s %-28s %-5s %8lld %12.1f %10.2f %10.2f %10.2f\n",
                  std::get<0>(k).c_str(), std::get<1>(k).c_str(), std::get<2>(k).c_str(), std::get<3>(k).c_str(),
                  (long long)a.calls, a.total / 1e3, a.total / 1e3 / a.calls, a.min / 1e3, a.max / 1e3);
    out += line;
  }
  return out;
}

}  // namespace ndrt
