#!/bin/sh
# bench/cpu_gemm/micro.sh — times up to 4 points of the built-in C emitter
# for one linear(x, W, b)+epilogue problem against OpenBLAS sgemm of the same
# shape, in one process (bench/cpu_gemm/harness.c), from a configured build
# tree (needs tests/golden/emit_golden: `make tests/golden/emit_golden`).
#
#   bench/cpu_gemm/micro.sh PROBLEM.json PRESET THREADS REPS NAME[:MARCH]=POINT_JSON...
#
# Prints one line per variant and one for OpenBLAS: minimum and median time
# and GFLOP/s of the GEMM (2*B*N*K) at the minimum, the median CPU time, and
# each variant's largest difference from the first variant's output.
# NAME:MARCH compiles that variant with -march=MARCH instead of native (e.g.
# avx2:x86-64-v3 runs the AVX2 micro-kernel, no AVX-512, beside the others).
# POINT_JSON may be @FILE: emit_golden's output for this problem and preset
# saved in FILE (the kernel another commit's generator wrote: before/after).
set -e
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${KF_BUILDDIR:-$top}
prob=$1 preset=$2 threads=$3 reps=$4
shift 4
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
dims=$(python3 -c "import json,sys; d=json.load(open('$prob'))['presets']['$preset']; print(d['B'], d['K'], d['N'])")
i=0; objs=""; scr=""; names=""
for v in "$@"; do
    name=${v%%=*} point=${v#*=} march=native
    case $name in *:*) march=${name#*:} name=${name%%:*} ;; esac
    case $point in
    @*) cp "${point#@}" "$tmp/g$i" ;;   # emit_golden's output kept in a file (another commit's generator)
    *) (cd "$top" && "$build/tests/golden/emit_golden" c cpu-simd "$prob" "$preset" "$point") > "$tmp/g$i" ;;
    esac
    awk '/^=== kernel.c$/ {on = 1; next} /^=== / {on = 0} on' "$tmp/g$i" > "$tmp/k$i.c"
    bytes=$(awk '/^=== candidate.json$/ {on = 1; next} /^=== / {on = 0} on' "$tmp/g$i" |
            python3 -c "import json,sys; s=json.load(sys.stdin)['scratch']; assert 1 <= len(s) <= 4, 'one to four scratch buffers'; print(','.join(str(x['bytes']) for x in s))")
    ${CC:-cc} -std=gnu11 -O3 -march="$march" -fopenmp -I"$top/plugins/cpu-simd" -Dkf_kernel=kf_kernel_$i -Dkf_cpu_unit=kf_cpu_unit_$i -c "$tmp/k$i.c" -o "$tmp/k$i.o"
    objs="$objs $tmp/k$i.o"; scr="$scr $bytes"; names="$names $name"; i=$((i + 1))
done
while [ $i -lt 4 ]; do   # unused slots
    printf '#include "kforge-cpu.h"\nvoid kf_kernel_%d(const kf_cpu_args *a) { (void)a; }\n' $i > "$tmp/k$i.c"
    ${CC:-cc} -std=gnu11 -O2 -I"$top/plugins/cpu-simd" -c "$tmp/k$i.c" -o "$tmp/k$i.o"; objs="$objs $tmp/k$i.o"; i=$((i + 1))
done
blas=$(sed -n 's/^#define KF_BASELINE_BLAS_LIBS "\(.*\)"$/\1/p' "$build/config.h")
# OpenBLAS's kernels for this CPU's ISA unless the user named a set, as
# kforge's worker asks (core/util/blas_env.c: a model OpenBLAS does not know
# gets its SSE3 kernels)
if [ -z "${OPENBLAS_CORETYPE:-}" ]; then
    flags=" $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2) "
    has() { for f in "$@"; do case $flags in *" $f "*) ;; *) return 1 ;; esac; done; }
    if has avx512f avx512bw avx512vl avx512dq; then export OPENBLAS_CORETYPE=SkylakeX
    elif has avx2 fma; then export OPENBLAS_CORETYPE=Haswell; fi
fi
# OpenBLAS's pthreads keep spinning after a call (2^28 cycles by default, about
# 0.1 s): in this harness's rounds they spun through the FMA peak and the next
# round's variants (16 threads: the peak read 26.5 GFLOP per CPU-second a core,
# and KForge's kernel ran beside 15 spinners).  They sleep at once here.
export OPENBLAS_THREAD_TIMEOUT=${OPENBLAS_THREAD_TIMEOUT:-4}
${CC:-cc} -std=gnu11 -O2 -fopenmp -DNVAR=$# ${KF_HARNESS_FLAGS:-} -I"$top/plugins/cpu-simd" \
    "$top/bench/cpu_gemm/harness.c" $objs $blas -lm -o "$tmp/harness"
${KF_BENCH_WRAP:-} "$tmp/harness" $dims "$threads" "$reps" $scr $names
