#!/bin/bash
# s22-wgmma device call 2: the standalone wgmma test (real check: x W^T + b), then
# this branch's kforge (make dist tarball) on problems 9 (3 steps), 17 and 30 (TF32 start)
top=$PWD
# the standalone runs on the GPU while the host builds kforge
( cd .carry-wgmma && nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a wgmma_test.cu -lcublas -o /tmp/wt > $OUT/wgmma2.txt 2>&1;
  timeout 40 /tmp/wt >> $OUT/wgmma2.txt 2>&1 ) &
SA=$!
P9=problems/level2/09_Matmul_Subtract_Multiply_ReLU.json
P17=problems/level1/17_Matmul_with_transposed_B.json
P30=problems/level2/30_Gemm_GroupNorm_Hardtanh.json
export P9 P17 P30 SA
TARBALL=$top/.carry-wgmma/kforge-0.1.0.tar.gz MODE=exec CMD='
cd /tmp; mkdir -p rr; R=$OLDPWD
echo "== $(date +%T) build done"; wait_sa() { while kill -0 $SA 2>/dev/null; do sleep 1; done; }; wait_sa
timeout 45 kforge run $R/$P9 --backend cuda --preset kernelbench --max-iterations 3 --max-time 38 --no-baseline --target 0 --out /tmp/rr/r9 > /tmp/rr/r9.txt 2>&1; grep -E "^\[|best|rror" /tmp/rr/r9.txt | tail -n 14
echo "== $(date +%T)"
timeout 25 kforge run $R/$P17 --backend cuda --preset kernelbench --max-iterations 1 --max-time 22 --no-baseline --target 0 --out /tmp/rr/r17 > /tmp/rr/r17.txt 2>&1; grep -E "^\[|best|rror" /tmp/rr/r17.txt | tail -n 6
echo "== $(date +%T)"
timeout 28 kforge run $R/$P30 --backend cuda --preset kernelbench --max-iterations 1 --max-time 25 --no-baseline --target 0 --agent "builtin:{\"precision\":2}" --out /tmp/rr/r30 > /tmp/rr/r30.txt 2>&1; grep -E "^\[|best|rror" /tmp/rr/r30.txt | tail -n 6
echo "== $(date +%T)"
' timeout 168 bash bench/gpu/run_gpu_suite.sh
wait; cat $OUT/wgmma2.txt
tar czf $OUT/runs.tgz -C /tmp rr 2>/dev/null
ls $OUT
