#!/bin/bash
# device call 5 (issue 15, 2026-12-02 fifth session), 16-core host: bench/cpu_gemm/study/fma_loads.c,
# the 24 FMA chains with 0-12 broadcast and 0-6 vector loads beside them, at 1 thread four times
# and 16 threads twice, 9 rounds each.
set -u
{ echo "== $(date +%T) start"; uptime; lscpu | grep -E 'Model name|^CPU\(s\)|Model:|Thread|Core'
  gcc -O3 -march=native -fopenmp bench/cpu_gemm/study/fma_loads.c -o /tmp/fl || exit 1
  for nt in 1 16 1 1 16 1; do echo "== $(date +%T)"; OMP_PROC_BIND=close OMP_WAIT_POLICY=passive timeout 100 /tmp/fl $nt ${ROUNDS:-9} 4e9; done
  echo "== $(date +%T) end"; uptime
} 2>&1 | tee $OUT/loads.txt
