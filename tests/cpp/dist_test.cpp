// Collectives through the C ABI, run under mpirun (tests/cpp/CMakeLists.txt: 2 and 4 ranks, shared
// memory and TCP). Every rank runs every test in the same order: the tests are collective calls.
// Each rank's data comes from a seed that includes its rank, so every rank computes the expected
// result of the whole group itself (float64 reference).
#include <dirent.h>
#include <dlfcn.h>

#include <cstdlib>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "common/ndrt_test.hpp"

using namespace nt;

namespace {

ndrt_comm g_world = 0;
int g_rank = 0, g_size = 1;

struct Comm {
  ndrt_comm id = 0;
  explicit Comm(ndrt_comm c) : id(c) {}
  ~Comm() {
    if (id) EXPECT_STATUS(NDRT_OK, ndrt_comm_release(id));
  }
};

// Values of rank r for a tensor of n elements: small integers times a float step, so f32 sums of
// a few ranks are exact and the float64 reference is the truth.
std::vector<double> rank_values(int r, int64_t n, uint32_t seed, ndrt_dtype d) {
  std::mt19937 gen(seed * 7919u + uint32_t(r));
  std::uniform_int_distribution<int> dist(d == NDRT_U8 || d == NDRT_BOOL ? 0 : -20, 20);
  std::vector<double> v(static_cast<size_t>(n));
  for (auto& x : v) {
    int k = dist(gen);
    x = d == NDRT_BOOL ? double(k % 2 != 0) : is_float(d) ? k * 0.25 : double(k == 0 ? 1 : k);
  }
  return v;
}

std::vector<double> expected_reduce(int64_t n, uint32_t seed, ndrt_dtype d, int op) {
  std::vector<double> acc = rank_values(0, n, seed, d);
  for (int r = 1; r < g_size; ++r) {
    std::vector<double> v = rank_values(r, n, seed, d);
    for (int64_t i = 0; i < n; ++i) {
      double& a = acc[size_t(i)];
      double b = v[size_t(i)];
      a = op == NDRT_REDUCE_MAX ? std::max(a, b) : op == NDRT_REDUCE_MIN ? std::min(a, b) : a + b;
    }
  }
  if (op == NDRT_REDUCE_MEAN)
    for (auto& a : acc) a /= g_size;
  return acc;
}

void expect_values(const std::vector<double>& want, const std::vector<double>& got, double tol, const std::string& what) {
  ASSERT_EQ(want.size(), got.size()) << what;
  for (size_t i = 0; i < want.size(); ++i)
    ASSERT_NEAR(want[i], got[i], tol * (1 + std::fabs(want[i]))) << what << " element " << i;
}

int threads_of_this_process() {
  int n = 0;
  if (DIR* d = opendir("/proc/self/task")) {
    while (dirent* e = readdir(d)) n += e->d_name[0] != '.';
    closedir(d);
  }
  return n;
}

TEST(Dist, WorldHasEveryRankAndMpiIsGlobal) {
  int32_t rank = -1, size = -1, local = -1;
  ASSERT_STATUS(NDRT_OK, ndrt_comm_rank(g_world, &rank));
  ASSERT_STATUS(NDRT_OK, ndrt_comm_size(g_world, &size));
  ASSERT_STATUS(NDRT_OK, ndrt_comm_local_rank(g_world, &local));
  EXPECT_GE(size, 2) << "run under mpirun with 2 or more ranks";
  EXPECT_TRUE(rank >= 0 && rank < size);
  // One host: the local rank is the rank; tests/dist/two_hosts.sh puts one rank on each host.
  const char* per_host = std::getenv("NDRT_TEST_RANKS_PER_HOST");
  EXPECT_EQ(local, per_host ? rank % std::atoi(per_host) : rank);
  // libmpi was opened with RTLD_GLOBAL (Open MPI's components need its symbols in global scope).
  EXPECT_NE(nullptr, dlsym(RTLD_DEFAULT, "MPI_Init_thread"));
  // A second world handle names the same group and is released on its own.
  ndrt_comm again = 0;
  ASSERT_STATUS(NDRT_OK, ndrt_comm_world(&again));
  EXPECT_NE(again, g_world);
  EXPECT_STATUS(NDRT_OK, ndrt_comm_release(again));
  EXPECT_STATUS(NDRT_ERR_INVALID_HANDLE, ndrt_comm_release(again));
  EXPECT_STATUS(NDRT_ERR_INVALID_HANDLE, ndrt_comm_rank(123456789, &rank));
  EXPECT_NE(std::string(ndrt_last_error()).find("not a live communicator"), std::string::npos) << ndrt_last_error();
}

TEST(Dist, AllreduceEveryOpAgainstFloat64) {
  const ndrt_dtype dtypes[] = {NDRT_F32, NDRT_F64, NDRT_I32, NDRT_I64, NDRT_I8, NDRT_U8};
  uint32_t seed = 1;
  for (ndrt_dtype d : dtypes)
    for (int op = NDRT_REDUCE_SUM; op <= NDRT_REDUCE_MIN; ++op) {
      if (op == NDRT_REDUCE_MEAN && !is_float(d)) continue;
      const int64_t n = 1031;
      Tensor t = from_values(d, {n}, rank_values(g_rank, n, seed, d));
      SCOPED_TRACE(std::string(dtype_str(d)) + " op " + std::to_string(op));
      ASSERT_STATUS(NDRT_OK, ndrt_allreduce(g_world, t.get(), op));
      expect_values(expected_reduce(n, seed, d, op), read_values(t), 1e-6,
                    std::string(dtype_str(d)) + " op " + std::to_string(op));
      ++seed;
    }
}

TEST(Dist, SixteenBitFloatsReduceInF32) {
  for (ndrt_dtype d : {NDRT_F16, NDRT_BF16}) {
    const int64_t n = 300;
    Tensor t = from_values(d, {3, 100}, rank_values(g_rank, n, 77, d));
    ASSERT_STATUS(NDRT_OK, ndrt_allreduce(g_world, t.get(), NDRT_REDUCE_MEAN));
    // Quarter steps of |k| <= 20 are exact in both; the mean of 2 or 4 of them rounds once.
    expect_values(expected_reduce(n, 77, d, NDRT_REDUCE_MEAN), read_values(t), d == NDRT_F16 ? 1e-3 : 8e-3, dtype_str(d));
  }
}

TEST(Dist, BoolIsAnyAndAll) {
  const int64_t n = 64;
  for (int op : {NDRT_REDUCE_MAX, NDRT_REDUCE_MIN}) {
    Tensor t = from_values(NDRT_BOOL, {n}, rank_values(g_rank, n, 5, NDRT_BOOL));
    ASSERT_STATUS(NDRT_OK, ndrt_allreduce(g_world, t.get(), op));
    expect_values(expected_reduce(n, 5, NDRT_BOOL, op), read_values(t), 0, "bool");
  }
  Tensor b = from_values(NDRT_BOOL, {2}, {1, 0});
  EXPECT_STATUS(NDRT_ERR_NOT_SUPPORTED, ndrt_allreduce(g_world, b.get(), NDRT_REDUCE_SUM));
  Tensor i = from_values(NDRT_I32, {2}, {1, 2});
  EXPECT_STATUS(NDRT_ERR_NOT_SUPPORTED, ndrt_allreduce(g_world, i.get(), NDRT_REDUCE_MEAN));
  EXPECT_NE(std::string(ndrt_last_error()).find("mean of i32"), std::string::npos) << ndrt_last_error();
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_allreduce(g_world, i.get(), 9));
  EXPECT_STATUS(NDRT_ERR_INVALID_HANDLE, ndrt_allreduce(g_world, 987654321, NDRT_REDUCE_SUM));
}

TEST(Dist, StridedViewWritesOnlyTheView) {
  // Columns 1..3 of a [5, 6] matrix, every other row: in place through a staged copy.
  std::vector<double> base = rank_values(g_rank, 30, 9, NDRT_F32);
  Tensor m = from_values(NDRT_F32, {5, 6}, base);
  Tensor rows = slice(m, 0, 0, 5, 2);
  Tensor v = slice(rows, 1, 1, 4, 1);
  ASSERT_STATUS(NDRT_OK, ndrt_allreduce(g_world, v.get(), NDRT_REDUCE_SUM));
  std::vector<double> got = read_values(m), sum = expected_reduce(30, 9, NDRT_F32, NDRT_REDUCE_SUM);
  for (int r = 0; r < 5; ++r)
    for (int c = 0; c < 6; ++c) {
      bool in_view = r % 2 == 0 && c >= 1 && c < 4;
      EXPECT_EQ(in_view ? sum[size_t(r * 6 + c)] : base[size_t(r * 6 + c)], got[size_t(r * 6 + c)]) << r << "," << c;
    }
}

TEST(Dist, BroadcastFromEveryRoot) {
  for (int root = 0; root < g_size; ++root) {
    Tensor t = from_values(NDRT_F64, {4, 3}, rank_values(g_rank, 12, 11, NDRT_F64));
    ASSERT_STATUS(NDRT_OK, ndrt_broadcast(g_world, t.get(), root));
    expect_values(rank_values(root, 12, 11, NDRT_F64), read_values(t), 0, "root " + std::to_string(root));
  }
  Tensor t = from_values(NDRT_F32, {1}, {1});
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_broadcast(g_world, t.get(), g_size));
}

TEST(Dist, AllgatherAndReduceScatter) {
  Tensor in = from_values(NDRT_I64, {2, 3}, rank_values(g_rank, 6, 13, NDRT_I64));
  Tensor out = create(NDRT_I64, {2 * g_size, 3});
  ASSERT_STATUS(NDRT_OK, ndrt_allgather(g_world, in.get(), out.get()));
  std::vector<double> want;
  for (int r = 0; r < g_size; ++r) {
    auto v = rank_values(r, 6, 13, NDRT_I64);
    want.insert(want.end(), v.begin(), v.end());
  }
  expect_values(want, read_values(out), 0, "allgather");
  Tensor wrong = create(NDRT_I64, {2, 3});
  EXPECT_STATUS(NDRT_ERR_SHAPE_MISMATCH, ndrt_allgather(g_world, in.get(), wrong.get()));

  const int64_t block = 5;
  Tensor big = from_values(NDRT_F32, {block * g_size}, rank_values(g_rank, block * g_size, 17, NDRT_F32));
  Tensor mine = create(NDRT_F32, {block});
  ASSERT_STATUS(NDRT_OK, ndrt_reduce_scatter(g_world, big.get(), mine.get(), NDRT_REDUCE_SUM));
  auto sum = expected_reduce(block * g_size, 17, NDRT_F32, NDRT_REDUCE_SUM);
  expect_values(std::vector<double>(sum.begin() + g_rank * block, sum.begin() + (g_rank + 1) * block), read_values(mine),
                1e-6, "reduce_scatter");
}

TEST(Dist, MismatchedCallsFailOnEveryRankAndTheGroupGoesOn) {
  Tensor t = create(NDRT_F32, {3 + g_rank});  // each rank a different shape
  NT_CHECK(ndrt_tensor_write(t.get(), std::vector<float>(size_t(3 + g_rank), 1.f).data(), size_t(3 + g_rank) * 4));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_allreduce(g_world, t.get(), NDRT_REDUCE_SUM));
  std::string msg = ndrt_last_error();
  EXPECT_NE(msg.find("do not match"), std::string::npos) << msg;
  EXPECT_NE(msg.find("rank 1: allreduce f32 [4] sum"), std::string::npos) << msg;
  ASSERT_STATUS(NDRT_OK, ndrt_barrier(g_world));  // nothing was corrupted or left queued
}

TEST(Dist, ArgumentsRefusedOnOneRankFailTheCallOnEveryRank) {
  // Rank 0 passes an out of the wrong shape: it fails locally, and the others must fail the same
  // call (not pair it with rank 0's next call).
  Tensor in = from_values(NDRT_F32, {2}, {1, 2});
  Tensor out = create(NDRT_F32, {g_rank == 0 ? 3 : 2 * g_size});
  ndrt_status s = ndrt_allgather(g_world, in.get(), out.get());
  if (g_rank == 0) {
    EXPECT_STATUS(NDRT_ERR_SHAPE_MISMATCH, s);
  } else {
    EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, s);
    EXPECT_NE(std::string(ndrt_last_error()).find("rank 0 refused its arguments"), std::string::npos) << ndrt_last_error();
  }
  Tensor t = from_values(NDRT_I32, {1}, {double(g_rank + 1)});
  ASSERT_STATUS(NDRT_OK, ndrt_allreduce(g_world, t.get(), NDRT_REDUCE_SUM));
  EXPECT_EQ(g_size * (g_size + 1) / 2, read_values(t)[0]);
}

TEST(Dist, BucketsOfOtherShapesDoNotMatch) {
  Tensor a = create(NDRT_F32, {g_rank % 2 ? 4 : 3}), b = create(NDRT_F32, {g_rank % 2 ? 3 : 4});
  ndrt_handle ts[2] = {a.get(), b.get()};
  ndrt_event ev = 0;
  ASSERT_STATUS(NDRT_OK, ndrt_allreduce_async(g_world, ts, 2, NDRT_REDUCE_SUM, &ev));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_event_synchronize(ev));
  EXPECT_NE(std::string(ndrt_last_error()).find("do not match"), std::string::npos) << ndrt_last_error();
  EXPECT_STATUS(NDRT_OK, ndrt_event_release(ev));
}

TEST(Dist, SizeZeroAndRankZero) {
  Tensor empty = create(NDRT_F16, {3, 0});
  EXPECT_STATUS(NDRT_OK, ndrt_allreduce(g_world, empty.get(), NDRT_REDUCE_SUM));
  Tensor scalar = from_values(NDRT_F64, {}, {double(g_rank) + 0.5});
  ASSERT_STATUS(NDRT_OK, ndrt_allreduce(g_world, scalar.get(), NDRT_REDUCE_MAX));
  EXPECT_EQ(g_size - 0.5, read_values(scalar)[0]);
}

TEST(Dist, AsyncBucketCompletesThroughItsEvent) {
  Tensor a = from_values(NDRT_F32, {100}, rank_values(g_rank, 100, 21, NDRT_F32));
  Tensor b = from_values(NDRT_F32, {7, 9}, rank_values(g_rank, 63, 22, NDRT_F32));
  Tensor bt = transpose(b, 0, 1);  // a strided member of the bucket
  ndrt_handle ts[2] = {a.get(), bt.get()};
  ndrt_event ev = 0;
  ASSERT_STATUS(NDRT_OK, ndrt_allreduce_async(g_world, ts, 2, NDRT_REDUCE_MEAN, &ev));
  // Compute goes on while it travels.
  Tensor x = from_values(NDRT_F32, {64, 64}, rank_values(g_rank, 4096, 23, NDRT_F32));
  Tensor y = run("matmul", {&x, &x});
  ASSERT_STATUS(NDRT_OK, ndrt_event_synchronize(ev));
  int32_t done = 0;
  ASSERT_STATUS(NDRT_OK, ndrt_event_query(ev, &done));
  EXPECT_EQ(1, done);
  ASSERT_STATUS(NDRT_OK, ndrt_event_release(ev));
  expect_values(expected_reduce(100, 21, NDRT_F32, NDRT_REDUCE_MEAN), read_values(a), 1e-6, "a");
  expect_values(expected_reduce(63, 22, NDRT_F32, NDRT_REDUCE_MEAN), read_values(b), 1e-6, "b");
  // Mixed dtypes in one bucket are refused before anything travels.
  Tensor c = from_values(NDRT_F64, {2}, {1, 2});
  ndrt_handle mixed[2] = {a.get(), c.get()};
  EXPECT_STATUS(NDRT_ERR_DTYPE_MISMATCH, ndrt_allreduce_async(g_world, mixed, 2, NDRT_REDUCE_SUM, &ev));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_allreduce_async(g_world, ts, 0, NDRT_REDUCE_SUM, &ev));
}

TEST(Dist, SplitGroupsAndThreadsCallingAtOnce) {
  // Even and odd ranks: two groups; then each of two host threads works on its own group.
  ndrt_comm half = 0;
  ASSERT_STATUS(NDRT_OK, ndrt_comm_split(g_world, g_rank % 2, g_rank, &half));
  Comm h(half);
  int32_t hs = 0, hr = 0;
  ASSERT_STATUS(NDRT_OK, ndrt_comm_size(half, &hs));
  ASSERT_STATUS(NDRT_OK, ndrt_comm_rank(half, &hr));
  EXPECT_EQ((g_size + 1 - g_rank % 2) / 2, hs);
  EXPECT_EQ(g_rank / 2, hr);
  Tensor t = from_values(NDRT_I32, {1}, {double(g_rank)});
  ASSERT_STATUS(NDRT_OK, ndrt_allreduce(half, t.get(), NDRT_REDUCE_SUM));
  int want = 0;
  for (int r = g_rank % 2; r < g_size; r += 2) want += r;
  EXPECT_EQ(want, read_values(t)[0]);

  ndrt_comm none = 77;
  ASSERT_STATUS(NDRT_OK, ndrt_comm_split(g_world, g_rank == 0 ? -1 : 0, 0, &none));
  EXPECT_EQ(g_rank == 0, none == 0);
  Comm n(none);

  const int threads_before = threads_of_this_process();
  ndrt_comm groups[2] = {0, 0};
  for (auto& g : groups) ASSERT_STATUS(NDRT_OK, ndrt_comm_split(g_world, 0, g_rank, &g));
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int k = 0; k < 2; ++k)
    threads.emplace_back([&, k] {
      if (ndrt_thread_attach(NDRT_CPU) != NDRT_OK) ++failures;
      for (int i = 0; i < 50; ++i) {
        float v[3] = {float(k), float(i), float(g_rank)};
        int64_t shape = 3;
        ndrt_handle x = 0;
        if (ndrt_tensor_from_host(NDRT_F32, 1, &shape, v, sizeof v, NDRT_CPU, &x) != NDRT_OK ||
            ndrt_allreduce(groups[k], x, NDRT_REDUCE_SUM) != NDRT_OK || ndrt_tensor_read(x, v, sizeof v) != NDRT_OK)
          ++failures;
        if (v[0] != float(k * g_size) || v[1] != float(i * g_size) || v[2] != float(g_size * (g_size - 1) / 2)) ++failures;
        ndrt_tensor_release(x);
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(0, failures.load());
  for (auto g : groups) EXPECT_STATUS(NDRT_OK, ndrt_comm_release(g));
  // Each used group had a thread of its own; releasing the group's handle stops it.
  EXPECT_EQ(threads_before, threads_of_this_process());
}

TEST(Dist, WrongDeviceIsRefused) {
  // Needs NDRT_CPU_VIRTUAL_DEVICES=2 (set by the ctest entry): a tensor on cpu:1, the thread on cpu:0.
  int32_t n = 0;
  ASSERT_STATUS(NDRT_OK, ndrt_device_count(NDRT_DEVICE_TYPE_CPU, &n));
  ASSERT_EQ(2, n);
  Tensor t = create(NDRT_F32, {2}, NDRT_DEVICE(NDRT_DEVICE_TYPE_CPU, 1));
  EXPECT_STATUS(NDRT_ERR_DEVICE_MISMATCH, ndrt_allreduce(g_world, t.get(), NDRT_REDUCE_SUM));
}

TEST(Dist, ProfilerNamesThePath) {
  ASSERT_STATUS(NDRT_OK, ndrt_profiler_clear());
  ASSERT_STATUS(NDRT_OK, ndrt_profiler_enable(1));
  Tensor dense = from_values(NDRT_F32, {8}, rank_values(g_rank, 8, 31, NDRT_F32));
  Tensor half = from_values(NDRT_F16, {8}, rank_values(g_rank, 8, 31, NDRT_F16));
  ASSERT_STATUS(NDRT_OK, ndrt_allreduce(g_world, dense.get(), NDRT_REDUCE_SUM));
  ASSERT_STATUS(NDRT_OK, ndrt_allreduce(g_world, half.get(), NDRT_REDUCE_SUM));
  ASSERT_STATUS(NDRT_OK, ndrt_profiler_enable(0));
  size_t needed = 0;
  ASSERT_STATUS(NDRT_OK, ndrt_profiler_summary(nullptr, 0, &needed));
  std::string text(needed, '\0');
  ASSERT_STATUS(NDRT_OK, ndrt_profiler_summary(text.data(), needed, &needed));
  EXPECT_NE(text.find("allreduce"), std::string::npos) << text;
  EXPECT_NE(text.find("mpi-staged"), std::string::npos) << text;
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (ndrt_comm_world(&g_world) != NDRT_OK) {
    std::fprintf(stderr, "ndrt_comm_world: %s\n", ndrt_last_error());
    return 1;
  }
  int32_t r = 0, s = 0;
  ndrt_comm_rank(g_world, &r);
  ndrt_comm_size(g_world, &s);
  g_rank = r;
  g_size = s;
  ndrt_thread_attach(NDRT_CPU);
  // Only rank 0 prints the report; every rank's result counts (mpirun fails when any rank does).
  if (g_rank != 0) delete ::testing::UnitTest::GetInstance()->listeners().Release(
      ::testing::UnitTest::GetInstance()->listeners().default_result_printer());
  int rc = RUN_ALL_TESTS();
  ndrt_comm_release(g_world);
  return rc;
}
