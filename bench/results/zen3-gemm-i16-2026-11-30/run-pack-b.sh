#!/bin/bash
# i16's B packer: one scalar store a pair (ac7df1d, kernels/59_i16_ac7df1d.g: emit_golden's output
# at that commit) against eight columns' pairs moved 8 x 8 through kf_tr8x8_regs (the tree this
# runs from), beside the fp32 kernel and OpenBLAS: problem 59's GEMM (64 x 4096 -> 8192, the
# weights 128 MiB, packed for 64 rows), column order MC 66 NC 128 KC 1024, 2 threads, 11 reps a
# line, three lines.  Needs a configured build (KF_BUILDDIR) with tests/golden/emit_golden.
cd "$(dirname "$0")/../../.."
R=bench/results/zen3-gemm-i16-2026-11-30; O=$R/out; mkdir -p $O
{ date -u +%FT%TZ; git log -1 --format='%H %s' | cut -c1-100; git status --short | head -5; uptime; } > $O/machine-pack-b.txt
B59='"backend":"cpu-simd","fusion":1,"loop_order":1,"mc":66,"nc":128'
for i in 1 2 3; do
echo "== 59 (64 x 4096 -> 8192), column order, KC 1024: fp32, i16 at ac7df1d (scalar pair stores), i16 now (8 x 8 transposes)"
sh bench/cpu_gemm/micro.sh problems/level2/59_Matmul_Swish_Scaling.json cpu 2 11 f1024="{$B59,\"kc\":1024}" \
   i_scalar=@$R/kernels/59_i16_ac7df1d.g i_tr8="{$B59,\"kc\":1024,\"precision\":10}" 2>&1 | grep -E '^(fma|f1024|i_|openblas)'
done | tee $O/pack-b.txt
uptime >> $O/machine-pack-b.txt
