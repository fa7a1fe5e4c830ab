#!/bin/bash
# device call 2 (issue 15, 2026-12-02 fourth session), 16-core host:
# the pairing:
# call-suite.sh's best kernels (best.tgz) each beside stream_bw in the same minute
# (paired_anchors.py --tool stream, 16 threads, PROUNDS rounds (3), 21 runs), then each beside
# PyTorch eager (--tool torch --inputs both: the same inputs back to back and fresh ones,
# TROUNDS rounds (2); TROUNDS=0: none); the busiest processes (top) before and after.  kforge
# from TARBALL.  TAG names a repeat's files (call 3: TAG=3 TROUNDS=0).
set -u
T=${TAG:-}
R=$PWD/bench/results/xeon16-cpu-membound-2026-12-02d; S=/tmp/s8; mkdir -p $S && tar xzf $R/best.tgz -C $S
PROBS="problems/level1/04_Matrix_vector_multiplication.json problems/level1/19_ReLU.json problems/level1/23_Softmax.json problems/level1/26_GELU.json problems/level1/33_BatchNorm.json problems/level1/35_GroupNorm.json problems/level1/36_RMSNorm.json problems/level1/40_LayerNorm.json problems/level1/47_Sum_reduction_over_a_dimension.json problems/level1/88_MinGPTNewGelu.json"
{ echo "== $(date +%T) start"; uptime; top -bn1 | sed -n 7,14p
  gcc -std=gnu11 -O2 -march=native -fopenmp bench/cpu/stream_bw.c -o /tmp/stream_bw && /tmp/stream_bw 16 256 5 | tee $OUT/bw-before-paired$T.txt
  TARBALL=${TARBALL:-$PWD/.carry/kforge-86b886a.tar.gz} MODE=exec CMD='
    set -u; cd '"$PWD"'
    echo "== $(date +%T) paired with the stream"
    KFORGE=$(command -v kforge) timeout ${STREAM_TIME:-420} python3 bench/cpu/paired_anchors.py $OUT/paired-stream'"$T"'.json '"$S"' \
        '"$PROBS"' --tool stream --stream-bw /tmp/stream_bw --threads 16 --rounds '"${PROUNDS:-3}"' --reps 21
    [ '"${TROUNDS:-2}"' = 0 ] || { echo "== $(date +%T) paired with PyTorch"
    KFORGE=$(command -v kforge) timeout ${TORCH_TIME:-240} python3 bench/cpu/paired_anchors.py $OUT/paired-torch'"$T"'.json '"$S"' \
        '"$PROBS"' --tool torch --inputs both --threads 16 --rounds '"${TROUNDS:-2}"'; }
    echo "== $(date +%T) end"; uptime; top -bn1 | sed -n 7,14p
  ' bash bench/gpu/run_gpu_suite.sh
  /tmp/stream_bw 16 256 5 | tee $OUT/bw-after-paired$T.txt
} 2>&1 | tee $OUT/call-paired$T.txt
rm -f $OUT/build.log $OUT/backends.txt $OUT/gpu.txt $OUT/commit.txt $OUT/cpu.txt
