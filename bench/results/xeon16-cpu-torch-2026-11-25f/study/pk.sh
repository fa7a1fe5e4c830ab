#!/bin/bash
# device: concurrent FMA/AMX peaks (bench/cpu/peak_concurrent.c), then 09's fp32 and AMX kernels at 16 and 8 threads (bound)
OUT=${OUT:-/tmp/out}
mkdir -p /tmp/fb && : > /tmp/fb/config.h
export KF_BUILDDIR=/tmp/fb KF_HARNESS_FLAGS=-DKF_NO_BLAS
{ lscpu | grep -E "Model name|^CPU\(s\)|Thread|MHz"; gcc -O2 -pthread bench/cpu/peak_concurrent.c -o /tmp/peak && /tmp/peak 1 2 4 8 12 16 && /tmp/peak 1 8 16
for t in 16 8; do echo "== 09 threads $t (OMP_PROC_BIND=close)"; OMP_PROC_BIND=close sh bench/cpu_gemm/micro.sh problems/level2/09_*.json cpu $t 31 fp32=@.carry/exp/09fp32.txt amx=@.carry/exp/base.txt 2>&1 | tail -3; done; } 2>&1 | tee $OUT/peak.txt
