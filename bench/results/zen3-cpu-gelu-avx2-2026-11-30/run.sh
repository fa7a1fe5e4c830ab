#!/bin/bash
# 2-core Zen 3 VM (AMD EPYC family 25 model 1: AVX2 + FMA, no AVX-512), issue 15, 2026-11-30:
# the GELU block form on AVX2.  kernels/k26_table.c and k88_table.c are the cpu-simd kernels
# the built-in agent emits for 26_GELU and 88_MinGPTNewGelu at the cpu preset (1024 x 16384)
# with this change (fusion 2, stream 1); k*_formula.c the same text with the AVX2 branch of
# kf_gelu_block switched off (`#elif 0`): the loop over the element formulas (an exp and a
# division a float) that AVX2 took before.  h3 (../epyc2-cpu-avx2-rows-2026-11-30/h3.c): memfd
# input, the input rewritten before each timed call, kernels in turns; medians.  ref_nt.so:
# the streaming copy (AVX2 here).  k88_table.c: 88 as emitted with a tanh-GELU table for AVX2
# too (kf__q_gelu_tanh[7][8], the same layout), measured and not kept.  incache.c: each block
# form alone, one thread, in cache.
set -u
cd "$(dirname "$0")"; O=$(realpath -m "${OUT:-out}"); B=$(mktemp -d); mkdir -p $O
{ date -u +%FT%TZ; lscpu | grep -E 'Model name|^CPU\(s\)|Flags' | cut -c1-200; uptime; } > $O/machine.txt
gcc -O2 ../epyc2-cpu-avx2-rows-2026-11-30/h3.c -I ../epyc2-cpu-avx2-rows-2026-11-30 -ldl -lm -o $B/h3 || exit 1
gcc -std=gnu11 -O3 -march=native -fopenmp -fPIC -shared -I ../epyc2-cpu-avx2-rows-2026-11-30 ref_nt.c -o $B/ref_nt.so || exit 1
for k in k26_table k26_formula k88_table k88_formula; do
  gcc -std=gnu11 -O3 -march=native -fopenmp -fPIC -shared -I ../epyc2-cpu-avx2-rows-2026-11-30 kernels/$k.c -o $B/$k.so -lm || exit 1
done
for k in k26_table k26_formula k88_table k88_formula; do
  sed -n '1,/---- row helpers/p' kernels/$k.c > $B/pre_$k.h
  case $k in k26*) fn=kf_gelu_block;; *) fn=kf_gelu_tanh_block;; esac
  gcc -std=gnu11 -O3 -march=native -I ../epyc2-cpu-avx2-rows-2026-11-30 -DPRELUDE="\"pre_$k.h\"" -DFN=$fn -I $B incache.c -o $B/ic_$k -lm || exit 1
done
cd $B
{
echo "== in cache, one thread"
for k in k26_table k26_formula k88_table k88_formula; do ./ic_$k; ./ic_$k; done
for t in 2 1; do echo "== GELUs at the cpu preset (1024 x 16384), $t threads: table / formula"
./h3 1024,16384 $t 21 ./k26_table.so ./k26_formula.so ./ref_nt.so
./h3 1024,16384 $t 21 ./k88_table.so ./k88_formula.so ./ref_nt.so; done
} 2>&1 | tee $O/h3.txt
uptime >> $O/machine.txt
