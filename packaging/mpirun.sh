#!/usr/bin/env bash
# mpirun with what this kind of machine needs, so a user types only the job:
#   packaging/mpirun.sh -np 2 java -cp ndrt.jar org.ndrt.examples.LeNetMnist --distributed
# - as root, Open MPI refuses to start unless told it may;
# - more ranks than cores (2 cores here) needs --oversubscribe, and then ranks must not be bound to
#   cores (two ranks bound to one core would share it);
# - NDRT_MPI_TRANSPORT=tcp restricts Open MPI to TCP between processes (no shared memory), as
#   between hosts; anything else leaves Open MPI's own choice (shared memory on one host).
set -euo pipefail
args=(--oversubscribe --bind-to none)
[ "$(id -u)" = 0 ] && args+=(--allow-run-as-root)
[ "${NDRT_MPI_TRANSPORT:-}" = tcp ] && args+=(--mca btl tcp,self --mca pml ob1)
exec mpirun "${args[@]}" "$@"
