#!/usr/bin/env bash
# ND4J's API on ndrt's drop-in vs ND4J 1.0.0-M2.1 itself vs org.ndrt's own Tensor, side by side (JMH,
# one run): org.ndrt.nd4j.jmh.Nd4jOpsBench on each library's class path and org.ndrt.jmh.TensorOpsBench,
# the three alternating over ROUNDS rounds; prints each case's median ns/op and the ratios.
#   java/nd4j/bench.sh [build-dir]     knobs: ROUNDS=3 THREADS=1 JMH_ARGS="-wi 3 -i 5"
# Needs the targets ndrt_java_jmh and ndrt_nd4j_jmh, and ND4J from Maven Central (or ~/.m2).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
build="$(cd "${1:-${NDRT_BUILD_DIR:-$repo/build}}" && pwd)"
rounds=${ROUNDS:-3}
threads=${THREADS:-1}
read -r -a jmh_args <<<"${JMH_ARGS:--wi 3 -i 5 -w 1 -r 1}"
for f in ndrt.jar ndrt-jmh.jar nd4j/ndrt-nd4j.jar nd4j/ndrt-nd4j-jmh.jar; do
  [[ -e "$build/java/$f" ]] || { echo "bench.sh: $build/java/$f missing (build ndrt_java_jmh ndrt_nd4j_jmh)" >&2; exit 2; }
done
tools=$(ls "$build"/java/deps/*.jar | grep -v -e junit -e slf4j-simple | tr '\n' ':')
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
mvn -q -B -f "$here/tests/reference-pom.xml" dependency:build-classpath -Dmdep.outputFile="$out/nd4j.cp" >/dev/null
ours_cp="$build/java/nd4j/ndrt-nd4j-jmh.jar:$build/java/nd4j/ndrt-nd4j.jar:$build/java/ndrt.jar:$tools"
nd4j_cp="$build/java/nd4j/ndrt-nd4j-jmh.jar:$(cat "$out/nd4j.cp"):$tools"
tensor_cp="$build/java/ndrt-jmh.jar:$build/java/ndrt.jar:$tools"
echo "bench.sh: $rounds rounds, $threads thread(s), JMH ${jmh_args[*]}; $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg)"
export NDRT_CPU_THREADS=$threads OMP_NUM_THREADS=$threads NDRT_CPU_ADAPT_THREADS=0
for ((r = 0; r < rounds; ++r)); do
  for side in ours nd4j tensor; do
    case $side in
      ours) cp=$ours_cp bench=Nd4jOpsBench ;;
      nd4j) cp=$nd4j_cp bench=Nd4jOpsBench ;;
      tensor) cp=$tensor_cp bench=TensorOpsBench ;;
    esac
    java -cp "$cp" org.openjdk.jmh.Main "$bench" "${jmh_args[@]}" -f 1 -rf json -rff "$out/$side.$r.json" \
      >"$out/$side.$r.log" 2>&1 || { cat "$out/$side.$r.log" >&2; exit 1; }
  done
done
python3 - "$out" "$rounds" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
scores = {}
for side in ("ours", "nd4j", "tensor"):
    for r in range(rounds):
        for b in json.load(open(f"{out}/{side}.{r}.json")):
            case = b["benchmark"].rsplit(".", 1)[1]
            unit = b["primaryMetric"]["scoreUnit"]
            scale = 1e6 if unit.startswith("ms") else 1.0
            scores.setdefault((side, case), []).extend(v * scale for v in b["primaryMetric"]["rawData"][0])
cases = sorted({c for _, c in scores})
print(f"{'case':22} {'ndrt-nd4j ns':>14} {'ND4J ns':>14} {'Tensor ns':>14} {'ND4J/ours':>10} {'ours/Tensor':>12}")
for c in cases:
    o, n, t = (statistics.median(scores[(s, c)]) for s in ("ours", "nd4j", "tensor"))
    print(f"{c:22} {o:14.1f} {n:14.1f} {t:14.1f} {n / o:10.2f} {o / t:12.2f}")
PY
