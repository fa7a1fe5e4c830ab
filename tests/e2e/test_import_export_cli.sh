#!/bin/sh
# tests/e2e/test_import_export_cli.sh — kforge import and export without
# PyTorch: import says how to get it (exit 2) when torch cannot be imported
# or no Python runs; bad options exit 2; export of a real cpu-simd run
# --to c builds and its example's sums match the reference's (within the
# problem's tolerance), --to torch writes the package; a run without a
# verified kernel, a missing run and an existing --out are refused.
# Export keys on the language and capabilities the run recorded, not on the
# backend's name: a third-party backend with host-entry C exports, a run
# recorded before those fields exports from its candidate; a kernel plan's
# host code is its plugin's (export_files): a plan whose backend has no
# plugin here, or whose plugin declares another language, is refused; an
# OpenCL run (PoCL here; skipped without an OpenCL device) --to c builds and
# matches the double reference, --to torch writes its plan and the plugin's
# caller; a CUDA C plan (hand-written candidate in a run directory: no GPU
# needed; skipped where the cuda plugin is not built) --to torch writes the
# resolved plan with the plugin's NVRTC options, --to c is refused; a
# third-party plugin of another language (a fixture) exports its own plans; a
# two-launch OpenCL plan with a scratch buffer and a float argument
# (tests/candidates/opencl/group_norm) --to c builds and its example's sums
# equal those of the cpu-simd candidate for the same problem, exported the
# same way (both examples draw the same inputs).  Runs recorded before
# backend_language (kforge before a0c15cb) export a cuda (.cu) or opencl
# (.cl) plan with the language inferred from the first source's suffix.
# The options of import's second and third forms (--class, --inputs SPEC,
# --init-args JSON, pkg.module:NAME) are checked before any Python runs:
# each bad one exits 2 with one line naming it.
. "$KF_SRCDIR/tests/e2e/tap.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
echo "1..34"
M="$KF_SRCDIR/tests/torch/kernelbench/12_Gemm_Multiply_LeakyReLU.py"

# 1: a Python whose torch cannot be imported
if [ -n "$PYTHON3" ] && [ "$PYTHON3" != no ]; then
    mkdir -p "$T/notorch/torch"
    echo 'raise ImportError("no torch here (test)")' > "$T/notorch/torch/__init__.py"
    PYTHONPATH="$T/notorch" KFORGE_PYTHON="$PYTHON3" "$KFORGE" import "$M" >"$T/out" 2>"$T/err"; rc=$?
    case "$rc:$(cat "$T/err")" in
        "2:kforge import: needs PyTorch, which "*"cannot import (no torch here (test)); install it with 'pip install torch'"*) ok "no torch: exit 2, says how to install it" ;;
        *) no "no torch: exit 2 with the install hint" "rc=$rc" "$(cat "$T/err")" ;;
    esac
else
    ok "# SKIP no python3"
fi
# 2: no Python at all
KFORGE_PYTHON="$T/no-such-python" "$KFORGE" import "$M" >/dev/null 2>"$T/err"; rc=$?
case "$rc:$(cat "$T/err")" in
    "2:kforge: cannot run the Python interpreter '$T/no-such-python'"*) ok "no python: exit 2" ;;
    *) no "no python: exit 2" "rc=$rc" "$(cat "$T/err")" ;;
esac
# 3: bad options
"$KFORGE" import >/dev/null 2>&1; a=$?
"$KFORGE" import a.py b.py >/dev/null 2>&1; b=$?
"$KFORGE" import --bogus a.py >/dev/null 2>&1; c=$?
"$KFORGE" export >/dev/null 2>&1; d=$?
"$KFORGE" export "$T" --to rust >/dev/null 2>&1; e=$?
if [ "$a$b$c$d$e" = 22222 ]; then ok "bad options: exit 2"; else no "bad options: exit 2" "got $a $b $c $d $e"; fi
# 4: not a run directory
"$KFORGE" export "$T" --to c >/dev/null 2>"$T/err"; rc=$?
case "$rc:$(cat "$T/err")" in
    "2:kforge: export: $T: not a finished run directory (cannot read $T/result.json"*) ok "export of a non-run: exit 2" ;;
    *) no "export of a non-run: exit 2" "rc=$rc" "$(cat "$T/err")" ;;
esac

# 5: a real run (built-in agent, cpu-simd, small, 1 iteration)
P="$KF_SRCDIR/problems/level2/12_Gemm_Multiply_LeakyReLU.json"
if "$KFORGE" run "$P" --backend cpu-simd --preset small --max-iterations 1 --no-baseline --out "$T/run" --quiet >"$T/log" 2>&1 &&
   grep -q '"verified":true' "$T/run/result.json"; then ok "kforge run: a verified cpu-simd kernel"
else no "kforge run" "$(tail -5 "$T/log")"; fi
# 6-7: --to c builds, and the example's sum is the reference's
if "$KFORGE" export "$T/run" --to c --out "$T/c" >"$T/out" 2>&1 && make -s -C "$T/c" example >"$T/mk" 2>&1; then
    ok "export --to c: header, source, example and Makefile build"
else no "export --to c builds" "$(cat "$T/out" "$T/mk")"; fi
got=$("$T/c/example" 2>&1)
# the example draws uniform [0,1) into every input, which is not the
# problem's distribution: compare with a C program over the same inputs instead
cat > "$T/check.c" <<'CEOF'
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "kf_12_gemm_multiply_leakyrelu.h"
#define P(n) kf_12_gemm_multiply_leakyrelu_##n
int main(void)
{
    long B = P(B), K = P(K), N = P(N);
    float *x = aligned_alloc(4096, 1 << 20), *W = aligned_alloc(4096, 1 << 20), *b = aligned_alloc(4096, 4096),
          *y = aligned_alloc(4096, 1 << 20);
    for (long i = 0; i < B * K; i++) x[i] = (float)((i * 7919) % 1000) / 1000.0f;
    for (long i = 0; i < N * K; i++) W[i] = (float)((i * 104729) % 2001 - 1000) / 16000.0f;
    for (long i = 0; i < N; i++) b[i] = (float)(i % 17) / 40.0f - 0.2f;
    if (kf_12_gemm_multiply_leakyrelu(x, W, b, y, LAST_ARG) != 0) return 2;
    double worst = 0;
    for (long i = 0; i < B; i++)
        for (long j = 0; j < N; j++) {
            double h = b[j];
            for (long k = 0; k < K; k++) h += (double)x[i * K + k] * W[j * K + k];
            h *= 2.0;
            h = h > 0 ? h : 0.1 * h;
            double e = fabs(h - y[i * N + j]) / (1e-2 + 1e-2 * fabs(h));
            if (!(e <= worst)) worst = e;
        }
    printf("worst %.3g\n", worst);
    return worst <= 1.0 ? 0 : 1;
}
CEOF
if cc -O2 -fopenmp -march=native -DLAST_ARG=2 -I"$T/c" -o "$T/c/check" "$T/check.c" "$T/c/kf_12_gemm_multiply_leakyrelu.c" \
      "$T/c/kernel.c" -lm 2>"$T/cc" && out=$("$T/c/check") &&
   echo "$got" | grep -q '^y: 42291 elements, sum'; then
    ok "export --to c: the kernel through the exported function matches a double reference ($out)"
else no "export --to c: results" "$(cat "$T/cc")" "$out" "$got"; fi
# 8: --to torch writes the package (no torch needed to write it)
if "$KFORGE" export "$T/run" --to torch --out "$T/t" --model "$M" >"$T/out" 2>&1 &&
   [ -f "$T/t/kf_12_gemm_multiply_leakyrelu/__init__.py" ] && [ -f "$T/t/kf_12_gemm_multiply_leakyrelu/spec.json" ] &&
   [ -f "$T/t/kf_12_gemm_multiply_leakyrelu/kernel.c" ] && [ -f "$T/t/test_kf_12_gemm_multiply_leakyrelu.py" ] &&
   [ -f "$T/t/kf_12_gemm_multiply_leakyrelu/_host_c.py" ] && [ -f "$T/t/kf_12_gemm_multiply_leakyrelu/_loadlib.py" ] &&
   tr -d ' \n' < "$T/t/kf_12_gemm_multiply_leakyrelu/spec.json" | grep -q '"backend":"cpu-simd","caller":"_host_c".*"name":"x","shape":\[127,250\]'; then
    ok "export --to torch: package, spec with the verified shapes, test"
else no "export --to torch" "$(cat "$T/out")"; fi
# 9: an existing --out is refused
"$KFORGE" export "$T/run" --to c --out "$T/c" >/dev/null 2>"$T/err"; rc=$?
case "$rc:$(cat "$T/err")" in
    "2:kforge: export: $T/c exists"*) ok "existing --out refused without --force" ;;
    *) no "existing --out refused" "rc=$rc" "$(cat "$T/err")" ;;
esac
# 10: a run without a verified kernel
mkdir -p "$T/failed"
cp "$T/run/problem.json" "$T/failed/"
tr -d '\n' < "$T/run/result.json" | sed 's/"best":{.*/"best":null}/' > "$T/failed/result.json"
"$KFORGE" export "$T/failed" --to c --out "$T/c2" >/dev/null 2>"$T/err"; rc=$?
case "$rc:$(cat "$T/err")" in
    "2:"*"the run has no verified kernel to export"*) ok "run without a verified kernel: exit 2" ;;
    *) no "run without a verified kernel: exit 2" "rc=$rc" "$(cat "$T/err")" "$(cat "$T/failed/result.json")" ;;
esac
# 11: the run records its backend's language and capabilities
if tr -d ' \n' < "$T/run/result.json" | grep -q '"backend_language":"c","backend_caps":\["host-entry","host-memory"\]'; then
    ok "result.json records backend_language and backend_caps"
else no "result.json: backend_language, backend_caps" "$(cat "$T/run/result.json")"; fi
# 12: a third-party backend's name with host-entry C: exported as host-entry C
mkdir -p "$T/acme"
cp "$T/run/problem.json" "$T/acme/" && cp -r "$T/run/steps" "$T/acme/"
tr -d '\n' < "$T/run/result.json" | sed 's/"backend":"cpu-simd"/"backend":"acme-cpu"/' > "$T/acme/result.json"
if "$KFORGE" export "$T/acme" --to c --out "$T/c4" >"$T/out" 2>&1 && grep -q "host-c kernel" "$T/out" &&
   make -s -C "$T/c4" example >"$T/mk" 2>&1 && "$T/c4/example" | grep -q '^y: 42291 elements'; then
    ok "a host-entry C run of a backend named acme-cpu exports and builds"
else no "third-party host-entry backend" "$(cat "$T/out" "$T/mk")"; fi
# 13: a run recorded before backend_language: the candidate says it (kernel.c, no plan)
tr -d '\n' < "$T/run/result.json" | sed 's/"backend_language":"c",//; s/"backend_caps":\[[^]]*\],//' > "$T/acme/result.json"
if ! grep -q backend_language "$T/acme/result.json" &&
   "$KFORGE" export "$T/acme" --to torch --out "$T/t4" >"$T/out" 2>&1 &&
   tr -d ' \n' < "$T/t4/kf_12_gemm_multiply_leakyrelu/spec.json" | grep -q '"kind":"host-c","language":"c","language_inferred_from_candidate":true'; then
    ok "an older run without backend_language: host-c inferred from the candidate"
else no "older run: inferred" "$(cat "$T/out")"; fi
# 14: a kernel plan's host code is its plugin's: a backend with no plugin
# here (a CUDA C plan recorded as language 'metal' of backend acme-gpu) is
# refused, naming it; so is a plan whose recorded language is not the one
# its backend's plugin declares (backend cuda, language metal)
mkdir -p "$T/acme-gpu/steps/0001-0" "$T/cu-metal/steps/0001-0"
for d in acme-gpu cu-metal; do
    cp "$T/run/problem.json" "$T/$d/"
    cp -r "$KF_SRCDIR/tests/candidates/cuda/gemm_mul_leakyrelu" "$T/$d/steps/0001-0/candidate"
done
tr -d '\n' < "$T/run/result.json" | sed 's/"backend":"cpu-simd"/"backend":"acme-gpu"/; s/"backend_language":"c"/"backend_language":"metal"/; s/"backend_caps":\[[^]]*\]/"backend_caps":["kernel-plan"]/; s#"dir":"steps[^"]*"#"dir":"steps/0001-0/candidate"#' > "$T/acme-gpu/result.json"
sed 's/"backend":"acme-gpu"/"backend":"cuda"/' "$T/acme-gpu/result.json" > "$T/cu-metal/result.json"
"$KFORGE" export "$T/acme-gpu" --to torch --out "$T/t5" >/dev/null 2>"$T/err"; rc=$?
"$KFORGE" export "$T/cu-metal" --to torch --out "$T/t6" >/dev/null 2>"$T/err2"; rc2=$?
case "$rc:$(cat "$T/err")" in
    "2:kforge: export: $T/acme-gpu: no plugin here writes the host code of this metal kernel plan: backend 'acme-gpu' has no plugin here, and no other plugin declaring 'metal' exports (looked in "*"); install one, or add its directory to KFORGE_PLUGIN_PATH")
        if [ ! -e "$T/t5/kf_12_gemm_multiply_leakyrelu/spec.json" ] && ! "$KFORGE" backends 2>/dev/null | grep -q "^cuda "; then
            ok "# SKIP a plan's language vs its plugin's: no cuda plugin built here"
        elif [ ! -e "$T/t5/kf_12_gemm_multiply_leakyrelu/spec.json" ] &&
             [ "$rc2" = 2 ] && grep -q "no plugin here writes the host code of this metal kernel plan: backend 'cuda''s plugin .*kf-cuda.so declares 'cuda-c', and no other" "$T/err2"; then
            ok "a kernel plan of a backend without a plugin here, or in another language than its plugin's: exit 2"
        else no "plan language vs plugin" "rc2=$rc2" "$(cat "$T/err2")"; fi ;;
    *) no "a kernel plan whose backend has no plugin here" "rc=$rc" "$(cat "$T/err")" ;;
esac

# 15-18: an OpenCL run (PoCL on the CI VM)
if "$KFORGE" backends 2>/dev/null | grep -q "^opencl "; then
    if "$KFORGE" run "$P" --backend opencl --preset small --max-iterations 1 --no-baseline --out "$T/orun" --quiet >"$T/log" 2>&1 &&
       tr -d ' \n' < "$T/orun/result.json" | grep -q '"backend_language":"opencl-c","backend_caps":\["kernel-plan"\]'; then
        ok "kforge run --backend opencl: a verified kernel plan, language recorded"
    else no "opencl run" "$(tail -5 "$T/log")"; fi
    if "$KFORGE" export "$T/orun" --to c --out "$T/oc" >"$T/out" 2>&1 && grep -q "opencl kernel" "$T/out" &&
       make -s -C "$T/oc" example CFLAGS="-O2 -Wall -Wextra -Werror -Wno-unused-parameter" >"$T/mk" 2>&1 &&
       "$T/oc/example" 0 | grep -q '^y: 42291 elements, sum'; then
        ok "opencl export --to c: header, source, example build (-Wall -Werror) and run"
    else no "opencl export --to c" "$(cat "$T/out" "$T/mk")"; fi
    if cc -O2 -DLAST_ARG=-1 -I"$T/oc" -o "$T/oc/check" "$T/check.c" "$T/oc/kf_12_gemm_multiply_leakyrelu.c" -lOpenCL -lm 2>"$T/cc" &&
       out=$(KFORGE_OPENCL_DEVICE=0 "$T/oc/check" 2>&1); then
        ok "opencl export --to c: the plan through the exported function matches a double reference ($out)"
    else no "opencl export --to c: results" "$(cat "$T/cc")" "$out"; fi
    if "$KFORGE" export "$T/orun" --to torch --out "$T/ot" --model "$M" >"$T/out" 2>&1 &&
       [ -f "$T/ot/kf_12_gemm_multiply_leakyrelu/_opencl.py" ] && [ -f "$T/ot/kf_12_gemm_multiply_leakyrelu/kernel.cl" ] &&
       [ ! -f "$T/ot/kf_12_gemm_multiply_leakyrelu/kforge-cpu.h" ] && [ -f "$T/ot/kf_12_gemm_multiply_leakyrelu/_loadlib.py" ] &&
       cmp -s "$T/ot/kf_12_gemm_multiply_leakyrelu/_opencl.py" "$KF_SRCDIR/plugins/opencl/export/kf_torch_opencl.py" &&
       tr -d ' \n' < "$T/ot/kf_12_gemm_multiply_leakyrelu/spec.json" | grep -q '"kind":"opencl","language":"opencl-c","backend":"opencl","caller":"_opencl".*"launches":\[{"kernel":"[a-z0-9_]*","work_dim":[123],"global":\[[0-9]'; then
        ok "opencl export --to torch: package with the plugin's caller, the source and the resolved plan"
    else no "opencl export --to torch" "$(cat "$T/out")"; fi
else
    for i in 1 2 3 4; do ok "# SKIP no opencl backend/device"; done
fi

# 19-21: a CUDA C kernel plan (hand-written candidate in a run directory)
if "$KFORGE" backends 2>/dev/null | grep -q "^cuda "; then
    mkdir -p "$T/cu/steps/0001-0"
    cp "$T/run/problem.json" "$T/cu/"
    cp -r "$KF_SRCDIR/tests/candidates/cuda/gemm_mul_leakyrelu" "$T/cu/steps/0001-0/candidate"
    tr -d '\n' < "$T/run/result.json" | sed 's/"backend":"cpu-simd"/"backend":"cuda"/; s/"backend_language":"c"/"backend_language":"cuda-c"/; s/"backend_caps":\[[^]]*\]/"backend_caps":["kernel-plan"]/; s#"dir":"steps[^"]*"#"dir":"steps/0001-0/candidate"#' > "$T/cu/result.json"
    if "$KFORGE" export "$T/cu" --to torch --out "$T/ct" --model "$M" >"$T/out" 2>&1 &&
       [ -f "$T/ct/kf_12_gemm_multiply_leakyrelu/_cuda.py" ] && [ -f "$T/ct/kf_12_gemm_multiply_leakyrelu/kf_epilogue.cuh" ] &&
       cmp -s "$T/ct/kf_12_gemm_multiply_leakyrelu/_cuda.py" "$KF_SRCDIR/plugins/cuda/export/kf_torch_cuda.py" &&
       tr -d ' \n' < "$T/ct/kf_12_gemm_multiply_leakyrelu/spec.json" > "$T/cspec"; then
        ok "cuda export --to torch: package with _cuda.py, the sources and spec.json"
    else no "cuda export --to torch" "$(cat "$T/out")"; fi
    # B=127 K=250 N=333 at small: the grid rounded up to 16, K bound to 250, 16*K*4 shared bytes
    if grep -q '"kind":"cuda","language":"cuda-c","backend":"cuda","caller":"_cuda"' "$T/cspec" && grep -q '"nvrtc_options":\["--std=c++17","-default-device"\]' "$T/cspec" &&
       grep -q '"global":\[336,128\],"local":\[16,16\],"global_expr":\["round_up(N,16)","round_up(B,16)"\]' "$T/cspec" &&
       grep -q '{"kind":"int","value":250,"from":"K"}' "$T/cspec" && grep -q '{"kind":"float","value":0.1' "$T/cspec" &&
       grep -q '{"kind":"local","bytes":16000,"from":"16\*K\*4"}\],"dyn_shared_bytes":16000' "$T/cspec"; then
        ok "cuda export: the plan resolved at the preset (grid, block, ints, floats, dynamic shared bytes)"
    else no "cuda export: resolved plan" "$(cat "$T/cspec")"; fi
    "$KFORGE" export "$T/cu" --to c --out "$T/cc2" >/dev/null 2>"$T/err"; rc=$?
    case "$rc:$(cat "$T/err")" in
        "2:"*"--to c is not written for CUDA C kernel plans; use --to torch"*) ok "cuda export --to c: exit 2, says to use --to torch" ;;
        *) no "cuda --to c refused" "rc=$rc" "$(cat "$T/err")" ;;
    esac
else
    for i in 1 2 3; do ok "# SKIP no cuda plugin built here (configure --with-cuda)"; done
fi

# 22-23: 30_Gemm_GroupNorm_Hardtanh at small from the verified test candidates
# (tests/plugins: test_opencl_eval, test_cpu_simd) in run directories
mkrun() {   # mkrun DIR BACKEND LANGUAGE CAP CANDIDATE_DIR
    mkdir -p "$1/steps/0001-0"
    cp "$KF_SRCDIR/problems/level2/30_Gemm_GroupNorm_Hardtanh.json" "$1/problem.json"
    cp -r "$5" "$1/steps/0001-0/candidate"
    printf '{"problem":"30_Gemm_GroupNorm_Hardtanh","preset":"small","backend":"%s","backend_language":"%s","backend_caps":["%s"],"best":{"dir":"steps/0001-0/candidate","verified":true}}\n' \
        "$2" "$3" "$4" > "$1/result.json"
}
mkrun "$T/gn-ocl" opencl opencl-c kernel-plan "$KF_SRCDIR/tests/candidates/opencl/group_norm"
mkrun "$T/gn-cpu" cpu-simd c host-entry "$KF_SRCDIR/tests/candidates/cpu-simd/gemm_groupnorm_hardtanh"
# the same plan recorded by the levelzero backend (no export_files): exported
# by the plugin that declares its language and has them, opencl
mkrun "$T/gn-ze" levelzero opencl-c kernel-plan "$KF_SRCDIR/tests/candidates/opencl/group_norm"
if "$KFORGE" export "$T/gn-ocl" --to c --out "$T/gno" >"$T/out" 2>&1 &&
   grep -q "opencl kernel; from the opencl plugin: kf_30_gemm_groupnorm_hardtanh.h, kf_30_gemm_groupnorm_hardtanh.c, example.c, Makefile)$" "$T/out" &&
   make -s -C "$T/gno" example CFLAGS="-O2 -Wall -Wextra -Werror" >"$T/mk" 2>&1 &&
   grep -q 'cl_float v = (cl_float)1.0000000000000001e-05;' "$T/gno/kf_30_gemm_groupnorm_hardtanh.c" &&
   "$KFORGE" export "$T/gn-ze" --to c --out "$T/gnz" >"$T/out" 2>&1 && grep -q "from the opencl plugin" "$T/out" &&
   cmp -s "$T/gno/kf_30_gemm_groupnorm_hardtanh.c" "$T/gnz/kf_30_gemm_groupnorm_hardtanh.c" &&
   { [ ! -f "$KF_BUILDDIR/plugins/levelzero/.libs/kf-levelzero.so" ] ||
     { KFORGE_PLUGIN_PATH="$KF_BUILDDIR/plugins/levelzero/.libs" "$KFORGE" export "$T/gn-ze" --to c --out "$T/gnz2" >/dev/null 2>"$T/err"
       [ $? = 2 ] && grep -q "no plugin here writes the host code of this opencl-c kernel plan: backend 'levelzero''s plugin .*kf-levelzero.so has no export_files, and no other plugin declaring 'opencl-c' exports" "$T/err"; }; }; then
    ok "opencl export --to c: two launches, a scratch buffer and a float argument build with -Werror (a levelzero run's too)"
else no "opencl export --to c: group_norm" "$(cat "$T/out" "$T/mk")"; fi
if "$KFORGE" backends 2>/dev/null | grep -q "^opencl "; then
    if "$KFORGE" export "$T/gn-cpu" --to c --out "$T/gnc" >"$T/out" 2>&1 && make -s -C "$T/gnc" example >"$T/mk" 2>&1 &&
       a=$("$T/gno/example" 2>&1) && b=$("$T/gnc/example" 2>&1) &&
       awk -v a="${a##* }" -v b="${b##* }" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1e-3 * (b < 0 ? -b : b) + 1e-2) }'; then
        ok "opencl export --to c: group_norm's sums equal the cpu-simd candidate's ($a; $b)"
    else no "group_norm: opencl vs cpu-simd exports" "$(cat "$T/out" "$T/mk")" "$a" "$b"; fi
else
    ok "# SKIP no opencl backend/device"
fi
# 24-31: kforge import --class/--inputs/--init-args refused before Python runs
# (KFORGE_PYTHON points nowhere: reaching the helper would say so instead)
imp_bad() {   # NAME EXPECTED-MESSAGE ARGS...
    local name=$1 want=$2; shift 2
    KFORGE_PYTHON="$T/no-such-python" "$KFORGE" import "$@" >"$T/out" 2>"$T/err"; rc=$?
    if [ "$rc" = 2 ] && [ "$(cat "$T/err")" = "$want" ] && [ ! -s "$T/out" ]; then ok "$name"
    else no "$name" "rc=$rc" "$(cat "$T/err")"; fi
}
imp_bad "pkg.module:NAME without --inputs" \
    "kforge: import: torch.nn:Linear: a module's class needs --inputs SPEC (its example inputs' shapes, e.g. 128x256,256)" \
    torch.nn:Linear
imp_bad "pkg.module:NAME with --class" \
    "kforge: import: torch.nn:Linear names its class after ':'; give no --class with it" \
    torch.nn:Linear --class Linear --inputs 8x4
spec_msg() { echo "kforge: import: --inputs $1: not [rand:|randn:]SIZExSIZE... (rank 1 to 4, positive integer sizes) joined by ',', e.g. 128x256,256"; }
bad=""
for s in 128y256 0x4 8x 8,,4 , "" rand: normal:8x4 1x2x3x4x5 8x-4 "8 x4" 0128 8x4,; do
    KFORGE_PYTHON="$T/no-such-python" "$KFORGE" import "$M" --class Model --inputs "$s" >/dev/null 2>"$T/err"; rc=$?
    [ "$rc" = 2 ] && [ "$(cat "$T/err")" = "$(spec_msg "$s")" ] || bad="$bad [$s] rc=$rc $(cat "$T/err")"
done
if [ -z "$bad" ]; then ok "13 malformed --inputs SPECs: exit 2 naming the SPEC"; else no "malformed --inputs refused" "$bad"; fi
# a well-formed SPEC (rand:, randn:, rank 4) gets past the checks to the (missing) Python
KFORGE_PYTHON="$T/no-such-python" "$KFORGE" import "$M" --class Model --inputs 'rand:2x3x4x5,randn:7,9' \
    --init-args '[1, [2, 3], {"a": 1.5}, "s", null]' >/dev/null 2>"$T/err"; rc=$?
case "$rc:$(cat "$T/err")" in
    "2:kforge: cannot run the Python interpreter '$T/no-such-python'"*) ok "a good SPEC and JSON list pass the checks" ;;
    *) no "a good SPEC and JSON list pass the checks" "rc=$rc" "$(cat "$T/err")" ;;
esac
imp_bad "--init-args not JSON" \
    "kforge: import: --init-args [256,: not a JSON list of the constructor's arguments (e.g. '[256, 512]')" \
    "$M" --class Model --inputs 8x4 --init-args '[256,'
imp_bad "--init-args JSON but not a list" \
    "kforge: import: --init-args {\"n\": 3}: not a JSON list of the constructor's arguments (e.g. '[256, 512]')" \
    "$M" --init-args '{"n": 3}'
"$KFORGE" import "$M" --class >/dev/null 2>"$T/err"; rc=$?
if [ "$rc" = 2 ] && [ "$(head -1 "$T/err")" = "kforge: import: option '--class' needs a value" ] &&
   grep -q '^       kforge import pkg.module:NAME --inputs SPEC \[--init-args JSON\]' "$T/err"; then
    ok "--class without a value: exit 2, then the usage with the new forms"
else no "--class without a value" "rc=$rc" "$(cat "$T/err")"; fi
imp_bad "--class not a class name" "kforge: import: --class 9x: not a Python class name" "$M" --class 9x --inputs 8

# 32: a third-party plugin (tests/e2e/fixtures/kf-fixture-export.c, language
# 'metal') exports its own plans: --to c writes what its export_files
# returns (the plan as handed over, resolved at the preset, with the
# expressions), --to torch its caller, named in spec.json with its member
FX="$KF_BUILDDIR/tests/e2e/fixtures/.libs"
mkdir -p "$T/fx/steps/0001-0"
cp "$T/run/problem.json" "$T/fx/"
cp -r "$KF_SRCDIR/tests/candidates/cuda/gemm_mul_leakyrelu" "$T/fx/steps/0001-0/candidate"
sed 's/"backend":"acme-gpu"/"backend":"fixture-export"/' "$T/acme-gpu/result.json" > "$T/fx/result.json"
if KFORGE_PLUGIN_PATH="$FX:$KFORGE_PLUGIN_PATH" "$KFORGE" export "$T/fx" --to c --out "$T/fxc" >"$T/out" 2>&1 &&
   grep -q "^wrote $T/fxc (metal kernel; from the fixture-export plugin: plan.txt)$" "$T/out" &&
   [ -f "$T/fxc/kernel.cu" ] && [ -f "$T/fxc/kf_epilogue.cuh" ] &&
   grep -q '^kf_12_gemm_multiply_leakyrelu 12_Gemm_Multiply_LeakyReLU preset small ' "$T/fxc/plan.txt" &&
   grep -q '^dim K=250$' "$T/fxc/plan.txt" && grep -q '^input x 31750$' "$T/fxc/plan.txt" &&
   grep -q '^launch gemm_mul_lrelu global 336,128 local 16,16$' "$T/fxc/plan.txt" &&
   grep -q '^  arg int 250 from K$' "$T/fxc/plan.txt" && grep -q '^  arg local 16000 from 16\*K\*4$' "$T/fxc/plan.txt" &&
   KFORGE_PLUGIN_PATH="$FX:$KFORGE_PLUGIN_PATH" "$KFORGE" export "$T/fx" --to torch --out "$T/fxt" >"$T/out" 2>&1 &&
   [ -f "$T/fxt/kf_12_gemm_multiply_leakyrelu/_metal.py" ] && [ -f "$T/fxt/kf_12_gemm_multiply_leakyrelu/_loadlib.py" ] &&
   tr -d ' \n' < "$T/fxt/kf_12_gemm_multiply_leakyrelu/spec.json" |
       grep -q '"kind":"metal","language":"metal","backend":"fixture-export","caller":"_metal".*"metal_options":\["-O3"\]'; then
    ok "a third-party plugin of another language exports its plans (--to c: its files; --to torch: its caller and spec member)"
else no "third-party plugin export" "$(cat "$T/out")" "$(cat "$T/fxc/plan.txt" 2>&1)"; fi
# 33-34: runs recorded before result.json had backend_language and backend_caps
# (kforge before a0c15cb, e.g. bench/results/h100-cuda-2026-11-23): the plan's
# language comes from its first source's suffix, .cu -> cuda-c, .cl -> opencl-c
old_export() {   # old_export NAME BACKEND LANGUAGE CANDIDATE_DIR PROBLEM PKG: export --to torch, check spec.json
    local d="$T/old-$2"
    mkdir -p "$d/steps/0001-0"
    cp "$5" "$d/problem.json"
    cp -r "$4" "$d/steps/0001-0/candidate"
    printf '{"problem":"x","preset":"small","backend":"%s","best":{"dir":"steps/0001-0/candidate","verified":true}}\n' \
        "$2" > "$d/result.json"
    if "$KFORGE" export "$d" --to torch --out "$d-t" >"$T/out" 2>&1 &&
       tr -d ' \n' < "$d-t/$6/spec.json" |
           grep -q "\"kind\":\"$2\",\"language\":\"$3\",\"language_inferred_from_candidate\":true,\"backend\":\"$2\",\"caller\":\"_$2\""; then
        ok "$1"
    else no "$1" "$(cat "$T/out")"; fi
}
if "$KFORGE" backends 2>/dev/null | grep -q "^cuda "; then
    old_export "a cuda run recorded before backend_language: cuda-c inferred from kernel.cu, exported by the cuda plugin" \
        cuda cuda-c "$KF_SRCDIR/tests/candidates/cuda/gemm_mul_leakyrelu" "$T/run/problem.json" kf_12_gemm_multiply_leakyrelu
else
    ok "# SKIP no cuda plugin built here (configure --with-cuda)"
fi
old_export "an opencl run recorded before backend_language: opencl-c inferred from kernel.cl" \
    opencl opencl-c "$KF_SRCDIR/tests/candidates/opencl/group_norm" \
    "$KF_SRCDIR/problems/level2/30_Gemm_GroupNorm_Hardtanh.json" kf_30_gemm_groupnorm_hardtanh
tap_exit
