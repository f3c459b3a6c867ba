#!/usr/bin/env bash
# The C example in README.md must be tests/c/example.c, verbatim (that file is compiled and run).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
block=$(awk '/^```c$/{on=1; next} /^```$/{if(on){exit}} on' "$root/README.md")
if ! diff <(printf '%s\n' "$block") "$root/tests/c/example.c"; then
  echo "README.md's C example differs from tests/c/example.c"; exit 1
fi
echo "README example matches tests/c/example.c"
