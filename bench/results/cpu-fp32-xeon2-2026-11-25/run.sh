#!/bin/sh
# the runs of this record (README.md), from the top of a configured build tree
# (micro.sh needs tests/golden/emit_golden):  sh bench/results/cpu-fp32-xeon2-2026-11-25/run.sh > micro.txt
cd "$(dirname "$0")/../../.."
R=bench/results/cpu-fp32-xeon2-2026-11-25
DEF='{"fusion":1,"precision":0,"mc":516,"nc":512,"kc":512,"mr":12,"nr":32,"pack":1,"threads":0,"loop_order":1,"unroll":1}'
AVX2='{"fusion":1,"precision":0,"mc":516,"nc":256,"kc":1024,"mr":6,"nr":16,"pack":1,"threads":0,"loop_order":1,"unroll":1}'
for round in 1 2; do
for p in 09_Matmul_Subtract_Multiply_ReLU 12_Gemm_Multiply_LeakyReLU 99_Matmul_GELU_Softmax; do
    for t in 1 2; do
        echo "== $p threads $t round $round load $(cut -d' ' -f1-3 /proc/loadavg) $(date -u +%H:%M:%S)"
        OMP_WAIT_POLICY=passive sh bench/cpu_gemm/micro.sh problems/level2/$p.json cpu $t 15 \
            before=@$R/before-503dcad-$p.txt after="$DEF" avx2:x86-64-v3="$AVX2"
    done
done
done
