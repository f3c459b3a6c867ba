#!/usr/bin/env bash
# The seed's Spark program beside Deeplearning4j itself: java/dl4j-spark/tests/reference/SeedReference.java
# (the seed's SparkMnistLeNet rewritten with Deeplearning4j 1.0.0-M2.1's API only: LeNet with a stride-2
# second convolution, AdaGrad 0.1, l2 5e-4, ParameterAveragingTrainingMaster averaging every 5, batch 32
# per worker, saveUpdater) compiled once against real Deeplearning4j and once against ndrt's drop-ins, and
# run on Spark local[2] for EPOCHS epochs per side, then in one process without Spark (--local: net.fit
# over the 1875 shuffled minibatches of 32 per epoch). A reference measurement, not a test (not in ctest).
#
#   java/dl4j-spark/reference.sh [BUILD_DIR]   (default <repo>/build; needs the targets ndrt_jar
#                                               ndrt_nd4j_jar ndrt_datavec_jar ndrt_dl4j_jar ndrt_dl4j_spark_jar)
# Environment:
#   EPOCHS (5); MASTER (local[2]); LOCAL (1: also the --local runs; 0: Spark only);
#   RUN_TIMEOUT (7200 s per run); MVN (mvn), MVN_OPTS (-o: offline, from ~/.m2);
#   NDRT_DATA_DIR: MNIST is $NDRT_DATA_DIR/mnist, else ~/.cache/ndrt/mnist (bash packaging/fetch-mnist.sh);
#   OUT: folder for the logs and results.jsonl (default a new temporary one).
# Deeplearning4j's side: tests/reference/reference-pom.xml (deeplearning4j-core, nd4j-native linux-x86_64
# 1.0.0-M2.1, spark-core_2.12 3.5.7; dl4j-spark_2.12 1.0.0-M2, as Maven Central has no 1.0.0-M2.1 of it).
# Threads: local[2] runs 2 workers on the 2 cores, so each gets one thread: ND4J OMP_NUM_THREADS=1
# (OPENBLAS/MKL_NUM_THREADS=1), ndrt NDRT_CPU_THREADS=1 with NDRT_CPU_ADAPT_THREADS=0; the --local runs
# use the same one thread per process. Which side runs first alternates between the Spark and local runs.
# Output: one JSON line per epoch per run in $OUT/results.jsonl ({"side","mode","epoch","accuracy" on the
# 10,000 test digits, "fit_s" the epoch's fit time without evaluation, "img_s" = 60,000 / fit_s, "score"}),
# each run's log in $OUT/<side>-<mode>.log, the 1-minute load average before each run, then a table.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=$(cd "${1:-$repo/build}" && pwd)
j="$build/java"
epochs="${EPOCHS:-5}" master="${MASTER:-local[2]}" with_local="${LOCAL:-1}"
run_timeout="${RUN_TIMEOUT:-7200}"
src="$here/tests/reference/SeedReference.java"
mnist="${NDRT_DATA_DIR:+$NDRT_DATA_DIR/mnist}"
mnist="${mnist:-$HOME/.cache/ndrt/mnist}"
out="${OUT:-$(mktemp -d /tmp/ndrt-spark-reference.XXXXXX)}"
mkdir -p "$out"
echo "reference.sh: logs and results in $out"

for f in ndrt.jar nd4j/ndrt-nd4j.jar datavec/ndrt-datavec.jar dl4j/ndrt-dl4j.jar dl4j-spark/ndrt-dl4j-spark.jar; do
  [[ -f "$j/$f" ]] || { echo "reference.sh: no $j/$f (build the ndrt_*_jar targets)" >&2; exit 2; }
done
ours="$j/ndrt.jar:$j/nd4j/ndrt-nd4j.jar:$j/datavec/ndrt-datavec.jar:$j/dl4j/ndrt-dl4j.jar:$j/dl4j-spark/ndrt-dl4j-spark.jar"
ours="$ours:$j/spark-home/jars/*"
${MVN:-mvn} ${MVN_OPTS--o} -q -f "$here/tests/reference/reference-pom.xml" dependency:build-classpath \
  -Djavacpp.platform=linux-x86_64 -Dmdep.outputFile="$out/dl4j.classpath" >/dev/null
ref=$(cat "$out/dl4j.classpath")

# Deeplearning4j's MNIST folder: its four files, uncompressed, under its names.
res="$out/dl4j-resources"
mkdir -p "$res"
for n in train-images-idx3-ubyte train-labels-idx1-ubyte t10k-images-idx3-ubyte t10k-labels-idx1-ubyte; do
  if [[ -f "$mnist/$n" ]]; then ln -sf "$mnist/$n" "$res/$n"
  elif [[ -f "$mnist/$n.gz" ]]; then gzip -dc "$mnist/$n.gz" > "$res/$n"
  else echo "reference.sh: no $mnist/$n (run bash packaging/fetch-mnist.sh)" >&2; exit 2; fi
done

mkdir -p "$out/classes-ndrt" "$out/classes-dl4j"
javac -nowarn -d "$out/classes-ndrt" -cp "$ours" "$src"
javac -nowarn -d "$out/classes-dl4j" -cp "$ref" "$src"

# What a JVM running Spark 3.5 on Java 17 needs opened (NDRT_SPARK_JVM_OPTS of java/dl4j-spark/CMakeLists.txt).
jvm=(-XX:+IgnoreUnrecognizedVMOptions -Djdk.reflect.useDirectMethodHandle=false)
for p in java.lang java.lang.invoke java.lang.reflect java.io java.net java.nio java.util java.util.concurrent \
    java.util.concurrent.atomic jdk.internal.ref sun.nio.ch sun.nio.cs sun.security.action sun.util.calendar; do
  jvm+=("--add-opens=java.base/$p=ALL-UNNAMED")
done

run() {  # side mode-args...
  local side=$1; shift
  local name="$side-$([[ $* == *--local* ]] && echo local || echo spark)"
  echo "reference.sh: $name (load $(cut -d' ' -f1 /proc/loadavg))" | tee -a "$out/load.txt"
  local status=0
  if [[ $side == ndrt ]]; then
    env NDRT_CPU_THREADS=1 NDRT_CPU_ADAPT_THREADS=0 OMP_NUM_THREADS=1 timeout "$run_timeout" \
      java "${jvm[@]}" -cp "$out/classes-ndrt:$ours" SeedReference --side ndrt --epochs "$epochs" "$@" \
      > "$out/$name.log" 2>&1 || status=$?
  else
    env OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 timeout "$run_timeout" \
      java "${jvm[@]}" -Dorg.deeplearning4j.resources.directory="$res" -cp "$out/classes-dl4j:$ref" \
      SeedReference --side dl4j --epochs "$epochs" "$@" > "$out/$name.log" 2>&1 || status=$?
  fi
  grep '^{' "$out/$name.log" | tee -a "$out/results.jsonl" || true
  [[ $status == 0 ]] || echo "reference.sh: $name exited with status $status (see $out/$name.log)" >&2
}

run dl4j --master "$master"
run ndrt --master "$master"
if [[ $with_local == 1 ]]; then
  run ndrt --local
  run dl4j --local
fi

echo
printf '%-5s %-9s %5s %9s %8s %8s\n' side mode epoch accuracy fit_s img/s
sed 's/[{}"]//g' "$out/results.jsonl" | tr ',' ' ' | sed 's/[a-z_]*://g' \
  | awk '{ printf "%-5s %-9s %5s %9s %8s %8s\n", $1, $2, $3, $4, $5, $6 }'
