// Internal units that the C ABI does not reach directly: the Half/BFloat16 conversions, size
// classes, the host pool, and the handle table. This executable compiles the runtime sources it
// needs (see CMakeLists.txt) and does not link libndrt.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/small_float.hpp"
#include "config.hpp"
#include "dtype.hpp"
#include "error.hpp"
#include "handles.hpp"
#include "memory.hpp"
#include "tensor.hpp"

namespace {

float bits_to_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
uint32_t float_to_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// ---------------------------------------------------------------------------------------------
// Half / BFloat16
// ---------------------------------------------------------------------------------------------
TEST(HalfInternal, ToFloatIsExactForAll65536Patterns) {
  for (uint32_t h = 0; h < 65536; ++h) {
    float f = ndrt::Half::to_float(uint16_t(h));
    double want = nt::f16_to_double(uint16_t(h));
    if (nt::f16_is_nan(uint16_t(h))) {
      ASSERT_TRUE(std::isnan(f)) << std::hex << h;
    } else {
      ASSERT_EQ(double(f), want) << std::hex << h;
      ASSERT_EQ(std::signbit(f), std::signbit(want)) << std::hex << h;
    }
  }
}

TEST(HalfInternal, FromFloatRoundTripsAll65536Patterns) {
  for (uint32_t h = 0; h < 65536; ++h) {
    uint16_t back = ndrt::Half::from_float(float(nt::f16_to_double(uint16_t(h))));
    if (nt::f16_is_nan(uint16_t(h)))
      ASSERT_TRUE(nt::f16_is_nan(back)) << std::hex << h << " -> " << back;
    else
      ASSERT_EQ(back, h) << std::hex << h;
  }
}

TEST(BFloat16Internal, ToFloatIsExactAndFromFloatRoundTripsAll65536Patterns) {
  for (uint32_t h = 0; h < 65536; ++h) {
    ndrt::BFloat16 b;
    b.bits = uint16_t(h);
    float f = b;
    if (nt::bf16_is_nan(uint16_t(h))) {
      ASSERT_TRUE(std::isnan(f));
      ASSERT_TRUE(nt::bf16_is_nan(ndrt::BFloat16::from_float(f)));
    } else {
      ASSERT_EQ(double(f), nt::bf16_to_double(uint16_t(h))) << std::hex << h;
      ASSERT_EQ(ndrt::BFloat16::from_float(f), h) << std::hex << h;
    }
  }
}

// Every f32 pattern in a stride that visits each exponent and many mantissas (2^23 samples),
// compared with the exact reference.
TEST(HalfInternal, FromFloatMatchesTheExactReferenceOnASweepOfF32Patterns) {
  int bad_h = 0, bad_b = 0;
  for (uint64_t u = 0; u < (uint64_t(1) << 32); u += 509) {
    float f = bits_to_float(uint32_t(u));
    double d = f;
    uint16_t h = ndrt::Half::from_float(f), b = ndrt::BFloat16::from_float(f);
    bool ok_h = std::isnan(f) ? nt::f16_is_nan(h) : h == nt::f16_from_double(d);
    bool ok_b = std::isnan(f) ? nt::bf16_is_nan(b) : b == nt::bf16_from_double(d);
    if (!ok_h && bad_h++ < 5)
      ADD_FAILURE() << "Half::from_float(" << std::hexfloat << f << ") = 0x" << std::hex << h << ", want 0x"
                    << nt::f16_from_double(d);
    if (!ok_b && bad_b++ < 5)
      ADD_FAILURE() << "BFloat16::from_float(" << std::hexfloat << f << ") = 0x" << std::hex << b << ", want 0x"
                    << nt::bf16_from_double(d);
  }
  EXPECT_EQ(bad_h, 0);
  EXPECT_EQ(bad_b, 0);
}

TEST(HalfInternal, MidpointsTieToEven) {
  for (uint32_t h = 0; h < 0x7c00; ++h) {
    double lo = nt::f16_to_double(uint16_t(h)), hi = h == 0x7bff ? 65536.0 : nt::f16_to_double(uint16_t(h + 1));
    float mid = float((lo + hi) / 2);
    uint16_t even = h % 2 ? uint16_t(h + 1) : uint16_t(h);
    ASSERT_EQ(ndrt::Half::from_float(mid), even) << std::hexfloat << mid;
    ASSERT_EQ(ndrt::Half::from_float(-mid), even | 0x8000) << std::hexfloat << -mid;
    ASSERT_EQ(ndrt::Half::from_float(std::nextafter(mid, 0.0f)), h) << std::hexfloat << mid;
    ASSERT_EQ(ndrt::Half::from_float(std::nextafter(mid, HUGE_VALF)), h + 1) << std::hexfloat << mid;
  }
}

TEST(BFloat16Internal, MidpointsTieToEven) {
  for (uint32_t h = 0; h < 0x7f80; ++h) {
    double lo = nt::bf16_to_double(uint16_t(h)), hi = h == 0x7f7f ? 0x1p128 : nt::bf16_to_double(uint16_t(h + 1));
    float mid = float((lo + hi) / 2);
    uint16_t even = h % 2 ? uint16_t(h + 1) : uint16_t(h);
    ASSERT_EQ(ndrt::BFloat16::from_float(mid), even) << std::hexfloat << mid;
    ASSERT_EQ(ndrt::BFloat16::from_float(-mid), even | 0x8000) << std::hexfloat << -mid;
    ASSERT_EQ(ndrt::BFloat16::from_float(std::nextafter(mid, 0.0f)), h) << std::hexfloat << mid;
    ASSERT_EQ(ndrt::BFloat16::from_float(std::nextafter(mid, HUGE_VALF)), h + 1) << std::hexfloat << mid;
  }
}

TEST(HalfInternal, NaNStaysQuietNaNAndInfinitiesStay) {
  for (uint32_t payload : {0x7fc00000u, 0x7f800001u, 0x7fbfffffu, 0xffc00001u, 0x7f802000u}) {
    float f = bits_to_float(payload);
    EXPECT_TRUE(nt::f16_is_nan(ndrt::Half::from_float(f))) << std::hex << payload;
    EXPECT_TRUE(nt::bf16_is_nan(ndrt::BFloat16::from_float(f))) << std::hex << payload;
    EXPECT_TRUE(ndrt::BFloat16::from_float(f) & 0x40) << "bf16 NaN not quiet for " << std::hex << payload;
    EXPECT_TRUE(ndrt::Half::from_float(f) & 0x200) << "f16 NaN not quiet for " << std::hex << payload;
  }
  EXPECT_EQ(ndrt::Half::from_float(HUGE_VALF), 0x7c00);
  EXPECT_EQ(ndrt::Half::from_float(-HUGE_VALF), 0xfc00);
  EXPECT_EQ(ndrt::BFloat16::from_float(HUGE_VALF), 0x7f80);
  EXPECT_EQ(ndrt::BFloat16::from_float(-HUGE_VALF), 0xff80);
  EXPECT_EQ(float_to_bits(ndrt::Half::to_float(0x8000)), 0x80000000u);
}

TEST(DtypeInternal, SizesAndNames) {
  EXPECT_EQ(ndrt::dtype_size(NDRT_F32), 4);
  EXPECT_EQ(ndrt::dtype_size(NDRT_F64), 8);
  EXPECT_EQ(ndrt::dtype_size(NDRT_F16), 2);
  EXPECT_EQ(ndrt::dtype_size(NDRT_BF16), 2);
  EXPECT_EQ(ndrt::dtype_size(NDRT_I8), 1);
  EXPECT_EQ(ndrt::dtype_size(NDRT_U8), 1);
  EXPECT_EQ(ndrt::dtype_size(NDRT_I32), 4);
  EXPECT_EQ(ndrt::dtype_size(NDRT_I64), 8);
  EXPECT_EQ(ndrt::dtype_size(NDRT_BOOL), 1);
  EXPECT_THROW(ndrt::dtype_size(0), ndrt::Error);
  EXPECT_THROW(ndrt::dtype_size(10), ndrt::Error);
  EXPECT_STREQ(ndrt::dtype_name(NDRT_BF16), "bf16");
  EXPECT_STREQ(ndrt::dtype_name(99), "?");
}

// ---------------------------------------------------------------------------------------------
// Size classes and the host pool
// ---------------------------------------------------------------------------------------------
TEST(SizeClassInternal, SmallRequestsRoundTo64Bytes) {
  EXPECT_EQ(ndrt::size_class(0), 0u);
  for (size_t n = 1; n <= 512; ++n) {
    size_t c = ndrt::size_class(n);
    ASSERT_GE(c, n);
    ASSERT_EQ(c % 64, 0u) << n;
    ASSERT_LT(c - n, 64u) << n;
  }
}

// memory.hpp: "four classes per power of two above 512 bytes, so at most 25% is wasted".
TEST(SizeClassInternal, FourClassesPerPowerOfTwoAndAtMost25PercentWaste) {
  size_t worst_n = 0;
  double worst = 0;
  for (size_t n = 513; n <= (size_t(1) << 22); n += (n < 70000 ? 1 : 977)) {
    size_t c = ndrt::size_class(n);
    ASSERT_GE(c, n);
    ASSERT_EQ(ndrt::size_class(c), c) << "a class must be its own class (n=" << n << ")";
    ASSERT_GE(c, ndrt::size_class(n - 1)) << "size_class must not decrease (n=" << n << ")";
    double waste = double(c - n) / double(n);
    if (waste > worst) {
      worst = waste;
      worst_n = n;
    }
  }
  EXPECT_LE(worst, 0.25) << "size_class(" << worst_n << ") = " << ndrt::size_class(worst_n);
  std::string wrong;
  for (int k = 10; k <= 30; ++k) {
    std::set<size_t> classes;
    size_t lo = size_t(1) << k, hi = size_t(1) << (k + 1);
    for (size_t n = lo + 1; n <= hi; n += std::max<size_t>(1, lo / 256)) classes.insert(ndrt::size_class(n));
    classes.insert(ndrt::size_class(hi));
    if (classes.size() != 4) wrong += " (2^" + std::to_string(k) + ", 2^" + std::to_string(k + 1) + "]: " + std::to_string(classes.size());
  }
  EXPECT_TRUE(wrong.empty()) << "classes per power of two, expected 4:" << wrong;
  // Requests of 1100 and 1200 bytes share a class; 1000 takes 1024.
  EXPECT_EQ(ndrt::size_class(1100), ndrt::size_class(1200));
  EXPECT_EQ(ndrt::size_class(1000), 1024u);
}

TEST(HostPoolInternal, ReusesChunksOfTheSameClassAndTrims) {
  ndrt::HostPool pool(NDRT_CPU);
  void* a = pool.allocate(1100);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 64, 0u);
  ndrt_memory_stats s = pool.stats();
  EXPECT_EQ(s.in_use, int64_t(ndrt::size_class(1100)));
  EXPECT_EQ(s.misses, 1);
  std::memset(a, 1, 1100);
  pool.free(a, 1100);
  s = pool.stats();
  EXPECT_EQ(s.in_use, 0);
  EXPECT_EQ(s.cached, int64_t(ndrt::size_class(1100)));
  void* b = pool.allocate(1200);
  EXPECT_EQ(b, a) << "1200 bytes should reuse the cached 1100-byte chunk of the same class";
  s = pool.stats();
  EXPECT_EQ(s.hits, 1);
  EXPECT_EQ(s.cached, 0);
  EXPECT_EQ(s.peak, int64_t(ndrt::size_class(1100)));
  pool.free(b, 1200);
  pool.trim();
  s = pool.stats();
  EXPECT_EQ(s.cached, 0);
  EXPECT_EQ(pool.allocate(0), nullptr);
}

TEST(HostPoolInternal, CapsComeFromConfiguration) {
  ndrt::HostPool pool(NDRT_CPU);
  ndrt::config_set("memory.host.max_chunk_bytes", "4096");
  ndrt::config_set("memory.host.max_cached_bytes", "8192");
  void* big = pool.allocate(8192);
  pool.free(big, 8192);
  EXPECT_EQ(pool.stats().cached, 0) << "chunks above max_chunk_bytes are not cached";
  void* c[3];
  for (void*& p : c) p = pool.allocate(4096);
  for (void* p : c) pool.free(p, 4096);
  EXPECT_EQ(pool.stats().cached, 8192) << "the cache stops at max_cached_bytes";
  pool.trim();
  ndrt::config_set("memory.host.max_chunk_bytes", std::to_string(int64_t(256) << 20).c_str());
  ndrt::config_set("memory.host.max_cached_bytes", std::to_string(int64_t(1) << 30).c_str());
}

// ---------------------------------------------------------------------------------------------
// Handle table
// ---------------------------------------------------------------------------------------------
struct Counter {
  explicit Counter(std::atomic<int>* d) : destroyed(d) {}
  Counter(const Counter&) = delete;
  std::atomic<int>* destroyed;
  ~Counter() { destroyed->fetch_add(1); }
};

// A tensor whose storage's last reference bumps `destroyed` (storage pointer itself is null).
ndrt::Tensor counted_tensor(std::atomic<int>& destroyed) {
  ndrt::Tensor t;
  auto owner = std::make_shared<Counter>(&destroyed);
  t.storage = std::shared_ptr<ndrt::Storage>(owner, nullptr);
  return t;
}

ndrt_status status_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ndrt::Error& e) {
    return e.status();
  }
  return NDRT_OK;
}

TEST(HandleTableInternal, InsertPinReleaseAndStaleHandles) {
  ndrt::HandleTable& ht = ndrt::handles();
  std::atomic<int> destroyed{0};
  int64_t live0 = ht.live();
  ndrt_handle h = ht.insert(counted_tensor(destroyed));
  EXPECT_GT(h, 0);
  EXPECT_EQ(ht.live(), live0 + 1);
  ndrt::Tensor* t = ht.pin(h, "test");
  ASSERT_NE(t, nullptr);
  ht.unpin(h);
  ht.release(h);
  EXPECT_EQ(destroyed.load(), 1);
  EXPECT_EQ(ht.live(), live0);
  EXPECT_EQ(status_of([&] { ht.pin(h, "test"); }), NDRT_ERR_INVALID_HANDLE);
  EXPECT_EQ(status_of([&] { ht.release(h); }), NDRT_ERR_INVALID_HANDLE);
  // The slot is reused with a new generation: the old handle stays dead.
  ndrt_handle h2 = ht.insert(counted_tensor(destroyed));
  EXPECT_NE(h2, h);
  EXPECT_EQ(status_of([&] { ht.pin(h, "test"); }), NDRT_ERR_INVALID_HANDLE);
  EXPECT_EQ(status_of([&] { ht.release(h); }), NDRT_ERR_INVALID_HANDLE);
  ht.release(h2);
  for (ndrt_handle bad : {ndrt_handle(0), ndrt_handle(-1), ndrt_handle(INT64_MIN), ndrt_handle(INT64_MAX),
                          ndrt_handle(0x7fffffff00000000LL), ndrt_handle(0x0000000100000000LL),
                          ndrt_handle((int64_t(5) << 32) | 0xffffffffLL), ndrt_handle(123456789)}) {
    EXPECT_EQ(status_of([&] { ht.pin(bad, "test"); }), NDRT_ERR_INVALID_HANDLE) << bad;
    EXPECT_EQ(status_of([&] { ht.release(bad); }), NDRT_ERR_INVALID_HANDLE) << bad;
  }
  EXPECT_EQ(ht.live(), live0);
}

TEST(HandleTableInternal, ReleaseWhilePinnedDefersDestructionToTheLastUnpin) {
  ndrt::HandleTable& ht = ndrt::handles();
  std::atomic<int> destroyed{0};
  ndrt_handle h = ht.insert(counted_tensor(destroyed));
  ht.pin(h, "a");
  ht.pin(h, "b");
  ht.release(h);
  EXPECT_EQ(destroyed.load(), 0) << "destroyed while still pinned";
  EXPECT_EQ(status_of([&] { ht.pin(h, "c"); }), NDRT_ERR_INVALID_HANDLE) << "a released handle cannot be pinned anew";
  ht.unpin(h);
  EXPECT_EQ(destroyed.load(), 0);
  ht.unpin(h);
  EXPECT_EQ(destroyed.load(), 1);
}

TEST(HandleTableInternal, GrowsPastOneChunk) {
  ndrt::HandleTable& ht = ndrt::handles();
  std::atomic<int> destroyed{0};
  std::vector<ndrt_handle> hs;
  for (int i = 0; i < 10000; ++i) hs.push_back(ht.insert(counted_tensor(destroyed)));
  std::set<ndrt_handle> unique(hs.begin(), hs.end());
  EXPECT_EQ(unique.size(), hs.size());
  for (ndrt_handle h : hs) ht.release(h);
  EXPECT_EQ(destroyed.load(), 10000);
}

// Threads pin, unpin and release concurrently; every tensor is destroyed exactly once and no
// pin ever sees a destroyed tensor.
TEST(Concurrency, HandleTablePinReleaseRace) {
  ndrt::HandleTable& ht = ndrt::handles();
  std::atomic<int> destroyed{0};
  const int kRounds = 2000, kSlots = 16, kReaders = 4;
  std::atomic<ndrt_handle> slots[kSlots];
  for (auto& s : slots) s.store(0);
  std::atomic<bool> stop{false};
  std::atomic<int64_t> pins_ok{0}, pins_refused{0}, bad{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < kReaders; ++r)
    readers.emplace_back([&, r] {
      std::mt19937 rng(r);
      while (!stop.load()) {
        ndrt_handle h = slots[rng() % kSlots].load();
        try {
          ndrt::Tensor* t = ht.pin(h, "reader");
          if (!t || !t->storage.use_count()) bad++;
          ht.unpin(h);
          pins_ok++;
        } catch (const ndrt::Error& e) {
          if (e.status() != NDRT_ERR_INVALID_HANDLE) bad++;
          pins_refused++;
        }
      }
    });
  int inserted = 0;
  // Keep churning until the readers have really raced with it: on a loaded machine they may not
  // be scheduled during the first rounds at all.
  for (int round = 0; round < kRounds || pins_ok.load() + pins_refused.load() < 1000; ++round)
    for (auto& s : slots) {
      ndrt_handle old = s.exchange(ht.insert(counted_tensor(destroyed)));
      ++inserted;
      if (old) ht.release(old);
    }
  for (auto& s : slots) ht.release(s.exchange(0));
  stop.store(true);
  for (auto& t : readers) t.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(destroyed.load(), inserted);
  EXPECT_GT(pins_ok.load() + pins_refused.load(), 0);
}

}  // namespace
