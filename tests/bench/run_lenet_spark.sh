#!/usr/bin/env bash
# LeNet training throughput on Spark against ndrt's MPI trainer, side by side on the same cores: parameter
# averaging every AVERAGING (5) minibatches of BATCH (64) examples per worker, RANKS (2) workers, one
# intra-op thread each.
#   spark: SparkDl4jMultiLayer + ParameterAveragingTrainingMaster on local[RANKS] (SparkLeNetBench: one epoch
#          over EXAMPLES MNIST examples per timed fit, after a first fit that stages the RDD), Spark's own
#          round trips (broadcast, task launch, tree aggregation) included
#   mpi:   mpirun -np RANKS LeNetBench dist-speed --averaging AVERAGING (DistributedTrainer over MPI), the
#          same examples per rank and step, EXAMPLES / (RANKS x BATCH) steps per timed run
# SHARING=1 adds the gradient-sharing pair: SharedTrainingMaster (a barrier stage, TCP between the tasks)
# against dist-speed without --averaging (DistributedTrainer over MPI).
# ROUNDS (3) rounds, the runs alternating; prints each run's JSON line and the medians and their ratios.
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
spark_run() {  # name shared
  java "${opens[@]}" -cp "$spark_cp" org.ndrt.dl4j.spark.SparkLeNetBench --master "local[$ranks]" --batch "$batch" \
    --averaging "$averaging" --examples "$examples" --shared "$2" 2> "$out/$1.log" | grep '^{' | tee -a "$out/$1.jsonl"
}
mpi_run() {  # name [--averaging k]
  local name=$1
  shift
  "$repo/packaging/mpirun.sh" -np "$ranks" java -cp "$j/ndrt.jar:$j/ndrt-bench.jar" org.ndrt.bench.LeNetBench \
    dist-speed --split "$out/split" --threads 1 --iters "$steps" --warmup 20 --reps 1 --batch "$batch" "$@" \
    2> "$out/$name.log" | grep '^{' | tee -a "$out/$name.jsonl"
}
runs=("spark_run spark false" "mpi_run mpi --averaging $averaging")
[[ "${SHARING:-0}" = 1 ]] && runs+=("spark_run spark_sharing true" "mpi_run mpi_sharing")
for ((r = 0; r < rounds; ++r)); do
  for ((i = 0; i < ${#runs[@]}; ++i)); do
    k=$(( r % 2 == 0 ? i : ${#runs[@]} - 1 - i ))
    ${runs[$k]}
  done
done
python3 - "$out" <<'PY'
import json, os, statistics, sys
out = sys.argv[1]
def med(k):
    return statistics.median(json.loads(l)["img_s"] for l in open(f"{out}/{k}.jsonl"))
for mode, s, m in (("parameter averaging", "spark", "mpi"), ("gradient sharing", "spark_sharing", "mpi_sharing")):
    if os.path.exists(f"{out}/{s}.jsonl"):
        print(f"LeNet, {mode}: Spark local {med(s):.0f} img/s, MPI {med(m):.0f} img/s (medians); "
              f"Spark / MPI = {med(s) / med(m):.2f}")
PY
echo "logs and JSON lines: $out"
