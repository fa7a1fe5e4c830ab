#!/bin/bash
# device call (issue 15, 2026-11-29, session 3): the best kernels of the z2 suite (7860c63, 9 of the
# ten memory-bound problems: 88 did not run before the call's limit) paired with PyTorch eager at 16
# threads, on the same and on fresh inputs, stream_bw before and after.
set -u
TAG=${TAG:-z3}; BEST=${BEST:-z2}; S=/tmp/suite-$BEST
export KFORGE_PYTHON=python3
PROBS="problems/level1/04_Matrix_vector_multiplication.json problems/level1/19_ReLU.json problems/level1/23_Softmax.json problems/level1/26_GELU.json problems/level1/33_BatchNorm.json problems/level1/35_GroupNorm.json problems/level1/36_RMSNorm.json problems/level1/40_LayerNorm.json problems/level1/47_Sum_reduction_over_a_dimension.json"
{ echo "== $(date +%T) start"; uptime; grep -m1 'model\s*:' /proc/cpuinfo; nproc
  gcc -std=gnu11 -O2 -march=native -fopenmp bench/cpu/stream_bw.c -o /tmp/stream_bw && /tmp/stream_bw 16 256 5 | tee $OUT/bw-before-$TAG.txt
  TARBALL=$PWD/.carry/kforge-new.tar.gz MODE=exec CMD='
    set -u; cd '"$PWD"'
    mkdir -p '"$S"' && tar xzf .carry/best-'"$BEST"'.tgz -C '"$S"'
    echo "== $(date +%T) paired"; uptime
    KFORGE=$(command -v kforge) timeout ${PAIRED_TIME:-480} python3 bench/cpu/paired_anchors.py $OUT/paired-'"$TAG"'.json '"$S"' \
        '"$PROBS"' --threads 16 --rounds ${ROUNDS:-2} --reps 30 --inputs both 2>&1 | tee $OUT/paired-'"$TAG"'.out
    /tmp/stream_bw 16 256 5 | tee $OUT/bw-after-'"$TAG"'.txt
    echo "== $(date +%T) end"; uptime
  ' bash bench/gpu/run_gpu_suite.sh
} 2>&1 | tee $OUT/call-$TAG.txt
rm -f $OUT/build.log $OUT/backends.txt $OUT/commit.txt $OUT/gpu.txt
ls -la $OUT
