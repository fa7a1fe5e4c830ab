#!/bin/bash
# device call 5 (issue 15, 2026-12-01, fifth session), 16-core host: share_harness (16 threads, 21
# calls a side against the streaming reference, ROUNDS rounds (5) in turns): k33 (the 16-core
# suite's BatchNorm: each thread four whole channels, the next channel's sums beside this one's
# stores) against d33_rows (each thread one batch item's 64 rows, a contiguous 4 MiB: row c's
# partial sums beside the stores of row c - 2, published through a per-channel counter; row c
# written once every thread's partial of channel c is in).
set -u
R=$PWD/bench/results/xeon16-cpu-harness-share-2026-12-01; B=/tmp/hb5; mkdir -p $B
{ echo "== $(date +%T) start"; uptime
  gcc -O2 -march=native -fopenmp -I plugins/cpu-simd bench/cpu/share_harness.c -o $B/share_harness -ldl -lpthread || exit 1
  for k in k33 d33_rows; do gcc -std=gnu11 -O3 -march=native -fopenmp -fPIC -shared -I plugins/cpu-simd $R/kernels/$k.c -o $B/$k.so -lm || echo "FAIL $k"; done
  export OMP_PROC_BIND=close
  for r in $(seq 1 ${ROUNDS:-5}); do for k in k33 d33_rows; do
    echo "round $r $k $($B/share_harness --dims 16,64,16384 --in 16777216 --out 16777216 --threads 16 --reps 21 $B/$k.so)"; done; done
  echo "== $(date +%T) end"; uptime
} 2>&1 | tee $OUT/call5.txt
