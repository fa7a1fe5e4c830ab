#!/bin/bash
# device call 3 (issue 15, 2026-12-01, fifth session), 16-core host: share_harness alone (no kforge
# build: the problems' sizes at the cpu preset are written below, from `kforge check --json`) over
# the ten best kernels of ../xeon16-cpu-membound-2026-12-01e (m6/best-m6.tgz), 16 threads, 21 calls
# a side, ROUNDS rounds (5) in turns, each round starting at another problem; stream_bw before
# and after.
set -u
B=/tmp/hb3; mkdir -p $B/s && tar xzf $PWD/bench/results/xeon16-cpu-membound-2026-12-01e/m6/best-m6.tgz -C $B/s
P="04:1024,32768:33554432,32768:1024 19:1024,16384:16777216:16777216 23:1024,16384:16777216:16777216
26:1024,16384:16777216:16777216 33:16,64,16384:16777216:16777216 35:16,64,16384:16777216:16777216
36:262144,64:16777216:16777216 40:4,64,256,256:16777216:16777216 47:8,1024,2047:16769024:16376
88:1024,16384:16777216:16777216"
{ echo "== $(date +%T) start"; uptime; lscpu | grep -E 'Model name|^CPU\(s\)|Model:'
  gcc -std=gnu11 -O2 -march=native -fopenmp bench/cpu/stream_bw.c -o $B/stream_bw && $B/stream_bw 16 256 5
  gcc -O2 -march=native -fopenmp -I plugins/cpu-simd bench/cpu/share_harness.c -o $B/share_harness -ldl -lpthread || exit 1
  for e in $P; do n=${e%%:*}; d=$(ls -d $B/s/runs/${n#0}_*/steps/*/candidate $B/s/runs/${n}_*/steps/*/candidate 2>/dev/null | head -1)
    gcc -std=gnu11 -O3 -march=native -fopenmp -fPIC -shared -I plugins/cpu-simd $d/kernel.c -o $B/k$n.so -lm || echo "FAIL $n"; done
  export OMP_PROC_BIND=close
  set -- $P; np=$#
  for r in $(seq 1 ${ROUNDS:-5}); do
    i=0; for e in $P; do order[$(( (i - r + 1 + 10 * np) % np ))]=$e; i=$((i + 1)); done
    for e in "${order[@]}"; do IFS=: read n d in out <<< "$e"
      echo "round $r $n $($B/share_harness --dims $d --in $in --out $out --threads 16 --reps 21 $B/k$n.so)"; done
  done
  $B/stream_bw 16 256 5
  echo "== $(date +%T) end"; uptime
} 2>&1 | tee $OUT/call3.txt
