#!/bin/bash
# device call (issue 15, 2026-11-29, fifth session): the norms' kernels before / after 474c785 (33),
# 62f2802 (35) and 16a9966 (40) on the 16-core host, `kforge profile` in turns, 16 threads.
# .carry/ab16/<n>_old.c, <n>_new.c: the best kernels of the suites of this record (s1 at 474c785,
# s2 at 16a9966) and, for 33's old kernel, ../xeon16-cpu-membound-2026-11-29e (6de00d1).
set -u
{ echo "== $(date +%T) start"; uptime; grep -m1 'model\s*:' /proc/cpuinfo; nproc
  gcc -std=gnu11 -O2 -march=native -fopenmp bench/cpu/stream_bw.c -o /tmp/stream_bw && /tmp/stream_bw 16 256 5 | tee $OUT/bw-before-ab.txt
  TARBALL=$PWD/.carry/kforge-new.tar.gz MODE=exec CMD='
    set -u; cd '"$PWD"'
    for r in 1 2 3 4 5; do for n in 33 35 40; do for k in old new; do
      case $n in 33) p=problems/level1/33_BatchNorm.json;; 35) p=problems/level1/35_GroupNorm.json;; 40) p=problems/level1/40_LayerNorm.json;; esac
      printf "%s %s round %d: " $n $k $r
      KFORGE_THREADS=16 kforge profile --backend cpu-simd --problem $p --preset cpu --json .carry/ab16/${n}_$k.c |
        python3 -c "import json,sys; d=json.load(sys.stdin); t=d.get(\"timing\") or {}; print(d[\"verdict\"], \"median %.3f ms min %.3f ms\" % (t.get(\"median_s\",0)*1e3, t.get(\"min_s\",0)*1e3))"
    done; done; done | tee $OUT/ab16.txt
    echo "== $(date +%T) end"; uptime
  ' bash bench/gpu/run_gpu_suite.sh
  /tmp/stream_bw 16 256 5 | tee $OUT/bw-after-ab.txt
} 2>&1 | tee $OUT/call-ab.txt
rm -f $OUT/build.log $OUT/backends.txt $OUT/commit.txt $OUT/gpu.txt
ls -la $OUT
