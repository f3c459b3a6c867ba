#!/usr/bin/env bash
# Packs what the GPU check (tests/gpu/check.sh) needs on a lent GPU machine that the working tree
# does not carry: one xz archive in build-gpupack/ (ignored by .gitignore's /build*/), sent along
# with the device call's carry ["build-gpupack"].
#
#   bash tests/gpu/pack.sh             (after `bash tests/run.sh` built build/)
#   NDRT_BUILD_DIR=/path/to/build bash tests/gpu/pack.sh
#
# The GPU machine has nvcc, compute-sanitizer and python3 with PyTorch (CUDA) and pip's cuBLAS and
# cuDNN, but no Java, no oneDNN, OpenBLAS, Google Benchmark, and nothing can be downloaded there.
# So the archive holds:
#   lib/        libndrt.so.0, libndrt_jni.so, libndrt_cuda.so as built here (with or without
#               cuBLAS/cuDNN: check.sh rebuilds it there when it lacks them), and the Debian shared
#               libraries these (and OpenBLAS, which libndrt dlopens at the first matmul, and the
#               JRE) need beyond glibc; lib/fallback/ libstdc++ and libgcc_s, used there only when
#               the machine's own are too old
#   bin/        ndrt_cpp_gpu_tests (the gtest binary of the ctest label gpu), ndrt_bench_gpu when
#               built here (else check.sh builds it there from tests/bench/bench_gpu.cpp)
#   include/    Google Benchmark's headers (to build ndrt_bench_gpu there)
#   java/       ndrt.jar without its bundled native libraries (lib/ has them), jre/ (jlink:
#               the modules ndrt.jar needs, no debug data, headers or man pages)
#   data/mnist/ MNIST's four IDX files (check.sh points NDRT_DATA_DIR at data/)
#   MANIFEST.txt where and from what it was packed
# Prints the sizes: archive plus working tree must stay under the device call's 64 MiB.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${NDRT_BUILD_DIR:-$root/build}
dest=$root/build-gpupack
name=ndrt-gpupack
limit=$((64 * 1024 * 1024))

die() { echo "pack.sh: $*" >&2; exit 1; }
for f in libndrt.so.0 libndrt_cuda.so java/libndrt_jni.so java/ndrt.jar tests/cpp/ndrt_cpp_gpu_tests; do
  [ -e "$build/$f" ] || die "$build/$f is missing: build first (bash tests/run.sh)"
done
for t in ldd jlink jdeps xz tar readelf sha256sum; do
  command -v "$t" >/dev/null || die "'$t' not found"
done

stage=$(mktemp -d --tmpdir ndrt-gpupack.XXXXXX)
trap 'rm -rf "$stage"' EXIT
p=$stage/$name
mkdir -p "$p/lib/fallback" "$p/bin" "$p/include" "$p/java" "$p/data/mnist"

# --- ndrt itself
cp -L "$build/libndrt.so.0" "$p/lib/libndrt.so.0"
cp -L "$build/java/libndrt_jni.so" "$p/lib/libndrt_jni.so"
cp -L "$build/libndrt_cuda.so" "$p/lib/libndrt_cuda.so"
cp -L "$build/tests/cpp/ndrt_cpp_gpu_tests" "$p/bin/"
bench=""
if [ -x "$build/tests/bench/ndrt_bench_gpu" ]; then
  cp -L "$build/tests/bench/ndrt_bench_gpu" "$p/bin/"
  bench=$p/bin/ndrt_bench_gpu
fi

# --- the JRE: the modules ndrt.jar uses (jdeps), nothing else
mods=$(jdeps --multi-release 17 --ignore-missing-deps --print-module-deps "$build/java/ndrt.jar" 2>/dev/null | tail -1)
[[ "$mods" =~ ^[a-z.,]+$ ]] || mods=java.base
# --compress=0: xz packs the uncompressed module image smaller than jlink's own zip would.
jlink --add-modules "$mods" --strip-debug --no-header-files --no-man-pages --compress=0 --output "$p/java/jre"
# ndrt.jar without its bundled libraries: check.sh loads lib/ through -Dndrt.library.path.
cp "$build/java/ndrt.jar" "$p/java/ndrt.jar"
if command -v zip >/dev/null; then
  zip -q -d "$p/java/ndrt.jar" 'org/ndrt/native/*'
else
  python3 - "$p/java/ndrt.jar" <<'EOF'
import shutil, sys, zipfile
src = sys.argv[1]
shutil.move(src, src + ".full")
with zipfile.ZipFile(src + ".full") as zin, zipfile.ZipFile(src, "w", zipfile.ZIP_DEFLATED) as zout:
    for i in zin.infolist():
        if not i.filename.startswith("org/ndrt/native/"):
            zout.writestr(i, zin.read(i.filename))
EOF
  rm -f "$p/java/ndrt.jar.full"
fi

# --- shared libraries beyond glibc. libstdc++/libgcc_s go to lib/fallback (check.sh adds it only
# where the machine's own libstdc++ is too old: a newer one there must win for what nvcc builds).
openblas=$(readlink -f "$(ldconfig -p | awk '/libopenblas\.so\.0 .*x86-64/ {print $NF; exit}')" 2>/dev/null || true)
[ -f "$openblas" ] || die "OpenBLAS (libopenblas.so.0) not found: libndrt loads it at the first matmul"
cp -L "$openblas" "$p/lib/libopenblas.so.0"
benchlib=$(ldconfig -p | awk '/libbenchmark\.so\.1[a-z]* .*x86-64/ {print $NF; exit}')
[ -n "$benchlib" ] || die "Google Benchmark's shared library not found (Debian: libbenchmark-dev)"
benchso=$(readelf -d "$benchlib" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
cp -L "$benchlib" "$p/lib/$benchso"
[ -d /usr/include/benchmark ] || die "/usr/include/benchmark missing (Debian: libbenchmark-dev)"
cp -r /usr/include/benchmark "$p/include/"
elves=("$p/lib/libndrt.so.0" "$p/lib/libndrt_jni.so" "$p/lib/libndrt_cuda.so" "$p/lib/libopenblas.so.0"
       "$p/lib/$benchso" "$p/bin/ndrt_cpp_gpu_tests" ${bench:+"$bench"})
while IFS= read -r f; do elves+=("$f"); done < <(find "$p/java/jre" -name '*.so' -o -path '*/bin/java')
glibc='^(linux-vdso|libc\.so|libm\.so|libmvec|libpthread|libdl\.so|librt\.so|ld-linux|libresolv|libutil|libnsl|libanl|libcrypt\.so)'
# ldd sees libndrt.so.0 here via the binaries' RUNPATH; the JRE's own libraries via its RUNPATH.
declare -A seen=()
for e in "${elves[@]}"; do
  while read -r lib _ path _; do
    [[ "$lib" =~ $glibc || "$lib" == libndrt* || "$path" == "$p/java/jre"* || "$path" != /* ]] && continue
    [ -n "${seen[$lib]:-}" ] && continue
    seen[$lib]=1
    case "$lib" in
      libstdc++.so.*|libgcc_s.so.*) cp -L "$path" "$p/lib/fallback/$lib" ;;
      *) [ -e "$p/lib/$lib" ] || cp -L "$path" "$p/lib/$lib" ;;
    esac
  done < <(LD_LIBRARY_PATH=$p/lib ldd "$e" 2>/dev/null | grep '=> /')
done
# The libraries' own dependencies (libdnnl -> libOpenCL, OpenBLAS -> libgfortran -> libquadmath).
for round in 1 2; do
  for e in "$p"/lib/*.so*; do
    while read -r lib _ path _; do
      [[ "$lib" =~ $glibc || "$lib" == libndrt* || "$path" != /* || "$path" == "$p/"* ]] && continue
      case "$lib" in
        libstdc++.so.*|libgcc_s.so.*) [ -e "$p/lib/fallback/$lib" ] || cp -L "$path" "$p/lib/fallback/$lib" ;;
        *) [ -e "$p/lib/$lib" ] || cp -L "$path" "$p/lib/$lib" ;;
      esac
    done < <(LD_LIBRARY_PATH=$p/lib ldd "$e" 2>/dev/null | grep '=> /')
  done
done
missing=$(for e in "${elves[@]}" "$p"/lib/*.so*; do LD_LIBRARY_PATH=$p/lib:$p/lib/fallback ldd "$e" 2>/dev/null |
  grep 'not found' | grep -v -E 'libjvm\.so|libcudnn|libcublas' || true; done | sort -u)
[ -z "$missing" ] || die "unresolved libraries: $missing"

# --- MNIST (fetched first when missing)
mnist=${NDRT_DATA_DIR:+$NDRT_DATA_DIR/mnist}
mnist=${mnist:-$HOME/.cache/ndrt/mnist}
if [ ! -e "$mnist/train-images-idx3-ubyte" ] && [ ! -e "$mnist/train-images-idx3-ubyte.gz" ]; then
  NDRT_JAR=$build/java/ndrt.jar bash "$root/packaging/fetch-mnist.sh" "$mnist"
fi
for f in train-images-idx3-ubyte train-labels-idx1-ubyte t10k-images-idx3-ubyte t10k-labels-idx1-ubyte; do
  if [ -f "$mnist/$f" ]; then cp "$mnist/$f" "$p/data/mnist/"
  elif [ -f "$mnist/$f.gz" ]; then cp "$mnist/$f.gz" "$p/data/mnist/"
  else die "MNIST file $f not in $mnist"; fi
done

# --- manifest: what this was packed from. src_hash covers the sources libndrt and the CUDA module are
# built from; check.sh recomputes it (the same way: the copy there has no .git) over the tree it runs
# in and warns when they differ.
src_hash() { (cd "$1" && find include runtime kernels -type f ! -name '*.o' ! -name '*.pyc' | LC_ALL=C sort |
  xargs -d '\n' sha256sum | sha256sum | cut -c1-16); }
{
  echo "packed: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname) ($(. /etc/os-release && echo "$PRETTY_NAME"))"
  echo "build: $build ($(sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$build/CMakeCache.txt" 2>/dev/null))"
  echo "git: $(git -C "$root" rev-parse --short HEAD) ($(git -C "$root" status --porcelain | wc -l) paths changed or untracked)"
  echo "src_hash: $(src_hash "$root")"
  echo "libndrt.so.0 built: $(date -u -r "$build/libndrt.so.0" +%Y-%m-%dT%H:%M:%SZ)"
  echo "libndrt_cuda.so NEEDED: $(readelf -d "$p/lib/libndrt_cuda.so" | sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p' | tr '\n' ' ')"
  echo "jre modules: $mods"
  echo "ndrt_bench_gpu: $([ -n "$bench" ] && echo packed || echo 'not built here (built there)')"
  echo "files:"
  (cd "$stage" && find "$name" -type f ! -path '*/jre/*' -printf '  %8k KiB  %p\n' | sort -k3)
  echo "  $(du -sk "$p/java/jre" | cut -f1) KiB  $name/java/jre/ ($(find "$p/java/jre" -type f | wc -l) files)"
} > "$p/MANIFEST.txt"

# --- the archive
mkdir -p "$dest"
rm -f "$dest"/*.tar.xz "$dest"/MANIFEST.txt
echo "pack.sh: compressing $(du -sh "$p" | cut -f1) (xz -6, $(nproc) threads)..."
tar -C "$stage" --owner=0 --group=0 -cf - "$name" | xz -T"$(nproc)" -6 > "$dest/$name.tar.xz"
cp "$p/MANIFEST.txt" "$dest/MANIFEST.txt"

arch=$(stat -c %s "$dest/$name.tar.xz")
tree=$(cd "$root" && git ls-files -co --exclude-standard -z | xargs -0 stat -c %s 2>/dev/null | awk '{s += $1} END {print s + 0}')
carry=$(du -sb "$dest" | cut -f1)
mib() { awk -v b="$1" 'BEGIN {printf "%.1f MiB", b / 1048576}'; }
cat "$p/MANIFEST.txt"
echo
echo "archive:      $dest/$name.tar.xz  $(mib "$arch")  (unpacked $(du -sb "$p" | cut -f1 | xargs -I{} awk 'BEGIN {printf "%.1f MiB", {} / 1048576}'))"
echo "working tree: $(mib "$tree") (tracked + untracked, not ignored)"
echo "device call:  $(mib $((tree + carry))) of $(mib $limit) (working tree + carry build-gpupack)"
if [ $((tree + carry)) -ge $limit ]; then
  echo "pack.sh: too big for the device call (64 MiB)" >&2
  exit 1
fi
echo "next: the device call  bash tests/gpu/check.sh  with carry [\"build-gpupack\"], timeout_s 540"
