#!/bin/bash
# The GELU in L1 (8192 floats, one thread, best of 3000): the old prelude form (generic, omp simd),
# the table form inline (32 x degree 4, vpermt2ps; 16 x degree 5, vpermps) and called through GCC's
# simd variant from an omp simd loop.  pre.h is kernels/k26_old.c's prelude (up to the row helpers);
# t32.h / t16.h are an early fit (fit.py, 21 points an interval: only the timing is read here, the
# prelude's tables are prelude_qtables.py's).  Run from the repo root.
set -u
D=bench/results/epyc2-cpu-gelu-table-2026-11-30; T=$(mktemp -d)
awk '/^\/\* ---- row helpers/{exit} {print}' $D/kernels/k26_old.c > $T/pre.h
cp $D/l1/gb3.c $D/l1/t32.h $D/l1/t16.h $T/
gcc -std=gnu11 -O3 -march=native -fopenmp -I plugins/cpu-simd -DH16AMAX=5.80875f -DH16INV=2.666666746f $T/gb3.c -o $T/gb3 -lm
$T/gb3; rm -rf $T
