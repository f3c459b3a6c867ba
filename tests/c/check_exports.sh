#!/bin/sh
# exports: the dynamic symbol table of libndrt defines only ndrt_* symbols, and every NDRT_API
# function of the public header is among them.
#   usage: check_exports.sh LIBNDRT.so [ndrt.h] [nm]
# Symbols of type 'A' (absolute: version-script node names such as NDRT_1) are not code and are
# ignored, as is any @VERSION suffix.
set -u
lib=${1:?usage: check_exports.sh LIBNDRT.so [ndrt.h] [nm]}
header=${2:-}
nm=${3:-nm}
[ -n "$nm" ] || nm=nm

if [ ! -f "$lib" ]; then
  echo "exports: $lib does not exist" >&2
  exit 1
fi
syms=$("$nm" -D --defined-only "$lib") || { echo "exports: $nm -D --defined-only $lib failed" >&2; exit 1; }

# "ADDRESS TYPE NAME[@[@]VERSION]" -> "TYPE NAME"; drop type A.
defined=$(printf '%s\n' "$syms" | awk 'NF >= 2 { name = $NF; type = $(NF-1); sub(/@.*/, "", name);
                                               if (type != "A") print type, name }')
bad=$(printf '%s\n' "$defined" | awk 'NF == 2 && $2 !~ /^ndrt_/')
count=$(printf '%s\n' "$defined" | awk 'NF == 2 && $2 ~ /^ndrt_/' | wc -l)
status=0
if [ -n "$bad" ]; then
  echo "exports: FAIL: $lib exports symbols outside the ndrt_ namespace:" >&2
  printf '  %s\n' "$bad" >&2
  status=1
fi
if [ "$count" -eq 0 ]; then
  echo "exports: FAIL: $lib exports no ndrt_ symbol at all" >&2
  status=1
fi

# Every function the header declares with NDRT_API must be defined and exported.
if [ -n "$header" ]; then
  names=$(sed -n 's/^NDRT_API[^(]*[ *]\(ndrt_[A-Za-z0-9_]*\)(.*/\1/p' "$header" | sort -u)
  n_header=0
  for f in $names; do
    n_header=$((n_header + 1))
    if ! printf '%s\n' "$defined" | awk -v f="$f" '$2 == f && $1 ~ /^[TtWi]$/ { found = 1 } END { exit !found }'; then
      echo "exports: FAIL: $f is declared NDRT_API in $header but not exported as a function by $lib" >&2
      status=1
    fi
  done
  if [ "$n_header" -eq 0 ]; then
    echo "exports: FAIL: found no NDRT_API function in $header (parser out of date?)" >&2
    status=1
  fi
  echo "exports: $n_header header functions checked"
fi
[ "$status" -eq 0 ] && echo "exports: OK: $count ndrt_ symbols, nothing else"
exit $status
