#!/bin/bash
# device: 09's AMX GEMM with the threads split over rows too (tm 2, 4) and W prefetched into L2 for the next group, bound threads
OUT=${OUT:-/tmp/out}
mkdir -p /tmp/fb && : > /tmp/fb/config.h
export KF_BUILDDIR=/tmp/fb KF_HARNESS_FLAGS=-DKF_NO_BLAS OMP_PROC_BIND=close
{ for r in 1 2; do for t in 16 8; do echo "== 09 threads $t round $r"; sh bench/cpu_gemm/micro.sh problems/level2/09_*.json cpu $t 41 base=@.carry/exp/base.txt tm2=@.carry/exp/09tm2.txt tm4=@.carry/exp/09tm4.txt tm4pf=@.carry/exp/09tm4pf.txt 2>&1 | tail -4; done; done; } 2>&1 | tee $OUT/tm.txt
