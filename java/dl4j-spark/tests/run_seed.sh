#!/usr/bin/env bash
# The seed's program (seed/SparkMnistLeNet.java: Deeplearning4j's "Running Deep Learning on Distributed GPUs
# With Spark", imports of its time) compiled unchanged against ndrt's drop-in jars and Spark, then run: LeNet
# on MNIST through SparkDl4jMultiLayer with parameter averaging on Spark local[*], 5 epochs.
#   run_seed.sh <jdk bin dir> <class path> [JVM options...]
# Passes when it compiles, runs to the end and its last evaluation reaches 0.90. Its own hyperparameters
# (AdaGrad 0.1 on a LeNet whose second convolution has stride 2, 5 epochs) do not reach 0.98 even in one
# process without Spark (0.979 measured); with parameter averaging on local[2] three runs gave 0.945-0.961
# (AdaGrad's first large steps, averaged, can keep it at chance for an epoch or two; float sums in another
# order decide when it leaves). Then Deeplearning4j's LeNet (the demo's)
# with the seed's training master (SparkLeNetBench --accuracy 2) must reach 0.98 after 2 epochs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
jdk=$1 cp=$2
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$jdk/javac" -nowarn -d "$work" -cp "$cp" "$here/seed/SparkMnistLeNet.java"
status=0
timeout 1500 "$jdk/java" "$@" -cp "$work:$cp" SparkMnistLeNet >"$work/out.txt" 2>&1 || status=$?
cat "$work/out.txt"
[ "$status" = 0 ] || { echo "run_seed: the program exited with status $status" >&2; exit 1; }
epochs=$(grep -c -- '----- Epoch .* complete -----' "$work/out.txt" || true)
acc=$(grep ' Accuracy:' "$work/out.txt" | tail -1 | awk '{print $2}')
[ "$epochs" = 5 ] && [ -n "$acc" ] || { echo "run_seed: expected 5 epochs and an evaluation" >&2; exit 1; }
awk -v a="$acc" 'BEGIN { exit !(a >= 0.90) }' || { echo "run_seed: accuracy $acc < 0.90" >&2; exit 1; }
echo "run_seed: the seed's program on Spark reached accuracy $acc after 5 epochs"
line=$(timeout 1500 "$jdk/java" "$@" -cp "$cp" org.ndrt.dl4j.spark.SparkLeNetBench --accuracy 2 2>"$work/lenet.err" \
  | grep '^{') || { cat "$work/lenet.err"; echo "run_seed: SparkLeNetBench --accuracy failed" >&2; exit 1; }
echo "$line"
acc=$(echo "$line" | sed 's/.*"accuracy":\([0-9.]*\).*/\1/')
awk -v a="$acc" 'BEGIN { exit !(a >= 0.98) }' || { echo "run_seed: LeNet on Spark: accuracy $acc < 0.98" >&2; exit 1; }
echo "run_seed: Deeplearning4j's LeNet on Spark with the seed's training master reached $acc after 2 epochs"
