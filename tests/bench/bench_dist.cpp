// ndrt_allreduce beside raw MPI_Allreduce, in the same processes on the same buffer.
//
//   packaging/mpirun.sh -np 4 build/tests/bench/ndrt_bench_dist [--min=4096] [--max=67108864]
//       [--factor=4] [--reps=N] [--verify=1,0] [--quick]
//
// For each size (bytes, min to max by factor): one contiguous f32 cpu tensor of that size; the same
// memory (ndrt_tensor_data_ptr) goes to MPI_Allreduce(MPI_IN_PLACE, MPI_FLOAT, MPI_SUM) on
// MPI_COMM_WORLD and to ndrt_allreduce(NDRT_REDUCE_SUM) on ndrt's world communicator. Each rep runs
// one of each, alternating which goes first, each after an MPI_Barrier and timed alone; rank 0 takes
// the max over ranks of each rep's time (the collective ends when its slowest rank does) and prints
// the median over reps. The whole table is measured once per dist.verify setting (1: ndrt first
// compares the call's arguments across ranks; 0: it does not).
//
// MPI is initialised here first (MPI_THREAD_MULTIPLE), so ndrt_comm_world must find it initialised
// and use it as it is; this program finalises it. run_dist.sh runs the table at 2 and 4 ranks, over
// shared memory and over TCP. Before timing, each size is checked once on both paths (every rank
// adds rank+1: each element must be size*(size+1)/2); a failure exits non-zero.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ndrt/ndrt.h"

#ifndef NDRT_BENCH_BUILD_TYPE
#define NDRT_BENCH_BUILD_TYPE "unknown"
#endif

namespace {

int g_rank = 0;

[[noreturn]] void die(const char* what, ndrt_status st) {
  std::fprintf(stderr, "[rank %d] %s: %s: %s\n", g_rank, what, ndrt_status_name(st), ndrt_last_error());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::exit(1);
}

void ok(ndrt_status st, const char* what) {
  if (st != NDRT_OK) die(what, st);
}

void mpi_ok(int rc, const char* what) {
  if (rc != MPI_SUCCESS) {
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    std::fprintf(stderr, "[rank %d] %s: %s\n", g_rank, what, msg);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

double now_us() {
  using namespace std::chrono;
  return duration<double, std::micro>(steady_clock::now().time_since_epoch()).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string size_text(int64_t bytes) {
  char buf[32];
  if (bytes >= (int64_t(1) << 20))
    std::snprintf(buf, sizeof buf, "%lld MiB", static_cast<long long>(bytes >> 20));
  else
    std::snprintf(buf, sizeof buf, "%lld KiB", static_cast<long long>(bytes >> 10));
  return buf;
}

struct Options {
  int64_t min_bytes = 4 << 10, max_bytes = 64 << 20, factor = 4;
  int reps = 0;  // 0: by size
  std::vector<int> verify = {1, 0};
};

bool starts(const char* arg, const char* prefix, const char** value) {
  const size_t n = std::strlen(prefix);
  if (std::strncmp(arg, prefix, n) != 0) return false;
  *value = arg + n;
  return true;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const char* v = nullptr;
    if (starts(argv[i], "--min=", &v)) {
      o.min_bytes = std::atoll(v);
    } else if (starts(argv[i], "--max=", &v)) {
      o.max_bytes = std::atoll(v);
    } else if (starts(argv[i], "--factor=", &v)) {
      o.factor = std::max<int64_t>(2, std::atoll(v));
    } else if (starts(argv[i], "--reps=", &v)) {
      o.reps = std::atoi(v);
    } else if (starts(argv[i], "--verify=", &v)) {
      o.verify.clear();
      for (const char* p = v; *p; ++p)
        if (*p == '0' || *p == '1') o.verify.push_back(*p - '0');
    } else if (std::strcmp(argv[i], "--quick") == 0) {  // smoke: 4 KiB and 64 KiB, 3 reps
      o.max_bytes = 64 << 10;
      o.reps = 3;
    } else {
      if (g_rank == 0)
        std::fprintf(stderr, "usage: ndrt_bench_dist [--min=BYTES] [--max=BYTES] [--factor=F] [--reps=N] "
                             "[--verify=1,0] [--quick]\n");
      MPI_Finalize();
      std::exit(2);
    }
  }
  o.min_bytes = std::max<int64_t>(4, o.min_bytes);
  return o;
}

// Reps by size: more for small messages (cheap, noisier), at least 11 for the large ones.
int reps_for(const Options& o, int64_t bytes) {
  if (o.reps > 0) return o.reps;
  const int64_t r = (int64_t(256) << 20) / bytes;
  return int(std::clamp<int64_t>(r | 1, 11, 201));
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (provided < MPI_THREAD_MULTIPLE && g_rank == 0)
    std::fprintf(stderr, "ndrt_bench_dist: MPI gave thread level %d, not MPI_THREAD_MULTIPLE (%d); ndrt "
                         "will refuse it\n", provided, MPI_THREAD_MULTIPLE);
  const Options o = parse(argc, argv);

  ok(ndrt_thread_attach(NDRT_CPU), "thread_attach");
  ndrt_comm comm = 0;
  ok(ndrt_comm_world(&comm), "ndrt_comm_world (MPI initialised by the host)");
  int32_t nrank = -1, nsize = -1;
  ok(ndrt_comm_rank(comm, &nrank), "comm_rank");
  ok(ndrt_comm_size(comm, &nsize), "comm_size");
  if (nrank != g_rank || nsize != size) {
    std::fprintf(stderr, "[rank %d] ndrt's world says rank %d of %d, MPI says %d of %d\n", g_rank, nrank, nsize,
                 g_rank, size);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }

  const char* transport = std::getenv("NDRT_MPI_TRANSPORT");
  if (g_rank == 0) {
    std::printf("allreduce f32 sum, %d ranks, transport %s, build %s; per size: median over reps of the "
                "slowest rank's time\n", size, transport && *transport ? transport : "default (shared memory)",
                NDRT_BENCH_BUILD_TYPE);
    std::printf("ratio = raw MPI time / ndrt time = ndrt's bandwidth as %% of raw MPI_Allreduce's\n");
    std::fflush(stdout);
  }

  // One tensor per size, made once and checked once.
  std::vector<int64_t> sizes;
  for (int64_t b = o.min_bytes; b <= o.max_bytes; b *= o.factor) sizes.push_back(b);
  struct Buf {
    ndrt_handle h = 0;
    float* p = nullptr;
    int64_t n = 0;
  };
  std::vector<Buf> bufs;
  const float want = float(size) * float(size + 1) / 2.0f;
  for (int64_t bytes : sizes) {
    Buf b;
    b.n = bytes / 4;
    const int64_t shape[1] = {b.n};
    ok(ndrt_tensor_create(NDRT_F32, 1, shape, NDRT_CPU, &b.h), "tensor_create");
    void* p = nullptr;
    ok(ndrt_tensor_data_ptr(b.h, &p), "tensor_data_ptr");
    b.p = static_cast<float*>(p);
    for (int pass = 0; pass < 2; ++pass) {
      std::fill(b.p, b.p + b.n, float(g_rank + 1));
      if (pass == 0)
        mpi_ok(MPI_Allreduce(MPI_IN_PLACE, b.p, int(b.n), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
      else
        ok(ndrt_allreduce(comm, b.h, NDRT_REDUCE_SUM), "ndrt_allreduce");
      for (int64_t i = 0; i < b.n; ++i) {
        if (b.p[i] != want) {
          std::fprintf(stderr, "[rank %d] %s of %s: element %lld is %g, expected %g\n", g_rank,
                       pass ? "ndrt_allreduce" : "MPI_Allreduce", size_text(bytes).c_str(),
                       static_cast<long long>(i), double(b.p[i]), double(want));
          MPI_Abort(MPI_COMM_WORLD, 1);
        }
      }
    }
    std::fill(b.p, b.p + b.n, 0.0f);  // sums of zeros from here on: no overflow, no denormals
    bufs.push_back(b);
  }

  for (int verify : o.verify) {
    ok(ndrt_config_set("dist.verify", verify ? "1" : "0"), "config_set dist.verify");
    if (g_rank == 0) {
      std::printf("\ndist.verify=%d\n%10s %6s %14s %14s %9s\n", verify, "size", "reps", "raw MPI us", "ndrt us",
                  "ratio");
      std::fflush(stdout);
    }
    for (size_t s = 0; s < sizes.size(); ++s) {
      const Buf& b = bufs[s];
      const int reps = reps_for(o, sizes[s]);
      // warm-up: one of each
      mpi_ok(MPI_Allreduce(MPI_IN_PLACE, b.p, int(b.n), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
      ok(ndrt_allreduce(comm, b.h, NDRT_REDUCE_SUM), "ndrt_allreduce");
      std::vector<double> raw_t, ndrt_t;
      for (int r = 0; r < reps; ++r) {
        double t[2] = {0, 0};  // raw, ndrt
        for (int k = 0; k < 2; ++k) {
          const int which = (r % 2) ? 1 - k : k;  // alternate which goes first
          MPI_Barrier(MPI_COMM_WORLD);
          const double t0 = now_us();
          if (which == 0)
            mpi_ok(MPI_Allreduce(MPI_IN_PLACE, b.p, int(b.n), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
          else
            ok(ndrt_allreduce(comm, b.h, NDRT_REDUCE_SUM), "ndrt_allreduce");
          t[which] = now_us() - t0;
        }
        double tmax[2] = {0, 0};
        MPI_Reduce(t, tmax, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        raw_t.push_back(tmax[0]);
        ndrt_t.push_back(tmax[1]);
      }
      if (g_rank == 0) {
        const double raw = median(raw_t), nd = median(ndrt_t);
        std::printf("%10s %6d %14.1f %14.1f %8.1f%%\n", size_text(sizes[s]).c_str(), reps, raw, nd,
                    100.0 * raw / nd);
        std::fflush(stdout);
      }
    }
  }

  for (Buf& b : bufs) ndrt_tensor_release(b.h);
  ok(ndrt_comm_release(comm), "comm_release");
  MPI_Finalize();
  return 0;
}
