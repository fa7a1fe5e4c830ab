#!/bin/bash
# device call (issue 15, 2026-12-01), 16-core host: the split LayerNorm's prefetch, kforge profile in turns
# (16 threads, 4 rounds): 40 v0 / v4 (make_variants.py; .carry/pf40 = its output here), stream_bw before and after.
set -u
G=$PWD/.carry/pf40
{ echo "== $(date +%T) start"; uptime; grep -m1 'model\s*:' /proc/cpuinfo; nproc
  gcc -std=gnu11 -O2 -march=native -fopenmp bench/cpu/stream_bw.c -o /tmp/stream_bw && /tmp/stream_bw 16 256 5 | tee $OUT/bw-before.txt
  TARBALL=$PWD/.carry/kforge-new.tar.gz MODE=exec CMD='
    set -u; cd '"$PWD"'; G='"$G"'
    prof() { # problem kernel
      KFORGE_THREADS=16 timeout 120 kforge profile --backend cpu-simd --problem problems/level1/$1.json --preset cpu --json $G/$2.c |
        python3 -c "import json,sys; d=json.load(sys.stdin); t=d.get(\"timing\") or {}; print(d[\"verdict\"], \"median %.3f min %.3f ms\" % (t.get(\"median_s\",0)*1e3, t.get(\"min_s\",0)*1e3))"
    }
    for r in 1 2 3 4; do
      echo "== round $r $(date +%T)"
      for p in 40_LayerNorm:k40; do for v in v0 v4; do
        printf "%-18s %-8s: " ${p%%:*} ${p#*:}_$v; prof ${p%%:*} ${p#*:}_$v
      done; done
    done 2>&1 | tee $OUT/ab.txt
    /tmp/stream_bw 16 256 5 | tee $OUT/bw-after.txt
    echo "== $(date +%T) end"; uptime
  ' bash bench/gpu/run_gpu_suite.sh
} 2>&1 | tee $OUT/call.txt
rm -f $OUT/build.log $OUT/backends.txt $OUT/gpu.txt
