#!/bin/bash
# device call: memory-bound Level-1 problems (issue 15) on the 16-core host:
# stream_bw (same-run bandwidth) before and after, the suite beside PyTorch
# eager with 16 threads, paired rounds; the record under $OUT
set -u
TAG=${TAG:-m1}; R=/tmp/rec-$TAG; S=/tmp/suite-$TAG
export KFORGE_PYTHON=python3
PROBS=${PROBS:-problems/level2/30_Gemm_GroupNorm_Hardtanh.json problems/level2/62_Matmul_GroupNorm_LeakyReLU_Sum.json problems/level2/88_Gemm_GroupNorm_Swish_Multiply_Swish.json problems/level2/99_Matmul_GELU_Softmax.json problems/level2/41_Gemm_BatchNorm_GELU_ReLU.json}
{ echo "== $(date +%T) start"; uptime; grep -m1 'model\s*:' /proc/cpuinfo; nproc
  gcc -std=gnu11 -O2 -march=native -fopenmp bench/cpu/stream_bw.c -o /tmp/stream_bw && /tmp/stream_bw 16 256 5 | tee $OUT/bw-before-$TAG.txt
  TARBALL=$PWD/.carry/kforge-new.tar.gz MODE=exec CMD='
    set -u; cd '"$PWD"'
    echo "== $(date +%T) suite"
    timeout ${SUITE_TIME:-420} bash bench/cpu/run_cpu_anchors.sh --tool torch --threads 16 --no-compile --out '"$R"' \
        --suite-dir '"$S"' '"$PROBS"' --paired ${PAIRED:-2} -- --max-iterations 4 --max-time 40 ${KF_EXTRA:-} > /tmp/suite.log 2>&1
    tail -3 /tmp/suite.log; cat '"$R"'/record.md 2>/dev/null | tail -8
    /tmp/stream_bw 16 256 5 | tee $OUT/bw-after-'"$TAG"'.txt
    KFORGE=$(command -v kforge) python3 bench/cpu/bandwidth_share.py '"$R"'/report.json $OUT/bw-before-'"$TAG"'.txt $OUT/bw-after-'"$TAG"'.txt > $OUT/share-'"$TAG"'.md 2>&1; cat $OUT/share-'"$TAG"'.md
    echo "== $(date +%T) end"; uptime
  ' bash bench/gpu/run_gpu_suite.sh
} 2>&1 | tee $OUT/call-$TAG.txt
cp /tmp/suite.log $OUT/suite-$TAG.log 2>/dev/null
tar czf $OUT/rec-$TAG.tgz -C /tmp rec-$TAG suite-$TAG/report.json 2>/dev/null
rm -f $OUT/build.log $OUT/backends.txt $OUT/commit.txt $OUT/gpu.txt
ls -la $OUT
