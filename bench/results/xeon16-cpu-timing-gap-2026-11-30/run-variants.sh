#!/bin/bash
# on the device: compile the harness and the kernels, time them in turns at 16 threads
cd "$(dirname "$0")"; O=${OUT:-/tmp/out}; mkdir -p $O
lscpu > $O/lscpu.txt; lscpu -C >> $O/lscpu.txt 2>&1; nproc >> $O/lscpu.txt
gcc -O2 h3.c -I . -ldl -lm -o h3 || exit 1
for k in ref_nt k33_cur k33_l2 k40_cur k40_fwd k40_rev k35_cur k26_s0 k26_s1 k88_s0 k88_s1; do
  gcc -std=gnu11 -O3 -march=native -fopenmp -fPIC -shared -I . $k.c -o $k.so -lm || echo FAIL $k; done
T=${T:-16}
for r in 1 2 3; do
  echo "== round $r, $T threads"; date +%T
  ./h3 16,64,16384 $T 21 ./ref_nt.so ./k33_cur.so ./k33_l2.so ./k35_cur.so
  ./h3 4,64,256,256 $T 21 ./ref_nt.so ./k40_cur.so ./k40_fwd.so ./k40_rev.so
  ./h3 1024,16384 $T 21 ./ref_nt.so ./k26_s0.so ./k26_s1.so
  ./h3 1024,16384 $T 21 ./ref_nt.so ./k88_s0.so ./k88_s1.so
done 2>&1 | tee $O/harness.txt
