#!/usr/bin/env bash
# Java binding overhead (a benchmark, not a test). Runs org.ndrt.bench.Bench (warm JIT) and the same
# calls from C (java/src/bench/c/exec_add1.c) in alternating processes, then prints the median over
# runs of each run's median, and the Java - C difference: what the binding adds per call.
#
#   java/bench.sh [build-dir] [runs] [rounds] [iterations]
#
# build-dir defaults to $NDRT_BUILD_DIR, else <repo>/build (it must hold libndrt.so and
# java/ndrt.jar, java/ndrt-bench.jar: cmake --build <dir> --target ndrt_java_bench). On a shared
# machine the spread between runs is large: read the min/max columns before the medians, and
# prefer the thread-cpu figures (they leave out the time the calling thread was preempted).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
build="${1:-${NDRT_BUILD_DIR:-$repo/build}}"
runs="${2:-5}"
rounds="${3:-9}"
iters="${4:-1000000}"
jar="$build/java/ndrt.jar"
bench_jar="$build/java/ndrt-bench.jar"
for f in "$jar" "$bench_jar" "$build/libndrt.so"; do
  [[ -e "$f" ]] || { echo "bench.sh: $f missing (build the ndrt_java_bench target of $build first)" >&2; exit 2; }
done
java="${JAVA:-java}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cc -O2 -std=c11 "$here/src/bench/c/exec_add1.c" -I"$repo/include" -L"$build" -lndrt -Wl,-rpath,"$build" \
  -o "$tmp/exec_add1"

echo "java/bench.sh: $runs runs x $rounds rounds x $iters iterations; $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 1; r <= runs; ++r)); do
  "$java" -Dndrt.library.path="$build:$build/java" -cp "$jar:$bench_jar" org.ndrt.bench.Bench "$rounds" "$iters" \
    | tee -a "$tmp/all.txt" | grep median || true
  "$tmp/exec_add1" "$rounds" "$iters" | tee -a "$tmp/all.txt"
done
echo
echo "median over $runs runs of the per-run medians, ns per call (wall clock | thread cpu time):"
awk '/median/ { w[$1] = w[$1] " " $3; c[$1] = c[$1] " " $10 }
  function med(s,   n, a, i, j, t) {
    n = split(substr(s, 2), a, " ");
    for (i = 1; i <= n; ++i) for (j = i + 1; j <= n; ++j) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2;
  }
  END {
    for (k in w) {
      mw[k] = med(w[k]); mc[k] = med(c[k]);
      printf "  %-24s %8.1f | %8.1f   (wall per run: %s)\n", k, mw[k], mc[k], substr(w[k], 2)
    }
    if (("ops_add1_given" in mw) && ("c_exec_add1_given" in mw))
      printf "  = binding overhead, Ops.add given output:  %6.1f | %6.1f ns (Java - C)\n",
        mw["ops_add1_given"] - mw["c_exec_add1_given"], mc["ops_add1_given"] - mc["c_exec_add1_given"];
    if (("tensor_create_close" in mw) && ("c_tensor_create_release" in mw))
      printf "  = binding overhead, Tensor create + close: %6.1f | %6.1f ns (Java - C)\n",
        mw["tensor_create_close"] - mw["c_tensor_create_release"], mc["tensor_create_close"] - mc["c_tensor_create_release"];
  }' "$tmp/all.txt" | sort
