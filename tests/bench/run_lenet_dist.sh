#!/usr/bin/env bash
# Distributed LeNet training throughput, side by side: ndrt from Java (DistributedTrainer over MPI)
# and PyTorch DDP (gloo), each against its own single process on the same cores. Builds nothing.
#
#   tests/bench/run_lenet_dist.sh [NDRT_JAR [BENCH_JAR [DATA_DIR]]]
#
# NDRT_JAR defaults to <repo>/build/java/ndrt.jar, BENCH_JAR to <repo>/build/java/ndrt-bench.jar;
# DATA_DIR is where MnistDataSetIterator finds (or fetches) MNIST (default: its own default folder).
# Environment:
#   ROUNDS (3), ITERS (100), WARMUP (20): timed steps of each run (one timed run per process start),
#     after WARMUP steps;
#   BATCH (64): examples per rank and step, every configuration (the 1-process runs: their batch);
#   RANKS (2): processes of the distributed runs (1 intra-op thread each);
#   VARIANTS (eager,channels_last): torch's formulations, 1 process and DDP; the report takes the best;
#   AVERAGING (empty): k to also run ndrt's parameter averaging every k steps (not in the ratios);
#   PROFILE (1): after the rounds, one ndrt distributed run of PROFILE_STEPS (10) steps with the
#     profiler on: its Chrome trace of all ranks goes to the output folder, and where a step's time
#     goes (compute, collectives overlapped or exposed, the rest) is printed;
#   QUIET_BUDGET (60): before each run, wait while other processes keep more than a quarter of a core
#     busy, up to this many seconds in all;
#   BLAS_CORE (auto): OpenBLAS's kernel set, the same for both sides (see blas_core.sh);
#   JAVA_OPTS (extra JVM flags), PYTHON (/usr/bin/python3), NDRT_LENET_DIST_OUT (folder for the
#     split, logs, trace and raw JSON; default a new temporary folder).
#
# Configurations, each run once per round, in an order that alternates between rounds (so a burst of
# load on a shared machine does not land on one side only):
#   ndrt  1 process x 1 thread    LeNetBench speed --threads 1
#   ndrt  1 process x 2 threads   LeNetBench speed --threads 2
#   ndrt  RANKS ranks x 1 thread  mpirun LeNetBench dist-speed (gradient sharing, default buckets)
#   torch 1 process x 1 thread    lenet_torch.py speed --variants VARIANTS
#   torch RANKS ranks x 1 thread  mpirun lenet_ddp_torch.py --variant V, for each V of VARIANTS
# torch runs with OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=MKL_NUM_THREADS=1 (run_lenet.sh's "blas1").
# The distributed runs train on the split LeNetBench export-split writes (rank r takes its slice of
# every global batch, the same slices on both sides); the 1-process ndrt runs on the same 80% part
# through MnistDataSetIterator (shuffled; the content does not change the speed). Each line of
# results.jsonl gets the configuration, the round and the 1-minute load average before the run;
# report_lenet_dist.py prints the medians and the ratios: scaling efficiency = (RANKS-rank img/s) /
# (RANKS x 1-process-1-thread img/s), per side, and ndrt-dist / torch-ddp.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
jar="${1:-$repo/build/java/ndrt.jar}"
bench="${2:-$repo/build/java/ndrt-bench.jar}"
data="${3:-}"
rounds="${ROUNDS:-3}"
iters="${ITERS:-100}"
warmup="${WARMUP:-20}"
batch="${BATCH:-64}"
ranks="${RANKS:-2}"
variants="${VARIANTS:-eager,channels_last}"
averaging="${AVERAGING:-}"
profile="${PROFILE:-1}"
profile_steps="${PROFILE_STEPS:-10}"
python="${PYTHON:-/usr/bin/python3}"
mpirun="$repo/packaging/mpirun.sh"
read -r -a java_opts <<< "${JAVA_OPTS:-}"

for f in "${jar%%:*}" "$bench"; do
  if [[ ! -e "$f" ]]; then
    echo "run_lenet_dist.sh: no '$f' (build the targets ndrt_jar and ndrt_java_bench, or pass the paths)" >&2
    exit 2
  fi
done
if ! "$python" -c 'import torch, torch.distributed as d; assert d.is_gloo_available()' 2>/dev/null; then
  echo "run_lenet_dist.sh: $python has no torch with gloo (Debian: python3-torch)" >&2
  exit 2
fi
command -v mpirun > /dev/null || { echo "run_lenet_dist.sh: no mpirun (Debian: openmpi-bin)" >&2; exit 2; }
out="${NDRT_LENET_DIST_OUT:-$(mktemp -d --tmpdir ndrt_lenet_dist.XXXXXX)}"
mkdir -p "$out/logs"
results="$out/results.jsonl"
: > "$results"
cp=("$jar:$bench")
data_arg=()
[[ -n "$data" ]] && data_arg=(--data "$data")
load1() { cut -d' ' -f1 /proc/loadavg; }
quiet_left="${QUIET_BUDGET:-60}"
tck="$(getconf CLK_TCK)"
busy_ticks() { awk 'NR == 1 { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat; }
# Waits (from the shared budget) until a one-second sample shows at most a quarter core busy.
wait_quiet() {
  local b0 b1
  while ((quiet_left > 0)); do
    b0="$(busy_ticks)"; sleep 1; b1="$(busy_ticks)"
    if (( 4 * (b1 - b0) <= tck )); then return; fi
    quiet_left=$((quiet_left - 1))
  done
}

# record ROUND CONFIG CMD...: runs CMD (stderr to a log), appends its JSON lines with the
# configuration, the round and the load average read before it.
runs=0
record() {
  local round="$1" config="$2" load log
  shift 2
  runs=$((runs + 1))
  log="$out/logs/$runs-${config// /_}-${*: -1}.log"
  wait_quiet
  load="$(load1)"
  if ! "$@" 2> "$log" > "$log.out"; then
    echo "run_lenet_dist.sh: '$config' failed:" >&2
    cat "$log.out" "$log" >&2
    exit 1
  fi
  sed -n "s/}\$/,\"config\":\"$config\",\"load1\":$load,\"round\":$round}/p" "$log.out" | tee -a "$results"
}

blas1=(env OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1)
ndrt_1p() {  # threads
  java "${java_opts[@]}" -cp "${cp[@]}" org.ndrt.bench.LeNetBench speed --threads "$1" --iters "$iters" \
    --warmup "$warmup" --reps 1 --batch "$batch" "${data_arg[@]}"
}
ndrt_dist() {  # extra dist-speed options...
  "$mpirun" -np "$ranks" java "${java_opts[@]}" -cp "${cp[@]}" org.ndrt.bench.LeNetBench dist-speed \
    --split "$out/split" --threads 1 --iters "$iters" --warmup "$warmup" --reps 1 --batch "$batch" "$@"
}
torch_1p() {
  "${blas1[@]}" "$python" "$here/lenet_torch.py" speed --threads 1 --data "$out/split" --iters "$iters" \
    --warmup "$warmup" --reps 1 --batch "$batch" --label blas1 --variants "$variants"
}
port=29531
torch_ddp() {  # variant
  port=$((port + 1))  # a fresh rendezvous port per job (the last one may linger in TIME_WAIT)
  "${blas1[@]}" "$mpirun" -np "$ranks" "$python" "$here/lenet_ddp_torch.py" --data "$out/split" --threads 1 \
    --batch "$batch" --iters "$iters" --warmup "$warmup" --reps 1 --variant "$1" --port "$port"
}

# One round's runs, each as "CONFIG|FUNCTION ARGS".
jobs=("ndrt 1x1|ndrt_1p 1" "ndrt 1x2|ndrt_1p 2" "ndrt dist ${ranks}x1|ndrt_dist")
[[ -n "$averaging" ]] && jobs+=("ndrt dist ${ranks}x1 avg$averaging|ndrt_dist --averaging $averaging")
jobs+=("torch 1x1|torch_1p")
IFS=, read -r -a vlist <<< "$variants"
for v in "${vlist[@]}"; do jobs+=("torch ddp ${ranks}x1|torch_ddp $v"); done

source "$here/blas_core.sh"
start=$SECONDS
echo "== $blas_core_note"
echo "== $(date -u +%FT%TZ) $(nproc) cores, load $(cat /proc/loadavg); $(java -version 2>&1 | head -1);" \
     "torch $("$python" -c 'import torch; print(torch.__version__)'); $(mpirun --version 2>&1 | head -1)"
echo "== the split (LeNetBench export-split) -> $out/split"
java "${java_opts[@]}" -cp "${cp[@]}" org.ndrt.bench.LeNetBench export-split "$out/split" "${data_arg[@]}"
echo "== speed: $rounds rounds, batch $batch per rank, $iters timed steps after $warmup warm-up steps; ${#jobs[@]}" \
     "configurations"
for ((r = 0; r < rounds; ++r)); do
  order=("${jobs[@]}")
  if ((r % 2 == 1)); then  # reversed on odd rounds
    order=()
    for ((i = ${#jobs[@]} - 1; i >= 0; --i)); do order+=("${jobs[i]}"); done
  fi
  for j in "${order[@]}"; do
    read -r -a cmd <<< "${j#*|}"
    record "$r" "${j%%|*}" "${cmd[@]}"
  done
done
echo "== speed took $((SECONDS - start)) s ($((${QUIET_BUDGET:-60} - quiet_left)) s of it waiting for quiet)"

if [[ "$profile" != 0 ]]; then
  echo "== profile: ndrt dist ${ranks}x1, $profile_steps steps with the profiler on -> $out/lenet_dist_trace.json"
  "$mpirun" -np "$ranks" java "${java_opts[@]}" -cp "${cp[@]}" org.ndrt.bench.LeNetBench dist-speed \
    --split "$out/split" --threads 1 --iters "$profile_steps" --warmup "$warmup" --reps 1 --batch "$batch" \
    --profile "$out/lenet_dist_trace.json" --profile-steps "$profile_steps" > "$out/logs/profile.out" 2>&1 ||
    { cat "$out/logs/profile.out" >&2; exit 1; }
  sed -n '/^profile: /,$p' "$out/logs/profile.out"
fi
echo "== total $((SECONDS - start)) s, load now $(cat /proc/loadavg)"
echo
"$python" "$here/report_lenet_dist.py" "$results" --ranks "$ranks"
echo
echo "(raw results: $results; logs: $out/logs)"
