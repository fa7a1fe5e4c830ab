#!/bin/bash
# s22-wgmma device call 3: the emitted problem-9 kernels timed one by one (k9.cu from call 2's
# run, and with __launch_bounds__(256, 1)); then this branch's kforge on the GEMM+GroupNorm
# problems 62 and 88 (BF16 fails -> TF32 wgmma), 2 steps each
top=$PWD
( cd .carry-wgmma && for v in k9 k9lb; do nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -DKFILE="\"$v.cu\"" -DVARIANT="\"$v\"" harness.cu -o /tmp/h_$v || echo "nvcc $v failed"; done
  for v in k9 k9lb k9; do timeout 20 /tmp/h_$v; done > $OUT/harness.txt 2>&1 ) &
SA=$!
export SA
TARBALL=$top/.carry-wgmma/kforge-0.1.0.tar.gz MODE=exec CMD='
R=$PWD; mkdir -p /tmp/rr
echo "== $(date +%T) build done"; while kill -0 $SA 2>/dev/null; do sleep 1; done
for n in 62 88; do
  f=$(ls $R/problems/level2/${n}_*.json)
  timeout 60 kforge run $f --backend cuda --preset kernelbench --max-iterations 2 --max-time 55 --no-baseline --target 0 --out /tmp/rr/r$n > /tmp/rr/r$n.txt 2>&1; grep -E "^\[|best|rror" /tmp/rr/r$n.txt | tail -n 8
  echo "== $(date +%T)"
done
' timeout 168 bash bench/gpu/run_gpu_suite.sh
wait; cat $OUT/harness.txt
tar czf $OUT/runs3.tgz -C /tmp rr 2>/dev/null
