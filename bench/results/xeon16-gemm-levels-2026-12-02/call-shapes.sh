#!/bin/bash
# device call 2 (issue 15, 2026-12-02 fifth session), 16-core host: fp32 AVX-512 micro-kernel shapes
# and forms alone (bench/cpu_gemm/study/ukernel_shapes.c), data in L1 and streaming from L2, beside
# the FMA peak in the same rounds, at 1, 8 and 16 threads, ROUNDS rounds (7).  No kforge build.
set -u
{ echo "== $(date +%T) start"; uptime; lscpu | grep -E 'Model name|^CPU\(s\)|Model:|L1d|L2|L3|Flags' | cut -c1-400
  gcc --version | head -1
  gcc -O3 -march=native -fopenmp bench/cpu_gemm/study/ukernel_shapes.c -o /tmp/us || exit 1
  gcc -O3 -march=native -S bench/cpu_gemm/study/ukernel_shapes.c -o $OUT/ukernel_shapes.s
  for nt in 1 16 8 1 16; do OMP_PROC_BIND=close OMP_WAIT_POLICY=passive timeout 200 /tmp/us $nt ${ROUNDS:-7}; done
  echo "== $(date +%T) end"; uptime
} 2>&1 | tee $OUT/shapes.txt
