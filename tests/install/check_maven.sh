#!/usr/bin/env bash
# org.ndrt:ndrt as a Maven user meets it (ctest: java_maven_consumer), with Maven Central for the
# plugins (pinned versions) and a local repository of the test's own:
#  1. java/maven_install.sh (what `cmake --build build --target ndrt_maven_install` runs) puts ndrt.jar,
#     ndrt.pom, ndrt-sources.jar and ndrt-javadoc.jar into a fresh local repository as
#     org.ndrt:ndrt:<version>; the files are checked (same bytes, the pom's version is the project's,
#     the sources and javadoc are there).
#  2. tests/install/maven-consumer, copied to a temporary folder, is built (`mvn package`) against
#     that repository and run twice: `mvn exec:java` (in Maven's JVM) and `java -cp` with its jar and
#     the repository's ndrt jar (a fresh JVM). Each prints "... sums correct" or fails.
# The fresh repository takes the plugins from ~/.m2/repository when they are there (a file: mirror
# in front of Central, so a test run does not download them again), else from Maven Central.
# Usage: check_maven.sh <mvn> <build/java dir> <version> <java>
set -euo pipefail
mvn=$1
dir=$(cd "$2" && pwd)
version=$3
java=$4
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
fail() { echo "check_maven: $*" >&2; exit 1; }

for f in ndrt.jar ndrt.pom ndrt-sources.jar ndrt-javadoc.jar; do
  [ -s "$dir/$f" ] || fail "missing $dir/$f (build the targets ndrt_jar ndrt_sources_jar ndrt_javadoc_jar)"
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
repo=$work/repo
settings=$work/settings.xml
user_repo=${HOME:-/root}/.m2/repository
mkdir -p "$user_repo"
cat >"$settings" <<XML
<settings>
  <profiles><profile><id>user-cache</id>
    <repositories><repository><id>user-cache</id><url>file://$user_repo</url></repository></repositories>
    <pluginRepositories><pluginRepository><id>user-cache</id><url>file://$user_repo</url></pluginRepository></pluginRepositories>
  </profile></profiles>
  <activeProfiles><activeProfile>user-cache</activeProfile></activeProfiles>
</settings>
XML
mvn_run() {  # $1: log file, then mvn arguments; the log is shown when mvn fails
  local log=$1; shift
  if ! "$mvn" -B -s "$settings" -Dmaven.repo.local="$repo" "$@" >"$log" 2>&1; then
    cat "$log" >&2
    fail "mvn $* failed"
  fi
}

# 1. install
if ! bash "$root/java/maven_install.sh" "$mvn" "$dir" -s "$settings" -Dmaven.repo.local="$repo" >"$work/install.log" 2>&1; then
  cat "$work/install.log" >&2
  fail "java/maven_install.sh failed"
fi
art=$repo/org/ndrt/ndrt/$version
for pair in ndrt.jar:ndrt-$version.jar ndrt.pom:ndrt-$version.pom ndrt-sources.jar:ndrt-$version-sources.jar \
            ndrt-javadoc.jar:ndrt-$version-javadoc.jar; do
  [ -f "$art/${pair#*:}" ] || fail "not installed: org/ndrt/ndrt/$version/${pair#*:} (have: $(find "$art" -type f -printf '%f ' 2>/dev/null))"
  cmp -s "$dir/${pair%%:*}" "$art/${pair#*:}" || fail "${pair#*:} differs from ${pair%%:*}"
done
pom_version=$(sed -n 's|^  <version>\(.*\)</version>|\1|p' "$art/ndrt-$version.pom" | head -1)
[ "$pom_version" = "$version" ] || fail "the installed pom's version is '$pom_version', the project's $version"
listing=$(unzip -Z1 "$art/ndrt-$version-sources.jar")
for f in org/ndrt/Tensor.java org/ndrt/Ops.java org/ndrt/capi/NdrtC.java org/ndrt/nn/MultiLayerNetwork.java; do
  grep -qx "$f" <<<"$listing" || fail "the sources jar lacks $f"
done
listing=$(unzip -Z1 "$art/ndrt-$version-javadoc.jar")
for f in index.html org/ndrt/Tensor.html org/ndrt/Ops.html org/ndrt/nn/MultiLayerNetwork.html; do
  grep -qx "$f" <<<"$listing" || fail "the javadoc jar lacks $f"
done
echo "installed: $(find "$art" -type f -name 'ndrt-*' -printf '%f\n' | sort | tr '\n' ' ')"

# 2. the consumer: built and run through Maven, then run in a fresh JVM
cp -r "$here/maven-consumer" "$work/consumer"
rm -rf "$work/consumer/target"
mvn_run "$work/consumer.log" -f "$work/consumer/pom.xml" -Dndrt.version="$version" package exec:java
line=$(grep 'sums correct' "$work/consumer.log") || { cat "$work/consumer.log" >&2; fail "exec:java printed no result"; }
echo "mvn package exec:java: $line"
line=$("$java" -cp "$work/consumer/target/ndrt-maven-consumer-1.0.jar:$art/ndrt-$version.jar" example.Consumer)
echo "java -cp (jar from the local repository): $line"
echo "check_maven: passed"
