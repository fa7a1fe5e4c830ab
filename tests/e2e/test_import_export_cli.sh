#!/bin/sh
# tests/e2e/test_import_export_cli.sh — kforge import and export without
# PyTorch: import says how to get it (exit 2) when torch cannot be imported
# or no Python runs; bad options exit 2; export of a real cpu-simd run
# --to c builds and its example's sums match the reference's (within the
# problem's tolerance), --to torch writes the package; a run without a
# verified kernel, a missing run and an existing --out are refused.
. "$KF_SRCDIR/tests/e2e/tap.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
echo "1..11"
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
cat > "$T/c/check.c" <<'CEOF'
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
    if (kf_12_gemm_multiply_leakyrelu(x, W, b, y, 2) != 0) return 2;
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
if cc -O2 -fopenmp -march=native -I"$T/c" -o "$T/c/check" "$T/c/check.c" "$T/c/kf_12_gemm_multiply_leakyrelu.c" \
      "$T/c/kernel.c" -lm 2>"$T/cc" && out=$("$T/c/check") &&
   echo "$got" | grep -q '^y: 42291 elements, sum'; then
    ok "export --to c: the kernel through the exported function matches a double reference ($out)"
else no "export --to c: results" "$(cat "$T/cc")" "$out" "$got"; fi
# 8: --to torch writes the package (no torch needed to write it)
if "$KFORGE" export "$T/run" --to torch --out "$T/t" --model "$M" >"$T/out" 2>&1 &&
   [ -f "$T/t/kf_12_gemm_multiply_leakyrelu/__init__.py" ] && [ -f "$T/t/kf_12_gemm_multiply_leakyrelu/spec.json" ] &&
   [ -f "$T/t/kf_12_gemm_multiply_leakyrelu/kernel.c" ] && [ -f "$T/t/test_kf_12_gemm_multiply_leakyrelu.py" ] &&
   tr -d ' \n' < "$T/t/kf_12_gemm_multiply_leakyrelu/spec.json" | grep -q '"name":"x","shape":\[127,250\]'; then
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
# 11: another backend's run
sed 's/"backend":"cpu-simd"/"backend":"opencl"/' "$T/run/result.json" > "$T/failed/result.json"
"$KFORGE" export "$T/failed" --to c --out "$T/c3" >/dev/null 2>"$T/err"; rc=$?
case "$rc:$(cat "$T/err")" in
    "2:"*"export is implemented for cpu-simd kernels only"*) ok "opencl run: exit 2, cpu-simd only" ;;
    *) no "opencl run refused" "rc=$rc" "$(cat "$T/err")" ;;
esac
tap_exit
