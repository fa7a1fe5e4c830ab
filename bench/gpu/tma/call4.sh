#!/bin/bash
# s23-tma device call 4 (carry .carry-tma and .carry): problem 59 (x 128 x 32768,
# W 32768 x 32768) TF32 with TMA, then with cp.async, one step each; the first
# run fills the reference cache (XDG_CACHE_HOME) the second reads (call 3 gave
# each 45 s: both timed out while evaluating)
top=$PWD
P59=problems/level2/59_Matmul_Swish_Scaling.json
export P59
TARBALL=$top/.carry-tma/kforge-0.1.0.tar.gz MODE=exec CMD='
cd /tmp; mkdir -p rr; R=$OLDPWD
echo "== $(date +%T) build done"
run() { n=$1; t=$2; p=$3; shift 3; echo "== $(date +%T) $n"; timeout $t kforge run $R/$p --backend cuda --preset kernelbench --max-iterations 1 --max-time $((t-3)) --no-baseline --target 0 --out /tmp/rr/$n "$@" > /tmp/rr/$n.txt 2>&1; echo "rc=$?"; grep -E "^\[|best|rror" /tmp/rr/$n.txt | tail -n 6; }
run p59-tf32-tma 105 $P59 --agent "builtin:{\"precision\":2,\"tc_wgmma\":2}"
run p59-tf32-cpasync 50 $P59 --agent "builtin:{\"precision\":2}"
echo "== $(date +%T) done"
' timeout 174 bash bench/gpu/run_gpu_suite.sh
tar czf $OUT/runs.tgz -C /tmp rr 2>/dev/null
ls $OUT
