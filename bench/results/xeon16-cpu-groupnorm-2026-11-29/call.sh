#!/bin/bash
# device call (issue 15, 2026-11-29, sixth session), 16-core host: problem 35's streamed GroupNorm
# before and after the next group's L2 prefetch (.carry/gn35/{before,after}: ../epyc2-cpu-groupnorm-2026-11-29's
# k35_before.c and k35_after.c), `kforge profile` in turns, 16 threads, 5 rounds, between two
# runs of bench/cpu/stream_bw.c (16 threads, 256 MiB, 5 passes)
set -u
{ echo "== $(date +%T) start"; uptime; grep -m1 'model\s*:' /proc/cpuinfo; nproc
  gcc -std=gnu11 -O2 -march=native -fopenmp bench/cpu/stream_bw.c -o /tmp/stream_bw && /tmp/stream_bw 16 256 5 | tee $OUT/bw-before.txt
  TARBALL=$PWD/.carry/kforge-new.tar.gz MODE=exec CMD='
    set -u; cd '"$PWD"'
    for r in 1 2 3 4 5; do for k in before after; do
      printf "35 %s round %d: " $k $r
      KFORGE_THREADS=16 timeout 60 kforge profile --backend cpu-simd --problem problems/level1/35_GroupNorm.json --preset cpu --json .carry/gn35/$k |
        python3 -c "import json,sys; d=json.load(sys.stdin); t=d.get(\"timing\") or {}; print(d[\"verdict\"], \"median %.3f ms min %.3f ms\" % (t.get(\"median_s\",0)*1e3, t.get(\"min_s\",0)*1e3))"
    done; done | tee $OUT/ab.txt
    echo "== $(date +%T) end"; uptime
  ' bash bench/gpu/run_gpu_suite.sh
  /tmp/stream_bw 16 256 5 | tee $OUT/bw-after.txt
} 2>&1 | tee $OUT/call.txt
rm -f $OUT/build.log $OUT/backends.txt $OUT/gpu.txt
ls -la $OUT
