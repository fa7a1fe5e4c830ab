#!/bin/bash
# The maps of the 84f82c4 suite (at-84f82c4: /tmp/suite-recz) in the harness: 19, 26, 88 at their
# step 1 (plain stores) and step 2 (streamed), beside ref_nt, 2 threads; then the same kernels cut
# to 8 rows (512 KiB in, 512 KiB out: the arithmetic with the data in L2), 1 and 2 threads.
set -u
H=$(dirname "$0"); T=/tmp/maps; mkdir -p $T
CF="-std=gnu11 -O3 -march=native -fopenmp -fPIC -shared -I/work/main/plugins/cpu-simd"
gcc -O2 $H/h2.c -I/work/main/plugins/cpu-simd -ldl -o $T/h2 2>/dev/null
gcc $CF $H/ref_nt.c -o $T/ref_nt.so
for p in 19_ReLU 26_GELU 88_MinGPTNewGelu; do for s in 1 2; do
  f=/tmp/suite-recz/runs/$p/steps/000$s-0/candidate/kernel.c; n=${p%%_*}
  gcc $CF $f -o $T/k${n}_s$s.so -lm
  sed -e 's/{1024, 16384}/{8, 16384}/; s/w < 8192/w < 64/; s/< 16777216/< 131072/' $f > $T/c${n}_s$s.c
  gcc $CF $T/c${n}_s$s.c -o $T/c${n}_s$s.so -lm
done; done
cd $T; date -u +%T; uptime
for r in 1 2; do echo "== round $r: 2 threads, 1024 x 16384"
  ./h2 1024,16384 2 21 ./ref_nt.so ./k19_s1.so ./k19_s2.so ./k26_s1.so ./k26_s2.so ./k88_s1.so ./k88_s2.so; done
echo "== 8 x 16384 (in cache), 1 thread"; ./h2 8,16384 1 2001 ./c19_s1.so ./c26_s1.so ./c88_s1.so
echo "== 8 x 16384 (in cache), 2 threads"; ./h2 8,16384 2 2001 ./c19_s1.so ./c26_s1.so ./c88_s1.so
date -u +%T; uptime
