#!/usr/bin/env bash
# mpirun with what this kind of machine needs, so a user types only the job:
#   packaging/mpirun.sh -np 2 java -cp ndrt.jar org.ndrt.examples.LeNetMnist --distributed
# - as root, Open MPI refuses to start unless told it may;
# - more ranks than cores (2 cores here) needs --oversubscribe, and then ranks must not be bound to
#   cores (two ranks bound to one core would share it);
# - each ndrt rank runs a communicator thread beside its compute threads, and Open MPI's threads
#   busy-poll while they wait: with as many ranks as cores that polling takes cores from compute
#   (2 LeNet ranks on 2 cores: 4,175 -> 4,690 img/s with yielding). So MPI yields when idle unless
#   OMPI_MCA_mpi_yield_when_idle says otherwise (0 suits latency-bound jobs on idle cores: a 4 KiB
#   allreduce takes 2.5 us polling, 13 us yielding, here);
# - NDRT_MPI_TRANSPORT=tcp restricts Open MPI to TCP between processes (no shared memory), as
#   between hosts; anything else leaves Open MPI's own choice (shared memory on one host). Over
#   IPv4 only: Open MPI 5 (Debian 13) finds no pairing of the ranks' interfaces when they also
#   carry IPv6 addresses, and MPI_Init fails ("Unable to find reachable pairing").
set -euo pipefail
args=(--oversubscribe --bind-to none)
[ "$(id -u)" = 0 ] && args+=(--allow-run-as-root)
[ -z "${OMPI_MCA_mpi_yield_when_idle:-}" ] && args+=(--mca mpi_yield_when_idle 1)
[ "${NDRT_MPI_TRANSPORT:-}" = tcp ] && args+=(--mca btl tcp,self --mca pml ob1 --mca btl_tcp_disable_family 6)
exec mpirun "${args[@]}" "$@"
