#!/bin/bash
# Workers start with the environment the user gave kforge, even after a
# plugin's driver rewrote the live one (ocl-icd tokenises OCL_ICD_FILENAMES in
# place: on the NVIDIA machine "libpocl.so.2:libnvidia-opencl.so.1" became
# "libpocl.so.2" and the worker lost the GPU).
set -u
cpus=$(nproc)
cases=("8|OMP_WAIT_POLICY||unset" "16|OMP_WAIT_POLICY||unset" "2|OMP_WAIT_POLICY||unset" "16|OMP_WAIT_POLICY|active|active"
       "16|OMP_WAIT_POLICY|passive|passive"
       "|OMP_PROC_BIND||close" "$cpus|OMP_PROC_BIND||close" "$((cpus + 1))|OMP_PROC_BIND||close"
       "1|OMP_PROC_BIND||unset" "|OMP_PROC_BIND|spread|spread" "|OMP_PROC_BIND|false|false")
[ "$cpus" -ge 3 ] && cases+=("$((cpus - 1))|OMP_PROC_BIND||unset")   # fewer threads than CPUs: unbound
# OpenBLAS's kernel set (core/util/blas_env.c): the one for the CPU's ISA
# unless the user named one
flags=" $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2) "
has() { for f in "$@"; do case $flags in *" $f "*) ;; *) return 1 ;; esac; done; }
if has avx512f avx512bw avx512vl avx512dq; then core=SkylakeX
elif has avx2 fma; then core=Haswell
else core=unset; fi
cases+=("|OPENBLAS_CORETYPE||$core" "|OPENBLAS_CORETYPE|Haswell|Haswell")
# and the OpenBLAS a candidate loads (as the baseline's GEMMs do) runs it
blas_cases=()
if [ "$core" != unset ] && ldconfig -p 2>/dev/null | grep -q 'libopenblas\.so\.0 '; then
    blas_cases=("|$core" "Haswell|Haswell")
fi
echo "1..$((3 + ${#cases[@]} + ${#blas_cases[@]}))"
d="$KF_SRCDIR/tests/e2e/env"
fix="$KF_BUILDDIR/tests/plugins/fixtures/.libs"
[ -f "$fix/kf-fixture-good.so" ] || { echo "Bail out! $fix/kf-fixture-good.so missing (make check builds it)"; exit 1; }
export KFORGE_PLUGIN_PATH="$KFORGE_PLUGIN_PATH:$fix"
# the fixture's probe (run in the parent) truncates this variable in place
export KF_FIXTURE_MANGLE_ENV=libpocl.so.2:libnvidia-opencl.so.1
# it is no driver variable of the sandbox's allow-list: name it
export KFORGE_SANDBOX_PASSENV=KF_FIXTURE_MANGLE_ENV
out=$("$KFORGE" verify --backend cpu-simd --problem "$d/identity.json" "$d/check_env.c" 2>&1)
rc=$?
if [ $rc -eq 0 ]; then echo "ok 1 - the worker gets the environment as the user set it"
else echo "not ok 1 - the worker gets the environment as the user set it"; echo "$out" | sed 's/^/# /' | head -20; fi
listing=$("$KFORGE" backends 2>&1)
if echo "$listing" | grep -q 'fixture-good'; then echo "ok 2 - the mangling fixture plugin was loaded and probed in the parent"
else echo "not ok 2 - the mangling fixture plugin was loaded and probed in the parent"; echo "$listing" | sed 's/^/# /' | head; fi
# without KFORGE_SANDBOX_PASSENV the variable does not reach the worker (the
# candidate then writes zeros: a mismatch)
out=$(env -u KFORGE_SANDBOX_PASSENV "$KFORGE" verify --backend cpu-simd --problem "$d/identity.json" "$d/check_env.c" 2>&1)
rc=$?
if [ $rc -eq 1 ] && echo "$out" | grep -q 'mismatch'; then echo "ok 3 - a variable off the sandbox's allow-list does not reach the worker"
else echo "not ok 3 - a variable off the sandbox's allow-list does not reach the worker (exit $rc)"; echo "$out" | sed 's/^/# /' | head -20; fi
# the worker's defaults for a candidate's OpenMP threads
# (plugins/cpu-simd/compile.c, set in the worker): no wait policy at any
# thread count (libgomp's own default, spin then sleep); they are bound one to a CPU when they cover every usable CPU
# (KFORGE_THREADS unset or that many), unbound with fewer; what the user set
# is kept
i=3
for c in "${cases[@]}"; do
    IFS='|' read -r th var set want <<< "$c"
    [ "$var" = OMP_PROC_BIND ] && [ -z "$set" ] && [ "${th:-$cpus}" -lt 2 ] && want=unset   # one thread: nothing to bind
    i=$((i + 1))
    name="KFORGE_THREADS=${th:-unset}${set:+ $var=$set}: the worker's $var is $want"
    out=$(env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT -u OMP_PROC_BIND -u OMP_PLACES -u GOMP_CPU_AFFINITY -u KFORGE_THREADS \
          -u OPENBLAS_CORETYPE \
          ${th:+KFORGE_THREADS=$th} ${set:+$var=$set} KF_EXPECT_NAME=$var KF_EXPECT_VALUE=$want \
          KFORGE_SANDBOX_PASSENV=KF_EXPECT_NAME:KF_EXPECT_VALUE "$KFORGE" verify --backend cpu-simd \
          --problem "$d/identity.json" "$d/check_omp_env.c" 2>&1)
    rc=$?
    if [ $rc -eq 0 ]; then echo "ok $i - $name"
    else echo "not ok $i - $name (exit $rc)"; echo "$out" | sed 's/^/# /' | head -12; fi
done
for c in "${blas_cases[@]}"; do
    IFS='|' read -r set want <<< "$c"
    i=$((i + 1))
    name="OPENBLAS_CORETYPE=${set:-unset}: the OpenBLAS a candidate loads runs the $want kernels"
    out=$(env -u OPENBLAS_CORETYPE ${set:+OPENBLAS_CORETYPE=$set} KF_EXPECT_VALUE=$want KFORGE_SANDBOX_PASSENV=KF_EXPECT_VALUE \
          "$KFORGE" verify --backend cpu-simd --problem "$d/identity.json" "$d/check_blas_core.c" 2>&1)
    rc=$?
    if [ $rc -eq 0 ]; then echo "ok $i - $name"
    else echo "not ok $i - $name (exit $rc)"; echo "$out" | sed 's/^/# /' | head -12; fi
done
