#!/usr/bin/env bash
# A peer lost mid-job must end the job with a clear error within the timeout, never hang it.
#   faults.sh <fault_probe binary>
# 1. stop, 2 ranks: rank 1 stops answering (SIGSTOP). Rank 0's allreduce fails after
#    dist.timeout_s=3 with NDRT_ERR_BACKEND naming the collective, its size and rank 1; its next
#    call fails at once; rank 0 exits 3 and mpirun ends the job (killing the stopped rank).
# 2. stop, 4 ranks: the same with 3 survivors, each naming the group it waited on.
# 3. release, 2 ranks: rank 1 stops; rank 0 releases a group with an asynchronous call stuck on
#    it: the release returns after the timeout and the call's event reports the failure.
# 4. die, 2 ranks: rank 1 is killed (SIGKILL); the job ends non-zero well inside the bound (mpirun
#    itself notices the death and stops the others, or rank 0's timeout does).
# Each case runs under `timeout 60`: a hang fails the test instead of the ctest timeout.
set -uo pipefail
probe=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
failures=0
run_case() {  # name np mode expect-regex...
  local name=$1 np=$2 mode=$3; shift 3
  local out start end rc
  start=$(date +%s.%N)
  out=$(NDRT_DIST_TIMEOUT_S=3 timeout 60 "$root/packaging/mpirun.sh" -np "$np" "$probe" "$mode" 1 "${STEP:-5}" 2>&1)
  rc=$?
  end=$(date +%s.%N)
  local secs
  secs=$(python3 -c "print(round($end - $start, 1))")
  local ok=1
  [ "$rc" = 0 ] && { echo "FAIL $name: the job exited 0 although rank 1 was lost"; ok=0; }
  [ "$rc" = 124 ] && { echo "FAIL $name: the job hung (timeout 60 s)"; ok=0; }
  for re in "$@"; do
    grep -Eq -- "$re" <<<"$out" || { echo "FAIL $name: output lacks /$re/"; ok=0; }
  done
  if [ $ok = 1 ]; then
    echo "ok   $name: job ended with exit $rc after $secs s"
  else
    failures=$((failures + 1))
    echo "---- output of $name"; echo "$out"; echo "----"
  fi
}
run_case "stop-2-ranks" 2 stop \
  "rank 0 step 5: NDRT_ERR_BACKEND after [3-9]\.[0-9] s: allreduce f32 \[262144\] mean \(1048576 bytes\) did not complete within 3 s" \
  "waited on rank 1" \
  "rank 0: next call NDRT_ERR_BACKEND after 0\.0 s"
run_case "stop-4-ranks" 4 stop \
  "rank [023] step 5: NDRT_ERR_BACKEND after [3-9]\.[0-9] s" \
  "waited on the other 3 ranks"
STEP=0 run_case "release-2-ranks" 2 release \
  "rank 0: released the group with a call stuck on it after [3-9]\.[0-9] s: NDRT_OK" \
  "rank 0: the call's event: NDRT_ERR_BACKEND: allreduce f32 \[262144\] sum .*did not complete within 3 s"
run_case "die-2-ranks" 2 die ".+"
passed=$((4 - failures))
echo "$passed passed, $failures failed"
[ $failures = 0 ]
