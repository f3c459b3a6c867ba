#!/usr/bin/env bash
# ndrt_allreduce vs raw MPI_Allreduce (f32 sum, contiguous cpu tensor, same buffer, same processes)
# at 2 and 4 ranks, over shared memory (Open MPI's own choice on one host) and over TCP only
# (NDRT_MPI_TRANSPORT=tcp), each with dist.verify=1 and 0. Prints one table per job: size, raw MPI
# µs, ndrt µs, ratio (raw / ndrt: ndrt's bandwidth as % of raw MPI's).
#
#   tests/bench/run_dist.sh [path/to/ndrt_bench_dist] [flags for it: --quick, --reps=N, --max=BYTES ...]
#
# The binary defaults to $NDRT_BENCH_DIST, else <repo>/build/tests/bench/ndrt_bench_dist.
# RANKS="2 4" and TRANSPORTS="shm tcp" pick the jobs. Run it on a quiet machine: more ranks than
# cores (--oversubscribe) makes MPI's busy-polling ranks share cores and the numbers meaningless.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
bin="${NDRT_BENCH_DIST:-$repo/build/tests/bench/ndrt_bench_dist}"
if [[ $# -gt 0 && "$1" != --* ]]; then bin="$1"; shift; fi
if [[ ! -x "$bin" ]]; then
  echo "run_dist.sh: no ndrt_bench_dist at '$bin' (build it: cmake --build <dir> --target ndrt_bench_dist," \
       "then pass its path or set NDRT_BENCH_DIST)" >&2
  exit 2
fi
# A pure communication benchmark with nothing else to run: MPI polls (packaging/mpirun.sh would make
# it yield, which suits training); both sides run under the same setting either way.
export OMPI_MCA_mpi_yield_when_idle="${OMPI_MCA_mpi_yield_when_idle:-0}"
cores="$(nproc)"
status=0
for np in ${RANKS:-2 4}; do
  for transport in ${TRANSPORTS:-shm tcp}; do
    echo "=== $np ranks, ${transport}, mpi_yield_when_idle=$OMPI_MCA_mpi_yield_when_idle ($(date +%H:%M:%S); $cores cores here$( ((np > cores)) && echo ', oversubscribed'))"
    NDRT_MPI_TRANSPORT="$transport" "$repo/packaging/mpirun.sh" -np "$np" "$bin" "$@" || status=$?
    echo
  done
done
exit "$status"
