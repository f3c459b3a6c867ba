# Sourced by the CPU benchmark scripts (run_ops.sh, run_lenet.sh): one OpenBLAS kernel set for both
# sides of a comparison, since both ndrt and Debian's torch do their matrix products in OpenBLAS,
# which reads OPENBLAS_CORETYPE when it loads (runtime/blas.hpp says why ndrt cares).
#   BLAS_CORE=auto     (default) what ndrt's cpu.blas_core=auto picks when no OPENBLAS_CORETYPE is
#                      set: SkylakeX with AVX-512 (F, CD, DQ, BW, VL), Haswell with AVX2 + FMA,
#                      else OpenBLAS's own detection (the variable unset)
#   BLAS_CORE=inherit  the environment's OPENBLAS_CORETYPE, as it is
#   BLAS_CORE=NAME     OPENBLAS_CORETYPE=NAME for both sides
# Sets blas_core_note (for the scripts' headers).
case "${BLAS_CORE:-auto}" in
  inherit) ;;
  auto)
    flags="$(grep -m1 '^flags' /proc/cpuinfo || true)"
    avx512=1
    for f in avx512f avx512cd avx512dq avx512bw avx512vl; do [[ " $flags " == *" $f "* ]] || avx512=0; done
    if ((avx512)); then
      export OPENBLAS_CORETYPE=SkylakeX
    elif [[ " $flags " == *" avx2 "* && " $flags " == *" fma "* ]]; then
      export OPENBLAS_CORETYPE=Haswell
    else
      unset OPENBLAS_CORETYPE
    fi
    unset flags avx512 f
    ;;
  *) export OPENBLAS_CORETYPE="$BLAS_CORE" ;;
esac
blas_core_note="OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-(unset)} for both sides (BLAS_CORE=${BLAS_CORE:-auto})"
