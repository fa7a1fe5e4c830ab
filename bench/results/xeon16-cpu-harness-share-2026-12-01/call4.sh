#!/bin/bash
# device call 4 (issue 15, 2026-12-01, fifth session), 16-core host: share_harness (16 threads, 21
# calls a side against the streaming reference, ROUNDS rounds (5) in turns) over the norms' and
# softmax's forms: k35 (the 16-core suite's GroupNorm, stream 1: each group's two passes of sums,
# then its outputs) against k35s2 (the 2-core suite's, stream 2: the next group's sums in the loop
# that writes this group's); k40 (prefetch 0) against k40pf2 (the 2-core suite's, prefetch 2),
# d40_fwdrev (each row's sums, a barrier, outputs backwards) and d40_pipe_rev (pipelined,
# outputs backwards); k33; k23 against d23_pf2 (two rows ahead into L2).
set -u
R=$PWD/bench/results/xeon16-cpu-harness-share-2026-12-01; B=/tmp/hb4; mkdir -p $B
{ echo "== $(date +%T) start"; uptime; lscpu | grep -E 'Model name|^CPU\(s\)|Model:'
  gcc -O2 -march=native -fopenmp -I plugins/cpu-simd bench/cpu/share_harness.c -o $B/share_harness -ldl -lpthread || exit 1
  for f in $R/kernels/*.c; do k=$(basename $f .c)
    gcc -std=gnu11 -O3 -march=native -fopenmp -fPIC -shared -I plugins/cpu-simd $f -o $B/$k.so -lm || echo "FAIL $k"; done
  export OMP_PROC_BIND=close
  for r in $(seq 1 ${ROUNDS:-5}); do
    for k in k35 k35s2 k33; do
      echo "round $r $k $($B/share_harness --dims 16,64,16384 --in 16777216 --out 16777216 --threads 16 --reps 21 $B/$k.so)"; done
    for k in k40 k40pf2 d40_fwdrev d40_pipe_rev; do
      echo "round $r $k $($B/share_harness --dims 4,64,256,256 --in 16777216 --out 16777216 --threads 16 --reps 21 $B/$k.so)"; done
    for k in k23 d23_pf2; do
      echo "round $r $k $($B/share_harness --dims 1024,16384 --in 16777216 --out 16777216 --threads 16 --reps 21 $B/$k.so)"; done
  done
  echo "== $(date +%T) end"; uptime
} 2>&1 | tee $OUT/call4.txt
