#!/usr/bin/env bash
# Runs an mpirun.sh command line with Open MPI's UCX transport forced on any device, as Open MPI
# picks it by itself on clusters with InfiniBand (on one host without such a device it would take
# shared memory instead). UCX installs handlers for SIGSEGV, SIGBUS, SIGILL and SIGFPE over the
# JVM's own unless UCX_ERROR_SIGNALS is empty, which turns the JVM's implicit null checks into
# crashes: java_mpi_jvm_signals_ucx checks that ndrt sees to it.
#   java/tests/mpi_ucx.sh packaging/mpirun.sh -np 2 java ...
# Exits 77 (ctest: skipped) when this Open MPI has no UCX component.
set -euo pipefail
mpirun_sh=$1
shift
if ! ompi_info --parsable 2>/dev/null | grep '^mca:pml:ucx:' >/dev/null; then  # no -q: ompi_info must not get SIGPIPE
  echo "skipped: this Open MPI has no UCX pml (ompi_info)"
  exit 77
fi
exec "$mpirun_sh" --mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any --mca osc ucx "$@"
