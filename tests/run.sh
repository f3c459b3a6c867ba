#!/usr/bin/env bash
# The test command: installs what is missing, builds (warnings are errors), runs every ctest test.
# Tests labelled `gpu` skip by themselves where no GPU exists.
#   bash tests/run.sh                      -> build/ (Release)
#   NDRT_SANITIZE=address,undefined bash tests/run.sh   -> build-asan/
#   NDRT_SANITIZE=thread NDRT_TEST_FILTER=Concurrency NDRT_BUILD_TARGETS=ndrt_cpp_concurrency_tests \
#     bash tests/run.sh                                 -> build-tsan/
#   NDRT_COMPILER=clang bash tests/run.sh               -> build-clang/ (Clang instead of GCC)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/packaging/install-deps.sh"
# ccache keyed on paths relative to the checkout, so every fresh clone reuses earlier objects.
export CCACHE_BASEDIR=$root CCACHE_NOHASHDIR=1
san=${NDRT_SANITIZE:-}
case "$san" in
  "") dir=$root/build; type=Release ;;
  thread) dir=$root/build-tsan; type=RelWithDebInfo ;;
  *) dir=$root/build-asan; type=RelWithDebInfo ;;
esac
if [ "${NDRT_COMPILER:-gcc}" = clang ]; then
  export CC=clang CXX=clang++
  dir=$dir-clang
  [ -n "$san" ] && dir=$root/build-clang-${san//,/-}
fi
flags=()
[ -x /usr/local/cuda/bin/nvcc ] && flags=(-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc)
# Sanitizer builds check the runtime, not the CUDA module (nvcc does not take -fsanitize).
# The JVM and CPython are not built with sanitizers: their binding tests run in the plain build.
[ -n "$san" ] && flags=(-DNDRT_WITH_CUDA=OFF -DNDRT_WITH_JAVA=OFF -DNDRT_WITH_PYTHON=OFF)
cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=$type -DNDRT_WERROR=ON -DNDRT_SANITIZE="$san" "${flags[@]}" >/dev/null
# NDRT_BUILD_TARGETS narrows the build (the TSan stage builds only the concurrency tests).
read -r -a targets <<< "${NDRT_BUILD_TARGETS:-all}"
cmake --build "$dir" -j"$(nproc)" --target "${targets[@]}"
cd "$dir"
# The suites run on the thread counts they set (cpu.adapt_threads off): what they cover must not
# depend on how busy the machine is. The adaptive count has its own tests (CoresInternal.*).
export NDRT_CPU_ADAPT_THREADS=${NDRT_CPU_ADAPT_THREADS:-0}
export ASAN_OPTIONS=${ASAN_OPTIONS:-allocator_may_return_null=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}
args=(--output-on-failure -j"$(nproc)")
[ -n "${NDRT_TEST_FILTER:-}" ] && args+=(-R "$NDRT_TEST_FILTER")
[ -n "${NDRT_TEST_LABELS:-}" ] && args+=(-L "$NDRT_TEST_LABELS")
ctest "${args[@]}"
