// The CUDA runtime: devices, transfers, the caching allocator, streams per (thread, device) and
// thread <-> device affinity over virtual devices (the gpu suite runs with
// NDRT_CUDA_VIRTUAL_DEVICES=2: two logical devices on one GPU, each with its own pools and streams).
#include <thread>

#include "gpu/gpu_test.hpp"

namespace {

using gt::kCuda0;
constexpr ndrt_device kCuda1 = NDRT_DEVICE(NDRT_DEVICE_TYPE_CUDA, 1);

TEST(CudaRuntime, DevicesAreCountedAndNamed) {
  NDRT_REQUIRE_CUDA();
  EXPECT_EQ(gt::cuda_devices(), 2) << "the gpu suite runs with NDRT_CUDA_VIRTUAL_DEVICES=2";
  char name[32];
  ASSERT_OK(ndrt_device_name(kCuda1, name, sizeof name));
  EXPECT_STREQ(name, "cuda:1");
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_thread_attach(NDRT_DEVICE(NDRT_DEVICE_TYPE_CUDA, 2)));
}

TEST(CudaRuntime, HostRoundTripsAreExactForEveryDtype) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(1);
  for (ndrt_dtype d : nt::kAllDtypes) {
    for (nt::Shape s : {nt::Shape{}, nt::Shape{0, 3}, nt::Shape{7}, nt::Shape{3, 1000, 701}}) {
      std::vector<double> v(size_t(nt::numel_of(s)));
      nt::Gen g = nt::default_gen(d);
      for (double& x : v) x = g(rng);
      nt::Tensor gpu = nt::from_values(d, s, v, kCuda0);  // through the pinned staging buffers
      EXPECT_EQ(gpu.device(), kCuda0);
      EXPECT_EQ(nt::read_values(gpu), v) << nt::dtype_str(d) << " " << nt::shape_str(s);
      nt::Tensor back = gt::to_device(gpu, NDRT_CPU);
      EXPECT_EQ(nt::read_values(back), v);
    }
  }
}

TEST(CudaRuntime, StridedViewsReadWriteAndMoveAsTheirLogicalValues) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(2);
  gt::Pair base = gt::random_pair(NDRT_F32, {6, 9, 5}, rng);
  gt::Pair view = base.permute({2, 0, 1}).slice(1, 5, 0, -2);
  EXPECT_EQ(nt::read_values(view.gpu), nt::read_values(view.cpu));
  nt::Tensor moved = gt::to_device(view.gpu, kCuda1);  // across logical devices
  EXPECT_TRUE(moved.contiguous());
  EXPECT_EQ(nt::read_values(moved), nt::read_values(view.cpu));
  // Writing into a strided cuda view changes exactly its elements.
  std::vector<double> fresh(size_t(view.gpu.numel()));
  for (size_t i = 0; i < fresh.size(); ++i) fresh[i] = double(i) + 0.5;
  nt::write_values(view.gpu, fresh);
  nt::write_values(view.cpu, fresh);
  EXPECT_EQ(nt::read_values(base.gpu), nt::read_values(base.cpu));
}

TEST(CudaRuntime, ThePoolReusesBlocksAndTrims) {
  NDRT_REQUIRE_CUDA();
  gt::OnDevice on(kCuda0);
  ASSERT_OK(ndrt_memory_trim(kCuda0));
  ndrt_memory_stats s0 = nt::stats(kCuda0);
  { nt::Tensor a = nt::create(NDRT_F32, {1000, 1000}, kCuda0); }
  ndrt_memory_stats s1 = nt::stats(kCuda0);
  EXPECT_EQ(s1.misses, s0.misses + 1);
  EXPECT_GE(s1.cached, 4000000);
  { nt::Tensor b = nt::create(NDRT_F32, {999, 1001}, kCuda0); }  // same size class
  ndrt_memory_stats s2 = nt::stats(kCuda0);
  EXPECT_EQ(s2.hits, s1.hits + 1);
  EXPECT_EQ(s2.misses, s1.misses);
  EXPECT_GE(s2.peak, 4000000);
  ASSERT_OK(ndrt_memory_trim(kCuda0));
  EXPECT_EQ(nt::stats(kCuda0).cached, 0);
}

TEST(CudaRuntime, OutOfMemoryIsAStatusThatSaysWhatIsUsed) {
  NDRT_REQUIRE_CUDA();
  gt::OnDevice on(kCuda0);
  int64_t shape[] = {int64_t(1) << 46};  // 256 TiB of f32
  ndrt_handle h = 0;
  ASSERT_STATUS(NDRT_ERR_OUT_OF_MEMORY, ndrt_tensor_create(NDRT_F32, 1, shape, kCuda0, &h));
  std::string msg = ndrt_last_error();
  EXPECT_NE(msg.find("in use"), std::string::npos) << msg;
  EXPECT_NE(msg.find("free on the GPU"), std::string::npos) << msg;
  EXPECT_EQ(nt::stats(kCuda0).oom_count, 1);
  nt::Tensor ok = nt::create(NDRT_F32, {16}, kCuda0);  // the device still works
  EXPECT_EQ(ok.numel(), 16);
}

TEST(CudaRuntime, OpsNeedTheirTensorsOnTheThreadsDevice) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(3);
  gt::Pair a = gt::random_pair(NDRT_F32, {4}, rng);
  gt::OnDevice on(kCuda1);
  nt::Tensor out;
  ASSERT_STATUS(NDRT_ERR_DEVICE_MISMATCH, nt::try_run("neg", {&a.gpu}, &out));
  EXPECT_NE(std::string(ndrt_last_error()).find("cuda:0"), std::string::npos);
}

// 4 host threads on 2 logical devices, each with its own stream: interleaved ops and copies between
// the devices give what a single-threaded CPU run gives.
TEST(CudaRuntime, FourThreadsOnTwoDevicesMatchTheCpu) {
  NDRT_REQUIRE_CUDA();
  constexpr int kThreads = 4, kRounds = 20;
  std::vector<std::vector<double>> inputs(kThreads), got(kThreads), want(kThreads);
  std::mt19937 rng(4);
  for (auto& v : inputs) {
    v.resize(100003);
    for (double& x : v) x = std::uniform_real_distribution<double>(-1, 1)(rng);
  }
  // The same chain on the CPU: x <- x*x - 0.5 (exact in f64), moved between "devices" every round.
  for (int t = 0; t < kThreads; ++t) {
    gt::OnDevice on(NDRT_CPU);
    nt::Tensor x = nt::from_values(NDRT_F64, {100003}, inputs[size_t(t)], NDRT_CPU);
    nt::Tensor half = nt::from_values(NDRT_F64, {}, {0.5}, NDRT_CPU);
    for (int r = 0; r < kRounds; ++r) {
      nt::Tensor sq = nt::run("mul", {&x, &x});
      x = nt::run("sub", {&sq, &half});
    }
    want[size_t(t)] = nt::read_values(x);
  }
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      try {
        ndrt_device dev[2] = {NDRT_DEVICE(NDRT_DEVICE_TYPE_CUDA, t % 2), NDRT_DEVICE(NDRT_DEVICE_TYPE_CUDA, 1 - t % 2)};
        nt::Tensor x = nt::from_values(NDRT_F64, {100003}, inputs[size_t(t)], dev[0]);
        for (int r = 0; r < kRounds; ++r) {
          ndrt_device here = dev[r % 2];
          NT_CHECK(ndrt_thread_attach(here));
          nt::Tensor half = nt::from_values(NDRT_F64, {}, {0.5}, here);
          nt::Tensor sq = nt::run("mul", {&x, &x});
          x = nt::run("sub", {&sq, &half});
          x = gt::to_device(x, dev[(r + 1) % 2]);
        }
        got[size_t(t)] = nt::read_values(x);
      } catch (const std::exception& e) {
        errors[size_t(t)] = e.what();
      }
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(errors[size_t(t)], "") << "thread " << t;
    EXPECT_EQ(got[size_t(t)], want[size_t(t)]) << "thread " << t;
  }
}

}  // namespace

namespace {

// A producer thread on cuda:0 records an event after its op; a consumer thread on cuda:1 waits for
// it on its own stream (no host wait) and copies the result across: it sees the produced values.
TEST(CudaRuntime, EventsOrderWorkAcrossThreadsAndDevices) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(5);
  std::vector<double> v(1 << 22);
  for (double& x : v) x = std::uniform_real_distribution<double>(-1, 1)(rng);
  nt::Tensor produced;
  ndrt_event ready = 0;
  std::thread producer([&] {
    gt::OnDevice on(kCuda0);
    nt::Tensor x = nt::from_values(NDRT_F32, {int64_t(v.size())}, v, kCuda0);
    produced = nt::run("neg", {&x});
    NT_CHECK(ndrt_event_record(kCuda0, &ready));
  });
  producer.join();
  int32_t done = -1;
  ASSERT_OK(ndrt_event_query(ready, &done));
  EXPECT_TRUE(done == 0 || done == 1);
  std::vector<double> got;
  std::thread consumer([&] {
    gt::OnDevice on(kCuda1);
    NT_CHECK(ndrt_event_wait(ready, kCuda0));  // this thread's cuda:0 stream waits for the producer's
    got = nt::read_values(gt::to_device(produced, kCuda1));
  });
  consumer.join();
  ASSERT_OK(ndrt_event_synchronize(ready));
  ASSERT_OK(ndrt_event_query(ready, &done));
  EXPECT_EQ(done, 1);
  ASSERT_OK(ndrt_event_release(ready));
  ASSERT_EQ(got.size(), v.size());
  for (size_t i = 0; i < v.size(); ++i)
    if (got[i] != -double(float(v[i]))) FAIL() << "element " << i << ": " << got[i] << " vs " << -double(float(v[i]));
}

}  // namespace
