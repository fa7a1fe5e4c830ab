#!/bin/bash
# Precision i16 (int16 pairs on AVX2's vpmaddwd, core/agent/builtin/emit/cpu_gemm_i16.c) on the
# 2-core Zen 3 VM (AVX2 + FMA, no AVX-512, no bf16 units), issue 15, 2026-11-30:
#  1. intdot.c: the register-only rates of FMA, vpmaddwd + vpaddd and the int8 chain, one thread;
#  2. uk_i16.c: the 6 x 16 micro-kernels alone in L1 (fp32, i16 in intrinsics, i16 in assembly);
#  3. bench/cpu_gemm/micro.sh: problem 9's GEMM (512 x 2048 -> 2048) and 40's (2048 x 1024 ->
#     1024) at explicit points, fp32 against i16, in turns beside OpenBLAS sgemm and the FMA
#     peak, 2 threads, each line twice.  Needs a configured build (KF_BUILDDIR) with
#     tests/golden/emit_golden.
cd "$(dirname "$0")/../../.."
R=bench/results/zen3-gemm-i16-2026-11-30; O=$R/out; mkdir -p $O; T=$(mktemp -d)
{ date -u +%FT%TZ; git log -1 --format='%H %s' | cut -c1-100; lscpu | grep -E 'Model name|^CPU\(s\)|Flags' | cut -c1-120; uptime; } > $O/machine.txt
cc -O2 $R/intdot.c -o $T/intdot && cc -std=gnu11 -O3 -march=native $R/uk_i16.c -o $T/uk_i16 || exit 1
B9='"backend":"cpu-simd","fusion":1,"loop_order":1,"mc":516,"nc":128'
B40='"backend":"cpu-simd","fusion":2,"loop_order":1,"mc":2046,"nc":64'
{
echo "== intdot (register-only, one thread)"; $T/intdot
echo "== uk_i16 (6 x 16 in L1, one thread)"; $T/uk_i16 512; $T/uk_i16 1024
for i in 1 2; do
echo "== 9 (512 x 2048 -> 2048), column order, NC 128: fp32 KC 512, i16 KC 512 / 1024 / 256"
sh bench/cpu_gemm/micro.sh problems/level2/09_Matmul_Subtract_Multiply_ReLU.json cpu 2 11 f512="{$B9,\"kc\":512}" \
   i512="{$B9,\"kc\":512,\"precision\":10}" i1024="{$B9,\"kc\":1024,\"precision\":10}" i256="{$B9,\"kc\":256,\"precision\":10}" 2>&1 | grep -E '^(fma|f512|i[0-9]|openblas)'
done
for i in 1 2; do
echo "== 40 (2048 x 1024 -> 1024), column order, NC 64: fp32 KC 512, i16 KC 512 / 1024"
sh bench/cpu_gemm/micro.sh problems/level2/40_Matmul_Scaling_ResidualAdd.json cpu 2 11 f512="{$B40,\"kc\":512}" \
   i512="{$B40,\"kc\":512,\"precision\":10}" i1024="{$B40,\"kc\":1024,\"precision\":10}" 2>&1 | grep -E '^(fma|f512|i[0-9]|openblas)'
done
} | tee $O/run.txt
uptime >> $O/machine.txt; rm -rf $T
