#!/usr/bin/env bash
# Installs the project's Maven artifacts from a build into a local Maven repository (~/.m2/repository,
# or the one -Dmaven.repo.local=DIR names among the extra arguments): for each artifact built in
# <build>/java — org.ndrt:ndrt (ndrt.jar) and the drop-ins beside it (<name>/<name>.jar) — its jar,
# pom, and the sources and javadoc jars where built. The install plugin's version is pinned.
# Usage: maven_install.sh <mvn> <build/java dir> [extra mvn arguments]
# (cmake --build build --target ndrt_maven_install runs it on the default local repository.)
set -euo pipefail
mvn=$1
dir=$(cd "$2" && pwd)
shift 2
install_one() {  # <folder> <name>: <folder>/<name>.jar, .pom, -sources.jar, -javadoc.jar
  local d=$1 n=$2 args=()
  shift 2
  [ -s "$d/$n.jar" ] && [ -s "$d/$n.pom" ] || { echo "maven_install: $d/$n.jar or $n.pom missing" >&2; exit 1; }
  [ -s "$d/$n-sources.jar" ] && args+=("-Dsources=$d/$n-sources.jar")
  [ -s "$d/$n-javadoc.jar" ] && args+=("-Djavadoc=$d/$n-javadoc.jar")
  "$mvn" -q -B "$@" org.apache.maven.plugins:maven-install-plugin:3.1.3:install-file \
    -Dfile="$d/$n.jar" -DpomFile="$d/$n.pom" "${args[@]}"
  echo "installed $(sed -n 's|^  <groupId>\(.*\)</groupId>|\1|p' "$d/$n.pom" | head -1):$n from $d"
}
install_one "$dir" ndrt "$@"
for pom in "$dir"/*/*.pom; do
  [ -e "$pom" ] || continue
  n=$(basename "$pom" .pom)
  install_one "$(dirname "$pom")" "$n" "$@"
done
