#!/bin/bash
# s23-tma device call 2 (run from the lead's checkout with carry .carry-tma and
# .carry): the standalone TMA test (tma_test.cu) while this branch's kforge
# (make dist tarball) builds, then kforge run at the kernelbench preset, one
# step each, problems 9 and 12: the default point (BF16 wgmma, cp.async
# loads) and the same point with tc_wgmma 2 (TMA loads)
top=$PWD
( cd .carry-tma && nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a tma_test.cu -lcublas -lcuda -o /tmp/tt > $OUT/standalone.txt 2>&1;
  timeout 45 /tmp/tt >> $OUT/standalone.txt 2>&1 ) &
SA=$!
P9=problems/level2/09_Matmul_Subtract_Multiply_ReLU.json
P12=problems/level2/12_Gemm_Multiply_LeakyReLU.json
export P9 P12 SA
TARBALL=$top/.carry-tma/kforge-0.1.0.tar.gz MODE=exec CMD='
cd /tmp; mkdir -p rr; R=$OLDPWD
echo "== $(date +%T) build done"; while kill -0 $SA 2>/dev/null; do sleep 1; done
run() { n=$1; p=$2; shift 2; echo "== $(date +%T) $n"; timeout 27 kforge run $R/$p --backend cuda --preset kernelbench --max-iterations 1 --max-time 24 --no-baseline --target 0 --out /tmp/rr/$n "$@" > /tmp/rr/$n.txt 2>&1; echo "rc=$?"; grep -E "^\[|best|rror" /tmp/rr/$n.txt | tail -n 6; }
run p9-cpasync $P9
run p9-tma $P9 --agent "builtin:{\"tc_wgmma\":2}"
run p12-cpasync $P12
run p12-tma $P12 --agent "builtin:{\"tc_wgmma\":2}"
echo "== $(date +%T) done"
' timeout 172 bash bench/gpu/run_gpu_suite.sh
wait; cat $OUT/standalone.txt
tar czf $OUT/runs.tgz -C /tmp rr 2>/dev/null
ls $OUT
