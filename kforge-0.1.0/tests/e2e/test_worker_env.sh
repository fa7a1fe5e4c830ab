#!/bin/bash
# Workers start with the environment the user gave kforge, even after a
# plugin's driver rewrote the live one (ocl-icd tokenises OCL_ICD_FILENAMES in
# place: on the NVIDIA machine "libpocl.so.2:libnvidia-opencl.so.1" became
# "libpocl.so.2" and the worker lost the GPU).
set -u
echo "1..3"
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
