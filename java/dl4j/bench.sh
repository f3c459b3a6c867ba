#!/usr/bin/env bash
# LeNet training on MNIST, side by side: Deeplearning4j 1.0.0-M2.1 + ND4J (nd4j-native, linux-x86_64)
# against ndrt's drop-ins (ndrt-dl4j, ndrt-nd4j, ndrt-datavec over ndrt.jar), running the same
# program, java/dl4j/src/bench/java/org/ndrt/dl4j/bench/LeNetDl4jBench.java, written against
# Deeplearning4j's API only (Deeplearning4j's LeNetMNIST quickstart network: conv 5x5x20, maxpool 2,
# conv 5x5x50, maxpool 2, dense 500 relu, softmax 10 NLL; Nesterovs 0.01/0.9, l2 5e-4, Xavier,
# batch 64). Builds nothing of ndrt's.
#
#   java/dl4j/bench.sh [BUILD_DIR]          (BUILD_DIR: default <repo>/build; needs the targets
#                                            ndrt_jar ndrt_nd4j_jar ndrt_datavec_jar ndrt_dl4j_jar)
# Environment:
#   ROUNDS (3), THREADS ("1 2"), ITERS (300 timed steps), WARMUP (20 steps), BATCH (64);
#   EPOCHS (0): > 0 adds one run per side at the last thread count: a fresh network trained that many
#     full epochs with net.fit(iterator) (as the quickstart does), its test accuracy and epoch time;
#   QUIET_LOAD (1.5), QUIET_WAIT (0): before the runs, wait up to QUIET_WAIT seconds (polling every
#     60 s) for the 1-minute load average to drop below QUIET_LOAD; the load before every run is
#     recorded either way;
#   ND4J_CLASSIFIER (linux-x86_64): nd4j-native's native build, e.g. linux-x86_64-avx2 or
#     linux-x86_64-avx512 (Maven Central has them; the reference pom is copied with that classifier
#     and ND4J gets -Dorg.bytedeco.javacpp.platform.extension=-avx2 / -avx512);
#   RUN_TIMEOUT (1800 s per run), MVN (mvn), MVN_OPTS (e.g. -o), JAVA_OPTS (both sides);
#   NDRT_DATA_DIR: MNIST is $NDRT_DATA_DIR/mnist, else ~/.cache/ndrt/mnist (bash packaging/fetch-mnist.sh);
#   OUT: folder for the logs, the configurations' JSON and results.jsonl (default a new temporary one).
#
# What it does:
# 1. Resolves Deeplearning4j's classpath with `mvn dependency:build-classpath` on
#    java/dl4j/tests/reference-pom.xml (deeplearning4j-core, datavec-api, nd4j-native and
#    nd4j-native:linux-x86_64, 1.0.0-M2.1; from ~/.m2 or Maven Central).
# 2. Compiles the program once against each side (javac; the same source, no change).
# 3. Configuration JSON: each side writes conf.toJson() and reads the other side's with
#    MultiLayerConfiguration.fromJson (then builds the network and compares parameter counts).
# 4. Speed and accuracy: ROUNDS rounds; in each, for every thread count T, one run per side, the
#    side that goes first alternating between rounds. Threads: ndrt NDRT_CPU_THREADS=T with
#    NDRT_CPU_ADAPT_THREADS=0 (cpu.adapt_threads off: a fixed T, as ND4J's); ND4J OMP_NUM_THREADS=T
#    (libnd4j's OpenMP pool and, through ND4J, OpenBLAS's), OPENBLAS_NUM_THREADS=MKL_NUM_THREADS=T.
#    Each run reads WARMUP + ITERS minibatches of MnistDataSetIterator(BATCH, true, seed) into memory,
#    fits WARMUP of them, times net.fit(DataSet) over the next ITERS (to net.score() after the last)
#    and evaluates the 10,000 test digits after those WARMUP + ITERS steps. Round r uses seed
#    122 + r (network and data order), so the rounds' accuracies show each side's seed noise.
#    Deeplearning4j reads MNIST from the folder -Dorg.deeplearning4j.resources.directory names, where
#    this script links ndrt's four IDX files under the names Deeplearning4j checks (it would download
#    otherwise); ndrt-dl4j reads them where they are. Same files, but each side's own shuffle order and
#    weight initialisation (the same seed gives different draws).
# 5. Prints the medians per side and thread count, ndrt/Deeplearning4j, the accuracies.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
build="$(cd "${1:-$repo/build}" && pwd)"
rounds="${ROUNDS:-3}"
threads="${THREADS:-1 2}"
iters="${ITERS:-300}"
warmup="${WARMUP:-20}"
batch="${BATCH:-64}"
epochs="${EPOCHS:-0}"
quiet_load="${QUIET_LOAD:-1.5}"
quiet_wait="${QUIET_WAIT:-0}"
run_timeout="${RUN_TIMEOUT:-1800}"
mvn="${MVN:-mvn}"
read -r -a mvn_opts <<< "${MVN_OPTS:-}"
read -r -a java_opts <<< "${JAVA_OPTS:-}"
main=org.ndrt.dl4j.bench.LeNetDl4jBench
src="$here/src/bench/java/org/ndrt/dl4j/bench/LeNetDl4jBench.java"

j="$build/java"
ours="$j/ndrt.jar:$j/nd4j/ndrt-nd4j.jar:$j/datavec/ndrt-datavec.jar:$j/dl4j/ndrt-dl4j.jar"
slf4j="$(ls "$j"/deps/slf4j-api-*.jar | head -1):$(ls "$j"/deps/slf4j-simple-*.jar | head -1)"
for f in ${ours//:/ } ${slf4j//:/ }; do
  [[ -e "$f" ]] || { echo "bench.sh: no $f (build ndrt_jar ndrt_nd4j_jar ndrt_datavec_jar ndrt_dl4j_jar in $build)" >&2; exit 2; }
done
ours="$ours:$slf4j"

mnist="${NDRT_DATA_DIR:+$NDRT_DATA_DIR/mnist}"
mnist="${mnist:-$HOME/.cache/ndrt/mnist}"
names=(train-images-idx3-ubyte train-labels-idx1-ubyte t10k-images-idx3-ubyte t10k-labels-idx1-ubyte)

out="${OUT:-$(mktemp -d /tmp/ndrt-dl4j-bench.XXXXXX)}"
mkdir -p "$out"
echo "bench.sh: logs and results in $out"

# Deeplearning4j's MNIST folder: its four files, uncompressed, under its names.
res="$out/dl4j-resources"
mkdir -p "$res"
for n in "${names[@]}"; do
  if [[ -f "$mnist/$n" ]]; then
    ln -sf "$mnist/$n" "$res/$n"
  elif [[ -f "$mnist/$n.gz" ]]; then
    gzip -dc "$mnist/$n.gz" > "$res/$n"
  else
    echo "bench.sh: no $mnist/$n (run bash packaging/fetch-mnist.sh)" >&2; exit 2
  fi
done

# 1. Deeplearning4j's classpath.
classifier="${ND4J_CLASSIFIER:-linux-x86_64}"
pom="$here/tests/reference-pom.xml"
nd4j_ext=()
if [[ $classifier != linux-x86_64 ]]; then
  sed "s#<classifier>linux-x86_64</classifier>#<classifier>$classifier</classifier>#" "$pom" > "$out/reference-pom.xml"
  pom="$out/reference-pom.xml"
  nd4j_ext=(-Dorg.bytedeco.javacpp.platform.extension="${classifier#linux-x86_64}")
fi
if ! "$mvn" -q -B "${mvn_opts[@]}" -Djavacpp.platform=linux-x86_64 -f "$pom" \
     dependency:build-classpath -Dmdep.outputFile="$out/dl4j-cp.txt" > "$out/mvn.log" 2>&1 || [[ ! -s "$out/dl4j-cp.txt" ]]; then
  echo "bench.sh: Deeplearning4j 1.0.0-M2.1 could not be resolved (see $out/mvn.log)" >&2; tail -5 "$out/mvn.log" >&2; exit 2
fi
# slf4j-simple so ND4J's start-up lines (backend, BLAS, CPU features) reach the log.
ref="$(cat "$out/dl4j-cp.txt"):$slf4j"

# 2. The same source compiled against each side.
mkdir -p "$out/classes-ndrt" "$out/classes-dl4j"
javac -nowarn -d "$out/classes-ndrt" -cp "$ours" "$src"
javac -nowarn -d "$out/classes-dl4j" -cp "$ref" "$src"

run() {  # side threads args...
  local side=$1 t=$2; shift 2
  if [[ $side == ndrt ]]; then
    env NDRT_CPU_THREADS="$t" NDRT_CPU_ADAPT_THREADS=0 OMP_NUM_THREADS="$t" \
      timeout "$run_timeout" java "${java_opts[@]}" -cp "$out/classes-ndrt:$ours" "$main" --label ndrt "$@"
  else
    env OMP_NUM_THREADS="$t" OPENBLAS_NUM_THREADS="$t" MKL_NUM_THREADS="$t" \
      timeout "$run_timeout" java "${java_opts[@]}" "${nd4j_ext[@]}" -Dorg.deeplearning4j.resources.directory="$res" \
      -cp "$out/classes-dl4j:$ref" "$main" --label dl4j "$@"
  fi
}
load1() { cut -d' ' -f1 /proc/loadavg; }

# 3. Configuration JSON both ways.
run ndrt 1 --json-only --conf-out "$out/conf-ndrt.json" > /dev/null 2> "$out/json-ndrt.err"
run dl4j 1 --json-only --conf-out "$out/conf-dl4j.json" > /dev/null 2> "$out/json-dl4j.err"
run ndrt 1 --json-only --conf-in "$out/conf-dl4j.json" > "$out/json-ndrt.txt" 2>> "$out/json-ndrt.err"
run dl4j 1 --json-only --conf-in "$out/conf-ndrt.json" > "$out/json-dl4j.txt" 2>> "$out/json-dl4j.err"

# 4. Speed and accuracy.
if (( quiet_wait > 0 )); then
  waited=0
  while awk -v l="$(load1)" -v m="$quiet_load" 'BEGIN { exit !(l >= m) }' && (( waited < quiet_wait )); do
    echo "bench.sh: load $(load1) >= $quiet_load, waiting (${waited}s of ${quiet_wait}s)"; sleep 60; waited=$((waited + 60))
  done
fi
results="$out/results.jsonl"
: > "$results"
for ((r = 1; r <= rounds; r++)); do
  if (( r % 2 )); then order="ndrt dl4j"; else order="dl4j ndrt"; fi
  for t in $threads; do
    for side in $order; do
      l=$(load1)
      line=$(run "$side" "$t" --warmup "$warmup" --iters "$iters" --batch "$batch" --seed $((122 + r)) \
             --data-seed $((122 + r)) 2>> "$out/$side.err" | tail -1) || true
      echo "${line%\}},\"threads\":$t,\"round\":$r,\"load_before\":$l,\"load_after\":$(load1)}" | tee -a "$results"
    done
  done
done
if (( epochs > 0 )); then
  t=${threads##* }
  for side in ndrt dl4j; do
    l=$(load1)
    line=$(run "$side" "$t" --warmup 0 --iters 0 --batch "$batch" --epochs "$epochs" 2>> "$out/$side.err" | tail -1) || true
    echo "${line%\}},\"threads\":$t,\"round\":0,\"load_before\":$l,\"load_after\":$(load1)}" | tee -a "$results"
  done
fi

# 5. Report.
/usr/bin/python3 - "$results" "$out/json-ndrt.txt" "$out/json-dl4j.txt" <<'PY'
import json, statistics, sys
rows = []
for s in open(sys.argv[1]):
    s = s.strip()
    if not s:
        continue
    try:
        rows.append(json.loads(s))
    except ValueError:
        print("unparsable result line (a failed run? see the .err logs):", s[:200])
for path in sys.argv[2:4]:
    try:
        j = json.loads(open(path).read().strip().splitlines()[-1])
        other = "Deeplearning4j's" if j["label"] == "ndrt" else "ndrt's"
        print("%-4s reads %s conf.toJson(): %s; its own round trip: %s" % (j["label"], other, j.get("conf_in"),
              j.get("conf_roundtrip")))
    except Exception as e:
        print("configuration JSON check failed (%s): see %s" % (e, path))
timed = [r for r in rows if r.get("iters", 0) > 0 and "img_per_s" in r]
print("\nLeNet training, batch %s, images/s (median of rounds; min-max), test accuracy after %s steps:"
      % (timed[0]["batch"] if timed else "?", timed[0]["warmup"] + timed[0]["iters"] if timed else "?"))
print("%7s  %-22s  %-22s  %7s  %-24s  %-24s  %s" % ("threads", "ndrt img/s", "DL4J img/s", "ratio",
      "ndrt accuracy", "DL4J accuracy", "load (1-min, before runs)"))
for t in sorted({r["threads"] for r in timed}):
    side = {s: [r for r in timed if r["threads"] == t and r["label"] == s] for s in ("ndrt", "dl4j")}
    if not side["ndrt"] or not side["dl4j"]:
        continue
    med = {s: statistics.median(r["img_per_s"] for r in side[s]) for s in side}
    def rng(s, k, f):
        v = [r[k] for r in side[s]]
        return ("%s (%s-%s)" % (f % statistics.median(v), f % min(v), f % max(v))) if len(v) > 1 else f % v[0]
    loads = [r["load_before"] for r in timed if r["threads"] == t]
    print("%7d  %-22s  %-22s  %6.1fx  %-24s  %-24s  %.2f-%.2f" % (t, rng("ndrt", "img_per_s", "%.0f"),
          rng("dl4j", "img_per_s", "%.0f"), med["ndrt"] / med["dl4j"], rng("ndrt", "test_accuracy", "%.4f"),
          rng("dl4j", "test_accuracy", "%.4f"), min(loads), max(loads)))
for r in rows:
    if r.get("epochs"):
        print("%s: %d epoch(s) with fit(iterator) at %d thread(s): test accuracy %.4f, %.1f s an epoch" % (
            r["label"], r["epochs"], r["threads"], r["epoch_test_accuracy"], r["epoch_seconds"]))
PY
