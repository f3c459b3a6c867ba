#!/usr/bin/env bash
# LeNet training from Java (ndrt) side by side with the same network in PyTorch 1.13 CPU, and the
# test accuracy of both on the same MNIST split. Builds nothing.
#
#   tests/bench/run_lenet.sh [NDRT_JAR [BENCH_JAR [DATA_DIR]]]
#
# NDRT_JAR defaults to <repo>/build/java/ndrt.jar, BENCH_JAR to <repo>/build/java/ndrt-bench.jar;
# DATA_DIR is where MnistDataSetIterator finds (or fetches) MNIST (default: its own default folder).
# Environment:
#   ROUNDS (5), THREADS ("1 2"), ITERS (100), WARMUP (20);
#   MAX_SECONDS (3): cap of each warm-up and timed run, so a busy machine cannot stretch the run
#     without bound;
#   TORCH_ENVS ("blas1 env": torch's thread environments, see below);
#   VARIANTS: lenet_torch.py's formulations, comma-separated, or "all" (default
#     eager,channels_last,channels_last_trace: trace and no_mkldnn were never faster here);
#   SEEDS (torch accuracy seeds, "1,2,3"), EPOCHS (3; 0 skips), LONG_EPOCHS (12; 0 skips the long runs);
#   ACC_THREADS (1): threads of the accuracy runs, both sides (1: what a busy machine disturbs least);
#   QUIET_BUDGET (60): before each speed run, wait while other processes keep more than a quarter of
#     a core busy, up to this many seconds in all;
#   BLAS_CORE (auto): OpenBLAS's kernel set, the same for both sides (see blas_core.sh);
#   JAVA_OPTS (extra JVM flags), PYTHON (/usr/bin/python3), NDRT_LENET_OUT (folder for the split,
#     logs and raw JSON; default a new temporary folder).
#
# Speed: for each round and thread count, one ndrt-java process and one torch process per thread
# environment, in an order that alternates between rounds (so a burst of load on a shared machine
# does not land on one side only); each prints one timed run of ITERS steps after WARMUP steps.
# torch.set_num_threads(T) and set_num_interop_threads(1) always; torch's OpenMP pool and OpenBLAS's
# own pool both start threads, so the environments are: "blas1" OMP_NUM_THREADS=T and
# OPENBLAS_NUM_THREADS=MKL_NUM_THREADS=1 (its fastest here: OpenBLAS's threads compete with OpenMP's
# for the cores), "env" all three = T (the same as blas1 at T=1, run only once then), "default" none
# set.
# The report takes torch's best formulation as the peer. Each run records the cores other processes
# kept busy during its timed steps (others_busy) and the 1-minute load average before it; the report's
# medians use the runs that others left alone (report_lenet.py --clean).
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
python="${PYTHON:-/usr/bin/python3}"
read -r -a java_opts <<< "${JAVA_OPTS:-}"

for f in "${jar%%:*}" "$bench"; do
  if [[ ! -e "$f" ]]; then
    echo "run_lenet.sh: no '$f' (build the targets ndrt_jar and ndrt_java_bench, or pass the paths)" >&2
    exit 2
  fi
done
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
# Waits (from the shared budget) until a one-second sample shows at most a quarter core busy.
wait_quiet() {
  local b0 b1
  while :; do
    b0="$(busy_ticks)"; sleep 1; b1="$(busy_ticks)"
    if (( 4 * (b1 - b0) <= tck || quiet_left <= 0 )); then return; fi
    quiet_left=$((quiet_left - 1))
  done
}

# Appends the JSON lines of one run, each with the load average read before it and the round.
record() {
  local round="$1" load
  shift
  wait_quiet
  load="$(load1)"
  "$@" | sed -n "s/}\$/,\"load1\":$load,\"round\":$round}/p" | tee -a "$results"
}

java_speed() {
  java "${java_opts[@]}" -cp "${cp[@]}" org.ndrt.bench.LeNetBench speed --threads "$1" --iters "$iters" \
    --warmup "$warmup" --reps 1 --max-seconds "$max_seconds" "${data_arg[@]}"
}
torch_speed() {  # threads environment
  local blas
  case "$2" in
    blas1) blas=1 ;;
    env) blas="$1" ;;
    default) blas= ;;
    *) echo "run_lenet.sh: unknown torch environment '$2' (blas1, env, default)" >&2; exit 2 ;;
  esac
  local -a vars=(-u OMP_NUM_THREADS -u OPENBLAS_NUM_THREADS -u MKL_NUM_THREADS)
  [[ -n "$blas" ]] && vars+=(OMP_NUM_THREADS="$1" OPENBLAS_NUM_THREADS="$blas" MKL_NUM_THREADS="$blas")
  env "${vars[@]}" "$python" "$here/lenet_torch.py" speed --threads "$1" --data "$out/split" --iters "$iters" \
    --warmup "$warmup" --reps 1 --max-seconds "$max_seconds" --label "$2" "${variant_arg[@]}"
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
java "${java_opts[@]}" -cp "${cp[@]}" org.ndrt.bench.LeNetBench export-split "$out/split" "${data_arg[@]}"

echo "== speed: $rounds rounds x threads {$threads}, $iters timed steps (at most ${max_seconds} s) after $warmup" \
     "warm-up steps; torch: $variants x {$torch_envs}"
for ((r = 0; r < rounds; ++r)); do
  for t in $threads; do
    if ((r % 2 == 0)); then
      record "$r" java_speed "$t"
      for e in $(envs_for "$t"); do record "$r" torch_speed "$t" "$e"; done
    else
      for e in $(envs_for "$t"); do record "$r" torch_speed "$t" "$e"; done
      record "$r" java_speed "$t"
    fi
  done
done
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
