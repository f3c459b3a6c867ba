// C ABI basics seen from C++: handles (stale, twice released, invented), status names and
// messages, the function table, op descriptions, and argument checking of the tensor calls.
#include <set>
#include <thread>

#include "common/ndrt_test.hpp"

using namespace nt;

namespace {

// Each test runs in a process of its own (gtest_discover_tests), so the MPI module's first (and
// only) load sees these environment variables.
TEST(Api, DistributedWithoutOpenMpiSaysWhatIsMissing) {
  setenv("NDRT_MPI_LIBRARY", "libmpi-not-here.so.40", 1);
  ndrt_comm c = 0;
  EXPECT_STATUS(NDRT_ERR_NOT_CONFIGURED, ndrt_comm_world(&c));
  EXPECT_NE(std::string(ndrt_last_error()).find("Open MPI is not available"), std::string::npos) << ndrt_last_error();
  EXPECT_NE(std::string(ndrt_last_error()).find("mpirun"), std::string::npos) << ndrt_last_error();
  // Every distributed call says the same, handles or not; ops still run.
  EXPECT_STATUS(NDRT_ERR_NOT_CONFIGURED, ndrt_allreduce(1, 1, NDRT_REDUCE_SUM));
  EXPECT_STATUS(NDRT_ERR_NOT_CONFIGURED, ndrt_comm_release(1));
  Tensor t = from_values(NDRT_F32, {2}, {1, 2});
  Tensor y = run("add", {&t, &t});
  EXPECT_EQ((std::vector<double>{2, 4}), read_values(y));
}

TEST(Api, DistributedWithoutTheModuleSaysWhatIsMissing) {
  setenv("NDRT_MPI_BACKEND", "/nonexistent/libndrt_mpi.so", 1);
  ndrt_comm c = 0;
  EXPECT_STATUS(NDRT_ERR_NOT_CONFIGURED, ndrt_comm_world(&c));
  EXPECT_NE(std::string(ndrt_last_error()).find("no MPI module"), std::string::npos) << ndrt_last_error();
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_comm_world(nullptr));
}

TEST(Api, VersionAndStatusNames) {
  EXPECT_EQ(ndrt_abi_version(), uint32_t(NDRT_ABI_VERSION));
  ASSERT_NE(ndrt_version_string(), nullptr);
  EXPECT_GT(std::strlen(ndrt_version_string()), 0u);
  EXPECT_STREQ(ndrt_status_name(NDRT_OK), "NDRT_OK");
  EXPECT_STREQ(ndrt_status_name(NDRT_ERR_INVALID_HANDLE), "NDRT_ERR_INVALID_HANDLE");
  EXPECT_STREQ(ndrt_status_name(NDRT_ERR_DEVICE_MISMATCH), "NDRT_ERR_DEVICE_MISMATCH");
  EXPECT_STREQ(ndrt_status_name(NDRT_ERR_INTERNAL), "NDRT_ERR_INTERNAL");
  EXPECT_STREQ(ndrt_status_name(12345), "NDRT_UNKNOWN_STATUS");
}

TEST(Api, FunctionTable) {
  const ndrt_api* api = nullptr;
  ASSERT_OK(ndrt_get_api(NDRT_API_VERSION, &api));
  ASSERT_NE(api, nullptr);
  EXPECT_EQ(api->version, uint32_t(NDRT_API_VERSION));
  EXPECT_EQ(api->exec, &ndrt_exec);
  EXPECT_EQ(api->tensor_release, &ndrt_tensor_release);
  EXPECT_EQ(api->profiler_summary, &ndrt_profiler_summary);
  EXPECT_EQ(api->allreduce_async, &ndrt_allreduce_async);  // the last entry: the table grew at the end
  ndrt_handle h = 0;
  int64_t shape[] = {2};
  float data[] = {1, 2};
  ASSERT_OK(api->tensor_from_host(NDRT_F32, 1, shape, data, sizeof data, NDRT_DEVICE_CURRENT, &h));
  EXPECT_OK(api->tensor_release(h));
  const ndrt_api* bad = reinterpret_cast<const ndrt_api*>(0x1);
  EXPECT_STATUS(NDRT_ERR_NOT_CONFIGURED, ndrt_get_api(NDRT_API_VERSION + 1, &bad));
  EXPECT_EQ(bad, nullptr);
  EXPECT_NE(std::string(ndrt_last_error()).find("1"), std::string::npos) << ndrt_last_error();
  EXPECT_STATUS(NDRT_ERR_NOT_CONFIGURED, ndrt_get_api(0, &bad));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_get_api(1, nullptr));
}

TEST(Api, StaleTwiceReleasedAndInventedHandles) {
  int64_t live = live_handles();
  Tensor t = from_values(NDRT_F32, {2}, {1, 2});
  EXPECT_EQ(live_handles(), live + 1);
  ndrt_handle h = t.take();
  EXPECT_OK(ndrt_tensor_release(h));
  EXPECT_EQ(live_handles(), live);
  float buf[2];
  EXPECT_STATUS(NDRT_ERR_INVALID_HANDLE, ndrt_tensor_release(h));
  EXPECT_STATUS(NDRT_ERR_INVALID_HANDLE, ndrt_tensor_read(h, buf, sizeof buf));
  // The slot is reused by a new tensor: the stale handle still does not reach it.
  Tensor n = from_values(NDRT_F32, {2}, {3, 4});
  EXPECT_NE(n.get(), h);
  EXPECT_STATUS(NDRT_ERR_INVALID_HANDLE, ndrt_tensor_read(h, buf, sizeof buf));
  EXPECT_STATUS(NDRT_ERR_INVALID_HANDLE, ndrt_tensor_release(h));
  EXPECT_EQ(read_values(n), (std::vector<double>{3, 4}));
  std::mt19937_64 rng(1);
  for (int i = 0; i < 1000; ++i) {
    ndrt_handle invented = ndrt_handle(rng());
    if (invented == n.get()) continue;
    ASSERT_STATUS(NDRT_ERR_INVALID_HANDLE, ndrt_tensor_read(invented, buf, sizeof buf));
    ASSERT_STATUS(NDRT_ERR_INVALID_HANDLE, ndrt_tensor_release(invented));
    ndrt_handle in[2] = {invented, n.get()}, out[1] = {0};
    ASSERT_STATUS(NDRT_ERR_INVALID_HANDLE, ndrt_exec(op_id("add"), in, 2, out, 1, nullptr, 0, nullptr, 0));
    ASSERT_EQ(out[0], 0);
  }
  for (ndrt_handle bad : {ndrt_handle(0), ndrt_handle(-1), ndrt_handle(INT64_MIN), ndrt_handle(INT64_MAX)}) {
    EXPECT_STATUS(NDRT_ERR_INVALID_HANDLE, ndrt_tensor_release(bad));
    int32_t r;
    EXPECT_STATUS(NDRT_ERR_INVALID_HANDLE, ndrt_tensor_rank(bad, &r));
  }
  EXPECT_EQ(live_handles(), live + 1);
  // A stale handle as a given output: refused, no handle created.
  ndrt_handle in[2] = {n.get(), n.get()}, out[1] = {h};
  EXPECT_STATUS(NDRT_ERR_INVALID_HANDLE, ndrt_exec(op_id("add"), in, 2, out, 1, nullptr, 0, nullptr, 0));
  EXPECT_EQ(live_handles(), live + 1);
}

TEST(Api, RetainGivesAnIndependentlyReleasedHandle) {
  Tensor t = from_values(NDRT_F32, {3}, {1, 2, 3});
  Tensor r = retain(t);
  EXPECT_NE(r.get(), t.get());
  t.reset();
  EXPECT_EQ(read_values(r), (std::vector<double>{1, 2, 3}));
}

TEST(Api, MessagesAreThreadLocalAndInTheCallersTerms) {
  Tensor a = from_values(NDRT_F32, {2, 3}, std::vector<double>(6, 1));
  Tensor b = from_values(NDRT_F32, {4}, std::vector<double>(4, 1));
  EXPECT_STATUS(NDRT_ERR_SHAPE_MISMATCH, try_run("add", {&a, &b}, nullptr));
  std::string mine = ndrt_last_error();
  std::string theirs;
  std::thread([&] {
    EXPECT_STATUS(NDRT_ERR_INVALID_HANDLE, ndrt_tensor_release(987654321));
    theirs = ndrt_last_error();
  }).join();
  EXPECT_EQ(std::string(ndrt_last_error()), mine) << "another thread's failure changed this thread's message";
  EXPECT_NE(theirs, mine);
  EXPECT_NE(theirs.find("987654321"), std::string::npos) << theirs;
  EXPECT_NE(mine.find("[2,3]"), std::string::npos) << mine;
  EXPECT_EQ(mine.find("assert"), std::string::npos) << mine;
}

TEST(Api, AFreshThreadHasAnEmptyMessage) {
  EXPECT_STATUS(NDRT_ERR_INVALID_HANDLE, ndrt_tensor_release(42));
  std::string fresh = "unset";
  std::thread([&] { fresh = ndrt_last_error(); }).join();
  EXPECT_EQ(fresh, "");
}

TEST(Api, EveryDocumentedConfigKeyReadsBack) {
  const char* keys[] = {"log.level", "cpu.threads", "cpu.virtual_devices", "memory.host.max_cached_bytes",
                        "memory.host.max_chunk_bytes", "profiler.enabled", "backend.priority.cpu",
                        "backend.priority.gpu", "dist.timeout_s", "dist.verify"};
  for (const char* k : keys) {
    SCOPED_TRACE(k);
    size_t needed = 0;
    ASSERT_OK(ndrt_config_get(k, nullptr, 0, &needed));
    std::string buf(needed, '\0');
    ASSERT_OK(ndrt_config_get(k, &buf[0], buf.size(), &needed));
    buf.resize(std::strlen(buf.c_str()));
    EXPECT_FALSE(buf.empty()) << k;
    EXPECT_OK(ndrt_config_set(k, buf.c_str()));  // its own value is accepted back
  }
  ASSERT_OK(ndrt_config_set("log.level", "debug"));
  ASSERT_OK(ndrt_config_set("log.level", "warn"));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_config_set("log.level", "loud"));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_config_set("cpu.threads", "0"));
}

// Intra-op threads change the schedule, never the results.
TEST(Api, ResultsDoNotDependOnCpuThreads) {
  std::mt19937 rng(5);
  Operand a = make_operand(NDRT_F64, {301, 517}, Kind::Permuted, default_gen(NDRT_F64), rng);
  Operand b = make_operand(NDRT_F64, {517}, Kind::Strided, default_gen(NDRT_F64), rng);
  std::vector<std::vector<double>> adds, sums, means;
  for (const char* threads : {"1", "2", "3", "8"}) {
    ASSERT_OK(ndrt_config_set("cpu.threads", threads));
    adds.push_back(read_values(run("mul", {&a.view, &b.view})));
    sums.push_back(read_values(run("sum", {&a.view}, reduce_attrs({0}, false))));
    means.push_back(read_values(run("mean", {&a.view})));
  }
  for (size_t i = 1; i < adds.size(); ++i) {
    EXPECT_EQ(adds[i], adds[0]) << "mul with cpu.threads #" << i;
    expect_close(sums[i], sums[0], NDRT_F64, {1e-13, 1e-13}, "sum over axis 0 with other cpu.threads");
    expect_close(means[i], means[0], NDRT_F64, {1e-13, 1e-13}, "mean with other cpu.threads");
  }
}

TEST(Api, TensorCallsCheckTheirArguments) {
  const int64_t s2[] = {2}, neg[] = {-1}, nine[] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  float data[2] = {1, 2};
  ndrt_handle out = 0;
  int64_t live = live_handles();
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_tensor_from_host(NDRT_F32, 1, s2, data, 4, NDRT_CPU, &out));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_tensor_from_host(NDRT_F32, 1, s2, nullptr, 8, NDRT_CPU, &out));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_tensor_from_host(NDRT_F32, 1, s2, data, 8, NDRT_CPU, nullptr));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_tensor_from_host(0, 1, s2, data, 8, NDRT_CPU, &out));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_tensor_from_host(10, 1, s2, data, 8, NDRT_CPU, &out));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_tensor_create(NDRT_F32, 1, neg, NDRT_CPU, &out));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_tensor_create(NDRT_F32, 9, nine, NDRT_CPU, &out));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_tensor_create(NDRT_F32, -1, nine, NDRT_CPU, &out));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_tensor_create(NDRT_F32, 1, nullptr, NDRT_CPU, &out));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_tensor_create(NDRT_F32, 1, s2, NDRT_DEVICE(NDRT_DEVICE_TYPE_CPU, 9), &out));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_tensor_create(NDRT_F32, 1, s2, NDRT_DEVICE(7, 0), &out));
  const int64_t huge[] = {int64_t(1) << 40, int64_t(1) << 40};
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_tensor_create(NDRT_F32, 2, huge, NDRT_CPU, &out));
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
  {  // Sanitizer allocators abort on absurd requests instead of returning NULL: skipped there.
    const int64_t big[] = {int64_t(1) << 45};  // fits the shape rules, not in memory
    ndrt_status s = ndrt_tensor_create(NDRT_U8, 1, big, NDRT_CPU, &out);
    EXPECT_EQ(s, NDRT_ERR_OUT_OF_MEMORY) << describe_status(s);
    if (s == NDRT_ERR_OUT_OF_MEMORY) {
      std::string msg = ndrt_last_error();
      EXPECT_NE(msg.find("in use"), std::string::npos) << "an OOM message says what is in use: " << msg;
      EXPECT_NE(msg.find("cached"), std::string::npos) << msg;
    }
    if (s == NDRT_OK) {
      ndrt_tensor_release(out);
      out = 0;
    }
  }
#endif
  EXPECT_EQ(out, 0);
  EXPECT_EQ(live_handles(), live);
  Tensor t = from_values(NDRT_F32, {2}, {1, 2});
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_tensor_read(t.get(), data, 4));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_tensor_read(t.get(), nullptr, 8));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_tensor_write(t.get(), data, 12));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_tensor_write(t.get(), nullptr, 8));
  int32_t r;
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_tensor_rank(t.get(), nullptr));
  EXPECT_OK(ndrt_tensor_rank(t.get(), &r));
  EXPECT_EQ(r, 1);
  int64_t n;
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_live_handles(nullptr));
  EXPECT_OK(ndrt_live_handles(&n));
  // exec with NULL arrays and counts that disagree.
  ndrt_handle o[1] = {0};
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_exec(op_id("neg"), nullptr, 1, o, 1, nullptr, 0, nullptr, 0));
  ndrt_handle in[1] = {t.get()};
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_exec(op_id("neg"), in, 1, nullptr, 1, nullptr, 0, nullptr, 0));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_exec(op_id("sum"), in, 1, o, 1, nullptr, 2, nullptr, 0));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_exec(op_id("sum"), in, 1, o, 1, nullptr, -1, nullptr, 0));
  EXPECT_EQ(o[0], 0);
  EXPECT_EQ(live_handles(), live + 1);
}

TEST(Api, OpDescriptionsAreJsonAndNameTheirAttributes) {
  int32_t n = 0;
  ASSERT_OK(ndrt_op_count(&n));
  EXPECT_GE(n, 15);
  std::set<std::string> names;
  for (int32_t id = 0; id < n; ++id) {
    size_t needed = 0;
    ASSERT_OK(ndrt_op_describe(id, nullptr, 0, &needed));
    std::string buf(needed, 'x');
    ASSERT_OK(ndrt_op_describe(id, &buf[0], buf.size(), &needed));
    EXPECT_EQ(buf.back(), '\0');
    buf.resize(needed - 1);
    EXPECT_EQ(buf.front(), '{');
    EXPECT_EQ(buf.back(), '}');
    size_t p = buf.find("\"name\":\"");
    ASSERT_NE(p, std::string::npos) << buf;
    std::string name = buf.substr(p + 8, buf.find('"', p + 8) - p - 8);
    names.insert(name);
    int32_t found = -1;
    EXPECT_OK(ndrt_op_find(name.c_str(), &found));
    EXPECT_EQ(found, id) << name;
  }
  for (const char* op : {"fill", "copy", "cast", "add", "sub", "mul", "div", "neg", "relu", "exp", "log", "sum",
                         "mean", "max", "matmul"})
    EXPECT_EQ(names.count(op), 1u) << op;
  std::string sum = op_describe("sum");
  EXPECT_NE(sum.find("\"axes\""), std::string::npos) << sum;
  EXPECT_NE(sum.find("\"keepdims\""), std::string::npos) << sum;
  EXPECT_LT(sum.find("\"axes\""), sum.find("\"keepdims\"")) << "attribute order is the exec order";
  std::string mm = op_describe("matmul");
  EXPECT_LT(mm.find("transpose_a"), mm.find("transpose_b"));
  std::string fill = op_describe("fill");
  EXPECT_LT(fill.find("\"value\""), fill.find("\"dtype\""));
  EXPECT_LT(fill.find("\"dtype\""), fill.find("\"shape\""));
  // Small buffers: NUL-terminated prefix, *needed the full size.
  char small[8];
  size_t needed = 0;
  ndrt_status s = ndrt_op_describe(op_id("sum"), small, sizeof small, &needed);
  EXPECT_EQ(needed, sum.size() + 1);
  if (s == NDRT_OK) {
    EXPECT_EQ(small[7], '\0');
  }
  EXPECT_STATUS(NDRT_ERR_UNKNOWN_OP, ndrt_op_describe(n, nullptr, 0, &needed));
  EXPECT_STATUS(NDRT_ERR_UNKNOWN_OP, ndrt_op_describe(-1, nullptr, 0, &needed));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_op_find(nullptr, &n));
}

TEST(Api, DevicesWithoutConfiguration) {
  int32_t n = 0;
  ASSERT_OK(ndrt_device_count(NDRT_DEVICE_TYPE_CPU, &n));
  EXPECT_EQ(n, 1);
  ASSERT_OK(ndrt_device_count(NDRT_DEVICE_TYPE_CUDA, &n));
  EXPECT_GE(n, 0);
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_device_count(42, &n));
  char name[16];
  ASSERT_OK(ndrt_device_name(NDRT_CPU, name, sizeof name));
  EXPECT_STREQ(name, "cpu:0");
  ndrt_device d = -1;
  ASSERT_OK(ndrt_thread_device(&d));
  EXPECT_EQ(d, NDRT_CPU);
  EXPECT_OK(ndrt_synchronize(NDRT_CPU));
  Tensor t = create(NDRT_F32, {2});
  EXPECT_EQ(t.device(), NDRT_CPU);
}

}  // namespace
