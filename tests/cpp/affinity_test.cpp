// Thread <-> device affinity with two virtual cpu devices (ctest sets NDRT_CPU_VIRTUAL_DEVICES=2 for
// this executable): round-robin assignment of new threads, explicit attach, NDRT_ERR_DEVICE_MISMATCH
// for tensors of another device, to_device copies, per-device memory statistics.
#include <atomic>
#include <thread>

#include "common/ndrt_test.hpp"

using namespace nt;

namespace {

const ndrt_device kCpu0 = NDRT_DEVICE(NDRT_DEVICE_TYPE_CPU, 0);
const ndrt_device kCpu1 = NDRT_DEVICE(NDRT_DEVICE_TYPE_CPU, 1);

ndrt_device device_of_new_thread() {
  ndrt_device d = -1;
  std::thread([&] { EXPECT_OK(ndrt_thread_device(&d)); }).join();
  return d;
}

class Affinity : public ::testing::Test {
 protected:
  void SetUp() override {
    int32_t n = 0;
    ASSERT_OK(ndrt_device_count(NDRT_DEVICE_TYPE_CPU, &n));
    ASSERT_EQ(n, 2) << "run with NDRT_CPU_VIRTUAL_DEVICES=2 (ctest sets it)";
  }
};

TEST_F(Affinity, TwoVirtualCpuDevicesArePresented) {
  char name[32];
  ASSERT_OK(ndrt_device_name(kCpu1, name, sizeof name));
  EXPECT_STREQ(name, "cpu:1");
  char small[3];
  ndrt_status s = ndrt_device_name(kCpu1, small, sizeof small);
  if (s == NDRT_OK) {
    EXPECT_EQ(small[2], '\0');
  }
  int32_t type = -1;
  ASSERT_OK(ndrt_default_device_type(&type));
  EXPECT_EQ(type, NDRT_DEVICE_TYPE_CPU);
  size_t needed = 0;
  char buf[16];
  ASSERT_OK(ndrt_config_get("cpu.virtual_devices", buf, sizeof buf, &needed));
  EXPECT_STREQ(buf, "2");
  // Devices are in use: the count can no longer change.
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_config_set("cpu.virtual_devices", "3"));
  EXPECT_OK(ndrt_config_set("cpu.virtual_devices", "2"));
}

TEST_F(Affinity, NewThreadsGetDevicesRoundRobin) {
  std::vector<ndrt_device> seen;
  for (int i = 0; i < 6; ++i) seen.push_back(device_of_new_thread());
  for (size_t i = 0; i < seen.size(); ++i) {
    EXPECT_TRUE(seen[i] == kCpu0 || seen[i] == kCpu1) << seen[i];
    if (i) {
      EXPECT_NE(seen[i], seen[i - 1]) << "threads " << i - 1 << " and " << i << " got the same device";
    }
  }
  // A thread keeps its device.
  std::thread([] {
    ndrt_device a = -1, b = -1;
    EXPECT_OK(ndrt_thread_device(&a));
    Tensor t = create(NDRT_F32, {4});
    EXPECT_OK(ndrt_thread_device(&b));
    EXPECT_EQ(a, b);
    EXPECT_EQ(t.device(), a) << "NDRT_DEVICE_CURRENT is the thread's device";
  }).join();
}

TEST_F(Affinity, FirstDeviceUseAssignsEvenWithoutAskingForTheDevice) {
  // A thread whose first call is an allocation gets a device then, and the next thread the other.
  ndrt_device first = -1, second = -1;
  std::thread([&] {
    Tensor t = create(NDRT_F32, {2});
    first = t.device();
  }).join();
  second = device_of_new_thread();
  EXPECT_NE(first, second);
}

TEST_F(Affinity, AttachChoosesTheDevice) {
  std::thread([] {
    ASSERT_OK(ndrt_thread_attach(kCpu1));
    ndrt_device d = -1;
    ASSERT_OK(ndrt_thread_device(&d));
    EXPECT_EQ(d, kCpu1);
    Tensor t = create(NDRT_F32, {3});
    EXPECT_EQ(t.device(), kCpu1);
    Tensor o = run("neg", {&t});
    EXPECT_EQ(o.device(), kCpu1);
    ASSERT_OK(ndrt_thread_attach(kCpu0));
    ASSERT_OK(ndrt_thread_device(&d));
    EXPECT_EQ(d, kCpu0);
    EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_thread_attach(NDRT_DEVICE(NDRT_DEVICE_TYPE_CPU, 2)));
    EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_thread_attach(NDRT_DEVICE(7, 0)));
    int32_t ncuda = 0;
    ASSERT_OK(ndrt_device_count(NDRT_DEVICE_TYPE_CUDA, &ncuda));
    EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_thread_attach(NDRT_DEVICE(NDRT_DEVICE_TYPE_CUDA, ncuda)));
    ASSERT_OK(ndrt_thread_device(&d));
    EXPECT_EQ(d, kCpu0) << "a failed attach must leave the device as it was";
  }).join();
}

TEST_F(Affinity, OpsOnTensorsOfAnotherDeviceAreDeviceMismatch) {
  ASSERT_OK(ndrt_thread_attach(kCpu0));
  Tensor a0 = from_values(NDRT_F32, {3}, {1, 2, 3}, kCpu0);
  Tensor a1 = from_values(NDRT_F32, {3}, {1, 2, 3}, kCpu1);
  EXPECT_EQ(a0.device(), kCpu0);
  EXPECT_EQ(a1.device(), kCpu1);
  int64_t live = live_handles();
  EXPECT_STATUS(NDRT_ERR_DEVICE_MISMATCH, try_run("add", {&a0, &a1}, nullptr));
  std::string msg = ndrt_last_error();
  EXPECT_NE(msg.find("cpu:1"), std::string::npos) << msg;
  EXPECT_STATUS(NDRT_ERR_DEVICE_MISMATCH, try_run("add", {&a1, &a1}, nullptr));  // thread on cpu:0
  Tensor out1 = create(NDRT_F32, {3}, kCpu1);
  EXPECT_STATUS(NDRT_ERR_DEVICE_MISMATCH, try_run("add", {&a0, &a0}, &out1));
  EXPECT_STATUS(NDRT_ERR_DEVICE_MISMATCH, try_run("fill", {}, &out1, fill_attrs(1, NDRT_F32, {3})));
  EXPECT_EQ(live_handles(), live + 1) << "a failed exec left a handle behind";
  // Reading, writing and viewing a tensor of another device are not ops: allowed.
  EXPECT_EQ(read_values(a1), (std::vector<double>{1, 2, 3}));
  Tensor v = slice(a1, 0, 2, -4, -1);
  EXPECT_EQ(v.device(), kCpu1);
  EXPECT_EQ(read_values(v), (std::vector<double>{3, 2, 1}));
  // On cpu:1 the same op runs.
  ASSERT_OK(ndrt_thread_attach(kCpu1));
  EXPECT_EQ(read_values(run("add", {&a1, &a1})), (std::vector<double>{2, 4, 6}));
  EXPECT_STATUS(NDRT_ERR_DEVICE_MISMATCH, try_run("add", {&a0, &a0}, nullptr));
  ASSERT_OK(ndrt_thread_attach(kCpu0));
}

TEST_F(Affinity, ToDeviceCopiesAcross) {
  ASSERT_OK(ndrt_thread_attach(kCpu0));
  std::vector<double> v = {1, 2, 3, 4, 5, 6};
  Tensor a0 = from_values(NDRT_F64, {2, 3}, v, kCpu0);
  Tensor a1;
  ASSERT_OK(ndrt_tensor_to_device(a0.get(), kCpu1, a1.out()));
  EXPECT_EQ(a1.device(), kCpu1);
  EXPECT_EQ(read_values(a1), v);
  EXPECT_TRUE(a1.contiguous());
  EXPECT_NE(a1.data_ptr(), a0.data_ptr());
  // A copy, not a view: writes do not cross.
  write_values(a1, {0, 0, 0, 0, 0, 0});
  EXPECT_EQ(read_values(a0), v);
  // A non-contiguous source arrives contiguous with its logical values.
  Tensor t0 = transpose(a0, 0, 1);
  Tensor t1;
  ASSERT_OK(ndrt_tensor_to_device(t0.get(), kCpu1, t1.out()));
  EXPECT_EQ(read_values(t1), (std::vector<double>{1, 4, 2, 5, 3, 6}));
  EXPECT_TRUE(t1.contiguous());
  EXPECT_EQ(t1.shape(), (Shape{3, 2}));
  // And back, then ops run on the thread's device.
  Tensor back;
  ASSERT_OK(ndrt_tensor_to_device(t1.get(), NDRT_DEVICE_CURRENT, back.out()));
  EXPECT_EQ(back.device(), kCpu0);
  EXPECT_EQ(read_values(run("neg", {&back})), (std::vector<double>{-1, -4, -2, -5, -3, -6}));
  // The same device: still a new contiguous tensor.
  Tensor same;
  ASSERT_OK(ndrt_tensor_to_device(a0.get(), kCpu0, same.out()));
  EXPECT_EQ(read_values(same), v);
  ndrt_handle bad = 0;
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_tensor_to_device(a0.get(), NDRT_DEVICE(NDRT_DEVICE_TYPE_CPU, 2), &bad));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_tensor_to_device(a0.get(), kCpu1, nullptr));
  EXPECT_EQ(bad, 0);
}

TEST_F(Affinity, MemoryStatisticsArePerDevice) {
  ASSERT_OK(ndrt_memory_trim(kCpu0));
  ASSERT_OK(ndrt_memory_trim(kCpu1));
  const ndrt_memory_stats a0 = stats(kCpu0), a1 = stats(kCpu1);
  {
    Tensor t = create(NDRT_U8, {1 << 20}, kCpu1);
    EXPECT_EQ(stats(kCpu1).in_use, a1.in_use + (1 << 20));
    EXPECT_EQ(stats(kCpu0).in_use, a0.in_use);
    EXPECT_EQ(stats(kCpu1).misses, a1.misses + 1);
    EXPECT_EQ(stats(kCpu0).misses, a0.misses);
  }
  EXPECT_EQ(stats(kCpu1).cached, a1.cached + (1 << 20));
  EXPECT_EQ(stats(kCpu0).cached, a0.cached);
  // A chunk cached on cpu:1 is not reused by cpu:0.
  { Tensor t = create(NDRT_U8, {1 << 20}, kCpu0); }
  EXPECT_EQ(stats(kCpu0).misses, a0.misses + 1);
  EXPECT_EQ(stats(kCpu1).hits, a1.hits);
  // Trim is per device too.
  ASSERT_OK(ndrt_memory_trim(kCpu1));
  EXPECT_EQ(stats(kCpu1).cached, 0);
  EXPECT_EQ(stats(kCpu0).cached, 1 << 20);
  ASSERT_OK(ndrt_memory_reset_peak(kCpu1));
  EXPECT_EQ(stats(kCpu1).peak, stats(kCpu1).in_use);
  ASSERT_OK(ndrt_memory_trim(kCpu0));
  // NDRT_DEVICE_CURRENT is the thread's device.
  ASSERT_OK(ndrt_thread_attach(kCpu1));
  ndrt_memory_stats cur{};
  ASSERT_OK(ndrt_memory_stats_get(NDRT_DEVICE_CURRENT, &cur));
  EXPECT_EQ(cur.misses, stats(kCpu1).misses);
  ASSERT_OK(ndrt_thread_attach(kCpu0));
}

// The pressure hook counts host memory of all devices together.
TEST_F(Affinity, PressureCallbackCountsEveryHostDevice) {
  ASSERT_OK(ndrt_memory_trim(kCpu0));
  ASSERT_OK(ndrt_memory_trim(kCpu1));
  const int64_t T = 1 << 20;
  const int64_t base = stats(kCpu0).in_use + stats(kCpu1).in_use;
  ASSERT_LT(base, T / 4);
  std::vector<int64_t> calls;
  ASSERT_OK(ndrt_memory_set_pressure_callback(
      T, [](int64_t in_use, void* user) { static_cast<std::vector<int64_t>*>(user)->push_back(in_use); }, &calls));
  std::vector<Tensor> held;
  for (int i = 0; calls.empty() && i < 64; ++i) held.push_back(create(NDRT_U8, {1 << 16}, i % 2 ? kCpu1 : kCpu0));
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0], stats(kCpu0).in_use + stats(kCpu1).in_use);
  EXPECT_GE(calls[0], T);
  EXPECT_LT(stats(kCpu0).in_use, T) << "fired only when one device alone crossed the threshold";
  held.clear();
  ASSERT_OK(ndrt_memory_set_pressure_callback(0, nullptr, nullptr));
}

// Threads on different devices run ops at the same time, each on its own device.
TEST_F(Affinity, ThreadsOnDifferentDevicesWorkIndependently) {
  std::atomic<int> bad{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([&, t] {
      ndrt_device dev = t % 2 ? kCpu1 : kCpu0;
      if (ndrt_thread_attach(dev) != NDRT_OK) bad++;
      for (int i = 0; i < 200; ++i) {
        Tensor a = from_values(NDRT_F32, {16}, std::vector<double>(16, double(t)));
        Tensor b = run("add", {&a, &a});
        if (b.device() != dev || read_values(b)[15] != 2.0 * t) bad++;
      }
    });
  for (auto& t : ts) t.join();
  EXPECT_EQ(bad.load(), 0);
}

}  // namespace
