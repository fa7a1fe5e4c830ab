#!/bin/bash
# on the device (16-core host): 04 matrix-vector kernels in turns, h4 harness (memfd A rewritten before each call)
cd "$(dirname "$0")"; O=${OUT:-/tmp/out}; mkdir -p $O
{ date +%T; uptime; grep -m1 'model\s*:' /proc/cpuinfo; nproc; cat /sys/kernel/mm/transparent_hugepage/shmem_enabled /sys/kernel/mm/transparent_hugepage/enabled; } > $O/machine.txt 2>&1
gcc -O2 h4.c -I . -ldl -lm -o h4 || exit 1
gcc -std=gnu11 -O2 -march=native -fopenmp stream_bw.c -o stream_bw || exit 1
for k in k04 g04_i g04_pf g04_pf2k g04_pft1 g04_pf8k g04_8; do
  gcc -std=gnu11 -O3 -march=native -fopenmp -fPIC -shared -I . $k.c -o $k.so -lm || echo FAIL $k; done
export OMP_PROC_BIND=close OMP_PLACES=cores
./stream_bw 16 256 5 | tee $O/bw-before.txt
for r in 1 2 3; do echo "== round $r $(date +%T), 16 threads"; ./h4 1024 32768 16 31 ./k04.so ./g04_i.so ./g04_pf.so ./g04_pf2k.so ./g04_pft1.so ./g04_pf8k.so ./g04_8.so; done 2>&1 | tee $O/gemv.txt
echo "== 8 threads"; ./h4 1024 32768 8 31 ./k04.so ./g04_i.so ./g04_pf.so ./g04_pf2k.so 2>&1 | tee -a $O/gemv.txt
./stream_bw 16 256 5 | tee $O/bw-after.txt
