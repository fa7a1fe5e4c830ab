#!/bin/bash
# device call (issue 15, 2026-12-01, fourth session), 16-core host: kforge profile in turns of
# the m6 suite's best 36 RMSNorm and 35 GroupNorm kernels (../xeon16-cpu-membound-2026-12-01e)
# and hand-edited trials of them (kernels/, one prefetch line each added): k36pf / k36pf64 the
# row 128 / 256 rows ahead (32 / 64 KiB) into L2 at each row's start; k35pf the next group's
# block into L2 in each group's output loop.  3 rounds, the order reversed in round 2;
# stream_bw before and after.  Builds .carry/kforge-head.tar.gz (TARBALL to change it).
set -u
K=$PWD/bench/results/xeon16-cpu-rows-prefetch-2026-12-01/kernels
{ echo "== $(date +%T) start"; uptime; nproc
  gcc -std=gnu11 -O2 -march=native -fopenmp bench/cpu/stream_bw.c -o /tmp/stream_bw && /tmp/stream_bw 16 256 5 | tee $OUT/bw-before.txt
  TARBALL=${TARBALL:-$PWD/.carry/kforge-head.tar.gz} MODE=exec CMD='
    set -u; cd '"$PWD"'; K='"$K"'
    prof() { # problem kernel
      KFORGE_THREADS=16 timeout 120 kforge profile --backend cpu-simd --problem problems/level1/$1.json --preset cpu --reps 21 --json $K/$2.c |
        python3 -c "import json,sys; d=json.load(sys.stdin); t=d.get(\"timing\") or {}; print(d[\"verdict\"], \"median %.3f min %.3f ms\" % (t.get(\"median_s\",0)*1e3, t.get(\"min_s\",0)*1e3))"
    }
    for r in 1 2 3; do
      echo "== round $r $(date +%T)"
      L="36_RMSNorm:k36 36_RMSNorm:k36pf 36_RMSNorm:k36pf64 35_GroupNorm:k35 35_GroupNorm:k35pf"
      [ $r = 2 ] && L=$(echo $L | tr " " "\n" | tac | tr "\n" " ")
      for pk in $L; do printf "%-14s %-8s: " ${pk%%:*} ${pk#*:}; prof ${pk%%:*} ${pk#*:}; done
    done 2>&1 | tee $OUT/profile.txt
    echo "== $(date +%T) end"; uptime
  ' bash bench/gpu/run_gpu_suite.sh
  /tmp/stream_bw 16 256 5 | tee $OUT/bw-after.txt
} 2>&1 | tee $OUT/call.txt
rm -f $OUT/build.log $OUT/backends.txt $OUT/gpu.txt
