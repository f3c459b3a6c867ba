#!/usr/bin/env bash
# Fuzzes the C ABI for a bounded time: builds the libFuzzer harness (tests/fuzz, Clang, ASan+UBSan)
# when needed, runs it on a copy of tests/fuzz/corpus, and fails if the fuzzer reports anything
# (crash, sanitizer report, broken invariant, leak, timeout, out-of-memory). See README.md here.
#
#   bash tests/fuzz/run.sh [seconds]         90 s by default (what CI runs)
#   NDRT_FUZZ_CORPUS=~/ndrt-corpus bash tests/fuzz/run.sh 3600
#                                            a longer run that keeps what it learns in that folder
#   NDRT_FUZZ_BUILD_DIR (default build-fuzz), NDRT_FUZZ_ARGS (extra libFuzzer flags),
#   NDRT_BUILD_JOBS (default: all cores) also apply.
#
# Findings are kept in $NDRT_FUZZ_BUILD_DIR/fuzz-artifacts/; replay one with
#   build-fuzz/tests/fuzz/ndrt_c_api_fuzz build-fuzz/fuzz-artifacts/crash-...
set -euo pipefail
secs=${1:-90}
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=${NDRT_FUZZ_BUILD_DIR:-$root/build-fuzz}
command -v clang++ >/dev/null || { echo "run.sh: the fuzz build needs clang++ (Debian: clang libclang-rt-dev)" >&2; exit 1; }

export CCACHE_BASEDIR=$root CCACHE_NOHASHDIR=1
if [ ! -f "$dir/CMakeCache.txt" ]; then
  CC=clang CXX=clang++ cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNDRT_FUZZ=ON \
    -DNDRT_SANITIZE=address,undefined -DNDRT_WITH_CUDA=OFF -DNDRT_WITH_JAVA=OFF -DNDRT_WITH_PYTHON=OFF \
    -DNDRT_WITH_MPI=OFF >/dev/null
fi
cmake --build "$dir" -j"${NDRT_BUILD_JOBS:-$(nproc)}" --target ndrt_c_api_fuzz

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
corpus=${NDRT_FUZZ_CORPUS:-$work/corpus}
mkdir -p "$corpus"
cp -n "$root"/tests/fuzz/corpus/* "$corpus"/  # the repository's seeds stay as they are
artifacts=$dir/fuzz-artifacts
mkdir -p "$artifacts"
before=$(ls "$artifacts" | wc -l)

# One job, in this process. -timeout: one input (at most 64 calls) taking 30 s is a hang.
# ASan and UBSan options are the harness's own (__asan_default_options): allocations past
# 256 MiB fail as out-of-memory statuses, UBSan halts on its first report.
cd "$work"
status=0
"$dir/tests/fuzz/ndrt_c_api_fuzz" -max_total_time="$secs" -timeout=30 -rss_limit_mb=4096 -print_final_stats=1 \
  -artifact_prefix="$artifacts/" ${NDRT_FUZZ_ARGS:-} "$corpus" >"$work/fuzz.log" 2>&1 || status=$?
# The log without the progress lines (new coverage, reductions, pulses) and the dictionary it suggests.
sed '/^###### Recommended dictionary/,/^###### End of recommended dictionary/d' "$work/fuzz.log" |
  grep -v "^#[0-9]*"$'\t'"\(NEW\|REDUCE\|pulse\)" || true
if grep -q "INVARIANT VIOLATED\|ERROR: AddressSanitizer\|ERROR: LeakSanitizer\|runtime error:\|ERROR: libFuzzer" "$work/fuzz.log"; then
  status=1
fi
after=$(ls "$artifacts" | wc -l)
if [ "$status" != 0 ] || [ "$after" -gt "$before" ]; then
  echo "run.sh: the fuzzer reported a problem; inputs are in $artifacts" >&2
  exit 1
fi
echo "run.sh: no findings in $secs s"
