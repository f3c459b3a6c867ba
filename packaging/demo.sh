#!/usr/bin/env bash
# The demo command: installs what is missing, builds libndrt, then compiles and runs the C example
# from the README against it. (The Java LeNet-on-MNIST demo replaces this once the Java layer lands.)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/packaging/install-deps.sh"
dir=$root/build
cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$dir" -j"$(nproc)" --target ndrt
cc -std=c11 -Wall -Wextra -pedantic -Werror -I"$root/include" "$root/tests/c/example.c" \
   -L"$dir" -lndrt -Wl,-rpath,"$dir" -o "$dir/example"
echo "== tests/c/example.c: add two 2x3 tensors"
"$dir/example"
