#!/usr/bin/env bash
# org.ndrt:ndrt as a Maven user meets it (ctest: java_maven_consumer), without Maven Central: every
# plugin comes from Debian's /usr/share/maven-repo through java/maven-settings-debian.xml (offline,
# file: only).
#  1. `mvn install:install-file` puts ndrt.jar, ndrt.pom, ndrt-sources.jar and ndrt-javadoc.jar into a
#     fresh local repository as org.ndrt:ndrt:<version> (jar, pom, sources, javadoc); the files are
#     checked (same bytes, the pom's version is the project's, the sources and javadoc are there).
#  2. tests/install/maven-consumer, copied to a temporary folder, is built (`mvn package`) against
#     that repository and run twice: `mvn exec:java` (in Maven's JVM) and `java -cp` with its jar and
#     the repository's ndrt jar (a fresh JVM). Each prints "... sums correct" or fails.
#  3. Nothing was resolved from anywhere but the local repository and /usr/share/maven-repo.
# Exits 77 (skipped) when a Maven plugin is missing from /usr/share/maven-repo, naming its package.
# Usage: check_maven.sh <mvn> <build/java dir> <version> <java>
set -euo pipefail
mvn=$1
dir=$(cd "$2" && pwd)
version=$3
java=$4
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
settings=$root/java/maven-settings-debian.xml
debian_repo=/usr/share/maven-repo
fail() { echo "check_maven: $*" >&2; exit 1; }

for f in ndrt.jar ndrt.pom ndrt-sources.jar ndrt-javadoc.jar; do
  [ -s "$dir/$f" ] || fail "missing $dir/$f (build the targets ndrt_jar ndrt_sources_jar ndrt_javadoc_jar)"
done
# What `mvn install:install-file` and `mvn package exec:java` need, by Debian package.
missing=()
for pp in maven-install-plugin:libmaven-install-plugin-java maven-resources-plugin:libmaven-resources-plugin-java \
          maven-compiler-plugin:libmaven-compiler-plugin-java maven-surefire-plugin:libsurefire-java \
          maven-jar-plugin:libmaven-jar-plugin-java; do
  ls "$debian_repo/org/apache/maven/plugins/${pp%%:*}"/*/*.jar >/dev/null 2>&1 || missing+=("${pp#*:}")
done
ls "$debian_repo"/org/codehaus/mojo/exec-maven-plugin/*/*.jar >/dev/null 2>&1 || missing+=(libexec-maven-plugin-java)
if ((${#missing[@]})); then
  echo "check_maven: skipped: Maven plugins missing from $debian_repo; apt-get install ${missing[*]}"
  exit 77
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
repo=$work/repo
mvn_offline() {  # $1: log file, then mvn arguments; the log is shown when mvn fails
  local log=$1; shift
  if ! "$mvn" -B -o -s "$settings" -Dmaven.repo.local="$repo" "$@" >"$log" 2>&1; then
    cat "$log" >&2
    fail "mvn $* failed"
  fi
}

# 1. install
mvn_offline "$work/install.log" install:install-file -Dfile="$dir/ndrt.jar" -DpomFile="$dir/ndrt.pom" \
  -Dsources="$dir/ndrt-sources.jar" -Djavadoc="$dir/ndrt-javadoc.jar"
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
mvn_offline "$work/consumer.log" -f "$work/consumer/pom.xml" -Dndrt.version="$version" package exec:java
line=$(grep 'sums correct' "$work/consumer.log") || { cat "$work/consumer.log" >&2; fail "exec:java printed no result"; }
echo "mvn package exec:java: $line"
line=$("$java" -cp "$work/consumer/target/ndrt-maven-consumer-1.0.jar:$art/ndrt-$version.jar" example.Consumer)
echo "java -cp (jar from the local repository): $line"

# 3. offline: only the Debian repository was read from
if grep -hE '^\[INFO\] Download(ing|ed) from' "$work/install.log" "$work/consumer.log" | grep -v " file://$debian_repo/"; then
  fail "something was resolved from outside $debian_repo"
fi
echo "check_maven: passed"
