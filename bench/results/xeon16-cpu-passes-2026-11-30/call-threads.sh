#!/bin/bash
# device call (issue 15, 2026-11-30, eighth session), 16-core host: 35 GroupNorm before / after the
# carried next-group sums (.carry/rg/k35_old.c, k35_new.c) by kforge profile in turns at 2, 4, 8 and
# 16 threads (KFORGE_THREADS), 3 rounds each; stream_bw at 16 and 2 threads before
set -u
G=$PWD/.carry/rg
{ echo "== $(date +%T) start"; uptime; grep -m1 'model\s*:' /proc/cpuinfo; nproc
  gcc -std=gnu11 -O2 -march=native -fopenmp bench/cpu/stream_bw.c -o /tmp/stream_bw && /tmp/stream_bw 16 256 5 | tee $OUT/bw-before.txt
  /tmp/stream_bw 2 256 5 | tee $OUT/bw-before-2.txt
  TARBALL=$PWD/.carry/kforge-new.tar.gz MODE=exec CMD='
    set -u; cd '"$PWD"'; G='"$G"'
    prof() { # threads kernel
      KFORGE_THREADS=$1 timeout 120 kforge profile --backend cpu-simd --problem problems/level1/35_GroupNorm.json --preset cpu --json $G/$2.c |
        python3 -c "import json,sys; d=json.load(sys.stdin); t=d.get(\"timing\") or {}; print(d[\"verdict\"], \"median %.3f min %.3f ms\" % (t.get(\"median_s\",0)*1e3, t.get(\"min_s\",0)*1e3))"
    }
    for t in 2 4 8 16; do for r in 1 2 3; do
      for k in k35_old k35_new; do printf "threads %2d round %d %-8s: " $t $r $k; prof $t $k; done
    done; done 2>&1 | tee $OUT/threads.txt
    echo "== $(date +%T) end"; uptime
  ' bash bench/gpu/run_gpu_suite.sh
} 2>&1 | tee $OUT/call-threads.txt
rm -f $OUT/build.log $OUT/backends.txt $OUT/gpu.txt
ls -la $OUT
