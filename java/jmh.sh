#!/usr/bin/env bash
# Runs the JMH benchmarks of a build (java/src/jmh/java; target ndrt_java_jmh), passing the rest of
# the arguments to JMH (a benchmark name pattern, -p threads=2, -f 3, -rf json -rff out.json, ...).
#   java/jmh.sh [build-dir] [JMH arguments]      e.g. java/jmh.sh build TensorOpsBench -p threads=1,2
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${NDRT_BUILD_DIR:-$repo/build}"
if [[ $# -gt 0 && -d "$1" ]]; then build="$1"; shift; fi
jars=("$build/java/ndrt-jmh.jar" "$build/java/ndrt.jar")
for f in "${jars[@]}"; do
  [[ -e "$f" ]] || { echo "jmh.sh: $f missing (cmake --build $build --target ndrt_java_jmh)" >&2; exit 2; }
done
cp=$(IFS=:; echo "${jars[*]}"):$(ls "$build"/java/deps/*.jar | tr '\n' ':')
exec "${JAVA:-java}" -cp "$cp" org.openjdk.jmh.Main "$@"
