#!/usr/bin/env bash
# The installed ndrt as a user's project meets it (ctest: install_consumer).
#  1. `cmake --install` of the build tree into a fresh prefix; the layout is checked.
#  2. A tiny C consumer (tests/install/consumer) built against that prefix both ways:
#     find_package(ndrt) -> ndrt::ndrt, and pkg-config ndrt; each runs and checks its sums.
#  3. `pip install bindings/python` into a fresh virtual environment; the package finds the library
#     named by NDRT_LIBRARY and computes with it.
#  4. `cpack` builds the Debian packages (libndrt0, libndrt-dev, libndrt-mpi0, libndrt-cuda0 when
#     those modules are built); their contents are checked. Where dpkg may be used (root, no ndrt
#     package installed already, NDRT_TEST_DPKG not 0) they are installed, the consumer is built
#     against /usr both ways and run, the Python package finds the system library, and the packages
#     are removed again, leaving none of their files behind.
# Usage: check_install.sh <build dir> <python>
set -euo pipefail
build=$(cd "$1" && pwd)
python=${2:-/usr/bin/python3}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
installed_debs=()
cleanup() {
  if ((${#installed_debs[@]})); then dpkg -r "${installed_debs[@]}" >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "check_install: $*" >&2; exit 1; }

# 1. install into a prefix
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
lib=$(find "$prefix" -name 'libndrt.so.0' | head -1)
[ -n "$lib" ] || fail "no libndrt.so.0 under $prefix"
libdir=$(dirname "$lib")
for f in "$prefix/include/ndrt/ndrt.h" "$libdir/libndrt.so" "$libdir/cmake/ndrt/ndrtConfig.cmake" \
         "$libdir/cmake/ndrt/ndrtConfigVersion.cmake" "$libdir/cmake/ndrt/ndrtTargets.cmake" "$libdir/pkgconfig/ndrt.pc"; do
  [ -e "$f" ] || fail "missing after install: ${f#$prefix/}"
done
[ "$(readlink "$libdir/libndrt.so")" = libndrt.so.0 ] || fail "libndrt.so does not point at libndrt.so.0"
for m in libndrt_mpi.so libndrt_cuda.so; do
  if [ -e "$build/$m" ] && [ ! -e "$libdir/$m" ]; then fail "$m is built but not installed beside libndrt"; fi
done
echo "install: $(cd "$prefix" && find . -type f -o -type l | sort | tr '\n' ' ')"

# 2. the consumer, both ways
consumer_cmake() {  # $1: build dir, further args to cmake
  local dir=$1; shift
  cmake -S "$here/consumer" -B "$dir" -G Ninja "$@" >/dev/null
  cmake --build "$dir" >/dev/null
  "$dir/ndrt_consumer"
}
consumer_pkgconfig() {  # $1: output file; PKG_CONFIG_PATH as the caller sets it
  # shellcheck disable=SC2046
  cc -std=c11 -Wall -Werror "$here/consumer/consumer.c" -o "$1" $(pkg-config --cflags --libs ndrt) \
    -Wl,-rpath,"$(pkg-config --variable=libdir ndrt)"
  "$1"
}
echo -n "find_package (prefix): "; consumer_cmake "$work/cmake-prefix" -DCMAKE_PREFIX_PATH="$prefix"
echo -n "pkg-config (prefix):   "; PKG_CONFIG_PATH=$libdir/pkgconfig consumer_pkgconfig "$work/pc-prefix"
[ "$(PKG_CONFIG_PATH=$libdir/pkgconfig pkg-config --modversion ndrt)" = "$(sed -n 's/^project(ndrt VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")" ] \
  || fail "ndrt.pc's version is not the project's"

# 3. pip install of the Python package (pure Python; numpy from the system's site packages)
py_version=$(sed -n 's/^version = "\(.*\)"/\1/p' "$root/bindings/python/pyproject.toml")
[ "$py_version" = "$(PKG_CONFIG_PATH=$libdir/pkgconfig pkg-config --modversion ndrt)" ] \
  || fail "bindings/python/pyproject.toml has version $py_version, the project another"
"$python" -m venv --system-site-packages "$work/venv"
cp -r "$root/bindings/python" "$work/pysrc"  # setuptools writes build/ and *.egg-info beside the sources
"$work/venv/bin/pip" install --quiet --no-index --no-build-isolation "$work/pysrc" >/dev/null
py_check='import ndrt, numpy as np
a = np.arange(12, dtype=np.float32).reshape(3, 4)
t = ndrt.from_numpy(a)
y = ndrt.ops.add(t, t).numpy()
assert (y == a + a).all(), y
print("python: ndrt %s from %s" % (ndrt.__version__, ndrt.library_path))'
(cd "$work" && NDRT_LIBRARY=$lib "$work/venv/bin/python" -c "$py_check")

# 4. Debian packages
(cd "$build" && cpack -G DEB -B "$work/debs" >/dev/null) || fail "cpack failed"
debs=("$work"/debs/*.deb)
want=(libndrt0 libndrt-dev)
[ -e "$build/libndrt_mpi.so" ] && want+=(libndrt-mpi0)
[ -e "$build/libndrt_cuda.so" ] && want+=(libndrt-cuda0)
for p in "${want[@]}"; do
  deb=$(ls "$work"/debs/${p}_*.deb 2>/dev/null | head -1)
  [ -n "$deb" ] || fail "cpack made no package $p (made: ${debs[*]##*/})"
  contents=$(dpkg-deb -c "$deb")
  case $p in
    libndrt0) echo "$contents" | grep -q 'libndrt.so.0.1' || fail "$p lacks the library" ;;
    libndrt-dev) for f in include/ndrt/ndrt.h cmake/ndrt/ndrtConfig.cmake pkgconfig/ndrt.pc libndrt.so; do
                   echo "$contents" | grep -q "$f" || fail "$p lacks $f"; done ;;
    libndrt-mpi0) echo "$contents" | grep -q libndrt_mpi.so || fail "$p lacks the module" ;;
    libndrt-cuda0) echo "$contents" | grep -q libndrt_cuda.so || fail "$p lacks the module" ;;
  esac
  echo "package $p: $(dpkg-deb -f "$deb" Version) depends: $(dpkg-deb -f "$deb" Depends)"
done

if [ "$(id -u)" != 0 ] || [ "${NDRT_TEST_DPKG:-1}" = 0 ]; then
  echo "dpkg install/remove: not tried (needs root; NDRT_TEST_DPKG=0 turns it off)"
  exit 0
fi
for p in "${want[@]}"; do
  if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    echo "dpkg install/remove: not tried ($p is installed on this machine already)"
    exit 0
  fi
done
files=()
for p in "${want[@]}"; do installed_debs+=("$p"); done
dpkg -i "${debs[@]}" >/dev/null || fail "dpkg -i failed"
for p in "${want[@]}"; do mapfile -t -O "${#files[@]}" files < <(dpkg -L "$p" | while read -r f; do [ -f "$f" ] && echo "$f"; done); done
echo -n "find_package (/usr):   "; consumer_cmake "$work/cmake-system"
echo -n "pkg-config (/usr):     "; consumer_pkgconfig "$work/pc-system"
(cd "$work" && env -u NDRT_LIBRARY "$work/venv/bin/python" -c "$py_check")
dpkg -r "${want[@]}" >/dev/null || fail "dpkg -r failed"
installed_debs=()
for f in "${files[@]}"; do [ ! -e "$f" ] || fail "$f is left after dpkg -r"; done
echo "dpkg: ${#want[@]} packages installed, used and removed; none of their ${#files[@]} files left"
