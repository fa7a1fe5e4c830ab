#!/bin/bash
# device call (issue 15, 2026-12-02 session), 16-core host: call-suite.sh's best kernels
# (best.tgz) each timed by `kforge profile` beside the streaming bandwidth
# (`paired_anchors.py --tool stream`: stream_bw at 16 threads, copy-nt or the read stream, in
# the same minute; 3 rounds), then beside PyTorch eager (same inputs, 2 rounds).  kforge built
# from .carry/kforge-1642a84.tar.gz (TARBALL to change it).
set -u
S=/tmp/s6; mkdir -p $S && tar xzf $PWD/bench/results/xeon16-cpu-membound-2026-12-02/best.tgz -C $S
PROBS="problems/level1/04_Matrix_vector_multiplication.json problems/level1/19_ReLU.json problems/level1/23_Softmax.json problems/level1/26_GELU.json problems/level1/33_BatchNorm.json problems/level1/35_GroupNorm.json problems/level1/36_RMSNorm.json problems/level1/40_LayerNorm.json problems/level1/47_Sum_reduction_over_a_dimension.json problems/level1/88_MinGPTNewGelu.json"
{ echo "== $(date +%T) start"; uptime; nproc
  gcc -std=gnu11 -O2 -march=native -fopenmp bench/cpu/stream_bw.c -o /tmp/stream_bw && /tmp/stream_bw 16 256 5 | tee $OUT/bw-before.txt
  TARBALL=${TARBALL:-$PWD/.carry/kforge-1642a84.tar.gz} MODE=exec CMD='
    set -u; cd '"$PWD"'
    echo "== $(date +%T) paired with the stream"
    KFORGE=$(command -v kforge) timeout ${STREAM_TIME:-300} python3 bench/cpu/paired_anchors.py $OUT/paired-stream.json '"$S"' \
        '"$PROBS"' --tool stream --stream-bw /tmp/stream_bw --threads 16 --rounds ${ROUNDS:-3} --reps 21
    echo "== $(date +%T) paired with PyTorch"
    KFORGE=$(command -v kforge) timeout ${TORCH_TIME:-200} python3 bench/cpu/paired_anchors.py $OUT/paired-torch.json '"$S"' \
        '"$PROBS"' --threads 16 --rounds 2 --reps 30 --inputs same
    echo "== $(date +%T) end"; uptime
  ' bash bench/gpu/run_gpu_suite.sh
  /tmp/stream_bw 16 256 5 | tee $OUT/bw-after.txt
} 2>&1 | tee $OUT/call.txt
rm -f $OUT/build.log $OUT/backends.txt $OUT/gpu.txt
