#!/bin/bash
# device call (issue 15, 2026-12-01, fourth session), 16-core host: kforge profile in turns of
# kernels/: k23 (the m6 suite's best softmax, ../xeon16-cpu-membound-2026-12-01e) against k23n
# (the same point from the emitter with the next row's max taken in the pipelined loop), k35
# (the suite's best GroupNorm) against k35op (by hand: one pass of sums about kf_row_shift
# instead of the mean, then sums about it).  3 rounds, round 2 in reverse order; stream_bw
# before and after.  Builds .carry/kforge-head.tar.gz (TARBALL to change it).
set -u
K=$PWD/bench/results/xeon16-cpu-softmax-max-2026-12-01/kernels
{ echo "== $(date +%T) start"; uptime; nproc
  gcc -std=gnu11 -O2 -march=native -fopenmp bench/cpu/stream_bw.c -o /tmp/stream_bw && /tmp/stream_bw 16 256 5 | tee $OUT/bw-before.txt
  TARBALL=${TARBALL:-$PWD/.carry/kforge-head.tar.gz} MODE=exec CMD='
    set -u; cd '"$PWD"'; K='"$K"'
    prof() { # problem kernel
      KFORGE_THREADS=16 timeout 60 kforge profile --backend cpu-simd --problem problems/level1/$1.json --preset cpu --reps 21 --json $K/$2.c |
        python3 -c "import json,sys; d=json.load(sys.stdin); t=d.get(\"timing\") or {}; print(d[\"verdict\"], \"median %.3f min %.3f ms\" % (t.get(\"median_s\",0)*1e3, t.get(\"min_s\",0)*1e3))"
    }
    for r in 1 2 3; do
      echo "== round $r $(date +%T)"
      L="23_Softmax:k23 23_Softmax:k23n 35_GroupNorm:k35 35_GroupNorm:k35op"
      [ $r = 2 ] && L=$(echo $L | tr " " "\n" | tac | tr "\n" " ")
      for pk in $L; do printf "%-14s %-8s: " ${pk%%:*} ${pk#*:}; prof ${pk%%:*} ${pk#*:}; done
    done 2>&1 | tee $OUT/profile.txt
    echo "== $(date +%T) end"; uptime
  ' bash bench/gpu/run_gpu_suite.sh
  /tmp/stream_bw 16 256 5 | tee $OUT/bw-after.txt
} 2>&1 | tee $OUT/call.txt
rm -f $OUT/build.log $OUT/backends.txt $OUT/gpu.txt
