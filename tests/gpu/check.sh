#!/usr/bin/env bash
# The GPU check, run on a lent GPU machine in the repository root, with build-gpupack/ (made here by
# tests/gpu/pack.sh) carried along:
#
#   device call: bash tests/gpu/check.sh     carry ["build-gpupack"], timeout_s 540
#
# Without a GPU (nvidia-smi missing or listing none) it says so and exits 0. With one it unpacks the
# archive to /tmp, rebuilds libndrt_cuda.so there with cuBLAS and cuDNN when the carried one lacks
# them (the toolkit here has neither; the machine's pip packages nvidia-cublas and nvidia-cudnn-cu13
# have both), builds ndrt_bench_gpu when it was not packed, then runs, each step under its own
# timeout so that the whole stays inside NDRT_GPU_CHECK_BUDGET seconds (default 430):
#   gtest      the ctest label gpu: ndrt_cpp_gpu_tests, every test (NDRT_CUDA_VIRTUAL_DEVICES=2)
#   smoke      its other entry, bench_gpu_smoke (ndrt_bench_gpu's cheapest cases for a moment)
#   lenet      org.ndrt.examples.LeNetMnist --epochs 1 from the packed JRE (it picks cuda:0 itself)
#   sanitizer  compute-sanitizer --tool memcheck over a slice of the suite (NDRT_GPU_SANITIZE_FILTER)
#   bench      tests/bench/run_gpu.sh, ndrt_bench_gpu vs PyTorch, short (ROUNDS=1 REPS=2 MIN_TIME=0.1)
# A failing step is recorded and the next one runs. Logs and the summary table go to $OUT (the
# device tool brings it back; elsewhere build-gpucheck/): summary.txt, setup.log, gtest.log,
# gtest.xml, lenet.log, sanitizer.log, bench.log, bench_raw.tar.gz. Exit status: 0 when every step
# passed (or no GPU), 1 otherwise.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
t_start=$SECONDS
budget=${NDRT_GPU_CHECK_BUDGET:-430}
deadline=$((t_start + budget))
out=${OUT:-$root/build-gpucheck}
mkdir -p "$out"
archive=${NDRT_GPU_PACK:-$root/build-gpupack/ndrt-gpupack.tar.xz}
work=${NDRT_GPU_WORK:-/tmp/ndrt-gpucheck}
pack=$work/ndrt-gpupack
lib=$pack/lib
setup=$out/setup.log
: > "$setup"

say() { echo "[gpu-check +$((SECONDS - t_start))s] $*" | tee -a "$setup"; }

# ---------------------------------------------------------------- a GPU?
# NDRT_GPU_CHECK_FORCE=1 runs every step anyway: a dry run of the plumbing on a machine without one
# (the CUDA tests then skip, LeNet trains on the CPU, and those steps are reported as failed).
smi=$(command -v nvidia-smi || ls /usr/local/nvidia/bin/nvidia-smi 2>/dev/null || true)
gpus=""
[ -n "$smi" ] && gpus=$("$smi" -L 2>/dev/null)
if [ -z "$smi" ] && ls /proc/driver/nvidia/gpus/*/information >/dev/null 2>&1; then
  gpus="GPU 0: $(sed -n 's/^Model: *//p' /proc/driver/nvidia/gpus/*/information | head -1) (no nvidia-smi; /proc/driver/nvidia)"
fi
if [ "${NDRT_GPU_CHECK_FORCE:-0}" = 1 ]; then
  gpus="GPU 0: none, forced dry run (NDRT_GPU_CHECK_FORCE=1)"
elif ! grep -q '^GPU ' <<<"$gpus"; then
  msg="no GPU here (nvidia-smi $([ -n "$smi" ] && echo 'lists no device' || echo 'not found')): nothing to check"
  say "$msg"
  echo "$msg" > "$out/summary.txt"
  exit 0
fi

# ---------------------------------------------------------------- the summary
names=() states=() secs=() figs=()
record() {  # step status seconds figure
  names+=("$1"); states+=("$2"); secs+=("$3"); figs+=("$4")
  say "step $1: $2 ($3 s) $4"
}
summary() {
  {
    echo "ndrt GPU check: $(date -u +%Y-%m-%dT%H:%M:%SZ), $(grep '^GPU 0' <<<"$gpus" | sed 's/ (UUID.*//')"
    echo "driver $(${smi:-false} --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1)," \
         "nvcc ${nvcc_version:-?}, module: ${module_desc:-?}"
    [ -f "$pack/MANIFEST.txt" ] && sed -n 's/^\(packed\|git\|libndrt.so.0 built\): /pack \1: /p' "$pack/MANIFEST.txt"
    [ -n "${src_note:-}" ] && echo "$src_note"
    echo
    printf '| %-9s | %-7s | %5s | %s\n' step status s "key figure"
    printf '|%s|\n' "-----------|---------|-------|------------------------------------------------------------"
    for i in "${!names[@]}"; do
      printf '| %-9s | %-7s | %5s | %s\n' "${names[$i]}" "${states[$i]}" "${secs[$i]}" "${figs[$i]}"
    done
    echo
    echo "total $((SECONDS - t_start)) s of a ${budget} s budget; logs: setup.log gtest.log gtest.xml lenet.log sanitizer.log bench.log bench_raw.tar.gz"
  } > "$out/summary.txt"
  echo
  cat "$out/summary.txt"
}
finish() {
  # $OUT brings back files of at most 16 MiB: keep the head and the tail of a longer log.
  for f in "$out"/*.log; do
    [ -f "$f" ] && [ "$(stat -c %s "$f")" -gt $((15 * 1024 * 1024)) ] || continue
    { head -c 7000000 "$f"; printf '\n\n[... cut by check.sh ...]\n\n'; tail -c 7000000 "$f"; } > "$f.cut" && mv "$f.cut" "$f"
  done
  summary
  local bad=0
  for s in "${states[@]}"; do [ "$s" = PASS ] || bad=1; done
  exit $bad
}

# Runs "$@" with its output in $log under a timeout: the step's cap, cut so that the later steps keep
# their floors (reserve, in s). Sets rc (124: timed out) and el (seconds).
rc=0 el=0
timed() {  # cap reserve log cmd...
  local cap=$1 reserve=$2 log=$3 left t0
  shift 3
  left=$((deadline - SECONDS - reserve))
  (( left < cap )) && cap=$left
  if (( cap < 10 )); then rc=125 el=0; echo "[check.sh: no time left for: $*]" >> "$log"; return; fi
  t0=$SECONDS
  echo "[check.sh: timeout ${cap}s: $*]" >> "$log"
  if declare -F "$1" >/dev/null; then
    STEP_TIMEOUT=$cap "$@" >> "$log" 2>&1  # a function here: it times its own commands
  else
    timeout -k 10 "$cap" "$@" >> "$log" 2>&1
  fi
  rc=$?
  el=$((SECONDS - t0))
  (( rc == 137 )) && rc=124
  (( rc == 124 )) && echo "[check.sh: timed out after ${cap}s]" >> "$log"
}
status_of() {  # rc -> PASS / FAIL / TIMEOUT / SKIP
  case $1 in 0) echo PASS ;; 124) echo TIMEOUT ;; 125) echo SKIP ;; *) echo FAIL ;; esac
}

# ---------------------------------------------------------------- unpack
say "GPU: $(tr '\n' ';' <<<"$gpus")"
if [ ! -f "$archive" ]; then
  module_desc="none (no pack)"
  record unpack FAIL 0 "$archive missing: run bash tests/gpu/pack.sh here and carry build-gpupack"
  finish
fi
t0=$SECONDS
rm -rf "$work" && mkdir -p "$work"
if ! xz -T0 -dc "$archive" | tar -C "$work" -xf - 2>>"$setup"; then
  record unpack FAIL $((SECONDS - t0)) "could not unpack $archive (see setup.log)"
  finish
fi
cat "$pack/MANIFEST.txt" >> "$setup"
# The tree here against the one packed from: libndrt.so.0 came from the pack, the CUDA module and the
# bench binary are built from the sources here.
packed_hash=$(sed -n 's/^src_hash: //p' "$pack/MANIFEST.txt")
here_hash=$(find include runtime kernels -type f ! -name '*.o' ! -name '*.pyc' | LC_ALL=C sort |
  xargs -d '\n' sha256sum | sha256sum | cut -c1-16)
if [ -n "$packed_hash" ] && [ "$packed_hash" != "$here_hash" ]; then
  src_note="WARNING: include/ runtime/ kernels/ differ from the packed tree's (hash $here_hash, packed $packed_hash): repack after building"
  say "$src_note"
fi
record unpack PASS $((SECONDS - t0)) "$(du -sh "$pack" | cut -f1) in $work"

# The libraries: packed ones first; the packed libstdc++ only where the machine's is too old.
orig_ldp=${LD_LIBRARY_PATH-}
export LD_LIBRARY_PATH=$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
if ! err=$("$pack/bin/ndrt_cpp_gpu_tests" --gtest_list_tests 2>&1 >/dev/null) && grep -q 'GLIBCXX\|CXXABI\|GCC_' <<<"$err"; then
  say "the machine's libstdc++ is older than the pack's: using lib/fallback ($err)"
  export LD_LIBRARY_PATH=$lib:$lib/fallback${LD_LIBRARY_PATH#"$lib"}
fi

# ---------------------------------------------------------------- the toolkit and pip's cuBLAS/cuDNN
t0=$SECONDS
nvcc=$(command -v nvcc || true)
[ -z "$nvcc" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc
py=$(command -v python3 || true)
pyroots=()
if [ -n "$py" ]; then
  while IFS= read -r d; do [ -d "$d" ] && pyroots+=("$d"); done < <(LD_LIBRARY_PATH=$orig_ldp "$py" -c '
import importlib
try:
    import nvidia
    for p in nvidia.__path__: print(p)
except Exception:
    pass' 2>/dev/null)
fi
# The toolkit's root (nvcc can be a wrapper script elsewhere on the PATH).
cuda_home=""
for c in "${CUDA_HOME:-}" "${CUDA_PATH:-}" /usr/local/cuda ${nvcc:+"$(dirname "$(dirname "$(readlink -f "$nvcc")")")"}; do
  if [ -n "$c" ] && { [ -f "$c/include/cuda_runtime.h" ] || [ -f "$c/targets/x86_64-linux/include/cuda_runtime.h" ]; }; then
    cuda_home=$(readlink -f "$c")
    break
  fi
done
nvcc_version=$([ -n "$nvcc" ] && "$nvcc" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')
roots=()
for d in "$cuda_home" /usr/local/cuda "${pyroots[@]}"; do
  [ -n "$d" ] && [ -d "$d" ] && [[ " ${roots[*]} " != *" $(readlink -f "$d") "* ]] && roots+=("$(readlink -f "$d")")
done
say "nvcc: ${nvcc:-none} ($nvcc_version); looking for cuBLAS/cuDNN under: ${roots[*]}"
# first file called $1 under the roots (the toolkit's before pip's)
find1() {
  local r f
  for r in "${roots[@]}"; do
    f=$(find -L "$r" -name "$1" ! -path '*/stubs/*' -print -quit 2>/dev/null)
    [ -n "$f" ] && { echo "$f"; return; }
  done
}
cublas_h=$(find1 cublas_v2.h)
cudnn_h=$(find1 cudnn.h)
cublas_so=$(find1 'libcublas.so*')
cublaslt_so=$(find1 'libcublasLt.so*')
cudnn_so=$(find1 'libcudnn.so*')
cudart_a=$(find1 libcudart_static.a)
cuda_rt_h=$(find1 cuda_runtime.h)
say "cublas_v2.h: ${cublas_h:-no}; libcublas: ${cublas_so:-no}; libcublasLt: ${cublaslt_so:-no}"
say "cudnn.h: ${cudnn_h:-no}; libcudnn: ${cudnn_so:-no}; libcudart_static.a: ${cudart_a:-no}"
# Their folders go on the library path too (cuDNN opens its sub-libraries, cuBLAS its Lt, at run time).
libdirs=()
for f in "$cublas_so" "$cublaslt_so" "$cudnn_so"; do
  [ -n "$f" ] || continue
  d=$(dirname "$(readlink -f "$f")")
  [[ " ${libdirs[*]} " == *" $d "* ]] || libdirs+=("$d")
done
for d in "${libdirs[@]}"; do LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$d; done
export LD_LIBRARY_PATH
# The link needs unversioned names, which pip's packages lack. Their headers go into a folder of
# their own: pip's include folder also holds CUDA runtime headers, which must not shadow nvcc's.
linkdir=$work/link hdrdir=$work/include
mkdir -p "$linkdir" "$hdrdir"
[ -n "$cublas_h" ] && ln -sf "$(dirname "$cublas_h")"/cublas*.h "$hdrdir/"
[ -n "$cudnn_h" ] && ln -sf "$(dirname "$cudnn_h")"/cudnn*.h "$hdrdir/"
[ -n "$cublas_so" ] && ln -sf "$(readlink -f "$cublas_so")" "$linkdir/libcublas.so"
[ -n "$cublaslt_so" ] && ln -sf "$(readlink -f "$cublaslt_so")" "$linkdir/libcublasLt.so"
[ -n "$cudnn_so" ] && ln -sf "$(readlink -f "$cudnn_so")" "$linkdir/libcudnn.so"

needed() { readelf -d "$1" 2>/dev/null | sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p' | tr '\n' ' '; }
carried_needed=$(needed "$lib/libndrt_cuda.so")
has_blas=0 has_dnn=0
[[ "$carried_needed" == *libcublas* ]] && has_blas=1
[[ "$carried_needed" == *libcudnn* ]] && has_dnn=1
want_blas=0 want_dnn=0
[ -n "$cublas_h" ] && [ -n "$cublas_so" ] && [ -n "$cublaslt_so" ] && want_blas=1
[ -n "$cudnn_h" ] && [ -n "$cudnn_so" ] && want_dnn=1
module_desc="carried (cuBLAS $has_blas, cuDNN $has_dnn)"
say "carried libndrt_cuda.so NEEDED: $carried_needed"

# ---------------------------------------------------------------- rebuild the CUDA module
rebuild_module() {  # log -> 0 when $lib/libndrt_cuda.so was replaced
  local obj=$work/obj srcs=() incs=(-Iinclude -Iruntime -Ikernels/cuda) d
  mkdir -p "$obj"
  for f in kernels/cuda/*.cu; do
    case "$(basename "$f")" in
      linalg.cu|rnn.cu|rnn_gru.cu) (( want_blas )) || continue ;;
      conv.cu) (( want_dnn )) || continue ;;
    esac
    srcs+=("$f")
  done
  (( want_blas || want_dnn )) && incs+=("-I$hdrdir")
  # the flags of CMakeLists.txt's ndrt_cuda target (Release)
  local flags=(-O3 -DNDEBUG "--generate-code=arch=compute_90,code=[compute_90,sm_90]" -Xcompiler=-fPIC
               -Xcompiler=-fvisibility=hidden --expt-relaxed-constexpr -Xcompiler=-Wall -std=c++17
               -DNDRT_CUDA_CUBLAS=$want_blas -DNDRT_CUDA_CUDNN=$want_dnn "${incs[@]}")
  echo "nvcc ${flags[*]} -x cu -c <each of ${#srcs[@]} files> (in parallel)"
  export NVCC=$nvcc OBJ=$obj
  printf '%s\n' "${srcs[@]}" | timeout -k 5 "${STEP_TIMEOUT:-300}" xargs -P "$(nproc)" -I{} bash -c \
    'o=$OBJ/$(basename {} .cu).o; "$NVCC" "$@" -x cu -c {} -o $o && echo "  built {}" || { echo "  FAILED {}"; exit 1; }' \
    _ "${flags[@]}" || return 1
  local libs=() rpath=""
  if [ -n "$cudart_a" ]; then libs+=("$cudart_a"); else echo "no libcudart_static.a: linking cudart shared"; libs+=(-lcudart); fi
  (( want_blas )) && libs+=(-lcublas -lcublasLt)
  (( want_dnn )) && libs+=(-lcudnn)
  for d in "${libdirs[@]}"; do rpath+=${rpath:+:}$d; done
  local ld=(g++ -fPIC -Wl,-z,defs -shared -o "$work/libndrt_cuda.so" "$obj"/*.o -L"$linkdir")
  [ -n "$cuda_home" ] && ld+=(-L"$cuda_home/lib64" -L"$cuda_home/targets/x86_64-linux/lib")
  ld+=("${libs[@]}" -ldl -lrt -lpthread ${rpath:+-Wl,-rpath,$rpath})
  echo "${ld[*]}"
  timeout 120 "${ld[@]}" || return 1
  mv "$lib/libndrt_cuda.so" "$lib/libndrt_cuda.carried.so"
  cp "$work/libndrt_cuda.so" "$lib/libndrt_cuda.so"
}
build_bench() {  # -> $pack/bin/ndrt_bench_gpu from tests/bench/bench_gpu.cpp
  local incs=(-Iinclude -Itests/bench "-I$pack/include" "-I$(dirname "$cuda_rt_h")" "-I$hdrdir")
  local libs=("$lib/libndrt.so.0" "$lib"/libbenchmark.so.*)
  if [ -n "$cudart_a" ]; then libs+=("$cudart_a" -ldl -lrt); else libs+=(-lcudart); fi
  local cmd=(g++ -O3 -std=c++17 -DNDRT_BENCH_BUILD_TYPE=\"Release\" "${incs[@]}" tests/bench/bench_gpu.cpp
             -o "$pack/bin/ndrt_bench_gpu" "${libs[@]}" -L"$linkdir" -lcublas -lpthread)
  [ -n "$cuda_home" ] && cmd+=(-L"$cuda_home/lib64" -L"$cuda_home/targets/x86_64-linux/lib")
  echo "${cmd[*]}"
  timeout -k 5 "${STEP_TIMEOUT:-240}" "${cmd[@]}"
}

bench_bin=$pack/bin/ndrt_bench_gpu
# NDRT_GPU_REBUILD=1 rebuilds it whatever the carried one has (e.g. after kernels/cuda changed).
if [ -n "$nvcc" ] && { (( (want_blas && !has_blas) || (want_dnn && !has_dnn) )) || [ "${NDRT_GPU_REBUILD:-0}" = 1 ]; }; then
  # the bench binary builds beside the module (g++ only), each into its own log section
  bench_log=$work/bench_build.log
  if [ ! -x "$bench_bin" ] && (( want_blas )) && [ -n "$cuda_rt_h" ]; then
    (STEP_TIMEOUT=280 build_bench > "$bench_log" 2>&1; echo $? > "$work/bench_build.rc") &
    bench_pid=$!
  fi
  timed "${NDRT_GPU_REBUILD_TIMEOUT:-240}" 230 "$setup" rebuild_module
  if (( rc == 0 )); then
    module_desc="rebuilt here (cuBLAS $want_blas, cuDNN $want_dnn; NEEDED $(needed "$lib/libndrt_cuda.so"))"
    record module PASS "$el" "rebuilt: cuBLAS $want_blas, cuDNN $want_dnn"
  else
    [ -f "$lib/libndrt_cuda.carried.so" ] && [ ! -f "$lib/libndrt_cuda.so" ] && mv "$lib/libndrt_cuda.carried.so" "$lib/libndrt_cuda.so"
    module_desc="carried (cuBLAS $has_blas, cuDNN $has_dnn): the rebuild failed"
    first=$(grep -m1 -E ' error|FAILED|undefined reference' "$setup" | cut -c1-150)
    record module "$(status_of $rc)" "$el" "rebuild failed, carried module runs (cuBLAS $has_blas, cuDNN $has_dnn): ${first:-see setup.log}"
  fi
  if [ -n "${bench_pid:-}" ]; then
    wait "$bench_pid"
    { echo "---- build of ndrt_bench_gpu"; cat "$bench_log"; } >> "$setup"
  fi
else
  why="carried module kept"
  [ -z "$nvcc" ] && why="no nvcc: carried module kept"
  (( !want_blas && !want_dnn )) && why="no cuBLAS/cuDNN found: carried module kept"
  record module PASS 0 "$why (cuBLAS $has_blas, cuDNN $has_dnn)"
fi
if [ ! -x "$bench_bin" ] && [ -n "$nvcc" ] && (( want_blas )) && [ -n "$cuda_rt_h" ] && [ ! -f "$work/bench_build.rc" ]; then
  timed 240 230 "$setup" build_bench
fi
say "module in use: $module_desc"
say "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
# Where the pack's programs and libraries find theirs: anything missing, and what comes from the
# machine rather than the pack beyond glibc and the C++ runtime.
resolution=$(for e in "$lib"/*.so* "$pack"/bin/* "$pack/java/jre/bin/java" "$pack"/java/jre/lib/*.so "$pack"/java/jre/lib/server/*.so; do
  [ -f "$e" ] && ldd "$e" 2>/dev/null | awk -v p="$pack/" '/not found/ && $1 != "libjvm.so" {print "MISSING " $1; next}
    /=> \// && index($3, p) != 1 && $1 !~ /^(libc|libm|libmvec|libpthread|libdl|librt|ld-linux|libstdc\+\+|libgcc_s)\./ {print $1 " " $3}'
done | sort -u)
outside=$(grep -v '^MISSING' <<<"$resolution" | grep . | tr '\n' ';')
say "libraries from the machine, not the pack: ${outside:-none}"
grep -q '^MISSING' <<<"$resolution" && say "WARNING: unresolved: $(grep '^MISSING' <<<"$resolution" | tr '\n' ' ')"
# Does libndrt load the module and see the GPU? (its info log says why not) A rebuilt module that
# does not load gives way to the carried one.
probe() {
  local p
  p=$(NDRT_LOG_LEVEL=info NDRT_CUDA_VIRTUAL_DEVICES=2 timeout 30 "$pack/bin/ndrt_cpp_gpu_tests" \
    --gtest_filter=CudaRuntime.DevicesAreCountedAndNamed 2>&1)
  echo "$p" >> "$setup"
  say "probe (CudaRuntime.DevicesAreCountedAndNamed, NDRT_LOG_LEVEL=info): $(grep -c '^\[       OK \]' <<<"$p") passed"
  ! grep -q 'cuda backend not loaded\|not an ndrt cuda backend\|failed to initialise\|SKIPPED \]\|0 cuda devices' <<<"$p"
}
if ! probe && [ -f "$lib/libndrt_cuda.carried.so" ]; then
  say "the rebuilt module does not work (setup.log): back to the carried one"
  mv "$lib/libndrt_cuda.so" "$work/libndrt_cuda.rebuilt.so"
  mv "$lib/libndrt_cuda.carried.so" "$lib/libndrt_cuda.so"
  module_desc="carried (cuBLAS $has_blas, cuDNN $has_dnn): the rebuilt one did not load"
  record module FAIL 0 "the rebuilt module did not load (setup.log): running the carried one"
  probe
fi

export NDRT_CPU_ADAPT_THREADS=0  # as tests/run.sh: the suites run on the thread counts they set

# ---------------------------------------------------------------- gtest: the label gpu
gtest_figure() {  # log -> "P passed, F failed, S skipped of N" (from each test's own result line)
  local n
  n=$(sed -n 's/^\[==========\] Running \([0-9]*\) tests\{0,1\} from.*/\1/p' "$1" | tail -1)
  echo "$(grep -c '^\[       OK \] .* ([0-9]* ms)$' "$1") passed, $(grep -c '^\[  FAILED  \] .* ([0-9]* ms)$' "$1")" \
       "failed, $(grep -c '^\[  SKIPPED \] .* ([0-9]* ms)$' "$1") skipped of ${n:-?}"
}
log=$out/gtest.log
: > "$log"
NDRT_CUDA_VIRTUAL_DEVICES=2 timed 200 180 "$log" "$pack/bin/ndrt_cpp_gpu_tests" --gtest_output="xml:$out/gtest.xml"
fig=$(gtest_figure "$log")
st=$(status_of $rc)
if (( rc == 0 )) && ! grep -q '^0 skipped' <<<"${fig#*failed, }"; then
  st=FAIL; fig="$fig (a skip on a GPU machine: the module or device was not usable)"
fi
if (( rc != 0 && rc != 124 && rc != 125 )) && ! grep -q '^\[  FAILED  \] [0-9]* test' "$log"; then
  crashed=$(awk '/^\[ RUN      \]/ {t = $4} /^\[       OK \]|^\[  FAILED  \]|^\[  SKIPPED \]/ {t = ""} END {print t}' "$log")
  fig="$fig; exit $rc${crashed:+ in $crashed}"
fi
(( rc == 124 )) && fig="$fig; timed out in $(awk '/^\[ RUN      \]/ {t = $4} END {print t}' "$log")"
record gtest "$st" "$el" "$fig"

# bench_gpu_smoke: the label's other entry (FAIL_REGULAR_EXPRESSION "ERROR OCCURRED")
if [ -x "$bench_bin" ]; then
  printf '\n==== bench_gpu_smoke\n' >> "$log"
  timed 60 165 "$log" "$bench_bin" --batch_ms=1 --benchmark_min_time=0.01 "--benchmark_filter=^(neg_1|memset_4B)/"
  st=$(status_of $rc)
  (( rc == 0 )) && sed -n '/==== bench_gpu_smoke/,$p' "$log" | grep -q 'ERROR OCCURRED\|no cuda device' && st=FAIL
  fig=$(sed -n '/==== bench_gpu_smoke/,$p' "$log" | grep -E '^(neg_1|memset_4B)/' | awk '{printf "%s %s %s; ", $1, $2, $3}')
  record smoke "$st" "$el" "${fig:-$(tail -1 "$log" | cut -c1-150)}"
else
  record smoke FAIL 0 "no ndrt_bench_gpu (neither packed nor built: setup.log)"
fi

# ---------------------------------------------------------------- LeNet, one epoch, from Java
log=$out/lenet.log
: > "$log"
NDRT_DATA_DIR=$pack/data timed 150 105 "$log" "$pack/java/jre/bin/java" -Dndrt.library.path="$lib" -cp "$pack/java/ndrt.jar" \
  org.ndrt.examples.LeNetMnist --epochs 1
dev=$(sed -n 's/^ndrt .*| device \([^ |]*\).*/\1/p' "$log" | head -1)
acc=$(sed -n 's/^final test accuracy: //p' "$log" | tail -1)
ips=$(sed -n 's/^training: \(.*\) (mean.*/\1/p' "$log" | tail -1)
st=$(status_of $rc)
fig="device ${dev:-?}, test accuracy ${acc:-?}, ${ips:-?}"
if (( rc == 0 )) && [[ "$dev" != cuda* ]]; then st=FAIL; fig="$fig (not on the GPU: $(sed -n 's/^ndrt .*| device [^ ]* \(([^)]*)\).*/\1/p' "$log" | head -1))"; fi
record lenet "$st" "$el" "$fig"

# ---------------------------------------------------------------- compute-sanitizer memcheck
san_filter=${NDRT_GPU_SANITIZE_FILTER:-CudaElementwise.UnaryNonContiguousAndSpecialValues:CudaElementwise.BinaryEveryOpAndDtypeBroadcast:CudaElementwise.InPlaceAndStridedOutput:CudaConv.EveryPassDtypeAndLayout:CudaConv.NonContiguousInputs:CudaRnn.StridedInputs:CudaRuntime.StridedViewsReadWriteAndMoveAsTheirLogicalValues}
log=$out/sanitizer.log
: > "$log"
san=$(command -v compute-sanitizer || true)
[ -z "$san" ] && [ -n "$cuda_home" ] && [ -x "$cuda_home/bin/compute-sanitizer" ] && san=$cuda_home/bin/compute-sanitizer
if [ -z "$san" ]; then
  record sanitizer FAIL 0 "compute-sanitizer not found"
else
  # No caching in ndrt's device pool: every block is its own cudaMalloc, so memcheck sees its bounds.
  NDRT_MEMORY_CUDA_MAX_CACHED_BYTES=0 NDRT_CUDA_VIRTUAL_DEVICES=2 timed 120 60 "$log" "$san" --tool memcheck \
    --error-exitcode 86 --print-limit 100 --leak-check no "$pack/bin/ndrt_cpp_gpu_tests" --gtest_filter="$san_filter"
  errs=$(sed -n 's/^========= ERROR SUMMARY: \([0-9]*\) error.*/\1/p' "$log" | tail -1)
  fig="memcheck: ${errs:-?} errors; gtest: $(gtest_figure "$log") (filter $(tr ':' '\n' <<<"$san_filter" | wc -l) tests)"
  (( rc == 86 )) && fig="$fig; first: $(grep -m1 -E '^========= (Invalid|Program hit|Uninit|Race|Malloc|Cuda)' "$log" | cut -c11-140)"
  record sanitizer "$(status_of $rc)" "$el" "$fig"
fi

# ---------------------------------------------------------------- benchmarks vs PyTorch
log=$out/bench.log
: > "$log"
if [ -x "$bench_bin" ]; then
  # PyTorch runs with the machine's library path, without the pack's libraries ahead of its own.
  if [ -n "$orig_ldp" ]; then
    printf '#!/bin/bash\nexport LD_LIBRARY_PATH=%q\nexec %q "$@"\n' "$orig_ldp" "${py:-python3}" > "$work/python3"
  else
    printf '#!/bin/bash\nunset LD_LIBRARY_PATH\nexec %q "$@"\n' "${py:-python3}" > "$work/python3"
  fi
  chmod +x "$work/python3"
  rm -rf "$work/bench_raw"
  ROUNDS=${ROUNDS:-1} REPS=${REPS:-2} MIN_TIME=${MIN_TIME:-0.1} BATCH_MS=${BATCH_MS:-10} PYTHON=$work/python3 \
    OUT_DIR=$work/bench_raw timed 200 0 "$log" bash tests/bench/run_gpu.sh "$bench_bin"
  [ -d "$work/bench_raw" ] && tar -C "$work" -czf "$out/bench_raw.tar.gz" bench_raw
  met=$(grep -m1 '^ndrt at least as fast as torch' "$log")
  fig="${met:-no report: $(grep -v '^\[check.sh' "$log" | tail -1 | cut -c1-150)}"
  grep -q 'WARNING: .*cannot import torch' "$log" && fig="$fig; without torch"
  st=$(status_of $rc)
  (( rc == 0 )) && grep -q 'ndrt_bench_gpu failed\|peer_torch_gpu.py failed\|^ERROR' "$log" && { st=FAIL; fig="$fig; a case failed (bench.log)"; }
  record bench "$st" "$el" "$fig"
else
  record bench FAIL 0 "no ndrt_bench_gpu (neither packed nor built: setup.log)"
fi

finish
