#!/bin/bash
# device call 6 (issue 15, 2026-12-01, fifth session), 16-core host: as call.sh, over the same ten
# kernels with 23's replaced by the online softmax of 8fb8af8 (best-online23.tgz: m6/best-m6.tgz
# of ../xeon16-cpu-membound-2026-12-01e, 23_Softmax's kernel.c from
# ../xeon16-cpu-softmax-online-2026-12-01/new), kforge built from TARBALL (default
# .carry/kforge-head.tar.gz, 2ef8260).
set -u
S=/tmp/s7; mkdir -p $S && tar xzf $PWD/bench/results/xeon16-cpu-harness-share-2026-12-01/best-online23.tgz -C $S
PROBS="problems/level1/04_Matrix_vector_multiplication.json problems/level1/19_ReLU.json problems/level1/23_Softmax.json problems/level1/26_GELU.json problems/level1/33_BatchNorm.json problems/level1/35_GroupNorm.json problems/level1/36_RMSNorm.json problems/level1/40_LayerNorm.json problems/level1/47_Sum_reduction_over_a_dimension.json problems/level1/88_MinGPTNewGelu.json"
{ echo "== $(date +%T) start"; uptime; nproc
  gcc -std=gnu11 -O2 -march=native -fopenmp bench/cpu/stream_bw.c -o /tmp/stream_bw && /tmp/stream_bw 16 256 5 | tee $OUT/bw-before.txt
  TARBALL=${TARBALL:-$PWD/.carry/kforge-head.tar.gz} MODE=exec CMD='
    set -u; cd '"$PWD"'
    echo "== $(date +%T) harness shares"
    KFORGE=$(command -v kforge) timeout ${SHARE_TIME:-420} python3 bench/cpu/harness_share.py $OUT/harness-share.json '"$S"' \
        '"$PROBS"' --threads 16 --rounds ${ROUNDS:-3} --reps 21 --profile
    echo "== $(date +%T) end"; uptime
  ' bash bench/gpu/run_gpu_suite.sh
  /tmp/stream_bw 16 256 5 | tee $OUT/bw-after.txt
} 2>&1 | tee $OUT/call6.txt
rm -f $OUT/build.log $OUT/backends.txt $OUT/gpu.txt
