#!/bin/bash
# device call 3 (issue 15, 2026-12-02 fifth session), 16-core host: six micro-kernel forms of call 2
# (call-shapes.sh) at ten times the work a case (1e10 FLOPs a thread, about 80 ms), ROUNDS rounds (9),
# at 16, 1 and 16 threads.  No kforge build.
set -u
F=12x32pf,12x32u2,12x32eb,14x32eb,8x48,6x64pf
{ echo "== $(date +%T) start"; uptime; lscpu | grep -E 'Model name|^CPU\(s\)|Model:' 
  gcc -O3 -march=native -fopenmp bench/cpu_gemm/study/ukernel_shapes.c -o /tmp/us || exit 1
  for nt in 16 1 16; do OMP_PROC_BIND=close OMP_WAIT_POLICY=passive timeout 200 /tmp/us $nt ${ROUNDS:-9} 1e10 $F; done
  echo "== $(date +%T) end"; uptime
} 2>&1 | tee $OUT/shapes2.txt
