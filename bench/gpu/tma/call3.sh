#!/bin/bash
# s23-tma device call 3 (carry .carry-tma and .carry): this branch's kforge, one
# step each at the kernelbench preset: the TMA point at 128 x 256 (problems 9
# and 12; the standalone ran it at 198 us), TF32 with TMA on problem 12, and
# problem 59 (x 128 x 32768, W 32768 x 32768) TF32 with cp.async and with TMA
top=$PWD
P9=problems/level2/09_Matmul_Subtract_Multiply_ReLU.json
P12=problems/level2/12_Gemm_Multiply_LeakyReLU.json
P59=problems/level2/59_Matmul_Swish_Scaling.json
export P9 P12 P59
TARBALL=$top/.carry-tma/kforge-0.1.0.tar.gz MODE=exec CMD='
cd /tmp; mkdir -p rr; R=$OLDPWD
echo "== $(date +%T) build done"
run() { n=$1; t=$2; p=$3; shift 3; echo "== $(date +%T) $n"; timeout $t kforge run $R/$p --backend cuda --preset kernelbench --max-iterations 1 --max-time $((t-3)) --no-baseline --target 0 --out /tmp/rr/$n "$@" > /tmp/rr/$n.txt 2>&1; echo "rc=$?"; grep -E "^\[|best|rror" /tmp/rr/$n.txt | tail -n 6; }
run p9-tma-bn256 24 $P9 --agent "builtin:{\"tc_wgmma\":2,\"tc_bn\":256}"
run p12-tma-bn256 24 $P12 --agent "builtin:{\"tc_wgmma\":2,\"tc_bn\":256}"
run p12-tma-tf32 24 $P12 --agent "builtin:{\"precision\":2,\"tc_wgmma\":2}"
run p59-tf32-cpasync 45 $P59 --agent "builtin:{\"precision\":2}"
run p59-tf32-tma 45 $P59 --agent "builtin:{\"precision\":2,\"tc_wgmma\":2}"
echo "== $(date +%T) done"
' timeout 174 bash bench/gpu/run_gpu_suite.sh
tar czf $OUT/runs.tgz -C /tmp rr 2>/dev/null
ls $OUT
