#!/usr/bin/env bash
# LeNet training and inference from Java (ndrt) side by side with the same network in PyTorch 1.13
# CPU, on a quiet machine and with one core taken by another process, the machine's sgemm rate
# through ndrt (the compute limit the figures are set against), and the test accuracy of both on the
# same MNIST split. Builds nothing.
#
#   tests/bench/run_lenet.sh [NDRT_JAR [BENCH_JAR [DATA_DIR]]]
#
# NDRT_JAR defaults to <repo>/build/java/ndrt.jar, BENCH_JAR to <repo>/build/java/ndrt-bench.jar;
# DATA_DIR is where MnistDataSetIterator finds (or fetches) MNIST (default: its own default folder).
# Environment:
#   ROUNDS (5), THREADS ("1 2"), ITERS (100), WARMUP (20);
#   MAX_SECONDS (3): cap of each warm-up and timed run, so a busy machine cannot stretch the run
#     without bound;
#   CONTENDED ("0 1"): the passes to run: 0 the machine as it is, 1 with a busy loop pinned to the last
#     core this script may use (taskset) while every run of the pass goes (see below);
#   SPIN_LIMIT (3600): seconds one busy loop may live at most (restarted when a pass outlasts it);
#   INFER (1; 0 skips), INFER_BATCH (256): inference runs (forward only, eval mode) at that batch;
#   SGEMM_SIZE (1024), SGEMM_REPS (10): ndrt's f32 matmul rate (LeNetBench sgemm) at every thread
#     count, median of the reps;
#   TORCH_ENVS ("blas1 env": torch's thread environments, see below);
#   VARIANTS: lenet_torch.py's formulations, comma-separated, or "all" (default
#     eager,channels_last,channels_last_trace: trace and no_mkldnn were never faster here);
#   SEEDS (torch accuracy seeds, "1,2,3"), EPOCHS (3; 0 skips), LONG_EPOCHS (12; 0 skips the long runs);
#   ACC_THREADS (1): threads of the accuracy runs, both sides (1: what a busy machine disturbs least);
#   QUIET_BUDGET (60): before each timed run, wait while other processes keep more than a quarter of
#     a core busy (in the contended pass: one core and a quarter, the busy loop's core allowed), up to
#     this many seconds in all;
#   BLAS_CORE (auto): OpenBLAS's kernel set, the same for both sides (see blas_core.sh);
#   JAVA_OPTS (extra JVM flags), PYTHON (/usr/bin/python3), NDRT_LENET_OUT (folder for the split,
#     logs and raw JSON; default a new temporary folder).
#
# Speed: in each pass, for each round and thread count: LeNetBench sgemm, then training (mode speed,
# batch 64), then inference (mode infer, INFER_BATCH), each as one ndrt-java process and one torch
# process per thread environment, in an order that alternates between rounds (so a burst of load on
# a shared machine does not land on one side only); each prints one timed run of ITERS steps after
# WARMUP steps. The contended pass (CONTENDED 1) runs the same with a busy loop on one core, started
# before the pass and stopped after it: what a core taken by someone else costs (2 threads with one
# core taken should not be slower than 1 thread on a free core). The loop is bounded: SPIN_LIMIT
# (timeout), it ends when this script's process is gone, and the script kills it on exit, INT, TERM.
# torch.set_num_threads(T) and set_num_interop_threads(1) always; torch's OpenMP pool and OpenBLAS's
# own pool both start threads, so the environments are: "blas1" OMP_NUM_THREADS=T and
# OPENBLAS_NUM_THREADS=MKL_NUM_THREADS=1 (its fastest here: OpenBLAS's threads compete with OpenMP's
# for the cores), "env" all three = T (the same as blas1 at T=1, run only once then), "default" none
# set.
# The report takes torch's best formulation as the peer. Each run records the cores other processes
# kept busy during its timed steps (others_busy) and the 1-minute load average before it; the report's
# medians use the runs that others left alone (report_lenet.py --clean; in the contended pass, others
# besides the busy loop). Every line gets "contended":0|1 and the round; the report sets each img/s
# against the quiet sgemm rate at its thread count (the compute-limit fraction).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
jar="${1:-$repo/build/java/ndrt.jar}"
bench="${2:-$repo/build/java/ndrt-bench.jar}"
data="${3:-}"
rounds="${ROUNDS:-5}"
threads="${THREADS:-1 2}"
iters="${ITERS:-100}"
warmup="${WARMUP:-20}"
max_seconds="${MAX_SECONDS:-3}"
torch_envs="${TORCH_ENVS:-blas1 env}"
variants="${VARIANTS:-eager,channels_last,channels_last_trace}"
seeds="${SEEDS:-1,2,3}"
epochs="${EPOCHS:-3}"
long_epochs="${LONG_EPOCHS:-12}"
acc_threads="${ACC_THREADS:-1}"
contended_passes="${CONTENDED:-0 1}"
spin_limit="${SPIN_LIMIT:-3600}"
infer="${INFER:-1}"
infer_batch="${INFER_BATCH:-256}"
sgemm_size="${SGEMM_SIZE:-1024}"
sgemm_reps="${SGEMM_REPS:-10}"
python="${PYTHON:-/usr/bin/python3}"
read -r -a java_opts <<< "${JAVA_OPTS:-}"

for f in "${jar%%:*}" "$bench"; do
  if [[ ! -e "$f" ]]; then
    echo "run_lenet.sh: no '$f' (build the targets ndrt_jar and ndrt_java_bench, or pass the paths)" >&2
    exit 2
  fi
done
for c in $contended_passes; do
  if [[ "$c" != 0 && "$c" != 1 ]]; then
    echo "run_lenet.sh: CONTENDED takes 0 and 1, not '$c'" >&2
    exit 2
  fi
done
if [[ " $contended_passes " == *" 1 "* ]] && ! command -v taskset > /dev/null; then
  echo "run_lenet.sh: the contended pass needs taskset (util-linux)" >&2
  exit 2
fi
if ! "$python" -c 'import torch' 2>/dev/null; then
  echo "run_lenet.sh: $python has no torch (Debian: python3-torch)" >&2
  exit 2
fi
out="${NDRT_LENET_OUT:-$(mktemp -d --tmpdir ndrt_lenet.XXXXXX)}"
mkdir -p "$out"
results="$out/results.jsonl"
: > "$results"
cp=("$jar:$bench")
data_arg=()
[[ -n "$data" ]] && data_arg=(--data "$data")
variant_arg=()
[[ -n "$variants" ]] && variant_arg=(--variants "$variants")
load1() { cut -d' ' -f1 /proc/loadavg; }
quiet_left="${QUIET_BUDGET:-60}"
tck="$(getconf CLK_TCK)"
busy_ticks() { awk 'NR == 1 { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat; }
contended=0  # the pass under way: 1 while the busy loop runs
# Waits (from the shared budget) until a one-second sample shows at most a quarter core busy besides
# the busy loop's core in the contended pass.
wait_quiet() {
  local b0 b1
  while :; do
    b0="$(busy_ticks)"; sleep 1; b1="$(busy_ticks)"
    if (( 4 * (b1 - b0) <= (4 * contended + 1) * tck || quiet_left <= 0 )); then return; fi
    quiet_left=$((quiet_left - 1))
  done
}

# The contended pass's busy loop on the last core this script may use. Bounded three ways: timeout,
# its own check that this script still runs (so not even a SIGKILL of the script leaves it behind),
# and spin_stop on exit.
spin_pid=
spin_cpu="$(taskset -pc $$ 2>/dev/null || true)"
spin_cpu="${spin_cpu##*[:,-]}"
spin_cpu="${spin_cpu// /}"
spin_start() {  # (again) unless running
  if [[ -n "$spin_pid" ]] && kill -0 "$spin_pid" 2>/dev/null; then return; fi
  timeout "$spin_limit" taskset -c "$spin_cpu" bash -c \
    'while kill -0 "$1" 2>/dev/null; do for ((i = 0; i < 200000; ++i)); do :; done; done' ndrt_lenet_spin $$ &
  spin_pid=$!
}
spin_stop() {
  if [[ -n "$spin_pid" ]]; then
    kill "$spin_pid" 2>/dev/null || true  # timeout passes the TERM on to the loop
    wait "$spin_pid" 2>/dev/null || true
    spin_pid=
  fi
}
trap spin_stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Appends the JSON lines of one run, each with the load average read before it, the round and the pass.
record() {
  local round="$1" load
  shift
  if ((contended)); then spin_start; fi
  wait_quiet
  load="$(load1)"
  "$@" | sed -n "s/}\$/,\"load1\":$load,\"round\":$round,\"contended\":$contended}/p" | tee -a "$results"
}

java_bench() {
  java "${java_opts[@]}" -cp "${cp[@]}" org.ndrt.bench.LeNetBench "$@"
}
# run_opts: the options of one timed run of mode (speed or infer) at T threads, the same for both sides.
set_run_opts() {  # mode threads
  run_opts=("$1" --threads "$2" --iters "$iters" --warmup "$warmup" --reps 1 --max-seconds "$max_seconds")
  if [[ "$1" == infer ]]; then run_opts+=(--batch "$infer_batch"); fi
}
java_run() {  # mode threads
  set_run_opts "$1" "$2"
  java_bench "${run_opts[@]}" "${data_arg[@]}"
}
torch_run() {  # mode threads environment
  local blas
  case "$3" in
    blas1) blas=1 ;;
    env) blas="$2" ;;
    default) blas= ;;
    *) echo "run_lenet.sh: unknown torch environment '$3' (blas1, env, default)" >&2; exit 2 ;;
  esac
  local -a vars=(-u OMP_NUM_THREADS -u OPENBLAS_NUM_THREADS -u MKL_NUM_THREADS)
  [[ -n "$blas" ]] && vars+=(OMP_NUM_THREADS="$2" OPENBLAS_NUM_THREADS="$blas" MKL_NUM_THREADS="$blas")
  set_run_opts "$1" "$2"
  env "${vars[@]}" "$python" "$here/lenet_torch.py" "${run_opts[@]}" --data "$out/split" --label "$3" \
    "${variant_arg[@]}"
}
# The torch environments to run at T threads: "env" is "blas1" at one thread.
envs_for() {
  local e
  for e in $torch_envs; do
    if [[ "$1" == 1 && "$e" == env && " $torch_envs " == *" blas1 "* ]]; then continue; fi
    echo "$e"
  done
}

for e in $torch_envs; do
  case "$e" in
    blas1 | env | default) ;;
    *) echo "run_lenet.sh: unknown torch environment '$e' in TORCH_ENVS (blas1, env, default)" >&2; exit 2 ;;
  esac
done

source "$here/blas_core.sh"
start=$SECONDS
echo "== $blas_core_note"
echo "== $(date -u +%FT%TZ) $(nproc) cores, load $(cat /proc/loadavg); $(java -version 2>&1 | head -1);" \
     "torch $("$python" -c 'import torch; print(torch.__version__)')"
echo "== the split (LeNetBench export-split) -> $out/split"
java_bench export-split "$out/split" "${data_arg[@]}"

# One mode's runs of a round at T threads: ndrt-java, then torch in every environment, or the reverse
# in odd rounds.
both_sides() {  # round threads mode
  local e
  if (($1 % 2 == 0)); then record "$1" java_run "$3" "$2"; fi
  for e in $(envs_for "$2"); do record "$1" torch_run "$3" "$2" "$e"; done
  if (($1 % 2 == 1)); then record "$1" java_run "$3" "$2"; fi
}

modes=speed
if ((infer)); then modes+=" infer"; fi
echo "== speed: passes contended {$contended_passes}, $rounds rounds x threads {$threads} x {sgemm $modes};" \
     "$iters timed steps (at most ${max_seconds} s) after $warmup warm-up steps; inference batch $infer_batch;" \
     "torch: $variants x {$torch_envs}"
for contended in $contended_passes; do
  if ((contended)); then
    spin_start
    echo "== contended pass: a busy loop on cpu $spin_cpu (pid $spin_pid)"
  fi
  for ((r = 0; r < rounds; ++r)); do
    for t in $threads; do
      record "$r" java_bench sgemm --threads "$t" --size "$sgemm_size" --reps "$sgemm_reps"
      for m in $modes; do both_sides "$r" "$t" "$m"; done
    done
  done
  spin_stop
done
contended=0
echo "== speed took $((SECONDS - start)) s ($((${QUIET_BUDGET:-60} - quiet_left)) s of it waiting for quiet)"

# LeNetMnist prints "epoch N: test accuracy A, F1 F"; turned into the report's JSON lines.
java_accuracy() {
  local n="$1" log="$out/lenet_java_$1.log"
  echo "== ndrt-java accuracy: LeNetMnist --epochs $n --threads $acc_threads (seed 123) -> $log"
  java "${java_opts[@]}" -cp "${cp[@]}" org.ndrt.examples.LeNetMnist --epochs "$n" --threads "$acc_threads" \
    "${data_arg[@]}" > "$log" 2>&1 || { cat "$log" >&2; exit 1; }
  local json='{"impl":"ndrt-java","mode":"accuracy","seed":123,"epochs_total":'"$n"',"epoch":\1,"test_acc":\2}'
  sed -n "s/^epoch \([0-9]*\): test accuracy \([0-9.]*\).*/$json/p" "$log" | tee -a "$results"
  grep -q "^epoch $n:" "$log" || { echo "run_lenet.sh: no 'epoch $n:' line in $log" >&2; exit 1; }
}
torch_accuracy() {  # epochs seeds
  echo "== torch accuracy: $1 epochs, seeds $2, $acc_threads threads"
  OMP_NUM_THREADS="$acc_threads" OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 \
    "$python" "$here/lenet_torch.py" accuracy --data "$out/split" --epochs "$1" --seeds "$2" \
    --threads "$acc_threads" | tee -a "$results"
}
if ((epochs > 0)); then
  java_accuracy "$epochs"
  torch_accuracy "$epochs" "$seeds"
fi
if ((long_epochs > epochs)); then
  java_accuracy "$long_epochs"
  torch_accuracy "$long_epochs" "${seeds%%,*}"
fi
echo "== total $((SECONDS - start)) s, load now $(cat /proc/loadavg)"
echo
"$python" "$here/report_lenet.py" "$results"
echo
echo "(raw results: $results)"
