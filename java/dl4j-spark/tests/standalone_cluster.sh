#!/usr/bin/env bash
# A Spark standalone cluster on this machine — a master and two workers (1 core, 1 GiB each) as real
# daemons — and ClusterCheck submitted to it with SparkSubmit (what spark-submit runs) in client mode, the
# ndrt jars given with --jars as a user submits them to a real cluster. The daemons are stopped afterwards,
# whatever happens.
#   standalone_cluster.sh <jdk bin dir> <spark home> <ndrt jars, comma-separated> <tests jar> <check> [JVM opts...]
# <spark home> holds jars/ (spark-core and its dependencies); SPARK_SCALA_VERSION tells the workers' launcher
# which Scala that is. Passes when the check exits 0 within the time limit.
set -euo pipefail
jdk=$1 spark_home=$2 jars=$3 tests_jar=$4 check=$5
shift 5
opts=("$@")
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  sleep 1
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  # Executors the workers started (their parent is gone once the workers are).
  pkill -9 -f "CoarseGrainedExecutorBackend.*$work" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP PIPE
# The daemons end by themselves after 15 minutes should this script be killed outright (SIGKILL).
life=900
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
port=$(free_port) ui=$(free_port)
export SPARK_HOME=$spark_home SPARK_SCALA_VERSION=2.12 SPARK_LOCAL_IP=127.0.0.1 SPARK_LOCAL_DIRS=$work/local
cp_spark="$spark_home/jars/*"
timeout "$life" "$jdk/java" "${opts[@]}" -cp "$cp_spark" org.apache.spark.deploy.master.Master \
  --host 127.0.0.1 --port "$port" --webui-port "$ui" >"$work/master.log" 2>&1 &
pids+=($!)
for w in 1 2; do
  timeout "$life" "$jdk/java" "${opts[@]}" -cp "$cp_spark" org.apache.spark.deploy.worker.Worker \
    --host 127.0.0.1 --cores 1 --memory 1g --work-dir "$work/worker$w" --webui-port 0 \
    "spark://127.0.0.1:$port" >"$work/worker$w.log" 2>&1 &
  pids+=($!)
done
alive=0
for _ in $(seq 120); do
  alive=$(python3 -c 'import json, sys, urllib.request as u
print(json.load(u.build_opener(u.ProxyHandler({})).open(sys.argv[1], timeout=2)).get("aliveworkers", 0))' "http://127.0.0.1:$ui/json/" 2>/dev/null || echo 0)
  [ "$alive" = 2 ] && break
  sleep 0.5
done
if [ "$alive" != 2 ]; then
  echo "standalone_cluster: the master has $alive live workers after 60 s" >&2
  tail -20 "$work"/*.log >&2
  exit 1
fi
echo "standalone_cluster: master spark://127.0.0.1:$port with 2 workers"
status=0
timeout 600 "$jdk/java" "${opts[@]}" -cp "$cp_spark" org.apache.spark.deploy.SparkSubmit \
  --master "spark://127.0.0.1:$port" --deploy-mode client --conf spark.ui.enabled=false \
  --conf spark.driver.host=127.0.0.1 --conf spark.executor.memory=1g --conf spark.cores.max=2 \
  --conf "spark.executor.extraJavaOptions=-Dndrt.spark.check=$work" \
  --jars "$jars" --class org.ndrt.dl4j.spark.ClusterCheck "$tests_jar" "$check" &
pids+=($!)  # the driver too: stopped with the daemons if this script is stopped
wait $! || status=$?
if [ "$status" != 0 ]; then
  echo "standalone_cluster: ClusterCheck $check exited with $status (124: over the time limit)" >&2
  for f in "$work"/worker*/app-*/*/stderr; do [ -e "$f" ] && { echo "== $f"; tail -30 "$f"; }; done >&2
  exit 1
fi
echo "standalone_cluster: ClusterCheck $check passed"
