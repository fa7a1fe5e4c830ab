#!/bin/bash
# tests/e2e/test_levelzero.sh — the levelzero backend from the CLI.
#  1-2   with no driver: kforge backends lists it and says why it has no device
#  3-9   kforge verify --compile-only: validated SPIR-V (-o keeps it), a SPIR-V
#        candidate, and the refusals (build option, kernel name, argument count,
#        not SPIR-V, --target), each with its message
#  10-12 the whole host path against the loader's null driver (built from Debian's
#        level-zero source by tests/deps/build_ze_null.sh): it lists "Null Device"
#        with its properties, and a verify runs every call of the plan and is
#        caught by the poison (the null driver runs nothing): not-written
#  13-14 the SPIR-V the plugin makes computes the right thing: loaded with
#        clCreateProgramWithIL by the opencl backend on Intel's OpenCL CPU runtime
#        (PyPI intel-opencl-rt, tests/deps/setup_intel_ocl.sh) and checked against
#        the reference; on PoCL, which takes no SPIR-V, it is refused as unavailable
# The deps live in $KF_TEST_DEPS (default ~/.cache/kforge/test-deps; .ci/install-deps
# makes them).  Without them those cases are skipped and say so; KF_TEST_STRICT=1 (CI)
# makes a missing dep a failure.
set -u
. "$KF_SRCDIR/tests/e2e/tap.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
DEPS=${KF_TEST_DEPS:-$HOME/.cache/kforge/test-deps}
P="$KF_SRCDIR/problems/level2/09_Matmul_Subtract_Multiply_ReLU.json"
echo "1..14"
skip() { n=$((n+1)); if [ "${KF_TEST_STRICT:-0}" = 1 ]; then fails=$((fails+1)); echo "not ok $n - $1 # missing: $2"
         else echo "ok $n - $1 # SKIP $2"; fi; }
has() { grep -q -- "$2" "$1"; }
if ! "$KFORGE" backends 2>/dev/null | grep -q '^levelzero '; then
    for i in $(seq 1 14); do skip "levelzero case $i" "the levelzero plugin is not built here"; done
    tap_exit
fi

# a levelzero candidate: the OpenCL GEMM test candidate, re-targeted
mkdir -p "$tmp/g"
cp "$KF_SRCDIR/tests/candidates/opencl/gemm_sub_mul_relu/kernel.cl" "$tmp/g/"
sed 's/"backend": "opencl"/"backend": "levelzero"/' \
    "$KF_SRCDIR/tests/candidates/opencl/gemm_sub_mul_relu/candidate.json" >"$tmp/g/candidate.json"
nodrv() { env -u ZE_ENABLE_NULL_DRIVER "$@"; }

# 1-2
nodrv "$KFORGE" backends >"$tmp/b" 2>&1
if has "$tmp/b" "^levelzero 0" && has "$tmp/b" "compile only (kforge verify --compile-only --target T, no device needed): spirv64"
then ok "backends lists levelzero and its compile-only target"; else no "backends lists levelzero" "$(grep -A6 '^levelzero' "$tmp/b")"; fi
if has "$tmp/b" "not available here: no Level Zero driver found" && has "$tmp/b" "intel-level-zero-gpu"
then ok "with no driver it says so and what to install"; else no "no-driver message" "$(grep -A6 '^levelzero' "$tmp/b")"; fi

# 3-9
cv() { nodrv "$KFORGE" verify --compile-only --backend levelzero --problem "$P" "$@" >"$tmp/o" 2>&1; }
cv -o "$tmp/g.spv" "$tmp/g"; rc=$?
magic=$(od -An -tx1 -N4 "$tmp/g.spv" 2>/dev/null | tr -d ' ')
if [ $rc -eq 0 ] && has "$tmp/o" "validated by spirv-val" && [ "$magic" = 03022307 ] && spirv-val "$tmp/g.spv"
then ok "--compile-only makes validated SPIR-V and -o writes it"; else no "--compile-only" "rc=$rc magic=$magic" "$(cat "$tmp/o")"; fi
mkdir -p "$tmp/s"; cp "$tmp/g.spv" "$tmp/s/kernel.spv"
sed 's/"kernel.cl"/"kernel.spv"/; /build_options/d' "$tmp/g/candidate.json" >"$tmp/s/candidate.json"
cv "$tmp/s"; rc=$?
if [ $rc -eq 0 ] && has "$tmp/o" "verdict: pass"; then ok "a SPIR-V candidate (kernel.spv) is validated as it is"
else no "SPIR-V candidate" "rc=$rc" "$(cat "$tmp/o")"; fi
mkdir -p "$tmp/b1"; cp "$tmp/g/kernel.cl" "$tmp/b1/"
sed 's/"build_options": "[^"]*"/"build_options": "-cl-mad-enable -ffast-math"/' "$tmp/g/candidate.json" >"$tmp/b1/candidate.json"
cv "$tmp/b1"; rc=$?
if [ $rc -eq 1 ] && has "$tmp/o" "build option '-ffast-math' is not one this backend passes"
then ok "a build option outside -D/-cl-*/-w/-Werror is refused"; else no "build option refused" "rc=$rc" "$(cat "$tmp/o")"; fi
mkdir -p "$tmp/b2"; cp "$tmp/g/kernel.cl" "$tmp/b2/"
sed 's/"kernel": "gemm_sub_mul_relu"/"kernel": "gemm_nope"/' "$tmp/g/candidate.json" >"$tmp/b2/candidate.json"
cv "$tmp/b2"; rc=$?
if [ $rc -eq 1 ] && has "$tmp/o" "defines no __kernel named 'gemm_nope' (kernels it defines: gemm_sub_mul_relu)"
then ok "a plan naming a missing kernel is refused with the kernels there are"; else no "missing kernel" "rc=$rc" "$(cat "$tmp/o")"; fi
mkdir -p "$tmp/b3"; cp "$tmp/g/kernel.cl" "$tmp/b3/"
sed 's/"args": \["x", "W", "b", "y", "B", "K", "N"\]/"args": ["x", "W", "b", "y", "B", "K"]/' "$tmp/g/candidate.json" >"$tmp/b3/candidate.json"
cv "$tmp/b3"; rc=$?
if [ $rc -eq 1 ] && has "$tmp/o" "takes 7 arguments but the plan binds 6"
then ok "a plan with too few arguments is refused before anything runs"; else no "argument count" "rc=$rc" "$(cat "$tmp/o")"; fi
mkdir -p "$tmp/b4"; head -c 4096 /dev/urandom >"$tmp/b4/kernel.spv"; cp "$tmp/s/candidate.json" "$tmp/b4/"
cv "$tmp/b4"; rc=$?
if [ $rc -eq 1 ] && has "$tmp/o" "not a SPIR-V module"
then ok "random bytes as kernel.spv are refused"; else no "garbage SPIR-V" "rc=$rc" "$(cat "$tmp/o")"; fi
cv --target sm_90 "$tmp/g"; rc=$?
if [ $rc -eq 1 ] && has "$tmp/o" "is not among the targets backend levelzero lists" && has "$tmp/o" "(--target spirv64)"
then ok "an unknown --target says which there are"; else no "unknown target" "rc=$rc" "$(cat "$tmp/o")"; fi

# 10-12: the null driver
if [ -f "$DEPS/ze-null/libze_null.so.1" ]; then
    zn() { env ZE_ENABLE_NULL_DRIVER=1 LD_LIBRARY_PATH="$DEPS/ze-null${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$@"; }
    zn "$KFORGE" backends >"$tmp/b" 2>&1
    if has "$tmp/b" "device 0: Null Device (gpu)" && has "$tmp/b" "subgroup sizes" && has "$tmp/b" "timer resolution"
    then ok "null driver: backends lists its device with EUs, groups, subgroups, memory, timer"
    else no "null driver listing" "$(grep -A8 '^levelzero' "$tmp/b")"; fi
    zn "$KFORGE" verify --backend levelzero --problem "$P" "$tmp/g" >"$tmp/o" 2>&1; rc=$?
    if [ $rc -eq 1 ] && has "$tmp/o" "verdict: not-written" && has "$tmp/o" "the NaN poison is still there"
    then ok "null driver: the plan runs through every host call; the device that computes nothing is caught"
    else no "null driver verify" "rc=$rc" "$(cat "$tmp/o")"; fi
    zn "$KFORGE" verify --sandbox=strict --backend levelzero --problem "$P" "$tmp/g" >"$tmp/o" 2>&1; rc=$?
    if [ $rc -eq 1 ] && has "$tmp/o" "verdict: not-written"
    then ok "null driver: the same under --sandbox=strict"
    else no "null driver strict" "rc=$rc" "$(cat "$tmp/o")"; fi
else
    for c in "null driver listing" "null driver verify" "null driver strict"; do
        skip "$c" "$DEPS/ze-null/libze_null.so.1 (tests/deps/build_ze_null.sh)"; done
fi

# 13-14: the SPIR-V on a runtime that takes it
sed 's/"backend": "levelzero"/"backend": "opencl"/' "$tmp/s/candidate.json" >"$tmp/s/c2"; mv "$tmp/s/c2" "$tmp/s/candidate.json"
"$KFORGE" verify --backend opencl --problem "$P" "$tmp/s" >"$tmp/o" 2>&1; rc=$?
if [ $rc -eq 1 ] && has "$tmp/o" "verdict: unavailable" && has "$tmp/o" "does not take SPIR-V"
then ok "PoCL (no IL support) refuses the SPIR-V candidate as unavailable, saying why"
else no "PoCL and SPIR-V" "rc=$rc" "$(cat "$tmp/o")"; fi
if [ -f "$DEPS/intel-ocl/icd/intel.icd" ]; then
    OCL_ICD_VENDORS="$DEPS/intel-ocl/icd" KFORGE_SANDBOX_READ="$DEPS/intel-ocl" \
        "$KFORGE" verify --backend opencl --problem "$P" "$tmp/s" >"$tmp/o" 2>&1; rc=$?
    if [ $rc -eq 0 ] && has "$tmp/o" "verdict: pass" && has "$tmp/o" "(AMD\|Intel\|CPU\|cpu\|EPYC\|Xeon\|Core)"
    then ok "the plugin's SPIR-V passes the reference check on Intel's OpenCL runtime (clCreateProgramWithIL)"
    else no "SPIR-V on Intel OpenCL" "rc=$rc" "$(cat "$tmp/o")"; fi
else
    skip "SPIR-V on Intel OpenCL" "$DEPS/intel-ocl (tests/deps/setup_intel_ocl.sh)"
fi
tap_exit
