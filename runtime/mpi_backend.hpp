// The MPI module (libndrt_mpi.so) is loaded with dlopen on the first distributed call, so libndrt
// loads and runs where MPI is absent. As with the CUDA module, C tables cross the boundary: the
// module exports ndrt_mpi_backend (through the one symbol ndrt_mpi_backend_v1) and gets
// ndrt_mpi_host, its only way back into libndrt. Both tables only grow at the end.
//
// The module knows MPI and dense host buffers, nothing else: communicator handles, ordering,
// timeouts, argument checks across ranks and staging of strided, cuda and 16-bit tensors live in
// runtime/dist.cpp.
#pragma once
#include <cstddef>
#include <cstdint>

extern "C" {

struct ndrt_mpi_host {
  uint32_t version;  // 1
  // Throws the runtime's error (status + message) from libndrt; never returns.
  void (*fail)(int32_t status, const char* message);
  void (*log)(int32_t level, const char* message);
};

// Wire types of reductions: 16-bit floats travel as f32 (runtime/dist.cpp casts), bool as u8.
enum ndrt_mpi_type { NDRT_MPI_F32 = 0, NDRT_MPI_F64, NDRT_MPI_I8, NDRT_MPI_U8, NDRT_MPI_I32, NDRT_MPI_I64 };
// Reductions the wire does (mean is a sum divided by the group size in libndrt).
enum ndrt_mpi_op { NDRT_MPI_SUM = 0, NDRT_MPI_MAX, NDRT_MPI_MIN };

struct ndrt_mpi_group {
  void* comm;  // the module's communicator
  int32_t rank, size, local_rank;
};

struct ndrt_mpi_backend {
  uint32_t version;  // 1
  // Everything fails through host->fail (an exception crossing back into libndrt) unless it says
  // otherwise. Collectives block the calling thread until done: libndrt calls them from each
  // communicator's own thread and times them out from outside.
  //
  // Initialises MPI with MPI_THREAD_MULTIPLE, or checks that the host did (then the host
  // finalises). Open MPI's own signal handlers are switched off first unless the user set
  // OMPI_MCA_opal_signal (a JVM relies on SIGSEGV for null checks). Returns the world group (a dup).
  ndrt_mpi_group (*init)(const ndrt_mpi_host* host);
  // Finalises MPI if init started it; called once at process exit when no collective is stuck.
  void (*finalize)(void);
  // Collective over `comm`: the group of the processes passing `color` (comm = null when color < 0).
  ndrt_mpi_group (*split)(void* comm, int32_t color, int32_t key);
  void (*free)(void* comm);  // never fails
  void (*allreduce)(void* comm, void* buf, int64_t count, int32_t type, int32_t op);
  void (*broadcast)(void* comm, void* buf, int64_t bytes, int32_t root);
  // out = the ranks' `bytes` each, in rank order.
  void (*allgather)(void* comm, const void* in, void* out, int64_t bytes);
  // out (count elements) = block `rank` of the reduction of the ranks' in (size * count elements).
  void (*reduce_scatter)(void* comm, const void* in, void* out, int64_t count, int32_t type, int32_t op);
  void (*barrier)(void* comm);
};

typedef const ndrt_mpi_backend* (*ndrt_mpi_backend_entry)(void);
}
