#!/usr/bin/env bash
# The residual network of org.ndrt.examples.ResNetMnist (a ComputationGraph: conv + batch norm + ReLU
# blocks, element-wise adds, 1x1 projections, global average pooling) trained and run from Java (ndrt)
# side by side with the same network in PyTorch 1.13 CPU (tests/bench/resnet_torch.py), at 1 and 2
# threads; then a summary table (tests/bench/report_resnet.py): median img/s per side, torch's best
# formulation, and the torch / ndrt time ratio (> 1: ndrt is faster). Builds nothing; run it on a quiet
# machine (it waits for one, up to QUIET_BUDGET seconds in all).
#
#   tests/bench/run_resnet.sh [NDRT_JAR [BENCH_JAR [DATA_DIR]]]
#
# NDRT_JAR defaults to <repo>/build/java/ndrt.jar, BENCH_JAR to <repo>/build/java/ndrt-bench.jar;
# DATA_DIR is where MnistDataSetIterator finds (or fetches) MNIST (default: its own default folder).
# Environment:
#   ROUNDS (5), THREADS ("1 2"), ITERS (50), WARMUP (10), BATCH (64);
#   MAX_SECONDS (5): cap of each warm-up and timed run;
#   WIDTH (32), STAGES (3), BLOCKS (1): the network (ResNetMnist's --width/--stages/--blocks);
#   INFER (1; 0 skips), INFER_BATCH (256): inference runs (forward only, eval mode);
#   GRAPH_COST (1; 0 skips): also LeNet as a ComputationGraph and as the MultiLayerNetwork from Java
#     (ResNetBench --net lenet-graph / lenet-mln): what the graph's execution costs on the same layers;
#   TORCH_ENVS ("blas1 env"): torch's thread environments: blas1 OMP_NUM_THREADS=T,
#     OPENBLAS_NUM_THREADS=MKL_NUM_THREADS=1; env all three = T (the same as blas1 at T=1, run once);
#     default none set;
#   VARIANTS (eager,channels_last,channels_last_trace): resnet_torch.py's formulations, or "all";
#   EPOCHS (0; N > 0 adds accuracy runs: ResNetMnist --epochs N and resnet_torch.py accuracy, at
#     ACC_THREADS (1) threads, batch 128, seed SEEDS (1) for torch);
#   QUIET_BUDGET (60): before each timed run, wait while other processes keep more than a quarter of a
#     core busy, up to this many seconds in all;
#   BLAS_CORE (auto): OpenBLAS's kernel set for both sides (blas_core.sh);
#   JAVA_OPTS, PYTHON (/usr/bin/python3), NDRT_RESNET_OUT (folder for the split, logs and raw JSON;
#     default a new temporary folder).
# A short smoke run: ROUNDS=1 ITERS=5 WARMUP=2 INFER=0 GRAPH_COST=0 QUIET_BUDGET=0 tests/bench/run_resnet.sh
#
# Each round runs, per thread count, ndrt-java then torch in every environment (the reverse order in
# odd rounds, so a burst of load does not land on one side only); each process prints one timed run of
# ITERS steps after WARMUP steps, on minibatches preloaded into memory (data loading not measured).
# Every line records others_busy (cores other processes kept busy during its timed steps); the report's
# medians use the runs others left alone when there are any (report_resnet.py --clean).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
jar="${1:-$repo/build/java/ndrt.jar}"
bench="${2:-$repo/build/java/ndrt-bench.jar}"
data="${3:-}"
rounds="${ROUNDS:-5}"
threads="${THREADS:-1 2}"
iters="${ITERS:-50}"
warmup="${WARMUP:-10}"
batch="${BATCH:-64}"
max_seconds="${MAX_SECONDS:-5}"
net=(--width "${WIDTH:-32}" --stages "${STAGES:-3}" --blocks "${BLOCKS:-1}")
infer="${INFER:-1}"
infer_batch="${INFER_BATCH:-256}"
graph_cost="${GRAPH_COST:-1}"
torch_envs="${TORCH_ENVS:-blas1 env}"
variants="${VARIANTS:-eager,channels_last,channels_last_trace}"
epochs="${EPOCHS:-0}"
acc_threads="${ACC_THREADS:-1}"
seeds="${SEEDS:-1}"
python="${PYTHON:-/usr/bin/python3}"
read -r -a java_opts <<< "${JAVA_OPTS:-}"

for f in "$jar" "$bench"; do
  if [[ ! -e "$f" ]]; then
    echo "run_resnet.sh: no '$f' (build the targets ndrt_jar and ndrt_java_bench, or pass the paths)" >&2
    exit 2
  fi
done
if ! "$python" -c 'import torch' 2>/dev/null; then
  echo "run_resnet.sh: $python has no torch (Debian: python3-torch)" >&2
  exit 2
fi
for e in $torch_envs; do
  case "$e" in
    blas1 | env | default) ;;
    *) echo "run_resnet.sh: unknown torch environment '$e' in TORCH_ENVS (blas1, env, default)" >&2; exit 2 ;;
  esac
done
out="${NDRT_RESNET_OUT:-$(mktemp -d --tmpdir ndrt_resnet.XXXXXX)}"
mkdir -p "$out"
results="$out/results.jsonl"
: > "$results"
cp="$jar:$bench"
data_arg=()
if [[ -n "$data" ]]; then data_arg=(--data "$data"); fi

quiet_left="${QUIET_BUDGET:-60}"
tck="$(getconf CLK_TCK)"
busy_ticks() { awk 'NR == 1 { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat; }
# Waits (from the shared budget) until a one-second sample shows at most a quarter core busy.
wait_quiet() {
  local b0 b1
  while ((quiet_left > 0)); do
    b0="$(busy_ticks)"; sleep 1; b1="$(busy_ticks)"
    if ((4 * (b1 - b0) <= tck)); then return; fi
    quiet_left=$((quiet_left - 1))
  done
}
# Appends the JSON lines of one run, each with the 1-minute load average read before it and the round.
record() {
  local round="$1" load
  shift
  wait_quiet
  load="$(cut -d' ' -f1 /proc/loadavg)"
  "$@" | sed -n "s/}\$/,\"load1\":$load,\"round\":$round}/p" | tee -a "$results"
}
run_opts() {  # mode threads: the options of one timed run, the same for both sides
  local b="$batch"
  if [[ "$1" == infer ]]; then b="$infer_batch"; fi
  opts=("$1" --threads "$2" --iters "$iters" --warmup "$warmup" --reps 1 --max-seconds "$max_seconds" --batch "$b")
}
java_run() {  # mode threads [--net kind]
  run_opts "$1" "$2"
  java "${java_opts[@]}" -cp "$cp" org.ndrt.bench.ResNetBench "${opts[@]}" "${net[@]}" "${data_arg[@]}" "${@:3}"
}
torch_run() {  # mode threads environment
  local blas
  case "$3" in
    blas1) blas=1 ;;
    env) blas="$2" ;;
    default) blas= ;;
  esac
  local -a vars=(-u OMP_NUM_THREADS -u OPENBLAS_NUM_THREADS -u MKL_NUM_THREADS)
  if [[ -n "$blas" ]]; then vars+=(OMP_NUM_THREADS="$2" OPENBLAS_NUM_THREADS="$blas" MKL_NUM_THREADS="$blas"); fi
  run_opts "$1" "$2"
  env "${vars[@]}" "$python" "$here/resnet_torch.py" "${opts[@]}" "${net[@]}" --data "$out/split" --label "$3" \
    --variants "$variants"
}
envs_for() {  # the torch environments at T threads: "env" is "blas1" at one thread
  local e
  for e in $torch_envs; do
    if [[ "$1" == 1 && "$e" == env && " $torch_envs " == *" blas1 "* ]]; then continue; fi
    echo "$e"
  done
}

source "$here/blas_core.sh"
start=$SECONDS
echo "== $blas_core_note"
echo "== $(date -u +%FT%TZ) $(nproc) cores, load $(cat /proc/loadavg); $(java -version 2>&1 | head -1);" \
     "torch $("$python" -c 'import torch; print(torch.__version__)')"
echo "== the split (LeNetBench export-split) -> $out/split"
java "${java_opts[@]}" -cp "$cp" org.ndrt.bench.LeNetBench export-split "$out/split" "${data_arg[@]}"
modes=speed
if ((infer)); then modes+=" infer"; fi
echo "== $rounds rounds x threads {$threads} x {$modes}; $iters timed steps (at most ${max_seconds} s) after" \
     "$warmup warm-up steps; batch $batch (inference $infer_batch); net ${net[*]}; torch: $variants x {$torch_envs}"
for ((r = 0; r < rounds; ++r)); do
  for t in $threads; do
    for m in $modes; do
      if ((r % 2 == 0)); then record "$r" java_run "$m" "$t"; fi
      for e in $(envs_for "$t"); do record "$r" torch_run "$m" "$t" "$e"; done
      if ((r % 2 == 1)); then record "$r" java_run "$m" "$t"; fi
      if ((graph_cost)); then
        record "$r" java_run "$m" "$t" --net lenet-graph
        record "$r" java_run "$m" "$t" --net lenet-mln
      fi
    done
  done
done
echo "== speed took $((SECONDS - start)) s ($((${QUIET_BUDGET:-60} - quiet_left)) s of it waiting for quiet)"

if ((epochs > 0)); then
  log="$out/resnet_java.log"
  echo "== ndrt-java accuracy: ResNetMnist --epochs $epochs --threads $acc_threads ${net[*]} -> $log"
  java "${java_opts[@]}" -cp "$cp" org.ndrt.examples.ResNetMnist --epochs "$epochs" --threads "$acc_threads" \
    "${net[@]}" "${data_arg[@]}" > "$log" 2>&1 || { cat "$log" >&2; exit 1; }
  json='{"impl":"ndrt-java","mode":"accuracy","seed":123,"epochs_total":'"$epochs"',"epoch":\1,"test_acc":\2}'
  sed -n "s/^epoch \([0-9]*\): test accuracy \([0-9.]*\).*/$json/p" "$log" | tee -a "$results"
  echo "== torch accuracy: $epochs epochs, seeds $seeds, $acc_threads threads"
  OMP_NUM_THREADS="$acc_threads" OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 "$python" "$here/resnet_torch.py" accuracy \
    --data "$out/split" --epochs "$epochs" --seeds "$seeds" --threads "$acc_threads" "${net[@]}" | tee -a "$results"
fi
echo "== total $((SECONDS - start)) s, load now $(cat /proc/loadavg)"
echo
"$python" "$here/report_resnet.py" "$results"
echo
echo "(raw results: $results)"
