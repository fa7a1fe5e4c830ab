#!/bin/bash
# GELU over 8192 floats in L1, one thread: the prelude's kf_gelu as the kernels' loops vectorise it,
# the same formula in AVX-512 intrinsics with vdivps, and with vrcp14ps and one Newton step
cd "$(dirname "$0")"
grep -m1 'model\s*:' /proc/cpuinfo; grep -m1 'MHz' /proc/cpuinfo
gcc -std=gnu11 -O3 -march=native -fopenmp -I. -I../../plugins/cpu-simd gb.c -o /tmp/gb -lm && for i in 1 2 3; do /tmp/gb; done | tee $OUT/gb.txt
