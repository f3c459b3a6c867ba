#!/usr/bin/env bash
# ndrt.jar is all a user needs: copy it alone to a fresh folder and run a main class from it with
# plain `java -cp ndrt.jar`, no library path of any kind. The native libraries must come from the
# jar (extracted to a temporary folder, removed when the JVM exits).
#   jar_fresh_dir.sh <java> <path/to/ndrt.jar>
set -euo pipefail
java=$1
jar=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/run" "$work/tmp"
cp "$jar" "$work/run/ndrt.jar"
cd "$work/run"
out=$(env -u LD_LIBRARY_PATH -u JAVA_TOOL_OPTIONS -u _JAVA_OPTIONS -u CLASSPATH \
  "$java" -Djava.io.tmpdir="$work/tmp" -cp ndrt.jar org.ndrt.Main 2>&1) || { echo "$out"; echo "FAIL: java exited $?"; exit 1; }
echo "$out"
grep -q "^smoke test ok$" <<<"$out" || { echo "FAIL: no 'smoke test ok'"; exit 1; }
grep -q "^native libraries: $work/tmp/ndrt-native-" <<<"$out" || { echo "FAIL: libraries not loaded from the jar's extracted copy"; exit 1; }
if [ -n "$(ls -A "$work/tmp")" ]; then
  echo "FAIL: the extracted libraries were not removed at exit:"; ls -laR "$work/tmp"; exit 1
fi
echo "PASS: ndrt.jar loaded its own native libraries from a fresh folder"
