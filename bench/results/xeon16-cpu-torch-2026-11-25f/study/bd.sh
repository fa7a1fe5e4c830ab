#!/bin/bash
# device: where the AMX GEMM's time goes on the 16-core host (09: packing vs tiles) and the tile-loop variants
OUT=${OUT:-/tmp/out}
mkdir -p /tmp/fb && : > /tmp/fb/config.h
export KF_BUILDDIR=/tmp/fb KF_HARNESS_FLAGS=-DKF_NO_BLAS
{
nproc; lscpu | grep -i "model name\|MHz\|L2\|L3"
for t in 16 8; do echo "== 09 breakdown threads $t"; sh bench/cpu_gemm/micro.sh problems/level2/09_*.json cpu $t 31 base=@.carry/exp/base.txt nopackb=@.carry/exp/nopackb.txt notiles=@.carry/exp/notiles.txt onlyA=@.carry/exp/onlyA.txt 2>&1 | tail -4; done
echo "== 09 breakdown threads 16, OMP_PROC_BIND=close"; OMP_PROC_BIND=close sh bench/cpu_gemm/micro.sh problems/level2/09_*.json cpu 16 31 base=@.carry/exp/base.txt nopackb=@.carry/exp/nopackb.txt 2>&1 | tail -2
gcc -O3 -march=native -fopenmp .carry/exp/tl4.c -o /tmp/tl4 && for t in 16 8; do echo "== tile loop threads $t"; /tmp/tl4 $t; done
} 2>&1 | tee $OUT/bd.txt
