// libndrt_mpi.so: ndrt's collectives on Open MPI (see runtime/mpi_backend.hpp for the contract).
// Dense host buffers only; every MPI error returns (MPI_ERRORS_RETURN) and becomes an ndrt error.
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "mpi_backend.hpp"
#include "ndrt/ndrt.h"

namespace {

const ndrt_mpi_host* g_host = nullptr;
bool g_we_initialised = false;

[[noreturn]] void fail(int32_t status, const std::string& message) {
  g_host->fail(status, message.c_str());
  std::abort();  // host->fail throws; never reached
}

void check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = "";
  int len = 0;
  MPI_Error_string(rc, text, &len);
  fail(NDRT_ERR_BACKEND, std::string(what) + ": MPI error: " + text);
}

MPI_Comm as_comm(void* c) { return static_cast<MPI_Comm>(c); }

MPI_Datatype mpi_type(int32_t t) {
  switch (t) {
    case NDRT_MPI_F32: return MPI_FLOAT;
    case NDRT_MPI_F64: return MPI_DOUBLE;
    case NDRT_MPI_I8: return MPI_INT8_T;
    case NDRT_MPI_U8: return MPI_UINT8_T;
    case NDRT_MPI_I32: return MPI_INT32_T;
    case NDRT_MPI_I64: return MPI_INT64_T;
  }
  fail(NDRT_ERR_INTERNAL, "mpi module: unknown wire type " + std::to_string(t));
}

int64_t type_size(int32_t t) {
  return t == NDRT_MPI_F64 || t == NDRT_MPI_I64 ? 8 : t == NDRT_MPI_F32 || t == NDRT_MPI_I32 ? 4 : 1;
}

MPI_Op mpi_op(int32_t op) {
  switch (op) {
    case NDRT_MPI_SUM: return MPI_SUM;
    case NDRT_MPI_MAX: return MPI_MAX;
    case NDRT_MPI_MIN: return MPI_MIN;
  }
  fail(NDRT_ERR_INTERNAL, "mpi module: unknown reduction " + std::to_string(op));
}

// MPI counts are int: larger buffers go in pieces of at most this many elements.
constexpr int64_t kPiece = int64_t(1) << 30;

ndrt_mpi_group describe(MPI_Comm comm) {
  ndrt_mpi_group g{comm, 0, 1, 0};
  check(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  check(MPI_Comm_rank(comm, &g.rank), "MPI_Comm_rank");
  check(MPI_Comm_size(comm, &g.size), "MPI_Comm_size");
  MPI_Comm node = MPI_COMM_NULL;
  check(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, g.rank, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
  check(MPI_Comm_rank(node, &g.local_rank), "MPI_Comm_rank");
  MPI_Comm_free(&node);
  return g;
}

ndrt_mpi_group init(const ndrt_mpi_host* host) {
  g_host = host;
  int initialised = 0, provided = 0;
  MPI_Initialized(&initialised);
  if (!initialised) {
    // The signal handlers of UCX and Open MPI are turned off by libndrt before it loads libmpi
    // (runtime/dist_comm.cpp: load_mpi).
    int rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
    if (rc != MPI_SUCCESS) fail(NDRT_ERR_BACKEND, "MPI_Init_thread failed (was the process started by mpirun?)");
    g_we_initialised = true;
  } else {
    MPI_Query_thread(&provided);
  }
  if (provided < MPI_THREAD_MULTIPLE)
    fail(NDRT_ERR_NOT_CONFIGURED,
         "MPI was initialised with thread level " + std::to_string(provided) + " but ndrt calls MPI from several threads: "
         "initialise it with MPI_Init_thread(..., MPI_THREAD_MULTIPLE, ...) or let ndrt do it");
  MPI_Comm world = MPI_COMM_NULL;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  check(MPI_Comm_dup(MPI_COMM_WORLD, &world), "MPI_Comm_dup");
  return describe(world);
}

void finalize() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (g_we_initialised && !finalized) MPI_Finalize();
}

ndrt_mpi_group split(void* comm, int32_t color, int32_t key) {
  MPI_Comm out = MPI_COMM_NULL;
  check(MPI_Comm_split(as_comm(comm), color < 0 ? MPI_UNDEFINED : color, key, &out), "MPI_Comm_split");
  if (out == MPI_COMM_NULL) return ndrt_mpi_group{nullptr, -1, 0, -1};
  return describe(out);
}

void free_comm(void* comm) {
  MPI_Comm c = as_comm(comm);
  if (c != MPI_COMM_NULL) MPI_Comm_free(&c);
}

void allreduce(void* comm, void* buf, int64_t count, int32_t type, int32_t op) {
  MPI_Datatype t = mpi_type(type);
  MPI_Op o = mpi_op(op);
  char* p = static_cast<char*>(buf);
  for (int64_t done = 0; done < count;) {  // every rank passes the same count, 0 included
    int n = int(std::min(kPiece, count - done));
    check(MPI_Allreduce(MPI_IN_PLACE, p + done * type_size(type), n, t, o, as_comm(comm)), "MPI_Allreduce");
    done += n;
  }
}

void broadcast(void* comm, void* buf, int64_t bytes, int32_t root) {
  char* p = static_cast<char*>(buf);
  for (int64_t done = 0; done < bytes;) {
    int n = int(std::min(kPiece, bytes - done));
    check(MPI_Bcast(p + done, n, MPI_BYTE, root, as_comm(comm)), "MPI_Bcast");
    done += n;
  }
}

void allgather(void* comm, const void* in, void* out, int64_t bytes) {
  if (bytes > INT_MAX) fail(NDRT_ERR_NOT_SUPPORTED, "allgather of more than 2 GiB per rank (" + std::to_string(bytes) + " bytes)");
  check(MPI_Allgather(in, int(bytes), MPI_BYTE, out, int(bytes), MPI_BYTE, as_comm(comm)), "MPI_Allgather");
}

void reduce_scatter(void* comm, const void* in, void* out, int64_t count, int32_t type, int32_t op) {
  if (count > INT_MAX)
    fail(NDRT_ERR_NOT_SUPPORTED, "reduce_scatter of more than 2^31 elements per rank (" + std::to_string(count) + ")");
  check(MPI_Reduce_scatter_block(in, out, int(count), mpi_type(type), mpi_op(op), as_comm(comm)), "MPI_Reduce_scatter_block");
}

void barrier(void* comm) { check(MPI_Barrier(as_comm(comm)), "MPI_Barrier"); }

const ndrt_mpi_backend kBackend = {1, init, finalize, split, free_comm, allreduce, broadcast, allgather,
                                   reduce_scatter, barrier};

}  // namespace

extern "C" __attribute__((visibility("default"))) const ndrt_mpi_backend* ndrt_mpi_backend_v1() { return &kBackend; }
