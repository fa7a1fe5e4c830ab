#!/bin/bash
# device call (issue 15, 2026-11-29, session 4): the prelude's GELUs (5145f59) on the 16-core host:
# the harness (ReLU, old/new 26 and 88 kernels from .carry/gelu) at 16 and 2 threads, then
# kforge profile of the old and new kernels in turns at 16 threads.
set -u
TAG=${TAG:-g1}
export KFORGE_PYTHON=python3
{ echo "== $(date +%T) start"; uptime; grep -m1 'model\s*:' /proc/cpuinfo; nproc
  gcc -std=gnu11 -O2 -march=native -fopenmp bench/cpu/stream_bw.c -o /tmp/stream_bw && /tmp/stream_bw 16 256 5 | tee $OUT/bw-before-$TAG.txt
  A=.carry/gelu
  for k in 19_ReLU old_26_GELU new_26_GELU old_88_MinGPTNewGelu new_88_MinGPTNewGelu; do gcc -std=gnu11 -O3 -march=native -fopenmp -fPIC -shared -Iplugins/cpu-simd $A/$k.c -o /tmp/$k.so; done
  gcc -O2 -Iplugins/cpu-simd $A/harness.c -o /tmp/h3 -ldl
  echo "== harness (ReLU, 26 old/new, 88 old/new)"
  for nt in 16 2 16; do echo "threads $nt"; OMP_PROC_BIND=close OMP_NUM_THREADS=$nt /tmp/h3 1024 16384 $nt 31 /tmp/19_ReLU.so /tmp/old_26_GELU.so /tmp/new_26_GELU.so /tmp/old_88_MinGPTNewGelu.so /tmp/new_88_MinGPTNewGelu.so; done | tee $OUT/harness-$TAG.txt
  TARBALL=$PWD/.carry/kforge-new.tar.gz MODE=exec CMD='
    set -u; cd '"$PWD"'
    echo "== $(date +%T) old/new"
    for r in 1 2 3 4; do for p in 26_GELU 88_MinGPTNewGelu; do for k in old new; do printf "%s %s round %d: " $p $k $r
      KFORGE_THREADS=16 kforge profile --backend cpu-simd --problem problems/level1/$p.json --preset cpu --json .carry/gelu/${k}_$p.c |
        python3 -c "import json,sys; d=json.load(sys.stdin); t=d.get(\"timing\") or {}; print(d[\"verdict\"], \"median %.3f ms min %.3f ms\" % (t.get(\"median_s\",0)*1e3, t.get(\"min_s\",0)*1e3))"
    done; done; done | tee $OUT/ab-'"$TAG"'.txt
    /tmp/stream_bw 16 256 5 | tee $OUT/bw-after-'"$TAG"'.txt
    echo "== $(date +%T) end"; uptime
  ' bash bench/gpu/run_gpu_suite.sh
} 2>&1 | tee $OUT/call-$TAG.txt
rm -f $OUT/build.log $OUT/backends.txt $OUT/commit.txt $OUT/gpu.txt
ls -la $OUT
