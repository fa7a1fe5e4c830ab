#!/bin/bash
# The column order's KC for AVX2's 6 x 16 tile on the 2-core Zen 3 VM: problem 40's GEMM
# (2048 x 1024 -> 1024) and 9's (512 x 2048 -> 2048) at explicit points, each line's kernels in
# turns beside OpenBLAS sgemm and the FMA peak (bench/cpu_gemm/micro.sh, 11 reps, 2 threads),
# each line twice.  Needs a configured build with tests/golden/emit_golden (KF_BUILDDIR).
cd "$(dirname "$0")/../../.."
O=bench/results/zen3-gemm-kc-2026-11-30/out; mkdir -p $O
{ date -u +%FT%TZ; git log -1 --format='%H %s' | cut -c1-100; lscpu | grep -E 'Model name|^CPU\(s\)|Flags' | cut -c1-120; uptime; } > $O/machine.txt
B40='"backend":"cpu-simd","fusion":2,"loop_order":1,"mc":2046,"nc":64'
B9='"backend":"cpu-simd","fusion":1,"loop_order":1,"mc":516,"nc":128'
{
for i in 1 2; do
echo "== 40 (2048 x 1024 -> 1024), column order, NC 64, KC 1024 / 512 / 256, and the block order MC 72 NC 256 KC 384"
sh bench/cpu_gemm/micro.sh problems/level2/40_Matmul_Scaling_ResidualAdd.json cpu 2 11 col1024="{$B40,\"kc\":1024}" \
   col512="{$B40,\"kc\":512}" col256="{$B40,\"kc\":256}" blk='{"backend":"cpu-simd","fusion":2,"loop_order":0,"mc":72,"nc":256,"kc":384}' 2>&1 | grep -E '^(fma|col|blk|openblas)'
done
for i in 1 2; do
echo "== 9 (512 x 2048 -> 2048), column order, NC 128, KC 1024 / 512 / 680 / 344"
sh bench/cpu_gemm/micro.sh problems/level2/09_Matmul_Subtract_Multiply_ReLU.json cpu 2 11 col1024="{$B9,\"kc\":1024}" \
   col512="{$B9,\"kc\":512}" col680="{$B9,\"kc\":680}" col344="{$B9,\"kc\":344}" 2>&1 | grep -E '^(fma|col|openblas)'
done
} | tee $O/micro.txt
uptime >> $O/machine.txt
