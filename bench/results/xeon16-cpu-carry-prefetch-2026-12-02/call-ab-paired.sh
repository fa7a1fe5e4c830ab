#!/bin/bash
# device call 2 (issue 15, 2026-12-02 second session), 16-core host, the machine call-suite.sh left
# warm (REUSE=1): (1) kforge profile (--reps 21) of each kernel in kernels/ in turns, ROUNDS rounds
# (5), the order reversed every other round: 35 GroupNorm at stream 2 and 33 BatchNorm at stream 1
# with the carried reads (the next group's / channel's, beside the streamed stores) not prefetched
# (-none: the code before 8eb246d), prefetched as a map's block (-l2: 8eb246d's default) and the line
# only (-line: prefetch 1); 35-s1 GroupNorm at stream 1.  (2) call-suite.sh's best kernels
# (best.tgz) each beside stream_bw in the same minute (paired_anchors.py --tool stream, 16 threads,
# PROUNDS rounds (5), 21 runs).  stream_bw before and after.  kforge from TARBALL.
set -u
R=$PWD/bench/results/xeon16-cpu-carry-prefetch-2026-12-02; S=/tmp/s7; mkdir -p $S && tar xzf $R/best.tgz -C $S
K="35-none 35-l2 35-line 35-s1 33-none 33-l2 33-line"
PROBS="problems/level1/04_Matrix_vector_multiplication.json problems/level1/19_ReLU.json problems/level1/23_Softmax.json problems/level1/26_GELU.json problems/level1/33_BatchNorm.json problems/level1/35_GroupNorm.json problems/level1/36_RMSNorm.json problems/level1/40_LayerNorm.json problems/level1/47_Sum_reduction_over_a_dimension.json problems/level1/88_MinGPTNewGelu.json"
{ echo "== $(date +%T) start"; uptime; lscpu | grep -E 'Model name|^CPU\(s\)|Model:'
  gcc -std=gnu11 -O2 -march=native -fopenmp bench/cpu/stream_bw.c -o /tmp/stream_bw && /tmp/stream_bw 16 256 5 | tee $OUT/bw-before.txt
  TARBALL=${TARBALL:-$PWD/.carry/kforge-8eb246d.tar.gz} MODE=exec CMD='
    set -u; cd '"$PWD"'; R='"$R"'; K="'"$K"'"
    echo "== $(date +%T) A/B"
    for r in $(seq 1 '"${ROUNDS:-5}"'); do
      L=$K; [ $((r % 2)) = 0 ] && L=$(echo $K | tr " " "\n" | tac | tr "\n" " ")
      for k in $L; do n=${k%%-*}; p=$(ls problems/level1/${n}_*.json)
        printf "round %s %s kforge " $r $k
        KFORGE_THREADS=16 kforge profile --backend cpu-simd --problem $p --preset cpu --reps 21 --json $R/kernels/$k 2>/dev/null \
          | python3 -c "import json,sys; d=json.load(sys.stdin); print(d[\"verdict\"], round(d[\"timing\"][\"median_s\"] * 1e3, 4))"
      done
    done
    echo "== $(date +%T) paired with the stream"
    KFORGE=$(command -v kforge) timeout ${STREAM_TIME:-330} python3 bench/cpu/paired_anchors.py $OUT/paired-stream.json '"$S"' \
        '"$PROBS"' --tool stream --stream-bw /tmp/stream_bw --threads 16 --rounds '"${PROUNDS:-5}"' --reps 21
    echo "== $(date +%T) end"; uptime
  ' bash bench/gpu/run_gpu_suite.sh
  /tmp/stream_bw 16 256 5 | tee $OUT/bw-after.txt
} 2>&1 | tee $OUT/call-ab-paired.txt
rm -f $OUT/build.log $OUT/backends.txt $OUT/gpu.txt
