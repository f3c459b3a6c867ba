#!/bin/bash
# Developer check (not run by CI: the examples are not in this repository): compiles each of
# Deeplearning4j's quickstart examples (dl4j-examples/.../examples/quickstart and examples/utils)
# against ndrt's drop-in jars instead of Deeplearning4j / ND4J / DataVec, and prints per file OK or
# FAILED with the first error, then the total.
#
# Usage: compile_quickstarts.sh EXAMPLES [BUILD_DIR]
#   EXAMPLES   the deeplearning4j-examples repository: a bare mirror or a clone (read with git
#              show at HEAD), or a plain directory holding dl4j-examples/
#   BUILD_DIR  an ndrt build directory with the jars built (default: <repo>/build); targets
#              ndrt_jar ndrt_nd4j_jar ndrt_datavec_jar ndrt_dl4j_jar
# The examples' other libraries (JFreeChart, Apache Commons, HttpClient, and org.nd4j:guava, the
# shaded Guava that ND4J's artifacts bring and ImageDrawer imports) are resolved by Maven from a
# small pom, each jar alone (no transitive dependencies). MVN overrides the mvn command;
# KEEP=1 keeps the work directory. Each file is compiled with the examples' sources on the source
# path, so an error in a file it uses (e.g. utils/PlotUtil) shows as its first error.
# compile_graph_examples.sh reuses this script: EXAMPLE_DIRS (folders under examples/ to copy) and
# EXAMPLE_FILES (files under them to compile; default every file copied) override what is compiled.
set -u
src_repo=${1:?usage: compile_quickstarts.sh EXAMPLES [BUILD_DIR]}
here=$(cd "$(dirname "$0")" && pwd)
build=${2:-$here/../../../build}
build=$(cd "$build" && pwd) || exit 2
mvn=${MVN:-mvn}
work=$(mktemp -d)
[ "${KEEP:-0}" = 1 ] && echo "work directory: $work" || trap 'rm -rf "$work"' EXIT
base=dl4j-examples/src/main/java/org/deeplearning4j/examples
paths=""
for d in ${EXAMPLE_DIRS:-quickstart utils}; do paths="$paths $base/$d"; done

# --- the example sources
mkdir -p "$work/src"
if git -C "$src_repo" rev-parse --git-dir > /dev/null 2>&1; then
  # File by file (git show), not git archive: a partial mirror may lack blobs outside these folders.
  for f in $(git -C "$src_repo" ls-tree -r --name-only HEAD -- $paths | grep '\.java$'); do
    mkdir -p "$work/src/$(dirname "$f")"
    git -C "$src_repo" show "HEAD:$f" > "$work/src/$f" || { echo "git show HEAD:$f failed"; exit 2; }
  done
elif [ -d "$src_repo/$base" ]; then
  for p in $paths; do mkdir -p "$work/src/$(dirname "$p")"; cp -r "$src_repo/$p" "$work/src/$p"; done
else
  echo "$src_repo: neither a git repository nor a directory holding $base"; exit 2
fi
root="$work/src/dl4j-examples/src/main/java"

# --- ndrt's jars
ours=""
for j in java/ndrt.jar java/nd4j/ndrt-nd4j.jar java/datavec/ndrt-datavec.jar java/dl4j/ndrt-dl4j.jar \
         java/deps/slf4j-api-1.7.36.jar; do
  [ -f "$build/$j" ] || { echo "$build/$j is missing: build ndrt_dl4j_jar (and its dependencies) first"; exit 2; }
  ours="$ours:$build/$j"
done

# --- the third-party jars, each without its transitive dependencies
dep() {
  echo "<dependency><groupId>$1</groupId><artifactId>$2</artifactId><version>$3</version>" \
       "<exclusions><exclusion><groupId>*</groupId><artifactId>*</artifactId></exclusion></exclusions></dependency>"
}
cat > "$work/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>org.ndrt.check</groupId><artifactId>quickstart-deps</artifactId><version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    $(dep jfree jfreechart 1.0.13)
    $(dep org.jfree jcommon 1.0.23)
    $(dep org.apache.httpcomponents httpclient 4.3.5)
    $(dep org.apache.httpcomponents httpcore 4.4.14)
    $(dep commons-io commons-io 2.7)
    $(dep org.apache.commons commons-lang3 3.11)
    $(dep org.apache.commons commons-compress 1.21)
    $(dep org.nd4j guava 1.0.0-M2.1)
  </dependencies>
</project>
EOF
if ! "$mvn" -q -B -f "$work/pom.xml" dependency:build-classpath -Dmdep.outputFile="$work/cp.txt" > "$work/mvn.log" 2>&1 \
   || [ ! -s "$work/cp.txt" ]; then
  echo "the examples' third-party jars could not be resolved with Maven:"; tail -5 "$work/mvn.log"; exit 2
fi
cp="${ours#:}:$(cat "$work/cp.txt")"

# --- compile each file
ok=0 failed=0
if [ -n "${EXAMPLE_FILES:-}" ]; then
  files=""
  for f in $EXAMPLE_FILES; do files="$files org/deeplearning4j/examples/$f"; done
else
  files=$(cd "$root" && find org -name '*.java' | sort)
fi
for f in $files; do
  out="$work/classes"
  rm -rf "$out" && mkdir -p "$out"
  if javac -nowarn -proc:none -encoding UTF-8 -d "$out" -cp "$cp" -sourcepath "$root" "$root/$f" > "$work/err.txt" 2>&1; then
    echo "OK      $f"
    ok=$((ok + 1))
  else
    first=$(grep -m1 ': error:' "$work/err.txt" | sed "s|$root/||")
    echo "FAILED  $f"
    echo "        ${first:-$(head -1 "$work/err.txt")}"
    failed=$((failed + 1))
  fi
done
echo "total: $ok of $((ok + failed)) compile ($failed fail)"
[ "$failed" = 0 ]
