// Profiler: records op / backend / implementation / dtype per ndrt_exec while enabled, nothing while
// disabled; the Chrome trace is well-formed JSON; the summary lists the ops.
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>
#include <unistd.h>

#include "common/ndrt_test.hpp"

using namespace nt;

namespace {

std::string summary() {
  size_t needed = 0;
  NT_CHECK(ndrt_profiler_summary(nullptr, 0, &needed));
  std::string buf(needed, '\0');
  size_t needed2 = 0;
  NT_CHECK(ndrt_profiler_summary(&buf[0], buf.size(), &needed2));
  EXPECT_EQ(needed2, needed);
  buf.resize(std::strlen(buf.c_str()));
  return buf;
}

int64_t count() {
  int64_t n = -1;
  NT_CHECK(ndrt_profiler_count(&n));
  return n;
}

std::string temp_path(const char* name) {
  const char* dir = std::getenv("TMPDIR");
  return std::string(dir && *dir ? dir : "/tmp") + "/ndrt_cpp_test_" + std::to_string(getpid()) + "_" + name;
}

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// A small JSON checker: balanced objects/arrays outside strings, valid escapes, one top-level value.
bool json_well_formed(const std::string& s, std::string* why) {
  std::vector<char> stack;
  bool in_str = false;
  size_t top_values = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (in_str) {
      if (c == '\\') {
        if (i + 1 >= s.size() || std::string("\"\\/bfnrtu").find(s[i + 1]) == std::string::npos) {
          *why = "bad escape at " + std::to_string(i);
          return false;
        }
        ++i;
      } else if (c == '"') {
        in_str = false;
      } else if (static_cast<unsigned char>(c) < 0x20) {
        *why = "control character in a string at " + std::to_string(i);
        return false;
      }
      continue;
    }
    if (c == '"') {
      in_str = true;
    } else if (c == '{' || c == '[') {
      if (stack.empty()) ++top_values;
      stack.push_back(c);
    } else if (c == '}' || c == ']') {
      if (stack.empty() || (c == '}' && stack.back() != '{') || (c == ']' && stack.back() != '[')) {
        *why = std::string("unbalanced '") + c + "' at " + std::to_string(i);
        return false;
      }
      stack.pop_back();
    } else if (c == ',' && i + 1 < s.size()) {
      size_t j = s.find_first_not_of(" \n\r\t", i + 1);
      if (j != std::string::npos && (s[j] == '}' || s[j] == ']')) {
        *why = "trailing comma at " + std::to_string(i);
        return false;
      }
    }
  }
  if (in_str || !stack.empty()) {
    *why = "unterminated string or container";
    return false;
  }
  if (top_values != 1) {
    *why = std::to_string(top_values) + " top-level values";
    return false;
  }
  return true;
}

size_t occurrences(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

struct ProfilerOff {
  ~ProfilerOff() {
    ndrt_profiler_enable(0);
    ndrt_profiler_clear();
  }
};

TEST(Profiler, DisabledRecordsNothing) {
  ProfilerOff off;
  ASSERT_OK(ndrt_profiler_enable(0));
  ASSERT_OK(ndrt_profiler_clear());
  Tensor a = from_values(NDRT_F32, {2, 2}, {1, 2, 3, 4});
  Tensor b = run("add", {&a, &a});
  Tensor c = run("matmul", {&a, &b});
  EXPECT_EQ(count(), 0);
  std::string s = summary();
  EXPECT_EQ(s.find("matmul"), std::string::npos) << s;
}

TEST(Profiler, RecordsOpImplementationAndDtypePerExec) {
  ProfilerOff off;
  ASSERT_OK(ndrt_profiler_clear());
  ASSERT_OK(ndrt_profiler_enable(1));
  Tensor a = from_values(NDRT_F32, {3, 4}, std::vector<double>(12, 1.5));
  Tensor b = from_values(NDRT_F32, {4, 5}, std::vector<double>(20, 2));
  Tensor d = from_values(NDRT_F64, {7}, {1, 2, 3, 4, 5, 6, 7});
  Tensor c = run("add", {&a, &a});
  Tensor m = run("matmul", {&a, &b});
  Tensor s = run("sum", {&d});
  Tensor s2 = run("sum", {&d});
  EXPECT_EQ(count(), 4);
  // A failing exec: recorded or not, it must not break the profiler.
  EXPECT_STATUS(NDRT_ERR_SHAPE_MISMATCH, try_run("add", {&a, &b}, nullptr));
  const int64_t n = count();
  EXPECT_TRUE(n == 4 || n == 5) << n;
  ASSERT_OK(ndrt_profiler_enable(0));
  Tensor after = run("add", {&a, &a});
  EXPECT_EQ(count(), n) << "recorded while disabled";

  std::string sum = summary();
  for (const char* want : {"add", "matmul", "sum", "f32", "f64", "cpu", "calls"})
    EXPECT_NE(sum.find(want), std::string::npos) << "summary lacks '" << want << "':\n" << sum;

  std::string path = temp_path("trace.json");
  ASSERT_OK(ndrt_profiler_write_trace(path.c_str()));
  std::string trace = slurp(path);
  std::remove(path.c_str());
  EXPECT_EQ(trace.rfind("{\"traceEvents\"", 0), 0u) << trace.substr(0, 80);
  std::string why;
  EXPECT_TRUE(json_well_formed(trace, &why)) << why << "\n" << trace;
  EXPECT_EQ(occurrences(trace, "\"ph\":\"X\""), size_t(n)) << trace;
  EXPECT_EQ(occurrences(trace, "\"name\":\"matmul\""), 1u) << trace;
  EXPECT_EQ(occurrences(trace, "\"name\":\"sum\""), 2u) << trace;
  EXPECT_GE(occurrences(trace, "\"dtype\":\"f64\""), 2u) << trace;
  // Every event names the implementation that ran.
  EXPECT_EQ(occurrences(trace, "\"impl\":\"\""), 0u) << trace;
  EXPECT_EQ(occurrences(trace, "\"impl\":\"(null)\""), 0u) << trace;
  EXPECT_EQ(occurrences(trace, "\"impl\":"), size_t(n)) << trace;
  // Shapes in the caller's terms.
  EXPECT_NE(trace.find("[3,4],[4,5] -> [3,5]"), std::string::npos) << trace;

  ASSERT_OK(ndrt_profiler_clear());
  EXPECT_EQ(count(), 0);
}

TEST(Profiler, EnabledThroughConfiguration) {
  ProfilerOff off;
  ASSERT_OK(ndrt_profiler_clear());
  ASSERT_OK(ndrt_config_set("profiler.enabled", "1"));
  Tensor a = from_values(NDRT_F32, {2}, {1, 2});
  Tensor b = run("neg", {&a});
  EXPECT_EQ(count(), 1);
  ASSERT_OK(ndrt_config_set("profiler.enabled", "0"));
  Tensor c = run("neg", {&a});
  EXPECT_EQ(count(), 1);
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_config_set("profiler.enabled", "2"));
}

TEST(Profiler, EmptyTraceIsValidAndBadPathsAreErrors) {
  ProfilerOff off;
  ASSERT_OK(ndrt_profiler_clear());
  std::string path = temp_path("empty.json");
  ASSERT_OK(ndrt_profiler_write_trace(path.c_str()));
  std::string trace = slurp(path);
  std::remove(path.c_str());
  std::string why;
  EXPECT_TRUE(json_well_formed(trace, &why)) << why << "\n" << trace;
  EXPECT_EQ(trace.rfind("{\"traceEvents\"", 0), 0u);
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_profiler_write_trace(nullptr));
  ndrt_status s = ndrt_profiler_write_trace("/nonexistent-dir-ndrt/x/trace.json");
  EXPECT_NE(s, NDRT_OK);
  int64_t* null_count = nullptr;
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_profiler_count(null_count));
}

TEST(Profiler, RecordsFromManyThreads) {
  ProfilerOff off;
  ASSERT_OK(ndrt_profiler_clear());
  ASSERT_OK(ndrt_profiler_enable(1));
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([] {
      Tensor a = from_values(NDRT_F32, {8}, std::vector<double>(8, 1));
      for (int i = 0; i < 250; ++i) Tensor b = run("add", {&a, &a});
    });
  for (auto& t : ts) t.join();
  EXPECT_EQ(count(), 1000);
  std::string sum = summary();
  EXPECT_NE(sum.find("1000"), std::string::npos) << sum;
}

}  // namespace
