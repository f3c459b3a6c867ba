// Memory: size-class reuse, caps from configuration, trim, peak, wrapped caller memory and its
// release hook, the memory-pressure callback, and configuration errors.
#include <algorithm>
#include <atomic>
#include <thread>

#include "common/ndrt_test.hpp"

using namespace nt;

namespace {

std::string config_get(const char* key) {
  size_t needed = 0;
  NT_CHECK(ndrt_config_get(key, nullptr, 0, &needed));
  std::string buf(needed, '\0');
  NT_CHECK(ndrt_config_get(key, &buf[0], buf.size(), &needed));
  buf.resize(std::strlen(buf.c_str()));
  return buf;
}

struct ConfigGuard {
  std::string key, old;
  ConfigGuard(const char* k, const std::string& v) : key(k), old(config_get(k)) {
    NT_CHECK(ndrt_config_set(k, v.c_str()));
  }
  ~ConfigGuard() { EXPECT_OK(ndrt_config_set(key.c_str(), old.c_str())); }
};

Tensor bytes_tensor(int64_t n) { return create(NDRT_U8, {n}); }

TEST(Memory, SizeClassesLetNearbySizesReuseChunks) {
  ASSERT_OK(ndrt_memory_trim(NDRT_CPU));
  ndrt_memory_stats s0 = stats();
  EXPECT_EQ(s0.cached, 0);
  Tensor a = bytes_tensor(1200);
  ndrt_memory_stats s1 = stats();
  EXPECT_EQ(s1.misses, s0.misses + 1);
  const int64_t cls1200 = s1.in_use - s0.in_use;
  EXPECT_GE(cls1200, 1200);
  a.reset();
  EXPECT_EQ(stats().cached, cls1200);
  EXPECT_EQ(stats().in_use, s0.in_use);
  Tensor b = bytes_tensor(1100);  // same size class as 1200
  ndrt_memory_stats s2 = stats();
  EXPECT_EQ(s2.hits, s0.hits + 1) << "1100 bytes did not reuse the 1200-byte chunk";
  EXPECT_EQ(s2.misses, s0.misses + 1);
  EXPECT_EQ(s2.in_use - s0.in_use, cls1200);
  EXPECT_EQ(s2.cached, 0);
  b.reset();
  Tensor c = bytes_tensor(1000);  // 1024 class: a miss
  ndrt_memory_stats s3 = stats();
  EXPECT_EQ(s3.misses, s0.misses + 2);
  EXPECT_EQ(s3.in_use - s0.in_use, 1024);
  c.reset();
  Tensor d = bytes_tensor(1000);
  EXPECT_EQ(stats().hits, s0.hits + 2);
  Tensor e = bytes_tensor(1200);  // the 1200 chunk is still cached
  EXPECT_EQ(stats().hits, s0.hits + 3);
  d.reset();
  e.reset();
  EXPECT_EQ(stats().in_use, s0.in_use);
  // Float tensors of the same byte sizes share the same classes.
  Tensor f = create(NDRT_F32, {300});  // 1200 bytes
  EXPECT_EQ(stats().hits, s0.hits + 4);
}

TEST(Memory, VaryingBatchSizesHitTheCacheAfterWarmUp) {
  ASSERT_OK(ndrt_memory_trim(NDRT_CPU));
  // A training loop whose last batch is smaller: after the first epoch every allocation is a hit.
  auto epoch = [] {
    for (int64_t batch : {64, 64, 64, 57}) {
      Tensor x = create(NDRT_F32, {batch, 784});
      Tensor y = create(NDRT_F32, {batch, 10});
    }
  };
  epoch();
  ndrt_memory_stats s0 = stats();
  epoch();
  epoch();
  ndrt_memory_stats s1 = stats();
  EXPECT_EQ(s1.misses, s0.misses);
  EXPECT_EQ(s1.hits - s0.hits, 16);
  EXPECT_EQ(s1.in_use, s0.in_use);
}

TEST(Memory, MaxCachedBytesCapsTheCache) {
  ASSERT_OK(ndrt_memory_trim(NDRT_CPU));
  ConfigGuard g("memory.host.max_cached_bytes", "8192");
  EXPECT_EQ(config_get("memory.host.max_cached_bytes"), "8192");
  {
    Tensor a = bytes_tensor(4096), b = bytes_tensor(4096), c = bytes_tensor(4096);
  }
  EXPECT_EQ(stats().cached, 8192) << "three 4096-byte chunks freed under an 8192-byte cap";
  ASSERT_OK(ndrt_memory_trim(NDRT_CPU));
}

TEST(Memory, ChunksAboveMaxChunkBytesAreNotCached) {
  ASSERT_OK(ndrt_memory_trim(NDRT_CPU));
  ConfigGuard g("memory.host.max_chunk_bytes", std::to_string(1 << 20));
  ndrt_memory_stats s0 = stats();
  bytes_tensor(2 << 20).reset();
  EXPECT_EQ(stats().cached, 0) << "a 2 MiB chunk was cached above a 1 MiB max_chunk_bytes";
  bytes_tensor(2 << 20).reset();
  EXPECT_EQ(stats().misses, s0.misses + 2);
  bytes_tensor(1 << 20).reset();
  EXPECT_EQ(stats().cached, 1 << 20) << "a chunk of exactly max_chunk_bytes is cacheable";
  ASSERT_OK(ndrt_memory_trim(NDRT_CPU));
}

TEST(Memory, TrimEmptiesTheCache) {
  ASSERT_OK(ndrt_memory_trim(NDRT_CPU));
  ndrt_memory_stats s0 = stats();
  for (int64_t n : {100, 5000, 70000, 1 << 20}) bytes_tensor(n).reset();
  EXPECT_GT(stats().cached, (1 << 20) - 1);
  ASSERT_OK(ndrt_memory_trim(NDRT_CPU));
  EXPECT_EQ(stats().cached, 0);
  EXPECT_EQ(stats().in_use, s0.in_use);
  int64_t misses = stats().misses;
  bytes_tensor(5000).reset();
  EXPECT_EQ(stats().misses, misses + 1);
  ASSERT_OK(ndrt_memory_trim(NDRT_DEVICE_CURRENT));
  EXPECT_EQ(stats().cached, 0);
}

TEST(Memory, PeakAndResetPeak) {
  ASSERT_OK(ndrt_memory_reset_peak(NDRT_CPU));
  ndrt_memory_stats s0 = stats();
  EXPECT_EQ(s0.peak, s0.in_use);
  {
    Tensor a = bytes_tensor(1 << 20);
    Tensor b = bytes_tensor(1 << 19);
    EXPECT_EQ(stats().peak, s0.in_use + (1 << 20) + (1 << 19));
  }
  EXPECT_EQ(stats().peak, s0.in_use + (1 << 20) + (1 << 19)) << "peak must survive frees";
  ASSERT_OK(ndrt_memory_reset_peak(NDRT_CPU));
  EXPECT_EQ(stats().peak, stats().in_use);
}

TEST(Memory, StatsAndConfigErrors) {
  ndrt_memory_stats s{};
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_memory_stats_get(NDRT_CPU, nullptr));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_memory_stats_get(NDRT_DEVICE(NDRT_DEVICE_TYPE_CPU, 7), &s));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_memory_stats_get(NDRT_DEVICE(5, 0), &s));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_memory_trim(NDRT_DEVICE(NDRT_DEVICE_TYPE_CPU, 7)));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_memory_reset_peak(NDRT_DEVICE(NDRT_DEVICE_TYPE_CPU, 7)));
  EXPECT_OK(ndrt_memory_stats_get(NDRT_DEVICE_CURRENT, &s));
  for (const char* v : {"abc", "-1", "", "12x", "99999999999999999999999"}) {
    SCOPED_TRACE(v);
    EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_config_set("memory.host.max_cached_bytes", v));
  }
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_config_set("memory.host.nonsense", "1"));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_config_set(nullptr, "1"));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_config_set("memory.host.max_cached_bytes", nullptr));
  size_t needed = 0;
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_config_get("nope", nullptr, 0, &needed));
  char small[2];
  ndrt_status st = ndrt_config_get("memory.host.max_cached_bytes", small, sizeof small, &needed);
  EXPECT_GT(needed, sizeof small);
  if (st == NDRT_OK) {
    EXPECT_EQ(small[1], '\0') << "a truncated answer must still be NUL-terminated";
  }
}

// ---------------------------------------------------------------------------------------------
// Wrapped caller memory
// ---------------------------------------------------------------------------------------------
struct Hook {
  std::atomic<int> calls{0};
  std::atomic<void*> data{nullptr};
  static void fn(void* data, void* user) {
    Hook* h = static_cast<Hook*>(user);
    h->data.store(data);
    h->calls.fetch_add(1);
  }
};

Tensor wrap(std::vector<float>& buf, const Shape& s, const Shape* strides, Hook* hook) {
  Tensor t;
  NT_CHECK(ndrt_tensor_wrap(NDRT_F32, int32_t(s.size()), s.data(), strides ? strides->data() : nullptr, buf.data(),
                            buf.size() * 4, hook ? Hook::fn : nullptr, hook, t.out()));
  return t;
}

TEST(Wrap, ZeroCopyAndTheHookRunsOnceWhenTheLastViewDies) {
  std::vector<float> buf(12);
  for (size_t i = 0; i < 12; ++i) buf[i] = float(i + 1);
  Hook hook;
  ndrt_memory_stats s0 = stats();
  Tensor w = wrap(buf, {3, 4}, nullptr, &hook);
  EXPECT_EQ(w.data_ptr(), buf.data()) << "wrap must not copy";
  EXPECT_EQ(stats().in_use, s0.in_use) << "wrapped memory is not pool memory";
  EXPECT_GE(stats().wrapped, s0.wrapped + 48);
  buf[5] = 100;  // zero-copy both ways
  EXPECT_EQ(read_values(w)[5], 100);
  Tensor v1 = transpose(w, 0, 1);
  Tensor v2 = slice(w, 1, 3, 0, -1);
  Tensor v3 = reshape(w, {12});
  Tensor v4 = retain(w);
  w.reset();
  v1.reset();
  v2.reset();
  v3.reset();
  EXPECT_EQ(hook.calls.load(), 0) << "hook ran while a view was alive";
  EXPECT_EQ(read_values(v4)[11], 12);
  v4.reset();
  EXPECT_EQ(hook.calls.load(), 1);
  EXPECT_EQ(hook.data.load(), buf.data());
  EXPECT_EQ(stats().wrapped, s0.wrapped);
}

TEST(Wrap, OpOutputsDoNotKeepWrappedMemoryAlive) {
  std::vector<float> buf = {1, 2, 3, 4};
  Hook hook;
  Tensor w = wrap(buf, {4}, nullptr, &hook);
  Tensor sum = run("add", {&w, &w});
  Tensor c = cast(w, NDRT_F64);
  w.reset();
  EXPECT_EQ(hook.calls.load(), 1) << "an op output is not a view of the wrapped memory";
  EXPECT_EQ(read_values(sum), (std::vector<double>{2, 4, 6, 8}));
  EXPECT_EQ(read_values(c), (std::vector<double>{1, 2, 3, 4}));
}

TEST(Wrap, ContiguousOfAContiguousWrapIsTheSameTensorAndKeepsItAlive) {
  std::vector<float> buf = {1, 2, 3, 4, 5, 6};
  Hook hook;
  Tensor w = wrap(buf, {2, 3}, nullptr, &hook);
  Tensor c = contiguous(w);
  EXPECT_EQ(c.data_ptr(), buf.data());
  Tensor copy = contiguous(transpose(w, 0, 1));  // a real copy
  w.reset();
  EXPECT_EQ(hook.calls.load(), 0);
  c.reset();
  EXPECT_EQ(hook.calls.load(), 1);
  EXPECT_EQ(read_values(copy), (std::vector<double>{1, 4, 2, 5, 3, 6}));
}

TEST(Wrap, OpsWriteStraightIntoWrappedMemory) {
  std::vector<float> out_buf(6, -1), in_buf = {1, 2, 3, 4, 5, 6};
  Tensor in = wrap(in_buf, {2, 3}, nullptr, nullptr);
  Tensor out = wrap(out_buf, {2, 3}, nullptr, nullptr);
  run_into("mul", {&in, &in}, out);
  EXPECT_EQ(out_buf, (std::vector<float>{1, 4, 9, 16, 25, 36}));
}

TEST(Wrap, StridesCapacityAndBadArguments) {
  std::vector<float> buf = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  Hook hook;
  const Shape col_major = {1, 3};
  {
    Tensor w = wrap(buf, {3, 4}, &col_major, &hook);  // element [i][j] at i + 3j
    EXPECT_FALSE(w.contiguous());
    EXPECT_EQ(w.strides(), col_major);
    EXPECT_EQ(read_values(w), (std::vector<double>{1, 4, 7, 10, 2, 5, 8, 11, 3, 6, 9, 12}));
  }
  EXPECT_EQ(hook.calls.load(), 1);
  Hook never;
  ndrt_handle out = 0;
  const Shape s34 = {3, 4}, s44 = {4, 4}, big_strides = {4, 2};
  int64_t live = live_handles();
  // Capacity too small for the shape, or for the strides.
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT,
                ndrt_tensor_wrap(NDRT_F32, 2, s34.data(), nullptr, buf.data(), 44, Hook::fn, &never, &out));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT,
                ndrt_tensor_wrap(NDRT_F32, 2, s44.data(), nullptr, buf.data(), 48, Hook::fn, &never, &out));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT,
                ndrt_tensor_wrap(NDRT_F32, 2, s34.data(), big_strides.data(), buf.data(), 48, Hook::fn, &never, &out));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT,
                ndrt_tensor_wrap(NDRT_F32, 2, s34.data(), nullptr, nullptr, 48, Hook::fn, &never, &out));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT,
                ndrt_tensor_wrap(0, 2, s34.data(), nullptr, buf.data(), 48, Hook::fn, &never, &out));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT,
                ndrt_tensor_wrap(NDRT_F32, 2, s34.data(), nullptr, buf.data(), 48, Hook::fn, &never, nullptr));
  EXPECT_EQ(out, 0);
  EXPECT_EQ(live_handles(), live);
  EXPECT_EQ(never.calls.load(), 0) << "the hook of a failed wrap must not run";
  // Empty tensors wrap fine (the hook still runs once).
  Hook empty_hook;
  const Shape s0 = {0, 4};
  ASSERT_OK(ndrt_tensor_wrap(NDRT_F32, 2, s0.data(), nullptr, buf.data(), 0, Hook::fn, &empty_hook, &out));
  EXPECT_OK(ndrt_tensor_release(out));
  EXPECT_EQ(empty_hook.calls.load(), 1);
}

TEST(Wrap, NegativeStridesReachOutsideAndZeroStridesAreFine) {
  std::vector<float> buf = {1, 2, 3, 4};
  Hook hook;
  const Shape s3 = {3}, neg = {-1}, zero = {0}, s22 = {2, 2}, mixed = {2, -1};
  ndrt_handle out = 0;
  // Element i at data - i: before the memory handed over.
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT,
                ndrt_tensor_wrap(NDRT_F32, 1, s3.data(), neg.data(), buf.data(), 16, Hook::fn, &hook, &out));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT,
                ndrt_tensor_wrap(NDRT_F32, 2, s22.data(), mixed.data(), buf.data(), 16, Hook::fn, &hook, &out));
  EXPECT_EQ(out, 0);
  EXPECT_EQ(hook.calls.load(), 0);
  {
    Tensor b = wrap(buf, {3}, &zero, &hook);  // every element is buf[0]
    EXPECT_EQ(read_values(b), (std::vector<double>{1, 1, 1}));
  }
  EXPECT_EQ(hook.calls.load(), 1);
}

TEST(Wrap, HookRunsOnceWhenTheLastViewDiesOnAnotherThread) {
  std::vector<float> buf(1000, 1.0f);
  Hook hook;
  Tensor w = wrap(buf, {10, 100}, nullptr, &hook);
  std::vector<ndrt_handle> views;
  for (int i = 0; i < 8; ++i) views.push_back(slice(w, 0, i, 10, 1).take());
  w.reset();
  std::vector<std::thread> ts;
  for (ndrt_handle h : views) ts.emplace_back([h] { EXPECT_OK(ndrt_tensor_release(h)); });
  for (auto& t : ts) t.join();
  EXPECT_EQ(hook.calls.load(), 1);
}

// ---------------------------------------------------------------------------------------------
// Memory pressure
// ---------------------------------------------------------------------------------------------
struct Pressure {
  std::vector<int64_t> calls;
  std::vector<ndrt_handle>* release_inside = nullptr;  // handles the callback releases (a GC)
  static void fn(int64_t in_use, void* user) {
    Pressure* p = static_cast<Pressure*>(user);
    p->calls.push_back(in_use);
    if (p->release_inside)
      for (ndrt_handle& h : *p->release_inside)
        if (h) {
          EXPECT_OK(ndrt_tensor_release(h));
          h = 0;
        }
  }
};

TEST(Memory, PressureCallbackFiresWhenCrossingTheThresholdThenEveryEighthNotOnEveryAllocation) {
  ASSERT_OK(ndrt_memory_trim(NDRT_CPU));
  const int64_t T = 1 << 20, chunk = 1 << 16;
  const int64_t base = stats().in_use;
  ASSERT_LT(base, T / 4) << "the process already holds too much memory for this test";
  Pressure p;
  ASSERT_OK(ndrt_memory_set_pressure_callback(T, Pressure::fn, &p));
  std::vector<Tensor> held;
  // Below the threshold: no call.
  while (stats().in_use + chunk < T) held.push_back(bytes_tensor(chunk));
  EXPECT_TRUE(p.calls.empty()) << "fired at " << p.calls[0] << " below the threshold " << T;
  // Crossing it: exactly one call, with the bytes in use.
  held.push_back(bytes_tensor(chunk));
  ASSERT_EQ(p.calls.size(), 1u);
  EXPECT_GE(p.calls[0], T);
  EXPECT_EQ(p.calls[0], stats().in_use);
  const int64_t first = p.calls[0];
  // Over the threshold it fires again after every eighth of it: growing by less, no more calls.
  const int64_t step = T / 8;
  while (stats().in_use + chunk < first + step) held.push_back(bytes_tensor(chunk));
  EXPECT_EQ(p.calls.size(), 1u) << "fired again before in_use grew by an eighth of the threshold";
  held.push_back(bytes_tensor(chunk));
  ASSERT_EQ(p.calls.size(), 2u);
  EXPECT_GE(p.calls[1], first + step);
  // Not once per allocation: a threshold more of growth takes about eight calls.
  while (stats().in_use < p.calls[1] + T) held.push_back(bytes_tensor(chunk));
  EXPECT_GE(p.calls.size(), 8u);
  EXPECT_LE(p.calls.size(), 11u);
  // Falling below the threshold and crossing it again fires again.
  const size_t before_crossing = p.calls.size();
  held.clear();
  EXPECT_EQ(p.calls.size(), before_crossing) << "frees must not fire the callback";
  while (stats().in_use < T) held.push_back(bytes_tensor(chunk));
  EXPECT_EQ(p.calls.size(), before_crossing + 1);
  held.clear();
  // Removed: no calls.
  ASSERT_OK(ndrt_memory_set_pressure_callback(0, nullptr, nullptr));
  for (int i = 0; i < 40; ++i) held.push_back(bytes_tensor(chunk));
  EXPECT_EQ(p.calls.size(), before_crossing + 1);
  held.clear();
}

TEST(Memory, PressureCallbackMayReleaseTensorsFromInside) {
  ASSERT_OK(ndrt_memory_trim(NDRT_CPU));
  const int64_t T = 1 << 20;
  ASSERT_LT(stats().in_use, T / 4);
  std::vector<ndrt_handle> garbage;
  for (int i = 0; i < 8; ++i) garbage.push_back(bytes_tensor(1 << 16).take());
  Pressure p;
  p.release_inside = &garbage;
  ASSERT_OK(ndrt_memory_set_pressure_callback(T, Pressure::fn, &p));
  std::vector<Tensor> held;
  while (p.calls.empty()) held.push_back(bytes_tensor(1 << 16));
  EXPECT_EQ(std::count(garbage.begin(), garbage.end(), ndrt_handle(0)), 8) << "the callback could not release";
  held.clear();
  ASSERT_OK(ndrt_memory_set_pressure_callback(0, nullptr, nullptr));
}

TEST(Memory, PressureCallbackArguments) {
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_memory_set_pressure_callback(0, Pressure::fn, nullptr));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_memory_set_pressure_callback(-5, Pressure::fn, nullptr));
  EXPECT_OK(ndrt_memory_set_pressure_callback(0, nullptr, nullptr));
}

}  // namespace
