#!/bin/bash
# device call 4 (issue 15, 2026-12-02 fifth session), 16-core host: bench/cpu_gemm/study/fma_ingredients.c,
# the micro-kernel's loop taken apart (loaded broadcasts, loaded B, both, loads beside register-only
# chains, the dependence pattern in registers) against the 24 FMA chains, at 1 and 16 threads, twice.
set -u
{ echo "== $(date +%T) start"; uptime; lscpu | grep -E 'Model name|^CPU\(s\)|Model:'
  gcc -O3 -march=native -fopenmp bench/cpu_gemm/study/fma_ingredients.c -o /tmp/fi || exit 1
  gcc -O3 -march=native -S bench/cpu_gemm/study/fma_ingredients.c -o $OUT/fma_ingredients.s
  for nt in 1 16 1 16; do OMP_PROC_BIND=close OMP_WAIT_POLICY=passive timeout 100 /tmp/fi $nt ${ROUNDS:-9} 4e9; done
  echo "== $(date +%T) end"; uptime
} 2>&1 | tee $OUT/ingredients.txt
