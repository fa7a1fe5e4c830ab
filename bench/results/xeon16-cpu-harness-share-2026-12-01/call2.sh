#!/bin/bash
# device call 2 (issue 15, 2026-12-01, fifth session), 16-core host: share_harness (16 threads, 21
# calls a side, each against the streaming reference) over the 16-core suite's kernels of 23, 33, 35
# (kernels/k*.c, from ../xeon16-cpu-membound-2026-12-01e) and variants of them: d23_nomax / noexp /
# both and d33_nomom are DIAGNOSTIC (they skip work, their outputs are wrong: where the time goes);
# d23_pf2 (the next-but-one row prefetched into L2) and d33_pf4k / pf8k (the next channel's lines
# prefetched 4 KiB into L1 / 8 KiB into L2 ahead) are candidate changes.  Rounds in turns.
set -u
R=$PWD/bench/results/xeon16-cpu-harness-share-2026-12-01; B=/tmp/hb; mkdir -p $B
{ echo "== $(date +%T) start"; uptime; lscpu | grep -E 'Model name|^CPU\(s\)|Model:'
  gcc -O2 -march=native -fopenmp -I plugins/cpu-simd bench/cpu/share_harness.c -o $B/share_harness -ldl -lpthread || exit 1
  for f in $R/kernels/*.c; do k=$(basename $f .c)
    gcc -std=gnu11 -O3 -march=native -fopenmp -fPIC -shared -I plugins/cpu-simd $f -o $B/$k.so -lm || echo "FAIL $k"; done
  export OMP_PROC_BIND=close
  for r in 1 2 3; do
    for k in k23 d23_nomax d23_noexp d23_both d23_pf2; do
      echo "round $r $k $($B/share_harness --dims 1024,16384 --in 16777216 --out 16777216 --threads 16 --reps 21 $B/$k.so)"; done
    for k in k33 d33_nomom d33_pf4k d33_pf8k k35; do
      echo "round $r $k $($B/share_harness --dims 16,64,16384 --in 16777216 --out 16777216 --threads 16 --reps 21 $B/$k.so)"; done
  done
  echo "== $(date +%T) end"; uptime
} 2>&1 | tee $OUT/call2.txt
