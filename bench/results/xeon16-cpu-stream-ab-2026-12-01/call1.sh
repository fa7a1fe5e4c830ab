#!/bin/bash
# device call 1 (issue 15, 2026-12-02 session), 16-core host: kforge profile (--reps 21) and
# share_harness (kforge's buffer placement, 21 calls a side) of each kernel in kernels/, one
# after the other, ROUNDS rounds (4), the order reversed every other round; stream_bw before
# and after.  35-s1 / 35-s2: GroupNorm at the m6 suite's point with stream 1 (each 512 KiB group
# read three times: its mean, its sums about the mean, its outputs) and stream 2 (each group's
# sums taken beside the last group's stores).  23-online: the online softmax.  19/33/40/88-m6:
# the m6 suite's best kernels (../xeon16-cpu-membound-2026-12-01e).  kforge from TARBALL.
set -u
R=$PWD/bench/results/xeon16-cpu-stream-ab-2026-12-01; B=/tmp/hc1; mkdir -p $B
K="35-s1 35-s2 23-online 19-m6 33-m6 40-m6 88-m6"
{ echo "== $(date +%T) start"; uptime; lscpu | grep -E 'Model name|^CPU\(s\)|Model:|L2|L3'
  gcc -std=gnu11 -O2 -march=native -fopenmp bench/cpu/stream_bw.c -o $B/stream_bw && $B/stream_bw 16 256 5
  gcc -O2 -march=native -fopenmp -I plugins/cpu-simd bench/cpu/share_harness.c -o $B/share_harness -ldl -lpthread || exit 1
  for k in $K; do gcc -std=gnu11 -O3 -march=native -fopenmp -fPIC -shared -I plugins/cpu-simd $R/kernels/$k/kernel.c -o $B/$k.so -lm || echo "FAIL $k"; done
  TARBALL=${TARBALL:-$PWD/.carry/kforge-head.tar.gz} MODE=exec CMD='
    set -u; cd '"$PWD"'; B='"$B"'; R='"$R"'; K="'"$K"'"
    for r in $(seq 1 '"${ROUNDS:-4}"'); do
      L=$K; [ $((r % 2)) = 0 ] && L=$(echo $K | tr " " "\n" | tac | tr "\n" " ")
      for k in $L; do n=${k%%-*}; p=$(ls problems/level1/${n}_*.json)
        case $n in 33|35) dims=16,64,16384;; 40) dims=4,64,256,256;; *) dims=1024,16384;; esac
        printf "round %s %s kforge " $r $k
        KFORGE_THREADS=16 kforge profile --backend cpu-simd --problem $p --preset cpu --reps 21 --json $R/kernels/$k \
          | python3 -c "import json,sys; d=json.load(sys.stdin); print(d[\"verdict\"], round(d[\"timing\"][\"median_s\"] * 1e3, 4))"
        echo "round $r $k harness $(OMP_PROC_BIND=close $B/share_harness --dims $dims --in 16777216 --out 16777216 --threads 16 --reps 21 $B/$k.so)"
      done
    done
  ' bash bench/gpu/run_gpu_suite.sh
  $B/stream_bw 16 256 5
  echo "== $(date +%T) end"; uptime
} 2>&1 | tee $OUT/call1.txt
rm -f $OUT/build.log $OUT/backends.txt $OUT/gpu.txt $OUT/commit.txt
