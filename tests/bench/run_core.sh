#!/usr/bin/env bash
# Runs ndrt_bench (5 repetitions, aggregates only) and prints ndrt vs peer medians as ratios.
#
#   tests/bench/run_core.sh [path/to/ndrt_bench] [extra Google Benchmark flags...]
#
# The binary defaults to $NDRT_BENCH, else <repo>/build/tests/bench/ndrt_bench. Extra flags go to
# the binary (e.g. --benchmark_filter='^add16M'). The raw JSON is kept at $NDRT_BENCH_JSON
# (default: a temporary file, path printed at the end). Medians of 5 runs, interleaved in random
# order so that a burst of load on a shared machine does not land on one side only; the cv columns
# say how noisy each side was: on a shared machine, read ratios whose cv is above a few percent with
# care.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin="${NDRT_BENCH:-$here/../../build/tests/bench/ndrt_bench}"
if [[ $# -gt 0 && "$1" != --* ]]; then bin="$1"; shift; fi
if [[ ! -x "$bin" ]]; then
  echo "run_core.sh: no ndrt_bench at '$bin' (build it: cmake --build <dir> --target ndrt_bench," \
       "then pass its path or set NDRT_BENCH)" >&2
  exit 2
fi
json="${NDRT_BENCH_JSON:-$(mktemp --tmpdir ndrt_bench.XXXXXX.json)}"

"$bin" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
       --benchmark_enable_random_interleaving=true \
       --benchmark_out="$json" --benchmark_out_format=json "$@"
echo
python3 "$here/report_core.py" "$json"
echo "(raw results: $json)"
