#!/bin/bash
# Runs each probe program (src/test/probes) once against real ND4J 1.0.0-M2.1 and once against
# ndrt-nd4j, and compares the outputs line by line: numbers within 1e-5 relative (or 1e-6 absolute),
# everything else exactly. A probe may save files under $NDRT_PROBE_DIR/$NDRT_PROBE_SIDE (ref / ours);
# then each side runs again with NDRT_PROBE_READ naming the other side's folder, outputs compared too.
# Exit 77 (skipped) when ND4J cannot be resolved from Maven.
# Usage: compare_probes.sh MVN JDK_BIN OUR_CLASSPATH NDRT_LIBRARY_PATH DROP_IN_DIR [PROBE_PACKAGE]
# DROP_IN_DIR holds tests/reference-pom.xml and src/test/probes (java/nd4j; java/datavec, whose probes
# are in org.ndrt.datavec.probes). javacpp.platform keeps the JavaCPP presets to this platform's natives.
set -u
mvn=$1 jdk=$2 ours=$3 libpath=$4 dir=$5 pkg=${6:-org.ndrt.nd4j.probes}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! "$mvn" -q -B -Djavacpp.platform=linux-x86_64 -f "$dir/tests/reference-pom.xml" dependency:build-classpath -Dmdep.outputFile="$tmp/cp.txt" \
     > "$tmp/mvn.log" 2>&1 || [ ! -s "$tmp/cp.txt" ]; then
  echo "compare_probes: the reference ($dir/tests/reference-pom.xml) could not be resolved from Maven; skipped"; tail -5 "$tmp/mvn.log"
  exit 77
fi
ref=$(cat "$tmp/cp.txt")
srcs=$(find "$dir/src/test/probes" -name '*.java')
mkdir -p "$tmp/ref" "$tmp/ours"
"$jdk/javac" -nowarn -d "$tmp/ref" -cp "$ref" $srcs || { echo "probes do not compile against ND4J"; exit 1; }
"$jdk/javac" -nowarn -d "$tmp/ours" -cp "$ours" $srcs || { echo "probes do not compile against ndrt-nd4j"; exit 1; }
# compare REF OURS NAME: the two outputs line by line (numbers within tolerance).
compare() {
  /usr/bin/python3 - "$1" "$2" "$3" <<'PY'
import re, sys
ref, ours, name = open(sys.argv[1]).read().splitlines(), open(sys.argv[2]).read().splitlines(), sys.argv[3]
num = re.compile(r'-?\d+(?:\.\d+)?(?:[eE]-?\d+)?')
def same(a, b):
    if a == b:
        return True
    ta, tb = num.split(a), num.split(b)
    na, nb = num.findall(a), num.findall(b)
    if [t.strip() for t in ta] != [t.strip() for t in tb] or len(na) != len(nb):
        return False
    for x, y in zip(na, nb):
        x, y = float(x), float(y)
        if abs(x - y) > max(1e-6, 1e-5 * max(abs(x), abs(y))):
            return False
    return True
bad = [i for i in range(max(len(ref), len(ours)))
       if i >= len(ref) or i >= len(ours) or not same(ref[i], ours[i])]
for i in bad[:20]:
    print("%s line %d\n  ND4J: %s\n  ndrt: %s" % (name, i + 1, ref[i] if i < len(ref) else "<none>",
                                                ours[i] if i < len(ours) else "<none>"))
print("%s: %d lines, %d differ" % (name, len(ref), len(bad)))
sys.exit(1 if bad else 0)
PY
}
xch="$tmp/exchange"
status=0
for src in $srcs; do
  cls=$pkg.$(basename "$src" .java)
  NDRT_PROBE_DIR="$xch/$cls" NDRT_PROBE_SIDE=ref "$jdk/java" -cp "$tmp/ref:$ref" "$cls" > "$tmp/$cls.ref" 2> "$tmp/$cls.ref.err" || { echo "$cls failed under ND4J"; cat "$tmp/$cls.ref.err"; status=1; continue; }
  NDRT_PROBE_DIR="$xch/$cls" NDRT_PROBE_SIDE=ours "$jdk/java" -Dndrt.library.path="$libpath" -cp "$tmp/ours:$ours" "$cls" > "$tmp/$cls.ours" 2> "$tmp/$cls.ours.err" || { echo "$cls failed under ndrt-nd4j"; cat "$tmp/$cls.ours.err"; status=1; continue; }
  compare "$tmp/$cls.ref" "$tmp/$cls.ours" "$cls" || status=1
  # Exchange pass, for probes that saved files (e.g. configuration JSON) under $NDRT_PROBE_DIR/<side>:
  # each side reads the other's (NDRT_PROBE_READ), and the two outputs are compared again.
  if [ -d "$xch/$cls/ref" ] && [ -d "$xch/$cls/ours" ]; then
    NDRT_PROBE_READ="$xch/$cls/ours" "$jdk/java" -cp "$tmp/ref:$ref" "$cls" > "$tmp/$cls.ref2" 2> "$tmp/$cls.ref2.err" || { echo "$cls failed under the reference reading ndrt's files"; cat "$tmp/$cls.ref2.err"; status=1; continue; }
    NDRT_PROBE_READ="$xch/$cls/ref" "$jdk/java" -Dndrt.library.path="$libpath" -cp "$tmp/ours:$ours" "$cls" > "$tmp/$cls.ours2" 2> "$tmp/$cls.ours2.err" || { echo "$cls failed under ndrt reading the reference's files"; cat "$tmp/$cls.ours2.err"; status=1; continue; }
    compare "$tmp/$cls.ref2" "$tmp/$cls.ours2" "$cls-exchange" || status=1
  fi
done
exit $status
