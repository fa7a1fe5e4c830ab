#!/bin/bash
# Workers start with the environment the user gave kforge, even after a
# plugin's driver rewrote the live one (ocl-icd tokenises OCL_ICD_FILENAMES in
# place: on the NVIDIA machine "libpocl.so.2:libnvidia-opencl.so.1" became
# "libpocl.so.2" and the worker lost the GPU).
set -u
echo "1..6"
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
# the worker's default wait policy for a candidate's OpenMP threads
# (plugins/cpu-simd/compile.c, set in the worker): they sleep when idle from 8 threads up (KFORGE_THREADS,
# else the usable CPUs), libgomp's own default below, and a policy the user
# set is kept
i=3
for c in "8||passive" "2||unset" "16|active|active"; do
    IFS='|' read -r th pol want <<< "$c"
    i=$((i + 1))
    name="KFORGE_THREADS=$th${pol:+ OMP_WAIT_POLICY=$pol}: the worker's OMP_WAIT_POLICY is $want"
    out=$(env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT KFORGE_THREADS=$th ${pol:+OMP_WAIT_POLICY=$pol} KF_EXPECT_WAIT_POLICY=$want \
          KFORGE_SANDBOX_PASSENV=KF_EXPECT_WAIT_POLICY "$KFORGE" verify --backend cpu-simd --problem "$d/identity.json" \
          "$d/check_wait_policy.c" 2>&1)
    rc=$?
    if [ $rc -eq 0 ]; then echo "ok $i - $name"
    else echo "not ok $i - $name (exit $rc)"; echo "$out" | sed 's/^/# /' | head -12; fi
done
