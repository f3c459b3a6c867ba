#!/usr/bin/env bash
# ndrt on cuda:0 vs raw CUDA (same binary) and vs PyTorch on CUDA, side by side, interleaved,
# reported as ratios. Builds nothing.
#
#   tests/bench/run_gpu.sh [path/to/ndrt_bench_gpu]
#
# The binary defaults to $NDRT_BENCH_GPU, else <repo>/build/tests/bench/ndrt_bench_gpu (build it:
# cmake --build <dir> --target ndrt_bench_gpu, Release; it is built when the CUDA toolkit is found).
# Knobs (environment):
#   ROUNDS=3            rounds; every round runs every case group on both sides
#   REPS=3 MIN_TIME=0.2 repetitions per round and seconds per repetition (both sides)
#   BATCH_MS=10         calls are issued in batches of about this many ms, one wait per batch
#   ONLY="bandwidth matmul"   run only these case groups (bandwidth, matmul, launch, conv, lenet)
#   OUT_DIR             where the raw JSON goes (default: a new temporary folder, printed)
#   PYTHON=python3      the interpreter with PyTorch (CUDA build); without torch (or without CUDA
#                       in torch) only the ndrt side and its raw peers run, with a warning
#   TORCH_ARGS          extra arguments for peer_torch_gpu.py (e.g. --cudnn-benchmark)
#
# Interleaving: for each round and group the ndrt binary and the torch script run one after the
# other, the order alternating between rounds. report_gpu.py takes the median over all repetitions
# of all rounds; torch's number is its fastest formulation.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin="${NDRT_BENCH_GPU:-$here/../../build/tests/bench/ndrt_bench_gpu}"
if [[ $# -gt 0 ]]; then bin="$1"; shift; fi
if [[ ! -x "$bin" ]]; then
  echo "run_gpu.sh: no ndrt_bench_gpu at '$bin' (build it: cmake --build <dir> --target ndrt_bench_gpu," \
       "then pass its path or set NDRT_BENCH_GPU)" >&2
  exit 2
fi
py="${PYTHON:-python3}"
rounds="${ROUNDS:-3}"
reps="${REPS:-3}"
min_time="${MIN_TIME:-0.2}"
batch_ms="${BATCH_MS:-10}"
out="${OUT_DIR:-$(mktemp -d --tmpdir ndrt_bench_gpu.XXXXXX)}"
mkdir -p "$out"
read -r -a torch_args <<<"${TORCH_ARGS:-}"

# A GPU for ndrt? The binary says "no cuda device" and exits 0 without one.
probe="$("$bin" --benchmark_filter='^memset_4B/' --benchmark_min_time=0.01 2>&1 >/dev/null || true)"
if [[ "$probe" == *"no cuda device"* ]]; then
  echo "run_gpu.sh: $probe" >&2
  exit 2
fi
with_torch=1
if ! "$py" -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 3)" 2>/dev/null; then
  echo "run_gpu.sh: WARNING: '$py' cannot import torch or torch sees no CUDA device: ndrt and the raw peers only" >&2
  with_torch=0
fi

gnames=(bandwidth matmul launch conv lenet)
groups_ndrt=("(add|mul|exp|relu|sum_all|max_all|memcpy_d2d)" "(matmul|cublas)_[a-z0-9]+" "(neg_1|memset_4B)"
             "conv[^/]*" "lenet_[^/]*")
groups_torch=("^(add|mul|exp|relu|sum_all|max_all|memcpy_d2d)$" "^matmul_" "^neg_1$" "^conv" "^lenet_")

run_ndrt() {  # round group-index
  "$bin" "--benchmark_filter=^${groups_ndrt[$2]}/" --batch_ms="$batch_ms" \
      --benchmark_repetitions="$reps" --benchmark_min_time="$min_time" \
      --benchmark_out="$out/ndrt_r$1_g$2.json" --benchmark_out_format=json >/dev/null 2>>"$out/ndrt.log" ||
    echo "run_gpu.sh: ndrt_bench_gpu failed (round $1, ${gnames[$2]}): see $out/ndrt.log" >&2
}
run_torch() {  # round group-index
  (( with_torch )) || return 0
  "$py" "$here/peer_torch_gpu.py" --filter "${groups_torch[$2]}" --batch-ms "$batch_ms" \
      --repetitions "$reps" --min-time "$min_time" --out "$out/torch_r$1_g$2.json" "${torch_args[@]}" 2>>"$out/torch.log" ||
    echo "run_gpu.sh: peer_torch_gpu.py failed (round $1, ${gnames[$2]}): see $out/torch.log" >&2
}

echo "run_gpu.sh: $rounds rounds x groups (${gnames[*]}); raw JSON in $out" >&2
for ((r = 1; r <= rounds; ++r)); do
  for g in "${!gnames[@]}"; do
    [[ -z "${ONLY:-}" || " $ONLY " == *" ${gnames[$g]} "* ]] || continue
    echo "  round $r/$rounds, ${gnames[$g]} (load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
    if (( (r + g) % 2 )); then run_ndrt "$r" "$g"; run_torch "$r" "$g"
    else run_torch "$r" "$g"; run_ndrt "$r" "$g"; fi
  done
done
echo >&2
"$py" "$here/report_gpu.py" "$out"
echo "(raw results: $out)"
