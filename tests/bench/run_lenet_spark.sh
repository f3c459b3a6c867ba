#!/usr/bin/env bash
# LeNet training throughput on Spark against ndrt's MPI trainer, side by side on the same cores: parameter
# averaging every AVERAGING (5) minibatches of BATCH (64) examples per worker, RANKS (2) workers, one
# intra-op thread each.
#   spark: SparkDl4jMultiLayer + ParameterAveragingTrainingMaster on local[RANKS] (SparkLeNetBench: one epoch
#          over EXAMPLES MNIST examples per timed fit, after a first fit that stages the RDD), Spark's own
#          round trips (broadcast, task launch, tree aggregation) included
#   mpi:   mpirun -np RANKS LeNetBench dist-speed --averaging AVERAGING (DistributedTrainer over MPI), the
#          same examples per rank and step, EXAMPLES / (RANKS x BATCH) steps per timed run
# ROUNDS (3) rounds, the two alternating; prints each run's JSON line and the medians and their ratio.
#   tests/bench/run_lenet_spark.sh [BUILD_DIR]     (default <repo>/build; targets ndrt_java_bench and
#                                                   ndrt_dl4j_spark_tests built)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
build="${1:-$repo/build}"
rounds="${ROUNDS:-3}" batch="${BATCH:-64}" averaging="${AVERAGING:-5}" ranks="${RANKS:-2}"
examples="${EXAMPLES:-38400}"
j="$build/java"
spark_cp="$j/ndrt.jar:$j/nd4j/ndrt-nd4j.jar:$j/datavec/ndrt-datavec.jar:$j/dl4j/ndrt-dl4j.jar"
spark_cp="$spark_cp:$j/dl4j-spark/ndrt-dl4j-spark.jar:$j/dl4j-spark/ndrt-dl4j-spark-tests.jar:$j/spark-home/jars/*"
opens=(--add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.lang.invoke=ALL-UNNAMED
  --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED
  --add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.util.concurrent=ALL-UNNAMED)
out="$(mktemp -d --tmpdir ndrt_lenet_spark.XXXXXX)"
java -cp "$j/ndrt.jar:$j/ndrt-bench.jar" org.ndrt.bench.LeNetBench export-split "$out/split" > /dev/null
steps=$((examples / (ranks * batch)))
spark_run() {
  java "${opens[@]}" -cp "$spark_cp" org.ndrt.dl4j.spark.SparkLeNetBench --master "local[$ranks]" --batch "$batch" \
    --averaging "$averaging" --examples "$examples" 2> "$out/spark.log" | grep '^{' | tee -a "$out/spark.jsonl"
}
mpi_run() {
  "$repo/packaging/mpirun.sh" -np "$ranks" java -cp "$j/ndrt.jar:$j/ndrt-bench.jar" org.ndrt.bench.LeNetBench \
    dist-speed --split "$out/split" --threads 1 --iters "$steps" --warmup 20 --reps 1 --batch "$batch" \
    --averaging "$averaging" 2> "$out/mpi.log" | grep '^{' | tee -a "$out/mpi.jsonl"
}
for ((r = 0; r < rounds; ++r)); do
  if ((r % 2 == 0)); then spark_run; mpi_run; else mpi_run; spark_run; fi
done
python3 - "$out" <<'PY'
import json, statistics, sys
out = sys.argv[1]
med = {k: statistics.median(json.loads(l)["img_s"] for l in open(f"{out}/{k}.jsonl")) for k in ("spark", "mpi")}
print(f"LeNet, parameter averaging: Spark local {med['spark']:.0f} img/s, MPI {med['mpi']:.0f} img/s "
      f"(medians); Spark / MPI = {med['spark'] / med['mpi']:.2f}")
PY
echo "logs and JSON lines: $out"
