#!/bin/bash
# device call (issue 15, 2026-11-29, session 4): map prefetch + one-sided exp clamp on the 16-core host:
# the harness (ReLU before/after the prefetch, GELU and tanh GELU at 5145f59 / after) at 16, 8, 2 threads.
set -u
TAG=${TAG:-p1}
{ echo "== $(date +%T) start"; uptime; grep -m1 'model\s*:' /proc/cpuinfo; nproc
  gcc -std=gnu11 -O2 -march=native -fopenmp bench/cpu/stream_bw.c -o /tmp/stream_bw && /tmp/stream_bw 16 256 5 | tee $OUT/bw-before-$TAG.txt
  A=.carry/pf
  K="19_ReLU pfk_19_ReLU new_26_GELU pfn_26_GELU new_88_MinGPTNewGelu pfn_88_MinGPTNewGelu"
  for k in $K; do gcc -std=gnu11 -O3 -march=native -fopenmp -fPIC -shared -Iplugins/cpu-simd $A/$k.c -o /tmp/$k.so; done
  gcc -O2 -Iplugins/cpu-simd $A/harness.c -o /tmp/h3 -ldl 2>/dev/null
  echo "== harness"
  for nt in 16 8 2 16 16; do echo "threads $nt"; OMP_PROC_BIND=close OMP_NUM_THREADS=$nt /tmp/h3 1024 16384 $nt 31 $(for k in $K; do printf "/tmp/%s.so " $k; done); done | tee $OUT/harness-$TAG.txt
  /tmp/stream_bw 16 256 5 | tee $OUT/bw-after-$TAG.txt
  echo "== $(date +%T) end"; uptime
} 2>&1 | tee $OUT/call-$TAG.txt
ls -la $OUT
