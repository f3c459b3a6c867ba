#!/usr/bin/env bash
# ndrt op set vs PyTorch 1.13 CPU, side by side, interleaved, reported as ratios.
#
#   tests/bench/run_ops.sh [path/to/ndrt_bench_ops]
#
# The binary defaults to $NDRT_BENCH_OPS, else <repo>/build/tests/bench/ndrt_bench_ops (build it:
# cmake --build <dir> --target ndrt_bench_ops, Release). Knobs (environment):
#   ROUNDS=3          rounds; every round runs every case group on both sides
#   THREADS="1 2"     thread counts: ndrt cpu.threads T, torch.set_num_threads(T)
#   REPS=3 MIN_TIME=0.2   repetitions per round and seconds per repetition (both sides)
#   TORCH_SETTINGS    torch environment settings tried, ';'-separated NAME=ENV pairs ({T} is replaced
#                     by the thread count); default: default (only set_num_threads), omp_env
#                     (OMP_NUM_THREADS={T}), passive (OMP_NUM_THREADS={T} OMP_WAIT_POLICY=PASSIVE),
#                     blas_t (OMP_NUM_THREADS={T} OPENBLAS_NUM_THREADS={T}). Without the last, torch's
#                     OpenBLAS runs on every core whatever set_num_threads says (its GEMM-bound cases,
#                     e.g. lstm at "1 thread", then use 2 cores: see the cpu-time ratio column).
#   NDRT_SETTINGS     the same for ndrt, whose oneDNN convolutions run on OpenMP too; default:
#                     default (nothing set), passive (OMP_WAIT_POLICY=PASSIVE). The report's main
#                     ndrt column is "default", the others are shown beside it.
#   ONLY="elementwise reduce"   run only these case groups (conv, elementwise, reduce, loss_lenet, rnn)
#   BLAS_CORE=auto    OpenBLAS's kernel set, the same for both sides (see blas_core.sh)
#   OUT_DIR           where the raw JSON goes (default: a new temporary folder, printed)
#   PYTHON=/usr/bin/python3 (Debian's python3-torch)
#
# Interleaving: the cases come in groups (conv, elementwise, reductions, loss + LeNet step, rnn); for each
# round, group and thread count the ndrt binary and each torch setting run one after the other, the
# order alternating between rounds, so a burst of load on a shared machine lands on both sides.
# report_ops.py takes the median over all repetitions of all rounds; torch's number is its fastest
# formulation and setting (see the report's notes).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin="${NDRT_BENCH_OPS:-$here/../../build/tests/bench/ndrt_bench_ops}"
if [[ $# -gt 0 ]]; then bin="$1"; shift; fi
if [[ ! -x "$bin" ]]; then
  echo "run_ops.sh: no ndrt_bench_ops at '$bin' (build it: cmake --build <dir> --target ndrt_bench_ops," \
       "then pass its path or set NDRT_BENCH_OPS)" >&2
  exit 2
fi
py="${PYTHON:-/usr/bin/python3}"
if ! "$py" -c "import torch" 2>/dev/null; then
  echo "run_ops.sh: '$py' cannot import torch (Debian: apt-get install python3-torch)" >&2
  exit 2
fi
rounds="${ROUNDS:-3}"
threads="${THREADS:-1 2}"
reps="${REPS:-3}"
min_time="${MIN_TIME:-0.2}"
settings="${TORCH_SETTINGS:-default=;omp_env=OMP_NUM_THREADS={T};passive=OMP_NUM_THREADS={T} OMP_WAIT_POLICY=PASSIVE;blas_t=OMP_NUM_THREADS={T} OPENBLAS_NUM_THREADS={T}}"
ndrt_settings="${NDRT_SETTINGS:-default=;passive=OMP_WAIT_POLICY=PASSIVE}"
out="${OUT_DIR:-$(mktemp -d --tmpdir ndrt_bench_ops.XXXXXX)}"
mkdir -p "$out"
source "$here/blas_core.sh"

groups=("^conv" "^(add|mul|relu|exp|sigmoid|tanh)$" "_(all|rows)$" "^(sce_|lenet_)" "^(lstm|gru)_")
gnames=(conv elementwise reduce loss_lenet rnn)

run_ndrt() {  # round group-index threads
  local IFS=';' s name envs
  for s in $ndrt_settings; do
    name="${s%%=*}"
    envs="${s#*=}"
    envs="${envs//\{T\}/$3}"
    IFS=' ' read -r -a envs_a <<<"$envs"
    env "${envs_a[@]}" "$bin" --threads="$3" "--benchmark_filter=^${groups_ndrt[$2]}/" \
        --benchmark_repetitions="$reps" --benchmark_min_time="$min_time" \
        --benchmark_out="$out/ndrt_r$1_g$2_t$3_$name.json" --benchmark_out_format=json >/dev/null 2>>"$out/ndrt.log"
  done
}
run_torch() {  # round group-index threads
  local IFS=';' s name envs
  for s in $settings; do
    name="${s%%=*}"
    envs="${s#*=}"
    envs="${envs//\{T\}/$3}"
    IFS=' ' read -r -a envs_a <<<"$envs"
    env "${envs_a[@]}" "$py" "$here/peer_torch.py" --threads "$3" --label "$name" --filter "${groups[$2]}" \
        --repetitions "$reps" --min-time "$min_time" --out "$out/torch_r$1_g$2_t$3_$name.json" 2>>"$out/torch.log"
  done
}
# Google Benchmark filters match "<case>/threads:T"; the same groups anchored for that form.
groups_ndrt=("conv[^/]*" "(add|mul|relu|exp|sigmoid|tanh)" "[a-z]+_(all|rows)" "(sce_|lenet_)[^/]*" "(lstm|gru)_[^/]*")

echo "run_ops.sh: $rounds rounds x groups (${gnames[*]}) x threads ($threads); $blas_core_note; raw JSON in $out" >&2
for ((r = 1; r <= rounds; ++r)); do
  for g in "${!groups[@]}"; do
    [[ -z "${ONLY:-}" || " $ONLY " == *" ${gnames[$g]} "* ]] || continue
    for t in $threads; do
      echo "  round $r/$rounds, ${gnames[$g]}, threads $t (load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
      if (( (r + g) % 2 )); then run_ndrt "$r" "$g" "$t"; run_torch "$r" "$g" "$t"
      else run_torch "$r" "$g" "$t"; run_ndrt "$r" "$g" "$t"; fi
    done
  done
done
echo >&2
"$py" "$here/report_ops.py" "$out"
echo "(raw results: $out)"
