#!/bin/bash
# device: AMX peaks with zero vs random tiles; vCPU pairs that share a core; tile loop (tl5) variants
OUT=${OUT:-/tmp/out}
{
lscpu | grep -E "Model name|^CPU\(s\)|Thread|MHz"
gcc -O2 -pthread bench/cpu/peak_concurrent.c -o /tmp/peak && /tmp/peak 1 8 16
echo "== pairs (0,j): FMA and AMX of two threads"
for j in $(seq 1 15); do printf "0,%-2d " $j; taskset -c 0,$j /tmp/peak 2 | tail -1; done
gcc -O3 -march=native -fopenmp .carry/exp/tl5.c -o /tmp/tl5
for t in 1 8 16; do for d in 1 0; do echo "== tl5 threads $t data $d"; OMP_PROC_BIND=close /tmp/tl5 $t $d 0; done; done
echo "== tl5 16 threads random huge"; OMP_PROC_BIND=close /tmp/tl5 16 1 1
echo "== tl5 8 threads on even CPUs"; OMP_PROC_BIND=close taskset -c 0,2,4,6,8,10,12,14 /tmp/tl5 8 1 0 | head -3
echo "== tl5 8 threads on 0-7"; OMP_PROC_BIND=close taskset -c 0-7 /tmp/tl5 8 1 0 | head -3
} 2>&1 | tee $OUT/x1.txt
