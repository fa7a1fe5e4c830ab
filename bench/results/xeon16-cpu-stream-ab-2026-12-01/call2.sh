#!/bin/bash
# device call 2 (issue 15, 2026-12-02 session), 16-core host: the maps with and without streaming
# stores, kforge profile (--reps 21) of each in turns, ROUNDS rounds (5), the order reversed every
# other round; stream_bw before and after.  kernels/NN-s0, NN-s1: 19 ReLU, 26 GELU, 88 tanh GELU
# at the m6 suite's point with stream 0 (88-s0 is the code the 2026-12-02 suite kept, the
# op-by-op baseline's) and stream 1 (88-s1 is m6's kept kernel's code).  kforge from TARBALL.
set -u
R=$PWD/bench/results/xeon16-cpu-stream-ab-2026-12-01; B=/tmp/hc2; mkdir -p $B
K="19-s0 19-s1 26-s0 26-s1 88-s0 88-s1"
{ echo "== $(date +%T) start"; uptime; lscpu | grep -E 'Model name|^CPU\(s\)|Model:'
  gcc -std=gnu11 -O2 -march=native -fopenmp bench/cpu/stream_bw.c -o $B/stream_bw && $B/stream_bw 16 256 5
  TARBALL=${TARBALL:-$PWD/.carry/kforge-1642a84.tar.gz} MODE=exec CMD='
    set -u; cd '"$PWD"'; R='"$R"'; K="'"$K"'"
    for r in $(seq 1 '"${ROUNDS:-5}"'); do
      L=$K; [ $((r % 2)) = 0 ] && L=$(echo $K | tr " " "\n" | tac | tr "\n" " ")
      for k in $L; do n=${k%%-*}; p=$(ls problems/level1/${n}_*.json)
        printf "round %s %s kforge " $r $k
        KFORGE_THREADS=16 kforge profile --backend cpu-simd --problem $p --preset cpu --reps 21 --json $R/kernels/$k \
          | python3 -c "import json,sys; d=json.load(sys.stdin); print(d[\"verdict\"], round(d[\"timing\"][\"median_s\"] * 1e3, 4))"
      done
    done
  ' bash bench/gpu/run_gpu_suite.sh
  $B/stream_bw 16 256 5
  echo "== $(date +%T) end"; uptime
} 2>&1 | tee $OUT/call2.txt
rm -f $OUT/build.log $OUT/backends.txt $OUT/gpu.txt $OUT/commit.txt
