// Distributed: communicators and collectives (the ndrt_comm_* / collective calls of ndrt.h). MPI
// itself lives in libndrt_mpi.so (runtime/mpi_backend.hpp), loaded on the first call here.
#pragma once
#include "ndrt/ndrt.h"

namespace ndrt {

ndrt_comm comm_world();
int32_t comm_rank(ndrt_comm comm);
int32_t comm_size(ndrt_comm comm);
int32_t comm_local_rank(ndrt_comm comm);
ndrt_comm comm_split(ndrt_comm comm, int32_t color, int32_t key);  // 0 when color < 0
void comm_release(ndrt_comm comm);

void allreduce(ndrt_comm comm, ndrt_handle t, int32_t op);
void broadcast(ndrt_comm comm, ndrt_handle t, int32_t root);
void allgather(ndrt_comm comm, ndrt_handle in, ndrt_handle out);
void reduce_scatter(ndrt_comm comm, ndrt_handle in, ndrt_handle out, int32_t op);
void barrier(ndrt_comm comm);
ndrt_event allreduce_async(ndrt_comm comm, const ndrt_handle* tensors, int32_t n, int32_t op);

}  // namespace ndrt
