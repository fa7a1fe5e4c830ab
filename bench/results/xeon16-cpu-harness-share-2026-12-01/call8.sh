#!/bin/bash
# device call 8 (issue 15, 2026-12-01, fifth session), 16-core host: share_harness (16 threads, 21
# calls a side) over 19's and 33's best kernels (m6) with the buffers placed as kforge places them
# (a 4096-byte guard band around each: input and output 64 MiB + 8 KiB apart) and packed (64 MiB
# apart exactly, as in the calls before), ROUNDS rounds (2) in turns.
set -u
B=/tmp/hb8; mkdir -p $B/s && tar xzf $PWD/bench/results/xeon16-cpu-membound-2026-12-01e/m6/best-m6.tgz -C $B/s
{ echo "== $(date +%T) start"
  gcc -O2 -march=native -fopenmp -I plugins/cpu-simd bench/cpu/share_harness.c -o $B/share_harness -ldl -lpthread || exit 1
  for n in 19 33; do d=$(ls -d $B/s/runs/${n}_*/steps/*/candidate)
    gcc -std=gnu11 -O3 -march=native -fopenmp -fPIC -shared -I plugins/cpu-simd $d/kernel.c -o $B/k$n.so -lm; done
  export OMP_PROC_BIND=close
  for r in $(seq 1 ${ROUNDS:-2}); do for n in 19 33; do dims=1024,16384; [ $n = 33 ] && dims=16,64,16384
    for l in kforge packed; do f=; [ $l = packed ] && f=--packed
      echo "round $r $n $l $($B/share_harness --dims $dims --in 16777216 --out 16777216 --threads 16 --reps 21 $f $B/k$n.so)"; done; done; done
  echo "== $(date +%T) end"
} 2>&1 | tee $OUT/call8.txt
